/**
 * Scale-out: the identifier and the effector each run as two replicas (two processes in one consumer
 * group per worker), the sentinel and memory as one. Each fault must still become exactly one
 * incident, each report revision is published once, and each repair runs once: the replicas share
 * the partitions, and the incident and action state in Elasticsearch (optimistic concurrency) keeps
 * two of them from doing the same work.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { LoopRun } from '@rag-immune/test-kit/loop/loop-run';
import { runTrial } from '@rag-immune/test-kit/loop/trial';

let run: LoopRun;

before(async () => {
  run = new LoopRun({
    label: 'it-scale',
    packages: 25,
    probeCount: 8,
    probeIntervalSeconds: 4,
    replicas: { identifier: 2, effector: 2 },
  });
  await run.start();
});

after(async () => {
  await run?.close();
});

for (const kind of ['vector-index-corruption', 'reranker-drift']) {
  test(`${kind} with two identifiers and two effectors: one incident, each report and each repair once, healed`, async () => {
    const trial = await runTrial(run.context, { kind, fraction: 0.5, seed: 'scale' }, { timeoutMs: 300_000 });
    const reports = run.recorder.reports.map((r) => r.event).filter((r) => trial.incidents.includes(r.incident_id));
    const actions = run.recorder.actions.map((a) => a.event).filter((a) => trial.incidents.includes(a.incident_id));
    console.log(
      `${kind}: ${trial.outcome}; reports ${reports.map((r) => `r${r.report_revision}@${r.producer.instance}`).join(' ')}; ` +
        `actions ${actions.map((a) => `${a.intent}:${a.status}@${a.producer.instance}`).join(' ')}`,
    );
    // Events carry host/pid as producer instance, and the workers' own [HEALING] lines say which
    // replica did what.
    const byReplica = run.recorder.healing
      .filter((h) => h.incidentId !== null && trial.incidents.includes(h.incidentId))
      .map((h) => `${h.worker}: ${h.message.slice(0, 40)}`);
    console.log(`  replicas: ${[...new Set(byReplica)].join(' | ')}`);
    assert.equal(trial.incidents.length, 1, `incidents: ${trial.incidents.join(', ')}`);
    const revisions = reports.map((r) => `${r.incident_id}#${r.report_revision}`);
    assert.deepEqual(revisions, [...new Set(revisions)], 'each report revision published once');
    const steps = actions.map((a) => `${a.action_id}:${a.status}`);
    assert.deepEqual(steps, [...new Set(steps)], 'each lifecycle step of each repair published once');
    // One verified repair per report revision (a revision that widens the scope may need another).
    const verified = actions.filter((a) => a.status === 'succeeded').map((a) => a.report_event_id);
    assert.ok(verified.length >= 1, 'a verified repair');
    assert.deepEqual(verified, [...new Set(verified)], 'a report repaired twice');
    assert.equal(trial.outcome, 'healed');
    // The next fault must be a new incident: wait until this one closes.
    assert.ok(await run.incidentsClosed(trial.incidents, 90_000), 'the incident closed');
  });
}

test('both replicas of each scaled worker are alive members of their group', async () => {
  for (const name of ['identifier-1', 'identifier-2', 'effector-1', 'effector-2']) {
    const worker = run.system.worker(name);
    assert.ok(worker.process.running, `${name} running`);
    assert.equal((await fetch(`${worker.url}/healthz`)).status, 200, `${name} healthy`);
  }
});
