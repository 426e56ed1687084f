import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { CATALOGUE, TOOLS, defineTool, toolBox } from '../../src/index.ts';

const SRC = new URL('../../src/', import.meta.url).pathname;

test('the catalogue has one terminal tool, and escalations are recorded under it', () => {
  assert.deepEqual(
    TOOLS.filter((t) => t.terminal).map((t) => t.name),
    [CATALOGUE.escalation.name],
  );
  assert.equal(CATALOGUE.named(CATALOGUE.escalation.name), CATALOGUE.escalation);
});

test('a tool box refuses no terminal tool and two', () => {
  const tool = (name: string, terminal: boolean) =>
    defineTool({
      name,
      version: '1',
      intent: 'escalate_to_human',
      description: name,
      input: z.object({}),
      touchesQdrant: false,
      reversible: true,
      terminal,
      plan: async () => ({}),
      preconditions: async () => {},
      capture: async () => ({}),
      execute: async () => ({ detail: {} }),
      verify: async () => null,
      undo: async () => {},
      describeUndo: () => [],
    });
  assert.throws(() => toolBox([tool('a', false)]), /exactly one terminal/);
  assert.throws(() => toolBox([tool('a', true), tool('b', true)]), /exactly one terminal/);
  assert.equal(toolBox([tool('a', false), tool('b', true)]).escalation.name, 'b');
});

test('the restore tool protects the snapshot it chose; no other tool protects one', () => {
  for (const t of TOOLS) {
    const protects = t.protectedSnapshots?.({ collection: 'c', snapshot_id: 's-1' }) ?? [];
    assert.deepEqual(protects, t.name === 'restore_collection_snapshot' ? ['s-1'] : [], t.name);
  }
});

test("the effector's loop, runner, escalation, events, operator and pruning name no tool", () => {
  const rooms = ['effector.ts', 'plan', 'run', 'escalation', 'events', 'operator', 'grants', 'snapshots', 'state'];
  const files = rooms.flatMap((room) =>
    room.endsWith('.ts') ? [join(SRC, room)] : readdirSync(join(SRC, room)).map((file) => join(SRC, room, file)),
  );
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const t of TOOLS) assert.ok(!text.includes(`'${t.name}'`), `${file} names the tool ${t.name}`);
  }
});
