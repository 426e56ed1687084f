/**
 * The fault-matrix benchmark (npm run bench:healing): the real local stack, the reference RAG pair
 * and the four workers as processes. First clean rounds with no fault (every report or action is a
 * false alarm), then for each fault kind (the six the identifier was built for and the unseen
 * evaluation-only kind, plus the two operator faults written straight into Qdrant) several trials with varied scope, fault mode and seed. Each trial starts
 * from a fresh online RAG on the same URL (the workers keep running: memory accumulates cases),
 * injects the fault and only watches. Figures: time to detection, to a correct RootCauseReport, to
 * verified recovery (MTTR), repair success, actions, rollbacks, localisation accuracy.
 *
 *   npm run bench:healing -- [--trials 5] [--kinds a,b] [--clean-rounds 20] [--interval 4]
 *                            [--packages 25] [--probes 10] [--timeout 240] [--out bench/healing/RESULTS.md]
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { cpus, totalmem } from 'node:os';
import { repoRoot } from '@rag-immune/stack';
import { LoopRun } from '@rag-immune/test-kit/loop/loop-run';
import { ALL_FAULT_KINDS, expectationOf, type FaultPlan } from '@rag-immune/test-kit/loop/faults';
import { runTrial, type TrialResult } from '@rag-immune/test-kit/loop/trial';
import { OPERATOR_FAULT_KINDS } from '@rag-immune/test-kit/loop/operator-faults';
import { runCompoundTrial, type CompoundTrialResult } from '@rag-immune/test-kit/loop/compound-trial';

const { values } = parseArgs({
  options: {
    trials: { type: 'string', default: '5' },
    // The fault API's kinds, and the operator faults written straight into Qdrant (issue 30).
    kinds: { type: 'string', default: [...ALL_FAULT_KINDS, ...OPERATOR_FAULT_KINDS].join(',') },
    'clean-rounds': { type: 'string', default: '20' },
    interval: { type: 'string', default: '4' },
    packages: { type: 'string', default: '25' },
    probes: { type: 'string', default: '10' },
    timeout: { type: 'string', default: '240' },
    out: { type: 'string', default: 'bench/healing/RESULTS.md' },
    isolate: { type: 'boolean', default: false },
    // Compound trials (issue 30): pairs of faults injected together, `a+b,c+d`; '' for none.
    compound: {
      type: 'string',
      default: 'reranker-drift+knowledge-source-failure,parser-bug+vector-index-corruption,reranker-drift+vector-index-corruption',
    },
  },
});
const trialsPerKind = Number(values.trials);
const kinds = values.kinds.split(',').filter(Boolean);
for (const kind of kinds) expectationOf(kind);
const interval = Number(values.interval);
const FRACTIONS = [0.5, 0.25, 0.75, 1, 0.4, 0.6, 0.3];

const log = (text: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${text}`);
const isolate = values.isolate ?? false;
const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
const benchDir = join(repoRoot(), '.runs', `bench-healing-${stamp}`);
mkdirSync(benchDir, { recursive: true });
let runs = 0;
const newRun = () =>
  new LoopRun({
    label: 'bench-healing',
    packages: Number(values.packages),
    probeCount: Number(values.probes),
    probeIntervalSeconds: interval,
    runDir: join(benchDir, `system-${(runs += 1)}`),
    say: log,
  });
const rawFile = join(benchDir, 'trials.jsonl');
const trials: TrialResult[] = [];
const compoundPairs = values.compound
  .split(',')
  .filter(Boolean)
  .map((pair) => pair.split('+'));
for (const pair of compoundPairs) {
  if (pair.length !== 2) throw new Error(`--compound: a pair is two kinds joined by +, got ${pair.join('+')}`);
  for (const kind of pair) expectationOf(kind);
}
const compoundTrials: CompoundTrialResult[] = [];
let clean = { rounds: 0, results: 0, anomalies: 0, reports: 0, actions: 0 };
const startedAt = new Date();

// Kinds whose repair would mask a later one in the same cycle come late; the unseen kind (nothing
// heals it) last. Each cycle runs every kind once on one fresh online RAG, then the RAG is reset.
// With --isolate every trial gets its own RAG pair and its own four workers (nothing carries over).
const ORDER = [
  'vector-index-corruption',
  'reranker-drift',
  'tokenizer-anomaly',
  'parser-bug',
  'knowledge-source-failure',
  // Before answer validation (the generator repair) stays on, and before the unseen kind.
  'unpublished-knowledge',
  'attribution-swap',
  'generator-inconsistency',
  'embedding-model-swap',
];
const cycleKinds = [...ORDER.filter((k) => kinds.includes(k)), ...kinds.filter((k) => !ORDER.includes(k))];

/**
 * The probe results of a trial's window, beside the trial's worker logs: enough to tell afterwards
 * why a fault went undetected (which probes ran, what they scored, which signals fired).
 */
function dumpProbes(trial: TrialResult): void {
  const from = trial.injectStartedAt - run.probeIntervalMs * 2;
  const lines = run.recorder.probes
    .filter((p) => p.event.occurred_at >= from && p.event.occurred_at <= trial.endedAt)
    .map(({ event: p }) => ({
      at_s: Number(((p.occurred_at - trial.injectedAt) / 1000).toFixed(1)),
      probe_id: p.probe_id,
      anomaly: p.anomaly,
      signals: p.anomaly_signals,
      online_fcs: p.online.signals?.fcs ?? null,
      baseline_fcs: p.baseline.signals?.fcs ?? null,
      fcs_drop: p.comparison.fcs_drop,
      answer_agreement: p.comparison.answer_agreement,
      online_call: p.online.call_status,
    }));
  appendFileSync(
    join(run.runDir, 'trial-probes.jsonl'),
    lines.map((l) => JSON.stringify({ trial: `${trial.plan.kind}/${trial.plan.seed}`, ...l })).join('\n') + '\n',
  );
}

function record(trial: TrialResult): void {
  trials.push(trial);
  dumpProbes(trial);
  appendFileSync(
    rawFile,
    `${JSON.stringify({
      ...trial,
      firstAnomaly: undefined,
      firstReport: undefined,
      finalReport: trial.finalReport
        ? {
            root_cause: trial.finalReport.root_cause,
            affected_component: trial.finalReport.affected_component,
            confidence: trial.finalReport.confidence,
            report_revision: trial.finalReport.report_revision,
          }
        : null,
    })}\n`,
  );
  const s = (at?: number) => (at === undefined ? '-' : ((at - trial.injectedAt) / 1000).toFixed(1));
  log(
    `  -> ${trial.outcome}: detected ${s(trial.detectedAt)} s, correct report ${s(trial.correctReportAt)} s, verified ${s(trial.verifiedAt)} s, ` +
      `sentinel recovered ${s(trial.sentinelRecoveredAt)} s, cause ${trial.finalReport?.root_cause ?? '-'}, actions ${trial.actions.length}, ` +
      `rollbacks ${trial.rollbacks}, wrong repair verified ${trial.wrongRepairVerified}`,
  );
  writeResults(false);
}

const planOf = (kind: string, i: number): FaultPlan => {
  const expectation = expectationOf(kind);
  return { kind, mode: expectation.modes[i % expectation.modes.length]!, fraction: FRACTIONS[i % FRACTIONS.length]!, seed: `bench-${i}` };
};

let run = newRun();
try {
  await run.start();
  const rounds = Number(values['clean-rounds']);
  log(`${rounds} clean rounds, no fault`);
  const counted = await run.cleanRounds(rounds);
  clean = { rounds, ...counted };
  log(`clean: ${JSON.stringify(clean)}`);
  let first = true;
  for (let i = 0; i < trialsPerKind; i += 1) {
    if (!isolate && i > 0) {
      log(`cycle ${i + 1}: fresh online RAG`);
      await run.resetOnline();
      await run.cleanRounds(1);
    }
    for (const kind of cycleKinds) {
      if (isolate && !first) {
        await run.close();
        run = newRun();
        await run.start();
        await run.cleanRounds(1);
      }
      first = false;
      const plan = planOf(kind, i);
      log(`trial ${kind} #${i + 1}: ${JSON.stringify(plan)}`);
      const trial = await runTrial(run.context, plan, { timeoutMs: Number(values.timeout) * 1000 });
      record(trial);
      // The next fault must be a new incident: let this one close (clean rounds after the repair).
      if (!isolate && trial.outcome === 'healed') await run.incidentsClosed(trial.incidents, run.probeIntervalMs * 8 + 30_000);
    }
  }
  // Compound trials: each pair on a fresh online RAG; goal both causes named, both repaired, no right repair undone.
  for (const [i, pair] of compoundPairs.entries()) {
    log(`compound trial ${pair.join(' + ')}: fresh online RAG`);
    await run.resetOnline();
    await run.cleanRounds(1);
    const plans = pair.map((kind) => ({ ...planOf(kind, 0), fraction: 0.25, seed: `bench-compound-${i}` }));
    let trial: CompoundTrialResult;
    try {
      trial = await runCompoundTrial(run.context, plans, { timeoutMs: Number(values.timeout) * 1000 });
    } catch (error) {
      // A pair that cannot be injected (no documents left for the second fault) is reported, not fatal.
      log(`  -> not run: ${error instanceof Error ? error.message : String(error)}`);
      continue;
    }
    compoundTrials.push(trial);
    appendFileSync(rawFile, `${JSON.stringify({ compound: pair, ...trial })}\n`);
    log(
      `  -> ${trial.outcome}: causes ${trial.namedCauses.join('+') || '-'}, repaired by ${trial.repairedBy.join(' + ')}, ` +
        `right repairs undone ${trial.rightRepairsUndone.length}, actions ${trial.actions.join(' ')}`,
    );
    writeResults(false);
    if (trial.outcome === 'healed') await run.incidentsClosed(trial.incidents, run.probeIntervalMs * 8 + 30_000);
  }
} finally {
  await run.close();
}
writeResults(true);
log(`written ${values.out}; raw trials and worker logs in ${benchDir}`);
process.exit(0);

// ---- figures ----
/** Writes RESULTS.md from the trials so far (after every trial, so an interrupted run leaves its figures). */
function writeResults(final: boolean): void {
  const secondsSince = (t: TrialResult, at?: number) => (at === undefined ? undefined : (at - t.injectedAt) / 1000);
  const stats = (xs: (number | undefined)[]) => {
    const v = xs.filter((x): x is number => x !== undefined);
    if (v.length === 0) return '—';
    const mean = v.reduce((a, b) => a + b, 0) / v.length;
    const sd = Math.sqrt(v.reduce((a, b) => a + (b - mean) ** 2, 0) / v.length);
    return `${mean.toFixed(1)} ± ${sd.toFixed(1)} s${v.length < xs.length ? ` (${v.length}/${xs.length})` : ''}`;
  };
  const pct = (n: number, d: number) => (d === 0 ? '—' : `${Math.round((100 * n) / d)}% (${n}/${d})`);
  const rows: string[] = [];
  for (const kind of cycleKinds) {
    const ts = trials.filter((t) => t.plan.kind === kind);
    if (ts.length === 0) continue;
    const unseen = expectationOf(kind).cause === null;
    rows.push(
      `| ${kind}${unseen ? ' (unseen)' : ''} | ${ts.length} | ${stats(ts.map((t) => secondsSince(t, t.detectedAt)))} | ${stats(ts.map((t) => secondsSince(t, t.correctReportAt)))} | ${
        unseen ? '—' : stats(ts.map((t) => secondsSince(t, t.verifiedAt)))
      } | ${pct(ts.filter((t) => t.localised).length, ts.length)} | ${
        unseen
          ? `no wrong repair verified: ${pct(ts.filter((t) => !t.wrongRepairVerified).length, ts.length)}`
          : pct(ts.filter((t) => t.outcome === 'healed').length, ts.length)
      } | ${unseen ? '—' : pct(ts.filter((t) => t.sentinelRecoveredAt !== undefined).length, ts.length)} | ${(ts.reduce((a, t) => a + t.actions.length, 0) / ts.length).toFixed(1)} | ${ts.reduce((a, t) => a + t.rollbacks, 0)} | ${[...new Set(ts.map((t) => t.outcome))].join(', ')} |`,
    );
  }
  const perTrial = trials.map((t) => {
    const s = (at?: number) => secondsSince(t, at)?.toFixed(1) ?? '—';
    return `| ${t.plan.kind} | ${t.plan.mode} | ${t.plan.fraction} | ${t.plan.seed} | ${t.touched.length} | ${s(t.detectedAt)} | ${s(t.firstReportAt)} | ${s(t.correctReportAt)} | ${s(t.verifiedAt)} | ${
      t.finalReport ? `${t.finalReport.root_cause} ${t.finalReport.confidence.toFixed(2)}` : '—'
    } | ${t.actions.map((a) => `${a.intent}:${a.statuses.at(-1)}`).join(' ') || '—'} | ${t.outcome} |`;
  });
  const compoundRows = compoundTrials.map((t) => {
    const s = (at?: number) => (at === undefined ? '—' : ((at - t.injectedAt) / 1000).toFixed(1));
    const causes = t.faults.map((f) => expectationOf(f.plan.kind).cause);
    const named = causes.filter((c) => c !== null && t.namedCauses.includes(c)).length;
    return `| ${t.faults.map((f) => `${f.plan.kind}/${f.plan.mode ?? '-'}`).join(' + ')} | ${s(t.detectedAt)} | ${named}/${causes.length} (${t.namedCauses.join(', ') || '—'}) | ${t.repairedBy.map((r) => r ?? '—').join(' + ')} | ${t.rightRepairsUndone.length} | ${t.partials.length} | ${s(t.sentinelRecoveredAt)} | ${t.actions.join(' ') || '—'} | ${t.outcome} |`;
  });
  const machine = `${cpus().length} cores (${cpus()[0]?.model ?? 'cpu'}), ${Math.round(totalmem() / 2 ** 30)} GiB, Debian 12, Node ${process.version}`;
  const markdown = `# bench/healing results

\`npm run stack -- up && npx tsx bench/healing/run.ts ${process.argv.slice(2).join(' ')}\` (the command as run; \`npm run bench:healing\` is the full matrix)
(\`bench/healing/run.ts\`; raw per-trial records in \`.runs/bench-healing-<time>/trials.jsonl\`, worker logs beside it).

${final ? '' : `**Partial: ${trials.length} of ${trialsPerKind * kinds.length} trials done when this was written.**\n\n`}Run of ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machine}, sharing the machine with the local stack
(Kafka, schema registry, Elasticsearch, the Qdrant server the stack runs, Prometheus) and other work. Probe interval **${interval} s**
(the seed's: 10 min), ${values.probes} golden probes, reference RAG over ${values.packages} Debian packages, effector in \`auto\` mode.
${
  isolate
    ? 'Every trial runs on its own fresh RAG pair and its own four workers (nothing carries over from one fault to the next),\nafter one clean round; the fault is '
    : 'Trials run in cycles: each cycle injects every kind once, in the order below, on one fresh online RAG on the same URL\n(the identifier, effector and memory keep running; memory accumulates cases), each fault after the previous incident closed,\n'
}injected through the admin API and never undone by the benchmark. Times are seconds after the fault was in effect.

## Clean rounds (no fault)

${clean.rounds} rounds, ${clean.results} probe results: **${clean.anomalies} anomalies, ${clean.reports} reports, ${clean.actions} repair actions**.

## Fault matrix

| fault | trials | detection | correct report | verified recovery (MTTR) | localisation | repair success | sentinel saw recovery | actions / trial | rollbacks | outcomes |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
${rows.join('\n')}

## Compound trials (two faults at once)

Each on a fresh online RAG; scoped faults on different documents (a quarter of the probed knowledge each). Goal: both causes
named, both repaired, no repair that healed a probe (and worsened none) undone, the sentinel seeing every touched probe clean.

| faults | detected | causes named | repaired by | right repairs undone | partial recoveries kept | sentinel saw recovery | actions | outcome |
| --- | --- | --- | --- | --- | --- | --- | --- | --- |
${compoundRows.join('\n') || '| (none run) | | | | | | | | |'}

## The seed's table (003 §4.3, staging, probe interval 10 min)

| fault | detection | localisation | repair success | MTTR |
| --- | --- | --- | --- | --- |
| knowledge source failure | 9.2 ± 1.3 min | 100% | 100% | 4.1 min |
| model (reranker) drift | 3.7 ± 0.8 min | 92% | 100% | 2.3 min |
| vector index corruption | 1.5 ± 0.4 min | 100% | 100% | 1.8 min |

## Every trial

| fault | mode | fraction | seed | touched probes | detected | first report | correct report | verified | final cause | actions (last status) | outcome |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
${perTrial.join('\n')}
`;
  writeFileSync(values.out, markdown);
  if (final) console.log(`\n${markdown}`);
}
