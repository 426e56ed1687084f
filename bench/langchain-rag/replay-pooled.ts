/**
 * The sentinel's pooled test (issue 39) replayed on bench/langchain-rag's recorded runs, through the
 * product's own code (./pooled-replay.ts over @rag-immune/probing: PooledEvidence, AdaptiveSampling,
 * the exact Mann–Whitney null, the key-fact frequency test, compareWithBaseline), not a copy of it.
 *
 * False alarms: the recorded clean runs (results/latest-runs.jsonl: 30 probes x 10 runs, one online
 * and one baseline sample each), and longer null streams bootstrapped from them. Detection delay: the
 * recorded fault runs (results/fault-*.jsonl, written by run.ts --fault), replayed at the same levels
 * and sample sizes over each touched probe's results in order, printed beside the false alarms so an
 * operator can choose the level; without a fault recording the output says so.
 *
 * Each probe's recorded results are consumed in order, a window of k consecutive results standing
 * for one sampled run (its k online and k baseline samples), the windows of a probe forming the
 * sequence its detectors pool over. Fixed k: windows of k. Adaptive: each window's size is what
 * AdaptiveSampling asks given the probe's evidence so far (base while clean, max while leaning), so
 * the RAG calls per result are replayed too. FCS is the recorded score; IC is recomputed from the
 * recorded answer and the probe query (rebuilt for the clean recording, recorded in a fault one); the
 * facts test reads the recorded answers. Not recorded, so not replayed: KF, citations, latency,
 * evidence (as in analyse.ts). A knowledge update is taken from the recording's knowledge_changed
 * (the product reads it from the evidence's versions).
 *
 * Usage: npx tsx bench/langchain-rag/replay-pooled.ts [--alphas 0.05,0.01,0.005] [--ks 2,3,5] [--adaptive 2:5]
 *        [--fault-runs results/fault-a.jsonl,...] [--out bench/langchain-rag/RESULTS-pooled.md]
 *        (--fault-runs: default every bench/langchain-rag/results/fault-*.jsonl; "none" for none)
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadDebianKnowledge } from '@rag-immune/debian-knowledge';
import { loadQuestions } from '@rag-immune/reference-rag/testing';
import { AdaptiveSampling, intentCoverage, probesFromQuestions } from '@rag-immune/probing';
import {
  bootstrap,
  detectionDelay,
  groupByProbe,
  readRecording,
  replay as replayRecorded,
  type IcScorer,
  type RecordedResult,
  type ReplayOutcome,
  type WindowSource,
} from './pooled-replay.ts';

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
    'fault-runs': { type: 'string' },
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

const runsFile = join(here, 'results', 'latest-runs.jsonl');
const rows = readRecording(runsFile);

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
const byProbe = groupByProbe(rows);

const icOf = (query: string | undefined, answer: string) =>
  query === undefined || answer.trim() === '' ? null : intentCoverage(query, answer, false).ic;
const ic: IcScorer = (row, answer) => (!icReplayed ? null : icOf(queryOf.get(row.probe_id)!.query, answer));
/** The clean recording's replay (the probes of latest-runs.jsonl). */
const replay = (alpha: number, sampling: AdaptiveSampling, label: string, shift = 0, source?: WindowSource) =>
  replayRecorded(byProbe, alpha, sampling, { label, shift, ic, ...(source === undefined ? {} : { source }) });

const outcomes: ReplayOutcome[] = [];
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
/** The bootstrap null's outcome by level and setting, for the fault tables' false-alarm column. */
const bootOutcome = new Map<string, ReplayOutcome>();
for (const alpha of alphas)
  for (const [label, sampling] of settings()) {
    const o = replay(alpha, sampling(), label, 0, bootstrap(bootstrapRuns, 1));
    bootOutcome.set(`${alpha} ${label}`, o);
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

// Recorded fault runs (run.ts --fault): the detection delay at every level and setting above.
const resultsDir = join(here, 'results');
const faultFiles =
  values['fault-runs'] === 'none'
    ? []
    : values['fault-runs'] !== undefined
      ? values['fault-runs'].split(',').map((file) => resolve(file))
      : readdirSync(resultsDir)
          .filter((file) => /^fault-.*\.jsonl$/.test(file))
          .sort()
          .map((file) => join(resultsDir, file));
/** IC from the query the fault recording kept (no rebuilt pick needed). */
const faultIc: IcScorer = (row, answer) => icOf(row.query, answer);
const cleanOutcome = new Map(outcomes.map((o) => [`${o.alpha} ${o.label}`, o]));
const max = (xs: number[]) => (xs.length === 0 ? '—' : Math.max(...xs).toString());
const faultSections = faultFiles.map((file) => {
  const faultRows: RecordedResult[] = readRecording(file);
  const headerFile = file.replace(/\.jsonl$/, '.json');
  const header = existsSync(headerFile)
    ? (JSON.parse(readFileSync(headerFile, 'utf8')) as { command?: string; date?: string; machine?: string })
    : {};
  const fault = faultRows.find((r) => r.fault !== undefined)?.fault ?? basename(file);
  const lines: string[] = [];
  let touched = 0;
  let perProbe = { min: 0, max: 0 };
  for (const alpha of alphas)
    for (const [label, sampling] of settings()) {
      const d = detectionDelay(faultRows, alpha, sampling, faultIc);
      touched = d.touched;
      perProbe = d.resultsPerProbe;
      const clean = cleanOutcome.get(`${alpha} ${label}`)!;
      const boot = bootOutcome.get(`${alpha} ${label}`)!;
      lines.push(
        `| ${alpha} | ${label} | ${clean.anomalous} of ${clean.runs} | ${(boot.runs / Math.max(1, boot.anomalous)).toFixed(0)}${boot.anomalous === 0 ? '+' : ''} | **${d.detected} of ${d.touched}** | ${mid(d.runs)} / ${max(d.runs)} | ${mid(d.calls)} / ${max(d.calls)} | ${
          Object.entries(d.bySignal)
            .map(([sig, n]) => `${sig} ${n}`)
            .join(', ') || '—'
        } | ${d.untouched === 0 ? '—' : `${d.untouchedAnomalous} (${d.untouched} probes)`} |`,
      );
    }
  // What the product's one-sample checks said while recording (citations, KF...: outside the pooled test).
  const touchedRows = faultRows.filter((r) => r.touched === true);
  const perRun: Record<string, number> = {};
  for (const row of touchedRows) for (const s of row.signals ?? []) perRun[s] = (perRun[s] ?? 0) + 1;
  const flagged = touchedRows.filter((r) => (r.signals ?? []).length > 0).length;
  return `### ${fault}

\`${relative(process.cwd(), file)}\`: ${faultRows.length} results, ${touched} ${touched === 1 ? 'probe' : 'probes'} on touched knowledge with ${perProbe.min === perProbe.max ? perProbe.min : `${perProbe.min}–${perProbe.max}`} results each${
    header.command === undefined ? '' : `; recorded by \`${header.command}\``
  }${header.date === undefined ? '' : ` on ${header.date.slice(0, 16).replace('T', ' ')} UTC`}${header.machine === undefined ? '' : ` (${header.machine})`}.

| level α | samples a side | false anomalies, recorded clean runs | clean runs per false anomaly, bootstrap null | touched probes detected within the recording | run of the first anomaly (median / max) | RAG calls until it (median / max) | first anomaly's signals (probes) | anomalous runs on untouched probes |
| --- | --- | --- | --- | --- | --- | --- | --- | --- |
${lines.join('\n')}

At record time the product's one-sample checks (ProbeRunner, every signal, not only the pooled ones) flagged ${flagged} of
${touchedRows.length} touched results${
    flagged === 0
      ? ''
      : ` (${Object.entries(perRun)
          .map(([sig, n]) => `${sig} ${n}`)
          .join(', ')})`
  }; their false-alarm rates on clean runs are in RESULTS.md.
`;
});

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
const markdown = `# bench/langchain-rag — the pooled test replayed on the recorded ${faultSections.length === 0 ? 'clean runs' : 'clean and fault runs'}

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

## Detection delay on recorded faults, beside the false alarms

${
  faultSections.length === 0
    ? `**Not measured: no recorded fault runs** (no \`bench/langchain-rag/results/fault-*.jsonl\`; \`run.ts --fault <kind>\` records them).
bench/healing's LangChain trials (langchain-2026-12-04.md, langchain-2026-12-05.md) kept reports and actions, not the
per-sample scores and answers. The delays above are on a synthetic shift; simulated streams are checked in
\`packages/probing/test/unit/pooled-test.test.ts\` (not a recording).`
    : `Each fault was written into the online instance's Qdrant collection only (the baseline stays clean), on the knowledge
of the probes run, before the first run (run.ts --fault). Each touched probe's recorded results are replayed in order,
from fresh evidence, at the same levels and sample sizes as the false-alarm tables; the delay is the probe's run at
its first anomaly (fcs_drop, ic_drop or answer_disagreement) and the RAG calls (online and baseline) made until it,
included. A touched probe not detected within its recorded results counts as not detected (its delay is longer). The
false-alarm columns repeat, for the same setting, the recorded clean runs (first table) and the bootstrap null
(second table). Untouched probes (none unless an attribution swap found no partner) are replayed apart: their
anomalies are false ones or the fault reaching them.

${faultSections.join('\n')}`
}
`;
writeFileSync(values.out, markdown);
console.log(markdown);
