/**
 * Issue 40 item 7: no undo silently does nothing. A pin whose RAG does not say which build it
 * replaces is refused before it runs, and an undo with no recorded build fails for good (the incident
 * goes to a person) instead of returning as if done; an interrupted repair whose snapshot record is
 * missing is failed and escalated, never re-run on a collection that was not put back.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pinGeneratorVersion } from '../../src/actions/pin-generator-version.ts';
import { pinRerankerVersion } from '../../src/actions/pin-reranker-version.ts';
import { reparseDocuments } from '../../src/actions/reparse-documents.ts';
import { PreconditionError, UndoImpossible, type ToolContext } from '../../src/actions/repair-tool.ts';
import type { ActionDoc } from '../../src/index.ts';
import { report, startLoop, type Loop } from './support/loop-fixture.ts';

/** A RAG reporting `active` as its builds in force; records the pin calls it receives. */
function ragContext(active: Record<string, string> | undefined) {
  const calls: string[] = [];
  const pin = (what: string) => async (body: { version?: string }) => {
    calls.push(`${what} ${body.version}`);
    return { ok: true, action: what, detail: {} };
  };
  const online = {
    capabilities: async () => ({
      repair_hooks: ['generator_pin', 'reranker_pin', 'parser'],
      ...(active === undefined ? {} : { active_versions: active }),
    }),
    pinGenerator: pin('pin_generator'),
    pinReranker: pin('pin_reranker'),
    repairParser: pin('parser'),
  };
  return { calls, ctx: { online, timeoutMs: 1000 } as unknown as ToolContext };
}

const pins = [
  { tool: pinGeneratorVersion, args: { version: 'g-good' }, component: 'generator', field: 'version' },
  { tool: pinRerankerVersion, args: { version: 'r-good' }, component: 'reranker', field: 'version' },
  { tool: reparseDocuments, args: { parser_version: 'p-good', knowledge_ids: ['k1'] }, component: 'parser', field: 'parser_version' },
] as const;

test('a pin without a known prior build is refused before it runs (preconditions and capture)', async () => {
  for (const { tool, args, component } of pins) {
    for (const active of [undefined, {}, { [component]: '' }]) {
      const { ctx, calls } = ragContext(active);
      await assert.rejects(
        tool.preconditions(ctx, args as never),
        (error: unknown) => error instanceof PreconditionError && new RegExp(`which ${component} build`).test(error.message),
        `${tool.name} with active_versions ${JSON.stringify(active)}`,
      );
      await assert.rejects(tool.capture(ctx, args as never), PreconditionError);
      assert.deepEqual(calls, []);
    }
    const { ctx } = ragContext({ [component]: `${component}-bad` });
    await tool.preconditions(ctx, args as never);
    assert.deepEqual(Object.values(await tool.capture(ctx, args as never)), [`${component}-bad`]);
  }
});

test('an undo with no recorded build fails for good (UndoImpossible) instead of doing nothing; with one it pins back', async () => {
  for (const { tool, args, field } of pins) {
    const { ctx, calls } = ragContext({});
    for (const prior of [{}, { [field]: null }]) await assert.rejects(tool.undo(ctx, args as never, prior), UndoImpossible, tool.name);
    assert.deepEqual(calls, [], `${tool.name}: nothing called`);
    await tool.undo(ctx, args as never, { [field]: 'was-before' });
    assert.equal(calls.length, 1);
    assert.match(calls[0] ?? '', / was-before$/);
  }
});

/** An action of `incident` left `started` by a dead replica, with a snapshot whose record is gone. */
async function interruptedWithoutSnapshotRecord(loop: Loop, incident: string): Promise<ActionDoc> {
  await loop.deps.modes.set('approve', 'test');
  assert.equal(await loop.effector.process(report(incident)), 'awaiting_grant');
  const [doc] = await loop.deps.actions.list({ incident });
  assert.ok(doc);
  await loop.deps.actions.move((await loop.deps.actions.get(doc.key))!, 'started', {
    owner: 'replica-dead',
    lease_until: Date.now() - 1,
    executions: 1,
    snapshot_id: 'snap-never-recorded',
    prior_json: '{"healthy_before":false}',
  });
  await loop.deps.modes.set('auto', 'test');
  return doc;
}

test('an interrupted repair whose snapshot record is missing is failed and escalated, not re-run on the unrestored collection', async () => {
  const loop = await startLoop({ tools: [{ name: 'rewrite', heals: true, touchesQdrant: true }] });
  const doc = await interruptedWithoutSnapshotRecord(loop, 'inc-w1');
  const [resumed] = await loop.effector.recoverInFlight();
  assert.deepEqual(resumed, { incident_id: 'inc-w1', outcome: 'escalated' });
  assert.deepEqual(loop.rag.log, [], 'neither undone halfway nor executed again');
  const after = (await loop.deps.actions.get(doc.key))!.doc;
  assert.equal(after.status, 'failed');
  assert.equal(after.executions, 1);
  assert.match(after.rollback_reason ?? '', /snapshot snap-never-recorded is not recorded/);
  assert.ok(loop.lifecycle('inc-w1').includes('rewrite:failed'), 'the failure is published');
  const escalated = loop.events.find((e) => e.incident_id === 'inc-w1' && e.status === 'escalated');
  assert.equal(escalated?.arguments.escalation, 'undo_failed');
  assert.equal((await loop.deps.incidents.get('inc-w1'))?.doc.status, 'escalated');
});
