/**
 * The demo (npm run demo): the real local stack, the reference RAG pair and the four workers of the
 * immune system as separate processes. After a clean round the demo injects one production fault
 * into the online RAG and then only watches: the sentinel detects it, the identifier opens an
 * incident and names the cause, the effector snapshots, repairs and verifies, memory remembers the
 * case. Every line shown comes from the workers' events on Kafka or their [HEALING] log lines; the
 * demo never undoes the fault and publishes nothing. Worker logs go to files under the run directory.
 *
 *   DEMO_FAULT=<kind>|all   (default vector-index-corruption; `all` runs every kind, each on a fresh RAG)
 *   DEMO_RAG=reference|langchain  (langchain: the LangChain RAG on Gemma, watched through its OTLP traces;
 *                                  default fault vectors-overwritten, operator faults only)
 *   DEMO_FAULT_MODE=<mode>  DEMO_PACKAGES=25  DEMO_PROBES=8  DEMO_INTERVAL_SECONDS=4
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '@rag-immune/stack';
import { installedModelPath } from '@rag-immune/langchain-rag';
import { LoopRun } from '@rag-immune/test-kit/loop/loop-run';
import { ALL_FAULT_KINDS, expectationOf } from '@rag-immune/test-kit/loop/faults';
import { OPERATOR_FAULT_KINDS, isOperatorFault } from '@rag-immune/test-kit/loop/operator-faults';
import { healingSteps, runTrial, type TrialResult } from '@rag-immune/test-kit/loop/trial';
import { healingReportHtml, trialSection } from '@rag-immune/test-kit/loop/html-report';

// DEMO_RAG=langchain: the LangChain RAG on Gemma 3 270M (sampling, traces only through the intake).
// It has no fault API, so only the faults an operator makes straight in Qdrant apply to it.
const ragKind = process.env.DEMO_RAG ?? 'reference';
if (ragKind !== 'reference' && ragKind !== 'langchain') {
  console.error(`DEMO_RAG=${ragKind}: must be reference or langchain`);
  process.exit(2);
}
const langchain = ragKind === 'langchain';
const modelPath = process.env.LLM_MODEL_PATH ?? installedModelPath();
if (langchain && !existsSync(modelPath)) {
  console.error(`DEMO_RAG=langchain: Gemma 3 270M is not installed at ${modelPath}: run scripts/install-gemma.sh`);
  process.exit(2);
}
const requested = process.env.DEMO_FAULT ?? (langchain ? 'vectors-overwritten' : 'vector-index-corruption');
const kinds = requested === 'all' ? (langchain ? [...OPERATOR_FAULT_KINDS] : [...ALL_FAULT_KINDS]) : [requested];
for (const kind of kinds) expectationOf(kind); // an unknown kind stops here, naming the known ones
if (langchain && !kinds.every(isOperatorFault)) {
  console.error(`DEMO_RAG=langchain has no fault API: DEMO_FAULT must be one of ${OPERATOR_FAULT_KINDS.join(', ')}`);
  process.exit(2);
}
const packages = Number(process.env.DEMO_PACKAGES ?? 25);
// A sampling RAG on one CPU thread: 5 calls a side per probe, so fewer probes and a longer interval.
const probeCount = Number(process.env.DEMO_PROBES ?? (langchain ? 5 : 8));
const interval = Number(process.env.DEMO_INTERVAL_SECONDS ?? (langchain ? 20 : 4));
const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
const demoDir = join(repoRoot(), '.runs', `demo-${stamp}`);
mkdirSync(demoDir, { recursive: true });

const say = (text: string) => console.log(`== ${text}`);
const elapsed = (ms: number) => `${ms >= 0 ? '+' : ''}${(ms / 1000).toFixed(1)}s`.padStart(8);
const secondsOf = (trial: TrialResult, at: number | undefined) => (at === undefined ? '-' : ((at - trial.injectedAt) / 1000).toFixed(1));

const trials: TrialResult[] = [];
const sections: string[] = [];
let failed = false;
for (const kind of kinds) {
  console.log('');
  say(`fault ${kind}: starting a fresh ${langchain ? 'LangChain' : 'reference'} RAG and immune system`);
  const run = new LoopRun({
    label: 'demo',
    packages,
    probeCount,
    probeIntervalSeconds: interval,
    runDir: join(demoDir, kind),
    say: (l) => console.log(`   ${l}`),
    ...(langchain ? { rag: { kind: 'langchain' as const, modelPath } } : {}),
  });
  try {
    await run.start();
    const clean = await run.cleanRounds(1);
    say(
      `clean round: ${clean.results} probe results, ${clean.anomalies} anomalies, ${clean.reports} reports, ${clean.actions} repair actions`,
    );
    say(
      `injecting ${kind}${process.env.DEMO_FAULT_MODE ? ` (${process.env.DEMO_FAULT_MODE})` : ''} into the online RAG; /healthz stays green; from here on only the workers act`,
    );
    let t0 = Date.now();
    const trial = await runTrial(
      run.context,
      { kind, ...(process.env.DEMO_FAULT_MODE ? { mode: process.env.DEMO_FAULT_MODE } : {}), fraction: 0.5, seed: 'demo' },
      {
        timeoutMs: langchain ? 480_000 : 240_000,
        concise: true,
        // After the verified repair: the sentinel's clean round and memory's case, at most this long.
        settleMs: langchain ? 180_000 : 60_000,
        onStep: (step) => {
          if (step.key === 'injected') t0 = step.at;
          console.log(`${elapsed(step.at - t0)}  ${step.worker.padEnd(12)} ${step.what}`);
        },
      },
    );
    trials.push(trial);
    const expectation = expectationOf(kind);
    const ok = expectation.cause === null ? !trial.wrongRepairVerified : trial.outcome === 'healed';
    if (!ok) failed = true;
    say(
      expectation.cause === null
        ? `${kind} is a fault no detector was designed for: ${trial.outcome}; wrong repair verified: ${trial.wrongRepairVerified ? 'YES' : 'no'}`
        : trial.outcome === 'healed'
          ? `${kind} healed by ${trial.verifiedIntent} in ${secondsOf(trial, trial.verifiedAt)} s after injection`
          : `${kind} NOT healed: ${trial.outcome} (worker logs: ${run.runDir})`,
    );
    sections.push(trialSection(run.recorder, trial, healingSteps(run.recorder, trial), run.probeIntervalMs));
  } finally {
    await run.close();
  }
}

console.log('');
say('summary (seconds since the fault was in effect)');
const header = [
  'fault',
  'detected',
  'report',
  'cause (confidence)',
  'repair',
  'actions',
  'rollbacks',
  'verified',
  'sentinel ok',
  'outcome',
];
const rows = trials.map((t) => [
  t.plan.kind,
  secondsOf(t, t.detectedAt),
  secondsOf(t, t.firstReportAt),
  t.finalReport ? `${t.finalReport.root_cause} (${t.finalReport.confidence.toFixed(2)})` : '-',
  t.verifiedIntent ?? '-',
  String(t.actions.length),
  String(t.rollbacks),
  secondsOf(t, t.verifiedAt),
  secondsOf(t, t.sentinelRecoveredAt),
  t.outcome,
]);
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
console.log(line(header));
console.log(widths.map((w) => '-'.repeat(w)).join('  '));
for (const row of rows) console.log(line(row));

const report = join(demoDir, 'healing-report.html');
writeFileSync(
  report,
  healingReportHtml(
    'RAG Immune: healing report',
    {
      written: new Date().toISOString(),
      faults: kinds.join(', '),
      'probe interval': `${interval} s`,
      knowledge: `${packages} Debian packages`,
      'run directory (worker logs)': demoDir,
    },
    sections,
  ),
);
console.log('');
say(`healing report: ${report}`);
process.exit(failed ? 1 : 0);
