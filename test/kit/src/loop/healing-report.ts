/**
 * bench/healing's RESULTS page, rendered from runs' records (loop/healing-records.ts): one run as it
 * goes (bench/healing/run.ts writes it after every trial), or several runs of the same RAG merged
 * (bench/healing/merge.ts: the LangChain RAG's matrix takes longer than one session). Every figure
 * is computed here from the records; a merged page lists every run's command, commit and machine,
 * adds the clean phases together and counts each kind's trials over all runs.
 */
import { expectationOf } from './faults.ts';
import { callsPerResultText, type RagCallCount } from './rag-calls.ts';
import type { HealingCompoundRow, HealingRun, HealingTrialRow, SentinelTiming } from './healing-records.ts';

/**
 * The order kinds run in within a cycle: kinds whose repair would mask a later one come late, the
 * unseen kind (nothing heals it) last. Also the order of the matrix's rows.
 */
export const HEALING_KIND_ORDER = [
  'vector-index-corruption',
  'reranker-drift',
  'tokenizer-anomaly',
  'parser-bug',
  'knowledge-source-failure',
  // Before answer validation (the generator repair) stays on, and before the unseen kind.
  'unpublished-knowledge',
  'attribution-swap',
  'generator-inconsistency',
  // Its repair (the generator pinned back) stays on for the rest of the cycle; nothing later depends on the prompt.
  'prompt-regressed',
  'embedding-model-swap',
];
export const kindRank = (kind: string) =>
  HEALING_KIND_ORDER.includes(kind) ? HEALING_KIND_ORDER.indexOf(kind) : HEALING_KIND_ORDER.length;

/** One row of the matrix: a fault kind, with its mode when pinned. */
export interface FaultSpec {
  kind: string;
  mode?: string;
  label: string;
}

export function faultSpecOf(text: string): FaultSpec {
  const [kind, mode] = text.split(':') as [string, string | undefined];
  return { kind, ...(mode === undefined ? {} : { mode }), label: mode === undefined ? kind : `${kind} (${mode})` };
}

/** The rows of several runs' matrices together, in cycle order (a kind's unpinned row before its pinned modes). */
export function matrixSpecs(runs: readonly HealingRun[]): FaultSpec[] {
  const byLabel = new Map<string, FaultSpec>();
  for (const run of runs) for (const text of run.header.kinds) byLabel.set(faultSpecOf(text).label, faultSpecOf(text));
  return [...byLabel.values()].sort((a, b) => kindRank(a.kind) - kindRank(b.kind) || (a.mode ?? '').localeCompare(b.mode ?? ''));
}

/** The row a trial counts in: its kind's row pinned to its mode if there is one, else the kind's unpinned row. */
export function specOf(specs: readonly FaultSpec[], trial: Pick<HealingTrialRow, 'plan'>): FaultSpec | undefined {
  return (
    specs.find((s) => s.kind === trial.plan.kind && s.mode !== undefined && s.mode === trial.plan.mode) ??
    specs.find((s) => s.kind === trial.plan.kind && s.mode === undefined)
  );
}

export interface RenderOptions {
  /** The merge command that rendered the page (several runs); absent for a run writing its own page. */
  mergeCommand?: string;
  /** A run writing its own page: where its raw records are. */
  rawRecords?: string;
}

const fixed = (x: number) => x.toFixed(2);
const load = (xs: readonly number[]) => xs.map(fixed).join(' / ');

function quantile(xs: readonly number[], q: number): string {
  if (xs.length === 0) return '—';
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!.toFixed(3);
}

function sumCalls(counts: readonly (RagCallCount | undefined)[]): RagCallCount {
  const present = counts.filter((c): c is RagCallCount => c !== undefined);
  return { calls: present.reduce((a, c) => a + c.calls, 0), results: present.reduce((a, c) => a + c.results, 0) };
}

function callsPerResultOf(rows: readonly { rag_calls?: RagCallCount }[]): string {
  const { calls, results } = sumCalls(rows.map((r) => r.rag_calls));
  return results === 0 ? '—' : (calls / results).toFixed(1);
}

function cleanText(runs: readonly HealingRun[]): string {
  const cleans = runs.map((r) => r.header.clean);
  const total = (key: 'rounds' | 'results' | 'anomalies' | 'reports' | 'actions') => cleans.reduce((a, c) => a + c[key], 0);
  const online = cleans.flatMap((c) => c.onlineFcs);
  const baseline = cleans.flatMap((c) => c.baselineFcs);
  const signals = cleans.flatMap((c) => c.signals);
  const samples = [...new Set(cleans.flatMap((c) => c.samples))].sort((a, b) => a - b);
  const timings = cleans.map((c) => c.timing).filter((t): t is SentinelTiming => t !== undefined && t.runs > 0);
  const metricCalls = sumCalls(timings.map((t) => t.ragCalls));
  const calls = `RAG calls per probe result: **${callsPerResultText(sumCalls(cleans.map((c) => c.calls)))}** from the results' own counts (the pooled test's \`rag_calls\`, else k a side)${
    metricCalls.results > 0
      ? `; the sentinel's /metrics (rag_immune_sentinel_rag_calls_per_result, sum over count): ${callsPerResultText(metricCalls)}`
      : ''
  }.`;
  const t = timings.reduce(
    (a, x) => ({
      fcsSeconds: a.fcsSeconds + x.fcsSeconds,
      fcsCalls: a.fcsCalls + x.fcsCalls,
      runSeconds: a.runSeconds + x.runSeconds,
      runs: a.runs + x.runs,
    }),
    { fcsSeconds: 0, fcsCalls: 0, runSeconds: 0, runs: 0 },
  );
  const timing =
    t.runs === 0
      ? 'FCS share of probe time: not measured (no probe run in the clean phase).'
      : `FCS share of probe time: **${((100 * t.fcsSeconds) / t.runSeconds).toFixed(1)}%** (the sentinel's FCS scorer ${t.fcsSeconds.toFixed(1)} s over ` +
        `${t.fcsCalls} scoring calls, ${(t.fcsSeconds / Math.max(1, t.fcsCalls)).toFixed(3)} s each, of ${t.runSeconds.toFixed(1)} s in ${t.runs} probe runs, ` +
        `${(t.runSeconds / t.runs).toFixed(1)} s a run; from its /metrics, rag_immune_fcs_score_seconds over rag_immune_sentinel_probe_run_seconds).`;
  const figures =
    total('results') === 0
      ? ''
      : `${calls}
Samples a side per result: ${samples.join(', ')}. FCS of the online answers: p50 ${quantile(online, 0.5)}, p99 ${quantile(online, 0.99)} (${online.length} results with an FCS);
baseline: p50 ${quantile(baseline, 0.5)}, p99 ${quantile(baseline, 0.99)}. Anomaly signals: ${signals.length === 0 ? 'none' : signals.join(', ')}.
${timing}
`;
  const perRun =
    runs.length > 1
      ? `\nPer run: ${runs.map((r) => `${r.header.stamp} ${r.header.clean.rounds} rounds, ${r.header.clean.results} results, ${r.header.clean.anomalies} anomalies, ${r.header.clean.reports} reports, ${r.header.clean.actions} actions`).join('; ')}.\n`
      : '';
  return `${total('rounds')} rounds, ${total('results')} probe results: **${total('anomalies')} anomalies, ${total('reports')} reports, ${total('actions')} repair actions**.
${figures}${perRun}`;
}

function settingsText(run: HealingRun): string {
  const settings = run.header.sentinelSettings;
  const keys = Object.keys(settings).sort();
  return keys.length === 0
    ? "Sentinel settings: its defaults (services/sentinel's README)."
    : `Sentinel settings (the RAG pair's${run.header.sentinelEnvGiven ? `, --sentinel-env over them` : ''}; the rest its defaults): ${keys.map((k) => `\`${k}=${settings[k]}\``).join(', ')}.`;
}

/** What a run was: its command, time, machine, RAG, probes and settings. */
function runText(run: HealingRun, options: RenderOptions): string {
  const h = run.header;
  const planned = h.trialsPerKind * h.kinds.length + h.compoundTrialsPerPair * h.compoundPairs.length;
  const done = run.trials.length + run.compounds.length + h.notInjected.length;
  const how = h.isolate
    ? 'Every trial runs on its own fresh RAG pair and its own four workers (nothing carries over from one fault to the next),\nafter one clean round; the fault is '
    : 'Trials run in cycles: each cycle injects every kind once, in the order below, on one fresh online RAG on the same URL\n(the identifier, effector and memory keep running; memory accumulates cases), each fault after the previous incident closed,\n';
  const injected =
    h.rag === 'langchain'
      ? 'written straight into the online Qdrant collection through its alias, or deployed as a new build of the online RAG (no fault API)'
      : 'injected through the admin API';
  return `\`npm run stack -- up && ${h.command}\`${options.mergeCommand ? '' : ` (the command as run; \`npm run bench:healing\` is the full matrix${h.rag === 'langchain' ? ' on the reference RAG' : ''})`}
at ${h.commit}${options.rawRecords ? ` (raw per-trial records in \`${options.rawRecords}\`, worker logs in \`.runs/bench-healing-${h.stamp}/\`)` : ''}.

${h.finished ? '' : `**Partial: ${done} of ${planned} trials done when this was written${options.mergeCommand ? ' (stopped before its end)' : ''}.**\n\n`}Run of ${h.startedAt.slice(0, 16).replace('T', ' ')} UTC on ${h.machine}; load average (1/5/15 min) ${load(h.loadAtStart)} at the start, ${load(h.loadAtEnd)} when written, sharing the machine with the local stack
(Kafka, schema registry, Elasticsearch, the Qdrant server the stack runs, Prometheus) and other work. Probe interval **${h.interval} s**
(the seed's: 10 min), ${h.probes} golden probes, ${h.ragText}, effector in \`auto\` mode.
${settingsText(run)}
${how}${injected} and never undone by the benchmark.`;
}

function stats(xs: readonly (number | undefined)[]): string {
  const v = xs.filter((x): x is number => x !== undefined);
  if (v.length === 0) return '—';
  const mean = v.reduce((a, b) => a + b, 0) / v.length;
  const sd = Math.sqrt(v.reduce((a, b) => a + (b - mean) ** 2, 0) / v.length);
  return `${mean.toFixed(1)} ± ${sd.toFixed(1)} s${v.length < xs.length ? ` (${v.length}/${xs.length})` : ''}`;
}

const pct = (n: number, d: number) => (d === 0 ? '—' : `${Math.round((100 * n) / d)}% (${n}/${d})`);
const secondsSince = (t: { injectedAt: number }, at?: number) => (at === undefined ? undefined : (at - t.injectedAt) / 1000);

function matrixRows(specs: readonly FaultSpec[], trials: readonly HealingTrialRow[]): string[] {
  return specs.flatMap((spec) => {
    const ts = trials.filter((t) => specOf(specs, t) === spec);
    if (ts.length === 0) return [];
    const unseen = expectationOf(spec.kind).cause === null;
    return [
      `| ${spec.label}${unseen ? ' (unseen)' : ''} | ${ts.length} | ${stats(ts.map((t) => secondsSince(t, t.detectedAt)))} | ${stats(ts.map((t) => secondsSince(t, t.correctReportAt)))} | ${
        unseen ? '—' : stats(ts.map((t) => secondsSince(t, t.verifiedAt)))
      } | ${pct(ts.filter((t) => t.localised).length, ts.length)} | ${
        unseen
          ? `no wrong repair verified: ${pct(ts.filter((t) => !t.wrongRepairVerified).length, ts.length)}`
          : pct(ts.filter((t) => t.outcome === 'healed').length, ts.length)
      } | ${unseen ? '—' : pct(ts.filter((t) => t.sentinelRecoveredAt !== undefined).length, ts.length)} | ${(ts.reduce((a, t) => a + t.actions.length, 0) / ts.length).toFixed(1)} | ${ts.reduce((a, t) => a + t.rollbacks, 0)} | ${[...new Set(ts.map((t) => t.outcome))].join(', ')} | ${callsPerResultOf(ts)} |`,
    ];
  });
}

function namedCausesText(specs: readonly FaultSpec[], trials: readonly HealingTrialRow[]): string {
  return specs
    .flatMap((spec) => {
      const ts = trials.filter((t) => specOf(specs, t) === spec);
      if (ts.length === 0) return [];
      const counts = new Map<string, number>();
      for (const t of ts) counts.set(t.finalReport?.root_cause ?? 'none', (counts.get(t.finalReport?.root_cause ?? 'none') ?? 0) + 1);
      const expected = expectationOf(spec.kind).cause ?? 'unknown (unseen kind: abstain or name the component)';
      return [`- ${spec.label} (expected ${expected}): ${[...counts].map(([cause, n]) => `${cause} ${n}/${ts.length}`).join(', ')}`];
    })
    .join('\n');
}

function indexDiffRow(t: HealingTrialRow, tag: string): string {
  const d = t.finalReport?.index_diff ?? null;
  const cause = t.finalReport ? `${t.finalReport.root_cause} ${t.finalReport.confidence.toFixed(2)}` : '—';
  if (d === null) return `| ${tag}${t.plan.kind} | ${t.plan.mode ?? '-'} | ${cause} | — | | | | | | | | | |`;
  const cosine = d.min_vector_cosine === null ? '' : ` (${d.min_vector_cosine.toFixed(3)})`;
  return `| ${tag}${t.plan.kind} | ${t.plan.mode ?? '-'} | ${cause} | ${d.knowledge_ids.length} | ${d.online_points} / ${d.baseline_points} | ${d.missing} | ${d.added_unexpected} | ${d.relabelled} | ${d.payload_changed} | ${d.text_changed} | ${d.vectors_moved}${cosine} | ${d.explained_by.join(', ') || '—'} | ${d.unexplained.join(', ') || '—'} |`;
}

function compoundRow(t: HealingCompoundRow, tag: string): string {
  const s = (at?: number) => (at === undefined ? '—' : ((at - t.injectedAt) / 1000).toFixed(1));
  const causes = t.faults.map((f) => expectationOf(f.plan.kind).cause);
  const named = causes.filter((c) => c !== null && t.namedCauses.includes(c)).length;
  return `| ${tag}${t.faults.map((f) => `${f.plan.kind}/${f.plan.mode ?? '-'}`).join(' + ')} | ${s(t.detectedAt)} | ${named}/${causes.length} (${t.namedCauses.join(', ') || '—'}) | ${t.repairedBy.map((r) => r ?? '—').join(' + ')} | ${t.rightRepairsUndone.length} | ${t.partials.length} | ${s(t.sentinelRecoveredAt)} | ${t.actions.join(' ') || '—'} | ${t.outcome} | ${callsPerResultOf([t])} |`;
}

function trialRow(t: HealingTrialRow, tag: string): string {
  const s = (at?: number) => secondsSince(t, at)?.toFixed(1) ?? '—';
  return `| ${tag}${t.plan.kind} | ${t.plan.mode} | ${t.plan.fraction} | ${t.plan.seed} | ${t.touched.length} | ${s(t.detectedAt)} | ${s(t.firstReportAt)} | ${s(t.correctReportAt)} | ${s(t.verifiedAt)} | ${
    t.finalReport ? `${t.finalReport.root_cause} ${t.finalReport.confidence.toFixed(2)}` : '—'
  } | ${t.actions.map((a) => `${a.intent}:${a.statuses.at(-1)}`).join(' ') || '—'} | ${t.outcome} | ${callsPerResultOf([t])} |`;
}

/** The RESULTS page of one run, or of several runs of one RAG (their trials counted together). */
export function renderHealingResults(runs: readonly HealingRun[], options: RenderOptions = {}): string {
  if (runs.length === 0) throw new Error('renderHealingResults: no run');
  const rags = new Set(runs.map((r) => r.header.rag));
  if (rags.size > 1) throw new Error(`renderHealingResults: runs of different RAGs (${[...rags].join(', ')}): one page per RAG`);
  const langchain = runs[0]!.header.rag === 'langchain';
  const merged = runs.length > 1 || options.mergeCommand !== undefined;
  const tagOf = (run: HealingRun) => (merged ? `${run.header.stamp.slice(5, 16)} ` : '');
  const trials = runs.flatMap((r) => r.trials);
  const compounds = runs.flatMap((r) => r.compounds);
  const specs = matrixSpecs(runs);
  const notInjected = runs.flatMap((r) =>
    r.header.notInjected.map((n) => `- ${merged ? `${r.header.stamp}: ` : ''}${n.label}: ${n.reason}`),
  );
  const compoundTrialsText = [...new Set(runs.map((r) => r.header.compoundTrialsPerPair))].join(' or ');
  const header = merged
    ? `Merged by \`${options.mergeCommand ?? 'bench/healing/merge.ts'}\` from ${runs.length} kept run(s) (their run.json and trials.jsonl);
each trial below is tagged with its run's start (MM-DDTHH-MM). The runs:

${runs.map((r, i) => `${i + 1}. ${runText(r, options)}`).join('\n\n')}`
    : runText(runs[0]!, options);
  return `# bench/healing results${langchain ? ': the LangChain RAG (Gemma 3 270M, sampled)' : ''}

${header}

Times are seconds after the fault was in effect; "detected" is when the first anomaly reached the bus (before 2026-12-07, its probe's start: about 0.3 s earlier on the reference RAG, a sampled probe's minute on the LangChain RAG).

## Clean rounds (no fault)

${cleanText(runs)}${notInjected.length === 0 ? '' : `\n## Faults not injected into this RAG\n\n${notInjected.join('\n')}\n`}
## Fault matrix

"RAG calls / result": the RAG calls (both sides, every probe) behind each probe result published from the injection to the
trial's end, over the kind's trials; what the sampled mode spends while a fault is on.

| fault | trials | detection | correct report | verified recovery (MTTR) | localisation | repair success | sentinel saw recovery | actions / trial | rollbacks | outcomes | RAG calls / result |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
${matrixRows(specs, trials).join('\n')}

## What each fault was named, and what the index diff said changed

Per kind, the final report's cause over its trials; per trial, the index diff the last report carried (the identifier's
own read of the online and baseline Qdrant collections for the knowledge it implicates; "—": no diff read, a fault
with no knowledge scope or none implicated). Columns count chunks: missing, added (versions the baseline lacks, valid
before its pin), relabelled (same text, other id), payload (version or validity changed), text (rewritten in place),
vectors (moved: cosine < 0.999, min cosine in brackets); "explained by" the catalogue causes whose signature it shows,
"unexplained" the changes none explains.

${namedCausesText(specs, trials)}

| fault | mode | final cause | ids diffed | points online / baseline | missing | added | relabelled | payload | text | vectors (min cos) | explained by | unexplained |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
${runs.flatMap((r) => r.trials.map((t) => indexDiffRow(t, tagOf(r)))).join('\n')}

## Compound trials (two faults at once)

Each on a fresh online RAG, ${compoundTrialsText} trial(s) per pair with their own seeds; scoped faults on different documents (a quarter of the probed knowledge each).
Goal: both causes named, both repaired, no repair that healed a probe (and worsened none) undone, the sentinel seeing every touched probe clean.
"RAG calls / result": the calls behind each probe result published from the injection to the trial's end (every probe, both sides).

| faults | detected | causes named | repaired by | right repairs undone | partial recoveries kept | sentinel saw recovery | actions | outcome | RAG calls / result |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
${runs.flatMap((r) => r.compounds.map((t) => compoundRow(t, tagOf(r)))).join('\n') || (compounds.length === 0 ? '| (none run) | | | | | | | | | |' : '')}

## The seed's table (003 §4.3, staging, probe interval 10 min)

| fault | detection | localisation | repair success | MTTR |
| --- | --- | --- | --- | --- |
| knowledge source failure | 9.2 ± 1.3 min | 100% | 100% | 4.1 min |
| model (reranker) drift | 3.7 ± 0.8 min | 92% | 100% | 2.3 min |
| vector index corruption | 1.5 ± 0.4 min | 100% | 100% | 1.8 min |

## Every trial

| fault | mode | fraction | seed | touched probes | detected | first report | correct report | verified | final cause | actions (last status) | outcome | RAG calls / result |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
${runs.flatMap((r) => r.trials.map((t) => trialRow(t, tagOf(r)))).join('\n')}
${
  runs.some((r) => (r.notes?.length ?? 0) > 0)
    ? `\n## Notes (each run's notes.txt, written by hand from the workers' logs)\n\n${runs.flatMap((r) => (r.notes ?? []).map((n) => `- ${r.header.stamp}: ${n}`)).join('\n')}\n`
    : ''
}`;
}
