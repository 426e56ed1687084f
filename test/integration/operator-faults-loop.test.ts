/**
 * Issue 30, items 2 and 3, in the closed loop on the real stack: faults an operator makes straight in
 * the online RAG's Qdrant collection, with no fault API, each healed by the workers alone.
 * - unpublished-knowledge: a version no feed published is ingested for some probed knowledge (a
 *   leaked test record). Before the feed check it counted as a knowledge update and nothing fired.
 * - attribution-swap: two documents' ids swapped in the chunk metadata. Answers stay right while
 *   their citations name the other document; before the attribution signal nothing fired.
 * Each must be detected, named with its own cause, repaired by re-ingesting from the feed, verified
 * and seen recovered by the sentinel; then the incident closes with no further action.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { LoopRun } from '@rag-immune/test-kit/loop/loop-run';
import { expectationOf } from '@rag-immune/test-kit/loop/faults';
import { runTrial, type TrialResult } from '@rag-immune/test-kit/loop/trial';
import { sleep } from '@rag-immune/test-kit';

const INTERVAL_SECONDS = 4;
const DETECTION_SLACK_MS = 5_000;

let run: LoopRun;

before(async () => {
  run = new LoopRun({ label: 'it-opfault', packages: 25, probeCount: 8, probeIntervalSeconds: INTERVAL_SECONDS });
  await run.start();
});

after(async () => {
  await run?.close();
});

const secondsAfter = (trial: TrialResult, at?: number) => (at === undefined ? 'never' : `${((at - trial.injectedAt) / 1000).toFixed(1)} s`);

test('clean phase: no anomaly, no report, no repair action', async () => {
  const clean = await run.cleanRounds(1);
  assert.ok(clean.results >= run.probes.probes.length, `probe results: ${clean.results}`);
  assert.deepEqual(
    { anomalies: clean.anomalies, reports: clean.reports, actions: clean.actions },
    { anomalies: 0, reports: 0, actions: 0 },
  );
});

for (const [kind, signal] of [
  ['unpublished-knowledge', 'unpublished_knowledge'],
  ['attribution-swap', 'wrong_attribution'],
] as const) {
  const expectation = expectationOf(kind);
  test(`${kind}: detected (${signal}), named ${expectation.cause}, re-ingested and verified, then a clean phase with no action`, async () => {
    await run.incidentsClosed([...new Set(run.recorder.reports.map((r) => r.event.incident_id))], 120_000);
    const trial = await runTrial(run.context, { kind, fraction: 0.25, seed: 'ci' }, { timeoutMs: 150_000 });
    console.log(
      `${kind}: ${trial.outcome}; ${JSON.stringify(trial.body.scope)}; detected ${secondsAfter(trial, trial.detectedAt)} ` +
        `[${trial.firstAnomaly?.anomaly_signals.join(',') ?? '-'}], report ${secondsAfter(trial, trial.firstReportAt)} ` +
        `(${trial.finalReport?.root_cause}/${trial.finalReport?.affected_component} ${trial.finalReport?.confidence.toFixed(2)} ` +
        `${trial.finalReport?.affected_knowledge_ids.join(',')}), verified ${secondsAfter(trial, trial.verifiedAt)} by ${trial.verifiedIntent ?? '-'}, ` +
        `sentinel recovered ${secondsAfter(trial, trial.sentinelRecoveredAt)}, ` +
        `actions ${trial.actions.map((a) => `${a.tool}:${a.statuses.join('>')}`).join(' ') || '-'}`,
    );
    assert.ok(trial.touched.length > 0, 'the fault touches some probes');
    assert.ok(trial.detectedAt !== undefined, 'detected');
    assert.ok(trial.firstAnomaly?.anomaly_signals.includes(signal), `signals ${trial.firstAnomaly?.anomaly_signals.join(',')}`);
    const period = Math.max(INTERVAL_SECONDS * 1100, run.observedProbePeriodMs());
    assert.ok(
      trial.detectedAt - trial.injectedAt <= period * 2 + DETECTION_SLACK_MS,
      `detection took ${trial.detectedAt - trial.injectedAt} ms (probe period ${period} ms)`,
    );
    assert.equal(trial.incidents.length, 1, `one incident: ${trial.incidents.join(', ')}`);
    assert.equal(trial.wrongRepairVerified, false, 'a repair that does not heal this fault was verified as success');
    assert.equal(trial.finalReport?.root_cause, expectation.cause);
    assert.ok(expectation.components.includes(trial.finalReport.affected_component), trial.finalReport.affected_component);
    // The report names every damaged id a probe saw before the repair, and nothing undamaged. An id
    // whose probe's turn came after the (whole-index) repair was healed unseen: the sentinel's clean
    // round of every touched probe below is what shows it.
    for (const id of trial.seenKnowledgeIds) assert.ok(trial.finalReport.affected_knowledge_ids.includes(id), `report names ${id}`);
    for (const id of trial.finalReport.affected_knowledge_ids)
      assert.ok(trial.affectedKnowledgeIds?.includes(id), `report names ${id}, which the fault did not touch`);
    assert.equal(trial.outcome, 'healed');
    assert.ok(expectation.healingIntents.includes(trial.verifiedIntent as never), `verified by ${trial.verifiedIntent}`);
    assert.ok(trial.sentinelRecoveredAt !== undefined, 'the sentinel sees every touched probe clean again');
    const phaseStart = Date.now();
    assert.ok(await run.incidentsClosed(trial.incidents, INTERVAL_SECONDS * 1000 * 6 + 30_000), 'the incident closed');
    await sleep(INTERVAL_SECONDS * 1000);
    const lateReports = run.recorder.reports.filter((r) => r.receivedAt >= phaseStart && !trial.incidents.includes(r.event.incident_id));
    const lateActions = run.recorder.actions.filter((a) => a.receivedAt >= phaseStart);
    assert.deepEqual(
      [...lateReports.map((r) => `report ${r.event.root_cause}`), ...lateActions.map((a) => `action ${a.event.intent} ${a.event.status}`)],
      [],
    );
  });
}
