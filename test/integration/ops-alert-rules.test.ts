/**
 * The healing and sentinel alert rules (prometheus/rules/healing.yml, sentinel.yml) pass promtool's
 * checks and unit tests and are loaded by the stack's running Prometheus, which globs
 * prometheus/rules/*.yml. A Prometheus started before a rule file was added picks it up on
 * /-/reload (lifecycle API; the configuration is re-read, nothing restarts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { loadStackConfig, repoRoot, stackEndpoints } from '@rag-immune/stack';

const run = promisify(execFile);
const root = repoRoot();
const groups: Record<string, string[]> = {
  'rag-immune-healing': [
    'RagImmuneEscalationWaiting',
    'RagImmuneIncidentOpenTooLong',
    'RagImmuneRepairBreakerOpen',
    'RagImmuneRepairsFailing',
    'RagImmuneRollbacks',
  ],
  'rag-immune-sentinel': ['RagImmuneSentinelProbesFailing', 'RagImmuneSentinelPublishFailing', 'RagImmuneSentinelSilent'],
};

test('promtool checks the rules and passes their unit tests', async () => {
  for (const [file, count] of [
    ['healing', 5],
    ['sentinel', 3],
  ] as const) {
    const check = await run('promtool', ['check', 'rules', join(root, `prometheus/rules/${file}.yml`)]);
    assert.match(check.stdout, new RegExp(`SUCCESS: ${count} rules found`));
    const unit = await run('promtool', ['test', 'rules', join(root, `prometheus/tests/${file}.test.yml`)]);
    assert.match(unit.stdout + unit.stderr, /SUCCESS/);
  }
  // Every rule file against series born at their first event, as prom-client exports them.
  const firstEvent = await run('promtool', ['test', 'rules', join(root, 'prometheus/tests/first-event.test.yml')]);
  assert.match(firstEvent.stdout + firstEvent.stderr, /SUCCESS/);
});

test('the running Prometheus of the stack has loaded the healing and sentinel rules', async () => {
  const prometheus = stackEndpoints(loadStackConfig()).prometheusUrl;
  const reload = await fetch(`${prometheus}/-/reload`, { method: 'POST' });
  assert.equal(reload.status, 200, await reload.text());
  const body = (await (await fetch(`${prometheus}/api/v1/rules?type=alert`)).json()) as {
    data: { groups: { name: string; file: string; rules: { name: string; health: string }[] }[] };
  };
  for (const [name, rules] of Object.entries(groups)) {
    const group = body.data.groups.find((g) => g.name === name);
    assert.ok(group, `${name} not among ${body.data.groups.map((g) => g.name).join(', ')}`);
    assert.deepEqual(group.rules.map((r) => r.name).sort(), rules);
    assert.ok(group.file.startsWith(join(root, 'prometheus', 'rules')), group.file);
  }
});
