/**
 * The sentinel's pooled test (issue 39) replayed on bench/langchain-rag's recorded clean runs
 * (results/latest-runs.jsonl: 30 probes x 10 runs, one online and one baseline sample each), through
 * the product's own code (@rag-immune/probing: PooledEvidence, AdaptiveSampling, the exact
 * Mann–Whitney null, the key-fact frequency test, compareWithBaseline), not a copy of it.
 *
 * Each probe's recorded results are consumed in order, a window of k consecutive results standing
 * for one sampled run (its k online and k baseline samples), the windows of a probe forming the
 * sequence its detectors pool over. Fixed k: windows of k. Adaptive: each window's size is what
 * AdaptiveSampling asks given the probe's evidence so far (base while clean, max while leaning), so
 * the RAG calls per result are replayed too. FCS is the recorded score; IC is recomputed from the
 * recorded answer and the rebuilt probe query; the facts test reads the recorded answers. Not
 * recorded, so not replayed: KF, citations, latency, evidence (as in analyse.ts). A knowledge update
 * is taken from the recording's knowledge_changed (the product reads it from the evidence's versions).
 *
 * Every result is clean: every pooled alarm here is a false one. No recorded sampled fault runs exist
 * (bench/healing's LangChain trials kept only their reports), so no detection delay is replayed.
 *
 * Usage: npx tsx bench/langchain-rag/replay-pooled.ts [--alphas 0.05,0.01,0.005] [--ks 2,3,5] [--adaptive 2:5] [--out bench/langchain-rag/RESULTS-pooled.md]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { ProbeObservation } from '@rag-immune/contracts';
import { loadDebianKnowledge } from '@rag-immune/debian-knowledge';
import { loadQuestions } from '@rag-immune/reference-rag/testing';
import {
  AdaptiveSampling,
  seededRandom,
  PooledEvidence,
  compareWithBaseline,
  defaultThresholds,
  factFrequencyTest,
  intentCoverage,
  mannWhitneyLessNull,
  modalAnswerIndex,
  probesFromQuestions,
  type AnswerComparison,
  type PooledSignal,
} from '@rag-immune/probing';

const here = dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({
  options: {
    alphas: { type: 'string', default: '0.05,0.01,0.005' },
    ks: { type: 'string', default: '2,3,5' },
    adaptive: { type: 'string', default: '2:5' },
    // A synthetic change on recorded scores (not a recorded fault): the online FCS lowered by each.
    shifts: { type: 'string', default: '0.3,0.6' },
    'bootstrap-runs': { type: 'string', default: '100' },
    out: { type: 'string', default: join(here, 'RESULTS-pooled.md') },
    packages: { type: 'string', default: '25' },
    probes: { type: 'string', default: '30' },
  },
});
const alphas = values.alphas.split(',').map(Number);
const ks = values.ks.split(',').map(Number);
const [adaptiveBase, adaptiveMax] = values.adaptive.split(':').map(Number) as [number, number];
if (
  alphas.some((a) => !(a > 0 && a < 1)) ||
  ks.some((k) => !Number.isInteger(k) || k < 2) ||
  !(adaptiveMax >= adaptiveBase && adaptiveBase >= 2)
) {
  console.error('bench/langchain-rag/replay-pooled: --alphas in (0, 1), --ks integers >= 2, --adaptive base:max with 2 <= base <= max');
  process.exit(64);
}

interface Row {
  probe_id: string;
  kind: string;
  knowledge_changed: boolean;
  online_answer: string;
  baseline_answer: string;
  online_fcs: number | null;
  baseline_fcs: number | null;
}

const runsFile = join(here, 'results', 'latest-runs.jsonl');
const rows: Row[] = readFileSync(runsFile, 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as Row);

// The probes as run.ts picked them (same knowledge, questions and step), for their queries (IC).
// The knowledge is read from this machine's apt lists, which change: when the pick no longer matches
// the recorded probes' kinds, IC cannot be recomputed and is left out (said in the results).
const { sources } = loadDebianKnowledge({ packages: Number(values.packages) });
const knowledgeIds = new Set(sources.flatMap((s) => s.recordsPublishedBy(new Date()).map((r) => r.knowledgeId)));
const questions = loadQuestions().filter((q) => knowledgeIds.has(q.knowledge_id));
const step = Math.max(1, Math.floor(questions.length / Number(values.probes)));
const picked = questions.filter((_, i) => i % step === 0).slice(0, Number(values.probes));
const probes = probesFromQuestions(picked, 'lcrag');
const queryOf = new Map(probes.map((p, i) => [p.id, { query: p.query, kind: picked[i]!.kind }]));
const unmatched = [...new Set(rows.filter((row) => queryOf.get(row.probe_id)?.kind !== row.kind).map((row) => row.probe_id))];
const icReplayed = unmatched.length === 0;
if (!icReplayed)
  console.error(
    `bench/langchain-rag/replay-pooled: the probe queries cannot be rebuilt (${unmatched.length} probes differ in kind): IC left out`,
  );
const byProbe = new Map<string, Row[]>();
for (const row of rows) byProbe.set(row.probe_id, [...(byProbe.get(row.probe_id) ?? []), row]);

const ic = (row: Row, answer: string) =>
  !icReplayed || answer.trim() === '' ? null : intentCoverage(queryOf.get(row.probe_id)!.query, answer, false).ic;
const observation = (fcs: number | null, icScore: number | null): ProbeObservation => ({
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
const scores = (window: Row[], pick: (r: Row) => number | null) => window.flatMap((r) => (pick(r) === null ? [] : [pick(r)!]));
const lessTest = (online: number[], baseline: number[]) =>
  online.length === 0 || baseline.length === 0 ? null : mannWhitneyLessNull(online, baseline);

interface Outcome {
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
}

/** One replay: every probe's recorded results consumed window by window through the pooled test. */
/**
 * Where a run's k results come from: the recording in order (null once it is used up), or a
 * bootstrap null stream for `runs` runs per probe: every sample of either side drawn with replacement
 * from the probe's recorded samples of both sides (answer and FCS together), so the two sides are
 * exchangeable by construction while the scores and answers are this RAG's own. (Drawing each side
 * from its own 10 recorded samples would not be a null: it would make every chance difference of
 * those 10 samples a permanent one.)
 */
type WindowSource = (probeRows: Row[], at: number, k: number, probeRun: number) => Row[] | null;
const recorded: WindowSource = (probeRows, at, k) => (at + k > probeRows.length ? null : probeRows.slice(at, at + k));
function bootstrap(runs: number, seed: number): WindowSource {
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

function replay(
  alpha: number,
  sampling: AdaptiveSampling,
  label: string,
  shift = 0,
  source: WindowSource = recorded,
): Outcome & { firstAlarm: Map<string, { run: number; samples: number }> } {
  /** Per probe, the first fcs_drop: the probe's run number and the samples a side it had taken by then. */
  const firstAlarm = new Map<string, { run: number; samples: number }>();
  const evidence = new PooledEvidence({ alpha });
  const out: Outcome = {
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
      const lowered = (r: Row) => (r.online_fcs === null ? null : Math.max(0, r.online_fcs - shift));
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
      if (signals.includes('fcs_drop') && !firstAlarm.has(probeId)) firstAlarm.set(probeId, { run: probeRun, samples: at });
      if (signals.length > 0) {
        out.anomalous += 1;
        for (const s of signals) out.bySignal[s] = (out.bySignal[s] ?? 0) + 1;
        out.fired.push(`${probeId} results ${at - k + 1}-${at} (${signals.join(', ')})`);
      }
    }
  }
  return { ...out, firstAlarm };
}

const outcomes: Outcome[] = [];
for (const alpha of alphas) {
  for (const k of ks) outcomes.push(replay(alpha, new AdaptiveSampling({ base: k, max: k }), `k = ${k}`));
  outcomes.push(replay(alpha, new AdaptiveSampling({ base: adaptiveBase, max: adaptiveMax }), `adaptive ${adaptiveBase} → ${adaptiveMax}`));
}

const shifts = values.shifts.split(',').map(Number);
const bootstrapRuns = Number(values['bootstrap-runs']);
const settings = () => [
  ...ks.map((k) => [`k = ${k}`, () => new AdaptiveSampling({ base: k, max: k })] as const),
  [`adaptive ${adaptiveBase} → ${adaptiveMax}`, () => new AdaptiveSampling({ base: adaptiveBase, max: adaptiveMax })] as const,
];
const p90 = (xs: number[]) => (xs.length === 0 ? '—' : [...xs].sort((a, b) => a - b)[Math.floor(0.9 * (xs.length - 1))]!.toString());
const mid = (xs: number[]) => (xs.length === 0 ? '—' : [...xs].sort((a, b) => a - b)[xs.length >> 1]!.toString());
const bootRows: string[] = [];
for (const alpha of alphas)
  for (const [label, sampling] of settings()) {
    const o = replay(alpha, sampling(), label, 0, bootstrap(bootstrapRuns, 1));
    bootRows.push(
      `| ${alpha} | ${label} | ${o.runs} | ${(o.calls / o.runs).toFixed(2)} | **${o.anomalous} (${((100 * o.anomalous) / o.runs).toFixed(2)} %)** | ${(o.runs / Math.max(1, o.anomalous)).toFixed(0)}${o.anomalous === 0 ? '+' : ''} | ${
        Object.entries(o.bySignal)
          .map(([sig, n]) => `${sig} ${n}`)
          .join(', ') || '—'
      } | ${[...new Set(o.fired.map((f) => f.split(' ')[0]))].join(', ') || '—'} |`,
    );
  }
const bootDelays: string[] = [];
for (const shift of shifts)
  for (const alpha of alphas)
    for (const [label, sampling] of settings()) {
      const o = replay(alpha, sampling(), label, shift, bootstrap(bootstrapRuns, 2));
      const found = [...o.firstAlarm.values()];
      bootDelays.push(
        `| ${shift} | ${alpha} | ${label} | ${found.length} of ${byProbe.size} | ${mid(found.map((f) => f.run))} / ${p90(found.map((f) => f.run))} | ${mid(found.map((f) => f.samples))} / ${p90(found.map((f) => f.samples))} | ${(o.calls / o.runs).toFixed(2)} |`,
      );
    }
const delays: string[] = [];
for (const shift of shifts)
  for (const alpha of alphas)
    for (const [label, sampling] of [
      ...ks.map((k) => [`k = ${k}`, () => new AdaptiveSampling({ base: k, max: k })] as const),
      [`adaptive ${adaptiveBase} → ${adaptiveMax}`, () => new AdaptiveSampling({ base: adaptiveBase, max: adaptiveMax })] as const,
    ]) {
      const o = replay(alpha, sampling(), label, shift);
      const found = [...o.firstAlarm.values()];
      const median = (xs: number[]) => (xs.length === 0 ? '—' : [...xs].sort((a, b) => a - b)[xs.length >> 1]!.toString());
      delays.push(
        `| ${shift} | ${alpha} | ${label} | ${found.length} of ${byProbe.size} | ${median(found.map((f) => f.run))} | ${median(found.map((f) => f.samples))} |`,
      );
    }

const pct = (n: number, d: number) => (d === 0 ? '—' : `${((100 * n) / d).toFixed(1)} %`);
const fmt = (x: number) => (x >= 100 ? x.toFixed(0) : x.toPrecision(3));
const table = outcomes
  .map(
    (o) =>
      `| ${o.alpha} | ${o.label} | ${o.runs} | ${(o.calls / o.runs).toFixed(2)} | **${o.anomalous} (${pct(o.anomalous, o.runs)})** | ${
        Object.entries(o.bySignal)
          .map(([s, n]) => `${s} ${n}`)
          .join(', ') || '—'
      } | ${o.updatesSuppressed} | ${fmt(o.maxStatistic.fcs)} / ${fmt(o.maxStatistic.ic)} / ${fmt(o.maxStatistic.facts)} (threshold ${fmt(3 / o.alpha)}) | ${o.fired.join('; ') || '—'} |`,
  )
  .join('\n');

const command = `npx tsx ${relative(process.cwd(), fileURLToPath(import.meta.url))} ${process.argv.slice(2).join(' ')}`.trim();
const load = loadavg()
  .map((x) => x.toFixed(1))
  .join('/');
const markdown = `# bench/langchain-rag — the pooled test replayed on the recorded clean runs

Written by \`${command}\` on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC,
${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, load average ${load} (shared machine; the replay is CPU-light).

${icReplayed ? 'IC recomputed from the recorded answers and the rebuilt probe queries.' : `**IC not replayed**: this machine's apt lists changed since the recording, so the probe queries cannot be rebuilt (${unmatched.length} of ${byProbe.size} probes pick another question); the ic detector sees no test.`}

Input: \`${relative(process.cwd(), runsFile)}\` (${rows.length} clean results, ${byProbe.size} probes × ${rows.length / byProbe.size} runs, one online and one
baseline sample each; Gemma 3 270M at temperature 0.7; recorded 2026-12-04, see RESULTS.md). Every result is clean, so
**every anomaly below is a false one**. A window of k consecutive results of a probe stands for one sampled run; the
windows of a probe, in order, are the sequence its detectors pool over (so each probe contributes only 10 / k runs:
the recording is short). Adaptive: each window's size is what \`AdaptiveSampling\` asks from the probe's evidence so
far (lean fraction 0.01 of the threshold). Signals decided by the product's \`compareWithBaseline\` with the pooled
verdict: fcs_drop / ic_drop when the detector alarms and this run's median drop passes 0.15 / 0.2; answer_disagreement
when the facts detector alarms and the probe's knowledge did not change since the pin ("updates" column: facts
alarms on changed knowledge, which the product takes as an update when the online evidence carries the newer version
— not replayable here, the evidence was not recorded).

| level α | samples a side | pooled runs | RAG calls per result | false anomalies (runs) | by signal | facts alarms on updated knowledge | largest statistic fcs / ic / facts | which |
| --- | --- | --- | --- | --- | --- | --- | --- | --- |
${table}

The guarantee (services/sentinel/README.md): at least 1 / α clean runs of a probe, on average, between false
anomalies from the pooled test. On this recording that is ${alphas.map((a) => `${fmt(1 / a)} runs at α = ${a}`).join(', ')}; the
recording has at most ${Math.max(...outcomes.map((o) => o.runs))} pooled runs in all and 10 / k per probe, so it can show a violation only if false anomalies are frequent.

## Longer null streams bootstrapped from the recording

The recording gives each probe only 10 / k pooled runs. Here each probe runs ${bootstrapRuns} times, every sample of either
side drawn with replacement from that probe's 20 recorded samples of both sides (answer and FCS together, fixed
seed): online and baseline are exchangeable by construction, with this RAG's own bimodal, tied FCS and its own
varied answers, so **every anomaly is a false one** and the guarantee applies (runs per anomaly ≥ 1 / α on average).
(Drawing each side from its own 10 recorded samples is no null: every chance difference between those 10 and 10
becomes a permanent one.)

| level α | samples a side | pooled runs | RAG calls per result | false anomalies (runs) | runs per false anomaly | by signal | probes |
| --- | --- | --- | --- | --- | --- | --- | --- |
${bootRows.join('\n')}

Detection on the same bootstrap streams with the online FCS lowered by the shift (a synthetic change, floored at 0;
delay = the probe's run at its first fcs_drop / samples a side taken by then, median / p90 over the probes that
were detected within ${bootstrapRuns} runs):

| FCS shift | level α | samples a side | probes detected | run of detection (median / p90) | samples a side (median / p90) | RAG calls per result |
| --- | --- | --- | --- | --- | --- | --- |
${bootDelays.join('\n')}

## Detection delay on a synthetic shift of the recorded scores (not a recorded fault)

Each probe's recorded online FCS lowered by the shift (floored at 0), everything else as recorded, replayed the
same way; the delay is the probe's run at its first fcs_drop, and the samples a side it had taken by then. Only
${rows.length / byProbe.size} recorded results per probe: a probe not detected within them is counted as not found (its delay is longer).

| FCS shift | level α | samples a side | probes detected within the recording | median run of detection | median samples a side by then |
| --- | --- | --- | --- | --- | --- |
${delays.join('\n')}

**Detection delay on recorded faults: not measured.** No recorded sampled fault runs exist: bench/healing's LangChain trials
(langchain-2026-12-04.md, langchain-2026-12-05.md) kept reports and actions, not the per-sample scores and answers,
and \`.runs/\` is not in the repository. The delays above are on a synthetic shift; simulated streams are checked in
\`packages/probing/test/unit/pooled-test.test.ts\` (not a recording).
`;
writeFileSync(values.out, markdown);
console.log(markdown);
