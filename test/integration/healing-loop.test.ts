/**
 * The closed loop in CI (the short version of bench/healing): the reference RAG pair and the four
 * workers as their own processes on the real stack, one trial per fault kind on the same RAG and
 * workers. After a clean phase, each fault is injected (never undone by the test, but for an
 * earlier fault of the same kind, withdrawn before the next one of that kind) and must be
 * detected within one probe interval, named with the right cause, repaired and verified by the
 * effector and seen recovered by the sentinel; the incident then closes and the clean phase that
 * follows has no report and no action. Kinds whose repairs would mask a later kind run last; the
 * unseen kind (no repair can heal it) runs at the very end and must get no wrongly verified repair.
 */
import { callFaultAdmin } from '@rag-immune/rag-contract';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { LoopRun } from '@rag-immune/test-kit/loop/loop-run';
import { expectationOf } from '@rag-immune/test-kit/loop/faults';
import { runTrial, type TrialResult } from '@rag-immune/test-kit/loop/trial';
import { sleep } from '@rag-immune/test-kit';

const INTERVAL_SECONDS = 4;
/** Publishing and reading back, and a result the sentinel had in flight. */
const DETECTION_SLACK_MS = 5_000;
const ORDER: { kind: string; mode?: string }[] = [
  { kind: 'vector-index-corruption' },
  { kind: 'reranker-drift' },
  { kind: 'tokenizer-anomaly' },
  { kind: 'parser-bug' },
  { kind: 'knowledge-source-failure', mode: 'stale' },
  // The same cause, another repair: the backup switch fails verification, a re-ingest heals.
  { kind: 'knowledge-source-failure', mode: 'ingest-stalled' },
  // Answer validation (its repair) stays on and would withhold later faulty answers: after the others.
  { kind: 'generator-inconsistency' },
  // Nothing heals it: last.
  { kind: 'embedding-model-swap' },
];

let run: LoopRun;
const injectedKinds = new Set<string>();

before(async () => {
  run = new LoopRun({ label: 'it-loop', packages: 25, probeCount: 8, probeIntervalSeconds: INTERVAL_SECONDS });
  await run.start();
});

after(async () => {
  await run?.close();
});

const secondsAfter = (trial: TrialResult, at?: number) => (at === undefined ? 'never' : `${((at - trial.injectedAt) / 1000).toFixed(1)} s`);

test('clean phase: no anomaly, no report, no repair action', async () => {
  const clean = await run.cleanRounds(2);
  assert.ok(clean.results >= 2 * run.probes.probes.length, `probe results: ${clean.results}`);
  assert.deepEqual(
    { anomalies: clean.anomalies, reports: clean.reports, actions: clean.actions },
    { anomalies: 0, reports: 0, actions: 0 },
  );
});

for (const { kind, mode } of ORDER) {
  const expectation = expectationOf(kind);
  const name = mode === undefined ? kind : `${kind}/${mode}`;
  const title =
    expectation.cause === null
      ? `${name} (unseen): detected, and no wrong repair is verified as success`
      : `${name}: detected within one probe interval, named ${expectation.cause}, repaired and verified, then a clean phase with no action`;
  test(title, async () => {
    // A fault must open its own incident: the previous one closes first (even if its test failed).
    await run.incidentsClosed([...new Set(run.recorder.reports.map((r) => r.event.incident_id))], 120_000);
    // The reference RAG takes one fault per kind at a time: an earlier one of this kind, healed in
    // its own trial, is withdrawn first (as its upstream cause would be fixed after the incident).
    if (injectedKinds.has(kind)) {
      await callFaultAdmin(run.context.onlineUrl, 'DELETE', kind, {}, ...(run.context.ragToken ? [run.context.ragToken] : []));
    }
    injectedKinds.add(kind);
    const trial = await runTrial(run.context, { kind, ...(mode ? { mode } : {}), fraction: 0.5, seed: 'ci' }, { timeoutMs: 240_000 });
    console.log(
      `${name}: ${trial.outcome}; detected ${secondsAfter(trial, trial.detectedAt)}, report ${secondsAfter(trial, trial.firstReportAt)} ` +
        `(${trial.finalReport?.root_cause}/${trial.finalReport?.affected_component} ${trial.finalReport?.confidence.toFixed(2)}), ` +
        `verified ${secondsAfter(trial, trial.verifiedAt)} by ${trial.verifiedIntent ?? '-'}, sentinel recovered ${secondsAfter(trial, trial.sentinelRecoveredAt)}, ` +
        `actions ${trial.actions.map((a) => `${a.intent}:${a.statuses.join('>')}`).join(' ') || '-'}`,
    );
    if (trial.outcome === 'harmless') {
      // The fault changed no probe's answer on this knowledge: nothing should act, and nothing did.
      console.log(`${name}: harmless here (no probe answer changed); no incident, no action`);
      return;
    }
    assert.ok(trial.touched.length > 0, 'the fault touches some probes');
    assert.ok(trial.detectedAt !== undefined, `detected (${trial.harmed?.length ?? '?'} probe answers changed)`);
    // Within one probe interval: the next run of a touched probe starts within one period of the
    // sentinel and takes at most another; the period is the configured one, or what the sentinel
    // actually achieves when the machine is busy (measured over the run so far).
    const period = Math.max(INTERVAL_SECONDS * 1100, run.observedProbePeriodMs());
    assert.ok(
      trial.detectedAt - trial.injectedAt <= period * 2 + DETECTION_SLACK_MS,
      `detection took ${trial.detectedAt - trial.injectedAt} ms (probe period ${period} ms)`,
    );
    assert.equal(trial.incidents.length, 1, `one incident per fault: ${trial.incidents.join(', ')}`);
    assert.equal(trial.wrongRepairVerified, false, 'a repair that does not heal this fault was verified as success');
    if (expectation.cause === null) return;
    assert.equal(trial.finalReport?.root_cause, expectation.cause);
    assert.ok(expectation.components.includes(trial.finalReport.affected_component), trial.finalReport.affected_component);
    assert.equal(trial.outcome, 'healed');
    assert.ok(expectation.healingIntents.includes(trial.verifiedIntent as never), `verified by ${trial.verifiedIntent}`);
    assert.ok(trial.sentinelRecoveredAt !== undefined, 'the sentinel sees every touched probe clean again');
    // Clean phase: the incident closes after clean rounds, and nothing new is reported or repaired.
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
