/**
 * The sentinel's pooled test (issue 39) replayed over bench/langchain-rag's recorded probe results,
 * as functions (replay-pooled.ts prints the tables; test/unit/langchain-rag-pooled-replay.test.ts
 * checks them on a tiny fixture). Through the product's own code (@rag-immune/probing:
 * PooledEvidence, AdaptiveSampling, the exact Mann–Whitney null, the key-fact frequency test,
 * compareWithBaseline), not a copy of it.
 *
 * Each probe's recorded results are consumed in order, a window of k consecutive results standing
 * for one sampled run (its k online and k baseline samples), the windows of a probe forming the
 * sequence its detectors pool over. Clean recordings give the false anomalies; fault recordings
 * (run.ts --fault) give the detection delay on the probes whose knowledge the fault touched.
 */
import { readFileSync } from 'node:fs';
import type { ProbeObservation } from '@rag-immune/contracts';
import type { AdaptiveSampling } from '@rag-immune/probing';
import {
  PooledEvidence,
  compareWithBaseline,
  defaultThresholds,
  factFrequencyTest,
  mannWhitneyLessNull,
  modalAnswerIndex,
  seededRandom,
  type AnswerComparison,
  type PooledSignal,
} from '@rag-immune/probing';

/** One recorded probe result: a line of run.ts's records (the fields the replay reads). */
export interface RecordedResult {
  probe_id: string;
  kind: string;
  knowledge_changed: boolean;
  online_answer: string;
  baseline_answer: string;
  online_fcs: number | null;
  baseline_fcs: number | null;
  /** The one-sample ProbeRunner's signals at record time (not the pooled test's). */
  signals?: string[];
  /** Fault recordings only: the fault (`kind:mode`) written into the online collection before the first run. */
  fault?: string;
  knowledge_id?: string;
  /** Fault recordings only: whether the fault touched this probe's knowledge. */
  touched?: boolean;
  /** Fault recordings only: the probe's query, so IC needs no rebuilt pick (this machine's apt lists move). */
  query?: string;
}

/** IC of an answer to the row's probe, or null when it cannot be computed. */
export type IcScorer = (row: RecordedResult, answer: string) => number | null;
export const noIc: IcScorer = () => null;

/** A recording's lines (JSON, one result a line, blank lines skipped). */
export function readRecording(path: string): RecordedResult[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as RecordedResult);
}

/** Results by probe, each probe's in recorded order. */
export function groupByProbe(rows: readonly RecordedResult[]): Map<string, RecordedResult[]> {
  const byProbe = new Map<string, RecordedResult[]>();
  for (const row of rows) byProbe.set(row.probe_id, [...(byProbe.get(row.probe_id) ?? []), row]);
  return byProbe;
}

/** A recorded side's scores as the ProbeObservation compareWithBaseline reads (nothing else was recorded). */
export const observation = (fcs: number | null, icScore: number | null): ProbeObservation => ({
  call_status: 'ok',
  http_status: 200,
  error_message: null,
  trace_id: null,
  traceparent: null,
  latency_ms: 0,
  signals: {
    fcs,
    fcs_status: fcs === null ? 'not_scored' : 'scored',
    fcs_truncated: false,
    ic: icScore,
    kf_as_of: null,
    kf_age_days: null,
  },
  retrieved_documents: [],
  component_versions: { embedder: null, reranker: null, generator: null },
  answer_hash: null,
});
const scores = (window: RecordedResult[], pick: (r: RecordedResult) => number | null) =>
  window.flatMap((r) => (pick(r) === null ? [] : [pick(r)!]));
const lessTest = (online: number[], baseline: number[]) =>
  online.length === 0 || baseline.length === 0 ? null : mannWhitneyLessNull(online, baseline);

/**
 * Where a run's k results come from: `recorded` (the recording in order, null once it is used up),
 * or `bootstrap`, a null stream of `runs` runs per probe: every sample of either side drawn with
 * replacement from the probe's recorded samples of both sides (answer and FCS together), so the two
 * sides are exchangeable by construction while the scores and answers are this RAG's own. (Drawing
 * each side from its own 10 recorded samples would not be a null: it would make every chance
 * difference of those 10 samples a permanent one.)
 */
export type WindowSource = (probeRows: RecordedResult[], at: number, k: number, probeRun: number) => RecordedResult[] | null;
export const recorded: WindowSource = (probeRows, at, k) => (at + k > probeRows.length ? null : probeRows.slice(at, at + k));
export function bootstrap(runs: number, seed: number): WindowSource {
  const random = seededRandom(seed);
  return (probeRows, _at, k, probeRun) => {
    if (probeRun >= runs) return null;
    const pooled = probeRows.flatMap((r) => [
      { answer: r.online_answer, fcs: r.online_fcs },
      { answer: r.baseline_answer, fcs: r.baseline_fcs },
    ]);
    const pick = () => pooled[Math.floor(random() * pooled.length)]!;
    return Array.from({ length: k }, () => {
      const online = pick();
      const baseline = pick();
      return {
        ...probeRows[0]!,
        // Exchangeable sides: no knowledge update to excuse a difference.
        knowledge_changed: false,
        online_answer: online.answer,
        online_fcs: online.fcs,
        baseline_answer: baseline.answer,
        baseline_fcs: baseline.fcs,
      };
    });
  };
}

/** A probe's first anomalous run: its run number, the samples a side and the RAG calls (both sides) taken by then, its signals. */
export interface FirstAnomaly {
  run: number;
  samples: number;
  calls: number;
  signals: string[];
}

export interface ReplayOutcome {
  label: string;
  alpha: number;
  runs: number;
  results: number;
  calls: number;
  anomalous: number;
  bySignal: Record<string, number>;
  /** Facts alarms on probes whose knowledge changed since the pin: the product calls them updates. */
  updatesSuppressed: number;
  fired: string[];
  maxStatistic: Record<PooledSignal, number>;
  /** Per probe, the first fcs_drop: the probe's run number and the samples a side it had taken by then. */
  firstAlarm: Map<string, { run: number; samples: number }>;
  /** Per probe, the first anomaly of any pooled signal. */
  firstAnomaly: Map<string, FirstAnomaly>;
}

export interface ReplayOptions {
  label?: string;
  /** A synthetic change: the online FCS lowered by it (floored at 0). */
  shift?: number;
  source?: WindowSource;
  ic?: IcScorer;
}

/** One replay: every probe's results consumed window by window through the pooled test. */
export function replay(
  byProbe: ReadonlyMap<string, RecordedResult[]>,
  alpha: number,
  sampling: AdaptiveSampling,
  { label = '', shift = 0, source = recorded, ic = noIc }: ReplayOptions = {},
): ReplayOutcome {
  const evidence = new PooledEvidence({ alpha });
  const out: ReplayOutcome = {
    label,
    alpha,
    runs: 0,
    results: 0,
    calls: 0,
    anomalous: 0,
    bySignal: {},
    updatesSuppressed: 0,
    fired: [],
    maxStatistic: { fcs: 0, ic: 0, facts: 0 },
    firstAlarm: new Map(),
    firstAnomaly: new Map(),
  };
  for (const [probeId, probeRows] of byProbe) {
    let at = 0;
    let probeRun = 0;
    for (;;) {
      const k = sampling.samplesFor(evidence.leaning(probeId), evidence.threshold);
      const window = source(probeRows, at, k, probeRun);
      if (window === null) break;
      at += k;
      probeRun += 1;
      const onlineAnswers = window.map((r) => r.online_answer);
      const baselineAnswers = window.map((r) => r.baseline_answer);
      const lowered = (r: RecordedResult) => (r.online_fcs === null ? null : Math.max(0, r.online_fcs - shift));
      const fcs = { online: scores(window, lowered), baseline: scores(window, (r) => r.baseline_fcs) };
      const icScores = { online: scores(window, (r) => ic(r, r.online_answer)), baseline: scores(window, (r) => ic(r, r.baseline_answer)) };
      const run = evidence.observe(probeId, {
        fcs: lessTest(fcs.online, fcs.baseline),
        ic: lessTest(icScores.online, icScores.baseline),
        facts: factFrequencyTest(onlineAnswers, baselineAnswers),
      });
      const online = window[modalAnswerIndex(onlineAnswers)]!;
      const baseline = window[modalAnswerIndex(baselineAnswers)]!;
      const answers: AnswerComparison = {
        answer_agreement: null,
        online_answer_vs_baseline_fcs: null,
        baseline_answer_vs_online_fcs: null,
        knowledge_update: window[0]!.knowledge_changed,
        altered_chunks: [],
        online_answer_empty: online.online_answer.trim() === '' && baseline.baseline_answer.trim() !== '',
        online_ungrounded_facts: [],
        baseline_ungrounded_facts: [],
        fact_replaced_on_same_evidence: false,
      };
      const verdict = compareWithBaseline(
        observation(lowered(online), ic(online, online.online_answer)),
        observation(baseline.baseline_fcs, ic(baseline, baseline.baseline_answer)),
        defaultThresholds,
        { answers, samples: { count: k, alpha, fcs, ic: icScores }, pooled: run.verdict },
      );
      // Only what the pooled test decides (empty answers are the per-run check, unchanged).
      const signals = verdict.signals.filter((s) => s === 'fcs_drop' || s === 'ic_drop' || s === 'answer_disagreement');
      if (run.verdict.facts.alarm && window[0]!.knowledge_changed) out.updatesSuppressed += 1;
      run.commit();
      sampling.record(2 * k);
      for (const s of ['fcs', 'ic', 'facts'] as const) out.maxStatistic[s] = Math.max(out.maxStatistic[s], run.verdict[s].statistic);
      out.runs += 1;
      out.results += k;
      out.calls += 2 * k;
      if (signals.includes('fcs_drop') && !out.firstAlarm.has(probeId)) out.firstAlarm.set(probeId, { run: probeRun, samples: at });
      if (signals.length > 0) {
        if (!out.firstAnomaly.has(probeId)) out.firstAnomaly.set(probeId, { run: probeRun, samples: at, calls: 2 * at, signals });
        out.anomalous += 1;
        for (const s of signals) out.bySignal[s] = (out.bySignal[s] ?? 0) + 1;
        out.fired.push(`${probeId} results ${at - k + 1}-${at} (${signals.join(', ')})`);
      }
    }
  }
  return out;
}

/** What the pooled test made of one fault recording at one setting. */
export interface Detection {
  /** Probes whose knowledge the fault touched (the ones replayed for the delay). */
  touched: number;
  /** Touched probes with an anomaly within their recorded results. */
  detected: number;
  /** Per detected probe: the run of its first anomaly, and the RAG calls (both sides) until it, included. */
  runs: number[];
  calls: number[];
  /** Detected probes whose first anomaly carries the signal. */
  bySignal: Record<string, number>;
  /** Fewest and most recorded results of a touched probe: the horizon "within the recording" means. */
  resultsPerProbe: { min: number; max: number };
  /** Probes the fault did not touch, and their anomalous runs (false alarms, or the fault reaching them). */
  untouched: number;
  untouchedAnomalous: number;
}

/**
 * The detection delay on a fault recording: each touched probe's results replayed from fresh
 * evidence (a CUSUM's statistic restarts at max(previous, 1), so clean history before the fault
 * would change little), until its first anomaly; the untouched probes replayed apart.
 */
export function detectionDelay(
  rows: readonly RecordedResult[],
  alpha: number,
  sampling: () => AdaptiveSampling,
  ic: IcScorer = noIc,
): Detection {
  const touched = groupByProbe(rows.filter((r) => r.touched === true));
  const untouched = groupByProbe(rows.filter((r) => r.touched !== true));
  const hit = replay(touched, alpha, sampling(), { ic });
  const first = [...hit.firstAnomaly.values()];
  const bySignal: Record<string, number> = {};
  for (const { signals } of first) for (const s of signals) bySignal[s] = (bySignal[s] ?? 0) + 1;
  const lengths = [...touched.values()].map((r) => r.length);
  return {
    touched: touched.size,
    detected: first.length,
    runs: first.map((f) => f.run),
    calls: first.map((f) => f.calls),
    bySignal,
    resultsPerProbe: { min: Math.min(...lengths, Infinity), max: Math.max(...lengths, 0) },
    untouched: untouched.size,
    untouchedAnomalous: untouched.size === 0 ? 0 : replay(untouched, alpha, sampling(), { ic }).anomalous,
  };
}
