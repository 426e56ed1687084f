/**
 * A compound trial in CI (issue 30): reranker drift and vector-index damage on other documents,
 * injected together into the reference RAG, with the four workers as their own processes on the real
 * stack. Both causes must be named, both repaired and verified (each against the probes it explains),
 * no repair that healed something undone, and the sentinel must see every touched probe clean again.
 * Before findings, the identifier named one cause, the reranker rollback was verified against every
 * probe, the vector damage kept some failing, and the rollback that was right was undone.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { LoopRun } from '@rag-immune/test-kit/loop/loop-run';
import { runCompoundTrial } from '@rag-immune/test-kit/loop/compound-trial';

const INTERVAL_SECONDS = 4;

let run: LoopRun;

before(async () => {
  run = new LoopRun({ label: 'it-compound', packages: 25, probeCount: 8, probeIntervalSeconds: INTERVAL_SECONDS });
  await run.start();
});

after(async () => {
  await run?.close();
});

test('reranker drift + vector damage on two other documents: both named, both repaired, no right repair undone', async () => {
  const clean = await run.cleanRounds(1);
  assert.equal(clean.anomalies, 0, 'a clean start');
  const trial = await runCompoundTrial(
    run.context,
    [
      { kind: 'reranker-drift', seed: 'ci-compound' },
      { kind: 'vector-index-corruption', mode: 'zero', fraction: 0.25, seed: 'ci-compound' },
    ],
    { timeoutMs: 150_000 },
  );
  const at = (t?: number) => (t === undefined ? 'never' : `${((t - trial.injectedAt) / 1000).toFixed(1)} s`);
  console.log(
    `compound: ${trial.outcome}; detected ${at(trial.detectedAt)}, causes ${trial.namedCauses.join('+') || '-'}, ` +
      `repaired by ${trial.repairedBy.join(' + ')}, sentinel recovered ${at(trial.sentinelRecoveredAt)}, ` +
      `partials ${trial.partials.length}, actions ${trial.actions.join(' ') || '-'}`,
  );
  assert.ok(
    trial.faults.every((f) => f.touched.length > 0),
    'each fault touches some probes',
  );
  assert.ok(trial.detectedAt !== undefined, 'detected');
  assert.deepEqual([...trial.namedCauses].sort(), ['reranker_drift', 'vector_index_corruption']);
  assert.deepEqual(trial.rightRepairsUndone, [], 'a repair that healed probes and worsened none was undone');
  assert.ok(
    !trial.actions.some((a) => a.startsWith('pin_reranker_version:rolled_back')),
    'the reranker rollback (the right repair for the drift) was undone',
  );
  assert.equal(trial.outcome, 'healed', `repaired by ${trial.repairedBy.join(', ')}`);
  assert.ok(trial.sentinelRecoveredAt !== undefined, 'the sentinel sees every touched probe clean again');
});
