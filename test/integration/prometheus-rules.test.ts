import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { loadStackConfig, repoRoot, stackEndpoints } from '@rag-immune/stack';

const run = promisify(execFile);
const root = repoRoot();

test('the alert rules pass promtool check and their unit tests', async () => {
  const check = await run('promtool', ['check', 'rules', join(root, 'prometheus/rules/bus.yml')]);
  assert.match(check.stdout, /SUCCESS: 3 rules found/);
  const unit = await run('promtool', ['test', 'rules', join(root, 'prometheus/tests/bus.test.yml')]);
  assert.match(unit.stdout + unit.stderr, /SUCCESS/);
});

test('the running Prometheus of the stack has loaded the bus alert rules', async () => {
  const url = `${stackEndpoints(loadStackConfig()).prometheusUrl}/api/v1/rules?type=alert`;
  const body = (await (await fetch(url)).json()) as { data: { groups: { name: string; rules: { name: string }[] }[] } };
  const group = body.data.groups.find((g) => g.name === 'rag-immune-bus');
  assert.ok(group, `rag-immune-bus not among ${body.data.groups.map((g) => g.name).join(', ')}`);
  assert.deepEqual(group.rules.map((r) => r.name).sort(), [
    'RagImmuneConsumerLagGrowing',
    'RagImmuneEventsDeadLettered',
    'RagImmuneHandlerRetriesExhausted',
  ]);
});
