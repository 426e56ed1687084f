/**
 * Produces a case history for bench/memory from REAL healing runs of the loop: the reference RAG
 * pair and the four workers as processes on the local stack (@rag-immune/test-kit/loop), one fault per trial with
 * kind, mode, scope fraction and seed varied, each on a fresh online RAG. After every trial the
 * RootCauseReport and RepairAction events the run's topics carried so far are (re)written to
 * bench/memory/cases/<file>.jsonl, so a stopped run still leaves what it produced.
 *
 *   npx tsx bench/memory/real-history.ts [--trials 40] [--kinds a,b] [--modes m,n] [--interval 3] [--timeout 180] [--packages 25]
 *                                        [--until <ISO UTC time>] [--out bench/memory/cases/loop-<UTC date>.jsonl]
 * SIGINT/SIGTERM or --until: no new trial; the current one finishes and the run closes cleanly.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot } from '@rag-immune/stack';
import { LoopRun } from '@rag-immune/test-kit/loop/loop-run';
import { SEEN_FAULT_KINDS, expectationOf, type FaultPlan } from '@rag-immune/test-kit/loop/faults';
import { runTrial } from '@rag-immune/test-kit/loop/trial';

const { values } = parseArgs({
  options: {
    trials: { type: 'string', default: '40' },
    kinds: { type: 'string', default: SEEN_FAULT_KINDS.join(',') },
    /** Only these modes of each kind (default: every loop mode of the kind, in turn). */
    modes: { type: 'string' },
    interval: { type: 'string', default: '3' },
    timeout: { type: 'string', default: '180' },
    /** Debian packages the reference RAG indexes: fewer re-ingest faster between trials. */
    packages: { type: 'string', default: '25' },
    /** Start no trial after this UTC time (ISO); the run then closes cleanly. */
    until: { type: 'string' },
    /** Index of the first trial (another run continues the plan sequence instead of repeating it). */
    first: { type: 'string', default: '0' },
    out: { type: 'string', default: `bench/memory/cases/loop-${new Date().toISOString().slice(0, 16).replace(/[:T]/g, '-')}.jsonl` },
  },
});
const kinds = values.kinds.split(',').filter(Boolean);
const onlyModes = values.modes?.split(',').filter(Boolean);
const modesOf = (kind: string): string[] => {
  const modes = expectationOf(kind).modes.filter((mode) => onlyModes === undefined || onlyModes.includes(mode));
  if (modes.length === 0)
    throw new Error(`--modes ${values.modes} leaves no mode of ${kind} (it has ${expectationOf(kind).modes.join(', ')})`);
  return modes;
};
const out = resolve(repoRoot(), values.out);
mkdirSync(dirname(out), { recursive: true });
const FRACTIONS = [0.25, 0.5, 0.75, 1, 0.4, 0.6];
const log = (text: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${text}`);

const until = values.until ? Date.parse(values.until) : Number.POSITIVE_INFINITY;
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => (stopping = true));
const run = new LoopRun({
  label: 'memory-history',
  packages: Number(values.packages),
  probeIntervalSeconds: Number(values.interval),
  say: log,
  // A trial per component every minute or two compresses weeks of incidents into an hour. The
  // effector's per-component limit (6 repairs in 600 s) guards production against a repair storm;
  // here it would escalate every later trial of that component, on a fresh RAG, as one storm.
  env: { effector: { EFFECTOR_COMPONENT_RATE_LIMIT: '1000' } },
});
const dump = () => {
  const lines = [
    ...run.recorder.reports.map((r) => ({ topic: 'reports', event: r.event })),
    ...run.recorder.actions.map((a) => ({ topic: 'actions', event: a.event })),
  ].sort((a, b) => a.event.occurred_at - b.event.occurred_at);
  writeFileSync(out, lines.map((l) => JSON.stringify(l)).join('\n') + (lines.length > 0 ? '\n' : ''));
  return lines.length;
};
try {
  await run.start();
  await run.cleanRounds(1);
  const first = Number(values.first);
  for (let i = first; i < first + Number(values.trials); i += 1) {
    if (stopping || Date.now() > until) {
      log(`stopping before trial ${i + 1 - first}`);
      break;
    }
    const kind = kinds[i % kinds.length] as string;
    const modes = modesOf(kind);
    const round = Math.floor(i / kinds.length);
    if (i > first) {
      await run.resetOnline();
      // An incident left open (escalated, or healed but not yet closed) would absorb the next
      // trial's anomalies and mix two faults in one case: wait until the identifier closes them all
      // on the fresh RAG (its clean rounds), as it would in production once the fault is gone.
      if (!(await run.allIncidentsClosed(run.probeIntervalMs * 8 + 30_000))) log('an earlier incident is still open');
      await run.cleanRounds(1);
    }
    const plan: FaultPlan = {
      kind,
      mode: modes[round % modes.length] as string,
      fraction: FRACTIONS[(round + i) % FRACTIONS.length] as number,
      seed: `memory-${i}`,
    };
    const trial = await runTrial(run.context, plan, { timeoutMs: Number(values.timeout) * 1000, settleMs: 15_000 });
    log(
      `trial ${i + 1 - first} ${JSON.stringify(plan)} -> ${trial.outcome} (${trial.touched.length} probes touched); ${dump()} events in ${values.out}`,
    );
  }
} finally {
  if (run.recorder) dump();
  await run.close();
}
process.exit(0);
