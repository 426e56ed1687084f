/**
 * bench/healing's raw records: what one run of the fault matrix leaves (its header with the clean
 * phase's figures, one row per trial), so a matrix longer than one session (the LangChain RAG's:
 * 27 trials of minutes each) is accumulated run by run and rendered as one table
 * (bench/healing/merge.ts, loop/healing-report.ts). A run directory holds `run.json` (a
 * HealingRunHeader) and `trials.jsonl` (one HealingTrialRow or HealingCompoundRow a line).
 * Golden probes only: no user query or answer is in them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RootCauseReport } from '@rag-immune/contracts';
import type { CompoundFault, CompoundTrialResult } from './compound-trial.ts';
import type { RagCallCount } from './rag-calls.ts';
import type { TrialResult } from './trial.ts';

export const HEALING_RUN_RECORD_VERSION = 1;

/** The sentinel's cumulative FCS scoring and probe run time over the clean phase, from its /metrics. */
export interface SentinelTiming {
  fcsSeconds: number;
  fcsCalls: number;
  runSeconds: number;
  runs: number;
  /** rag_immune_sentinel_rag_calls_per_result's sum and count: RAG calls and the results they made. */
  ragCalls?: RagCallCount;
}

/** The clean phase: counts, and the figures its probe results gave (numbers only). */
export interface HealingCleanPhase {
  rounds: number;
  results: number;
  anomalies: number;
  reports: number;
  actions: number;
  onlineFcs: number[];
  baselineFcs: number[];
  /** Samples a side behind each result (1 for the deterministic mode). */
  samples: number[];
  /** Every anomaly signal its results raised (false ones: there was no fault). */
  signals: string[];
  /** RAG calls behind its results, from the results' own counts. */
  calls: RagCallCount;
  timing?: SentinelTiming;
}

export interface HealingRunHeader {
  version: typeof HEALING_RUN_RECORD_VERSION;
  /** The directory name: the run's start, `YYYY-MM-DDTHH-MM-SS`. */
  stamp: string;
  /** The command as run (`npx tsx bench/healing/run.ts ...`). */
  command: string;
  commit: string;
  startedAt: string;
  endedAt: string;
  /** Cores, CPU, memory, OS, Node. */
  machine: string;
  loadAtStart: number[];
  loadAtEnd: number[];
  rag: 'reference' | 'langchain';
  /** What the RAG pair was, in a sentence (the RESULTS header's). */
  ragText: string;
  packages: number;
  probes: number;
  interval: number;
  samples?: number;
  alpha?: number;
  isolate: boolean;
  /** The sentinel's settings this run set (the RAG pair's and --sentinel-env over them). */
  sentinelSettings: Record<string, string>;
  sentinelEnvGiven: boolean;
  /** The matrix's rows as given (`kind` or `kind:mode`), trials per row, compound pairs and their trials. */
  kinds: string[];
  trialsPerKind: number;
  compoundPairs: string[];
  compoundTrialsPerPair: number;
  clean: HealingCleanPhase;
  notInjected: { label: string; reason: string }[];
  /** Whether the run went to its end (false: stopped, or still running when written). */
  finished: boolean;
}

/** A trial as kept: its TrialResult without the full events, the final report's cause and index diff. */
export type HealingTrialRow = Omit<TrialResult, 'firstAnomaly' | 'firstReport' | 'finalReport'> & {
  finalReport:
    | (Pick<RootCauseReport, 'root_cause' | 'affected_component' | 'confidence' | 'report_revision'> & {
        index_diff?: RootCauseReport['index_diff'];
      })
    | null;
  rag_calls?: RagCallCount;
};

/** A compound trial as kept. */
export type HealingCompoundRow = CompoundTrialResult & { compound: CompoundFault[]; seed: string; rag_calls?: RagCallCount };

export interface HealingRun {
  header: HealingRunHeader;
  trials: HealingTrialRow[];
  compounds: HealingCompoundRow[];
  /** notes.txt beside the records (optional, one note a line): what was seen in the workers' logs, added by hand. */
  notes?: string[];
}

export function trialRowOf(trial: TrialResult, calls: RagCallCount): HealingTrialRow {
  const { firstAnomaly: _a, firstReport: _r, finalReport, ...rest } = trial;
  return {
    ...rest,
    rag_calls: calls,
    finalReport: finalReport
      ? {
          root_cause: finalReport.root_cause,
          affected_component: finalReport.affected_component,
          confidence: finalReport.confidence,
          report_revision: finalReport.report_revision,
          ...(finalReport.index_diff ? { index_diff: finalReport.index_diff } : {}),
        }
      : null,
  };
}

export const isCompoundRow = (row: HealingTrialRow | HealingCompoundRow): row is HealingCompoundRow => 'compound' in row;

/** Reads a run directory; throws naming the file (and line) that is missing or does not parse. */
export function readHealingRun(dir: string): HealingRun {
  const headerFile = join(dir, 'run.json');
  const trialsFile = join(dir, 'trials.jsonl');
  for (const file of [headerFile, trialsFile]) if (!existsSync(file)) throw new Error(`${file}: missing`);
  let header: HealingRunHeader;
  try {
    header = JSON.parse(readFileSync(headerFile, 'utf8')) as HealingRunHeader;
  } catch (error) {
    throw new Error(`${headerFile}: not JSON (${(error as Error).message})`);
  }
  if (header.version !== HEALING_RUN_RECORD_VERSION)
    throw new Error(`${headerFile}: version ${String(header.version)}, this reader takes ${HEALING_RUN_RECORD_VERSION}`);
  for (const field of ['stamp', 'command', 'startedAt', 'rag', 'clean', 'kinds'] as const)
    if (header[field] === undefined) throw new Error(`${headerFile}: no ${field}`);
  const trials: HealingTrialRow[] = [];
  const compounds: HealingCompoundRow[] = [];
  readFileSync(trialsFile, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (line.trim() === '') return;
      let row: HealingTrialRow | HealingCompoundRow;
      try {
        row = JSON.parse(line) as HealingTrialRow | HealingCompoundRow;
      } catch (error) {
        throw new Error(`${trialsFile}:${i + 1}: not JSON (${(error as Error).message})`);
      }
      if (isCompoundRow(row)) {
        if (!Array.isArray(row.faults)) throw new Error(`${trialsFile}:${i + 1}: a compound trial with no faults`);
        compounds.push(row);
      } else {
        if (typeof row.plan?.kind !== 'string' || typeof row.injectedAt !== 'number')
          throw new Error(`${trialsFile}:${i + 1}: no plan.kind or injectedAt`);
        trials.push(row);
      }
    });
  const notesFile = join(dir, 'notes.txt');
  const notes = existsSync(notesFile)
    ? readFileSync(notesFile, 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
    : [];
  return { header, trials, compounds, ...(notes.length > 0 ? { notes } : {}) };
}
