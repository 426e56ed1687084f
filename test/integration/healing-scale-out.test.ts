/**
 * Scale-out: the identifier and the effector each run as two replicas (two processes in one consumer
 * group per worker), the sentinel and memory as one. Each fault must still become exactly one
 * incident, each report revision is published once, and each repair runs once: the replicas share
 * the partitions, and the incident and action state in Elasticsearch (optimistic concurrency) keeps
 * two of them from doing the same work.
 *
 * The consuming workers run on the shared Elasticsearch processed-event store (BUS_PROCESSED_EVENTS,
 * as the Helm charts set it), and during the second fault the consumer groups rebalance mid-stream:
 * identifier-2 is SIGKILLed at the fault's first anomalous result and rejoins, effector-2 is SIGKILLed
 * when the first report is out and rejoins. Events redelivered to the other replica must not be
 * handled twice (no report, repair step or verified repair twice), and none may be lost (every probe
 * result recorded as handled by the identifier group).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Client } from '@elastic/elasticsearch';
import { sleep } from '@rag-immune/test-kit';
import { LoopRun } from '@rag-immune/test-kit/loop/loop-run';
import { runTrial } from '@rag-immune/test-kit/loop/trial';

/** SIGKILLs `name` and starts it again (it rejoins its group: a second rebalance). */
async function killAndRejoin(name: string, kills: string[]): Promise<void> {
  await run.system.kill(name);
  kills.push(`${name} killed +${((Date.now() - chaosFrom) / 1000).toFixed(1)}s`);
  await sleep(2000);
  await run.system.restart(name);
  kills.push(`${name} rejoined +${((Date.now() - chaosFrom) / 1000).toFixed(1)}s`);
}

let chaosFrom = 0;

/**
 * While the trial runs, two watchers at once: identifier-2 dies at the fault's first anomalous probe
 * result, effector-2 at the first report of its incident; each rejoins. Resolves with what happened, once
 * both happened or `stop` is set.
 */
async function rebalanceMidStream(from: number, stop: { done: boolean }): Promise<string[]> {
  chaosFrom = from;
  const kills: string[] = [];
  const when = async (seen: () => boolean, name: string) => {
    while (!stop.done) {
      if (seen()) return killAndRejoin(name, kills);
      await sleep(100);
    }
  };
  // Only this fault's events: anomalies measured after its injection began, reports of a new incident.
  const known = new Set(run.recorder.reports.map((r) => r.event.incident_id));
  await Promise.all([
    when(() => run.recorder.probes.some((p) => p.event.occurred_at >= from && p.event.anomaly), 'identifier-2'),
    when(() => run.recorder.reports.some((r) => !known.has(r.event.incident_id)), 'effector-2'),
  ]);
  return kills;
}

/** The events of `eventIds` the worker's consumer group has no `processed` entry for in the shared store. */
async function unhandled(worker: 'identifier' | 'effector', eventIds: string[]): Promise<string[]> {
  const es = new Client({ node: run.endpoints.elasticsearchUrl });
  try {
    const group = `${run.namespace}-${worker}`;
    const found = await es.mget<{ state: string }>({
      index: `${run.namespace}-processed-events`,
      ids: eventIds.map((id) => `${group}/${id}`),
    });
    return found.docs.filter((d) => !('found' in d) || !d.found || d._source?.state !== 'processed').map((d) => d._id);
  } finally {
    await es.close();
  }
}

/** Polls `unhandled` until every event is handled or `timeoutMs` passed; the ones still unhandled. */
async function handledWithin(worker: 'identifier' | 'effector', eventIds: string[], timeoutMs: number): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = await unhandled(worker, eventIds);
    if (left.length === 0 || Date.now() > deadline) return left;
    await sleep(2000);
  }
}

/** How many redelivered events the workers skipped as already handled (their `duplicate event skipped` lines). */
function skippedDuplicates(): number {
  return run.system.instances
    .map(
      (w) =>
        readFileSync(w.process.spec.logFile, 'utf8')
          .split('\n')
          .filter((l) => l.includes('"duplicate event skipped"')).length,
    )
    .reduce((a, b) => a + b, 0);
}

let run: LoopRun;

before(async () => {
  run = new LoopRun({
    label: 'it-scale',
    packages: 25,
    probeCount: 8,
    probeIntervalSeconds: 4,
    replicas: { identifier: 2, effector: 2 },
    processedEvents: 'elasticsearch',
  });
  await run.start();
});

after(async () => {
  await run?.close();
});

for (const kind of ['vector-index-corruption', 'reranker-drift']) {
  const rebalance = kind === 'reranker-drift';
  const title = rebalance
    ? `${kind} while both groups rebalance mid-stream (a replica of each SIGKILLed and rejoining), on the shared processed-event store: every event handled exactly once, healed`
    : `${kind} with two identifiers and two effectors: one incident, each report and each repair once, healed`;
  test(title, async () => {
    const from = Date.now();
    const stop = { done: false };
    const chaos = rebalance ? rebalanceMidStream(from, stop) : Promise.resolve([]);
    let trial;
    try {
      trial = await runTrial(run.context, { kind, fraction: 0.5, seed: 'scale' }, { timeoutMs: 360_000 });
    } finally {
      stop.done = true;
    }
    const kills = await chaos;
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
    if (rebalance) {
      console.log(`  rebalance: ${kills.join(', ')}; redelivered events skipped as handled: ${skippedDuplicates()}`);
      assert.equal(kills.length, 4, `both replicas killed and rejoined: ${kills.join(', ')}`);
      // None lost: every probe result of the trial (but the last seconds' own, maybe still in hand) handled by the group.
      // (a partition of the killed replica waits for the group to rebalance: given until the store says handled).
      const settled = run.recorder.probes
        .filter((p) => p.receivedAt >= from && p.receivedAt < Date.now() - 15_000)
        .map((p) => p.event.event_id);
      assert.ok(settled.length > 0);
      assert.deepEqual(await handledWithin('identifier', settled, 120_000), [], 'probe results the identifier group never handled');
      const reported = run.recorder.reports.filter((r) => trial.incidents.includes(r.event.incident_id)).map((r) => r.event.event_id);
      // A report in hand of the killed effector is stored before it dies: another replica's sweep acts on it
      // (the repair above), while its redelivery waits for the rebalance and the dead claim's lease. Lost
      // would be a report neither acted on nor handled.
      const pending = await handledWithin('effector', reported, 120_000);
      const actedOn = new Set(actions.map((a) => a.report_event_id));
      if (pending.length > 0) console.log(`  reports still pending redelivery in the effector group after 120 s: ${pending.join(', ')}`);
      assert.deepEqual(
        pending.filter((id) => !actedOn.has(id.slice(id.lastIndexOf('/') + 1))),
        [],
        "reports of the trial's incident the effector group neither acted on nor handled",
      );
      // Reports of incidents the rebalance itself caused (stale anomalies read late by the rejoined identifier) are
      // shown, not asserted: one such report once stayed unconsumed for over a minute after the effector's kill.
      const others = run.recorder.reports.filter((r) => r.receivedAt >= from && !trial.incidents.includes(r.event.incident_id));
      if (others.length > 0)
        console.log(
          `  other incidents' reports: ${others.length}, unhandled by the effector group: ${
            (
              await unhandled(
                'effector',
                others.map((r) => r.event.event_id),
              )
            ).length
          }`,
        );
    }
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
