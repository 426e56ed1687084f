/**
 * What the sentinel's sampled mode (SENTINEL_SAMPLES_PER_PROBE = k) decides on bench/langchain-rag's
 * recorded clean runs (results/latest-runs.jsonl), replayed through the product's own code
 * (@rag-immune/probing: compareWithBaseline with the sampled scores, the exact Mann–Whitney test,
 * the modal-key-facts answer comparison), not a copy of it. Each probe's recorded results are cut
 * into windows of k consecutive runs, a window standing for one sampled run: its k online and k
 * baseline samples. FCS is the recorded score; IC is recomputed from the recorded answer and the
 * probe's query (the same intentCoverage; the replay checks it against the recorded one-sample
 * ic_drop). KF, latency, evidence and citations were not recorded: kf_stale, wrong_attribution and
 * the evidence-based parts of answer_disagreement are not replayed (reported as recorded).
 * Clean runs only: it measures false alarms, not whether faults are still caught.
 * Usage: npx tsx bench/langchain-rag/analyse.ts [--k 5 --alpha 0.01]
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadDebianKnowledge } from '@rag-immune/debian-knowledge';
import { observation } from './pooled-replay.ts';
import { loadQuestions } from '@rag-immune/reference-rag/testing';
import {
  answerAgreement,
  answersAreConsistent,
  compareWithBaseline,
  defaultThresholds,
  intentCoverage,
  modalAnswerIndex,
  probesFromQuestions,
  sampledModeProblem,
  type AnswerComparison,
} from '@rag-immune/probing';

const { values } = parseArgs({
  options: {
    k: { type: 'string', default: '5' },
    alpha: { type: 'string', default: '0.01' },
    // As recorded by run.ts's defaults; the probe queries are rebuilt from them.
    packages: { type: 'string', default: '25' },
    probes: { type: 'string', default: '30' },
  },
});
const k = Number(values.k);
const alpha = Number(values.alpha);
const problem = sampledModeProblem(k, alpha);
if (problem !== null || k < 2) {
  console.error(`bench/langchain-rag/analyse: ${problem ?? 'k must be at least 2 (k = 1 is the recorded one-sample mode)'}`);
  process.exit(64);
}

interface Row {
  probe_id: string;
  kind: string;
  knowledge_changed: boolean;
  anomaly: boolean;
  signals: string[];
  online_answer: string;
  baseline_answer: string;
  online_fcs: number | null;
  baseline_fcs: number | null;
}

const rows: Row[] = readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'results', 'latest-runs.jsonl'), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as Row);

// The probes as run.ts picked them (same knowledge, questions and step), for their queries.
const { sources } = loadDebianKnowledge({ packages: Number(values.packages) });
const knowledgeIds = new Set(sources.flatMap((s) => s.recordsPublishedBy(new Date()).map((r) => r.knowledgeId)));
const questions = loadQuestions().filter((q) => knowledgeIds.has(q.knowledge_id));
const step = Math.max(1, Math.floor(questions.length / Number(values.probes)));
const picked = questions.filter((_, i) => i % step === 0).slice(0, Number(values.probes));
const probes = probesFromQuestions(picked, 'lcrag');
const queryOf = new Map(probes.map((p, i) => [p.id, { query: p.query, kind: picked[i]!.kind }]));
for (const row of rows)
  if (queryOf.get(row.probe_id)?.kind !== row.kind) {
    console.error(
      `bench/langchain-rag/analyse: cannot rebuild the query of ${row.probe_id} (${row.kind}); were other --packages/--probes recorded?`,
    );
    process.exit(65);
  }

/** Intent coverage as the ProbeRunner computes it (the LangChain RAG never abstains). */
const ic = (row: Row, answer: string) => (answer.trim() === '' ? null : intentCoverage(queryOf.get(row.probe_id)!.query, answer, false).ic);

// The replay of one sample against one (the recorded mode) must give the recorded fcs_drop and ic_drop.
const replayCheck = { fcs_drop: { recorded: 0, replayed: 0, differing: 0 }, ic_drop: { recorded: 0, replayed: 0, differing: 0 } };
for (const row of rows) {
  const verdict = compareWithBaseline(
    observation(row.online_fcs, ic(row, row.online_answer)),
    observation(row.baseline_fcs, ic(row, row.baseline_answer)),
    defaultThresholds,
  );
  for (const signal of ['fcs_drop', 'ic_drop'] as const) {
    const recorded = row.signals.includes(signal);
    const replayed = verdict.signals.includes(signal);
    replayCheck[signal].recorded += +recorded;
    replayCheck[signal].replayed += +replayed;
    replayCheck[signal].differing += +(recorded !== replayed);
  }
}

const byProbe = new Map<string, Row[]>();
for (const row of rows) byProbe.set(row.probe_id, [...(byProbe.get(row.probe_id) ?? []), row]);

const scores = (window: Row[], pick: (r: Row) => number | null) => window.flatMap((r) => (pick(r) === null ? [] : [pick(r)!]));
let windows = 0;
let anyResultAnomalous = 0;
let allResultsAnomalous = 0;
let sampledFired = 0;
const sampledBySignal: Record<string, number> = {};
let baselineConsistent = 0;
let modalFactsDiffer = 0;
let retrievalSignalsEveryRun = 0;
const fired: {
  probe_id: string;
  runs: string;
  signals: string[];
  fcs_p: number | null;
  fcs_drop: number | null;
  ic_p: number | null;
  ic_drop: number | null;
}[] = [];
for (const [probeId, runs] of byProbe) {
  for (let start = 0; start + k <= runs.length; start += k) {
    const window = runs.slice(start, start + k);
    windows += 1;
    if (window.some((r) => r.anomaly)) anyResultAnomalous += 1;
    if (window.every((r) => r.anomaly)) allResultsAnomalous += 1;
    // The signals the replay cannot recompute (retrieval-level, deterministic here: 10 of 10 runs).
    if (window.every((r) => r.signals.some((s) => s === 'kf_stale' || s === 'wrong_attribution'))) retrievalSignalsEveryRun += 1;

    const onlineAnswers = window.map((r) => r.online_answer);
    const baselineAnswers = window.map((r) => r.baseline_answer);
    const online = window[modalAnswerIndex(onlineAnswers)]!;
    const baseline = window[modalAnswerIndex(baselineAnswers)]!;
    const consistent = answersAreConsistent(baselineAnswers);
    const agreement = consistent ? answerAgreement(online.online_answer, baseline.baseline_answer) : null;
    if (consistent) baselineConsistent += 1;
    if (agreement !== null && agreement < 1) modalFactsDiffer += 1;
    // Evidence, cross-FCS and the feed were not recorded: only the agreement itself is replayed.
    const answers: AnswerComparison = {
      answer_agreement: agreement,
      online_answer_vs_baseline_fcs: null,
      baseline_answer_vs_online_fcs: null,
      knowledge_update: false,
      altered_chunks: [],
      online_answer_empty: online.online_answer.trim() === '' && baseline.baseline_answer.trim() !== '',
      online_ungrounded_facts: [],
      baseline_ungrounded_facts: [],
      fact_replaced_on_same_evidence: false,
    };
    const verdict = compareWithBaseline(
      observation(online.online_fcs, ic(online, online.online_answer)),
      observation(baseline.baseline_fcs, ic(baseline, baseline.baseline_answer)),
      defaultThresholds,
      {
        answers,
        samples: {
          count: k,
          alpha,
          fcs: { online: scores(window, (r) => r.online_fcs), baseline: scores(window, (r) => r.baseline_fcs) },
          ic: { online: scores(window, (r) => ic(r, r.online_answer)), baseline: scores(window, (r) => ic(r, r.baseline_answer)) },
        },
      },
    );
    if (verdict.anomaly) {
      sampledFired += 1;
      for (const signal of verdict.signals) sampledBySignal[signal] = (sampledBySignal[signal] ?? 0) + 1;
      const c = verdict.comparison;
      const round = (x: number | null | undefined) => (x === null || x === undefined ? null : +x.toFixed(4));
      fired.push({
        probe_id: probeId,
        runs: `${start + 1}-${start + k}`,
        signals: verdict.signals,
        fcs_p: round(c.fcs_sample_test_p),
        fcs_drop: round(c.fcs_drop),
        ic_p: round(c.ic_sample_test_p),
        ic_drop: round(c.ic_drop),
      });
    }
  }
}

const rate = (n: number) => +(n / Math.max(1, windows)).toFixed(4);
console.log(
  JSON.stringify(
    {
      results: rows.length,
      replay_of_the_recorded_one_sample_mode: replayCheck,
      windows_of_k: { k, alpha, windows },
      present_signals: {
        any_result_in_window_anomalous: rate(anyResultAnomalous),
        all_k_results_anomalous: rate(allResultsAnomalous),
      },
      sampled_mode_product_code: {
        windows_firing: sampledFired,
        rate: rate(sampledFired),
        by_signal: sampledBySignal,
        fired,
      },
      answers: { baseline_samples_consistent: rate(baselineConsistent), modal_key_facts_differ: rate(modalFactsDiffer) },
      not_replayed: {
        windows_with_kf_stale_or_wrong_attribution_in_every_run: retrievalSignalsEveryRun,
        rate: rate(retrievalSignalsEveryRun),
      },
    },
    null,
    2,
  ),
);
