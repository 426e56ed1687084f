/**
 * The traffic benchmark's raw records (bench/traffic/run.ts writes them, bench/traffic/merge.ts reads
 * them): one run directory holds `run.json` (the header facts RESULTS.md states), `clean.jsonl` (one
 * clean-traffic phase a line) and `trials.jsonl` (one fault trial a line). The issue's matrix takes
 * longer than one work session, so RESULTS.md is rendered from several runs' records, never by hand.
 *
 * A trial line is either the run's full row (`.runs/`, git-ignored: it holds the ProbeResults and
 * reports, user queries included) or its redacted TrafficTrialRecord (`--keep-raw`, committable):
 * live-traffic queries are personal data, so the kept record carries only knowledge ids, counts,
 * times, causes and outcomes; never a query or an answer.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { TrafficTrialResult } from '../loop/traffic-trial.ts';

export const TRAFFIC_RUN_RECORD_VERSION = 1;

/** run.json: what the run was (the command as run, where, under what load, with which settings). */
export interface TrafficRunHeader {
  version: number;
  /** The run's directory stamp (UTC start time), what every row of it is tagged with. */
  stamp: string;
  command: string;
  /** The commit the run's code was at (`git describe --always --dirty`; absent in runs before 2026-12-07 03:20). */
  commit?: string;
  startedAt: string;
  /** Set by the run's final write; absent while it goes on (or when it was cut off). */
  endedAt?: string;
  machine: string;
  loadAtStart: number[];
  /** The load at the last write of run.json (the end, for a finished run). */
  loadAtEnd: number[];
  rag: 'reference' | 'langchain';
  samples: number;
  alpha: number;
  probes: number;
  interval: number;
  rate: number;
  asked: number;
  seed: number;
  sentinelEnv: Record<string, string>;
  /** The effector's variables over LoopRun's (absent in runs before 2026-12-07 03:00: none were set). */
  effectorEnv?: Record<string, string>;
  faults: string[];
  packages: number[];
  trialsPerFault: number;
  cleanAnswers: number;
  quietSeconds: number;
  timeoutSeconds: number;
  /** Answers a knowledge id needed before a fault could be placed on it. */
  profiledAfter: number;
}

export interface BlindSpotFigures {
  contentMeasured: number;
  contentBad: number;
  spotChecks: number;
  spotDisagree: number;
}

/** The watcher's segment counters over a phase; the replayed queries split by outcome when the run scraped them. */
export interface ReplayFigures {
  flagged: number;
  confirmed: number;
  rejected: number;
  replayQueries: number;
  /** Replayed queries of segments the replay confirmed / rejected (the counter's outcome label). */
  replayConfirmed?: number;
  replayRejected?: number;
}

export interface CleanPhase extends ReplayFigures {
  blind: BlindSpotFigures;
  packages: number;
  knowledgeIds: number;
  asked: number;
  sent: number;
  answersRead: number;
  skipped: number;
  seconds: number;
  incidents: number;
  actions: number;
  trafficAnomalies: number;
  goldenAnomalies: number;
  quietCpuPerSecond: number;
  trafficCpuPerSecond: number;
}

/** What run.ts appends to `.runs/…/trials.jsonl` for each trial (the full result, queries included). */
export interface TrialRow {
  packages: number;
  result: TrafficTrialResult;
  askedPerMinute: number;
  figures: ReplayFigures;
  blind: BlindSpotFigures;
  seconds: number;
}

/** One trial as RESULTS.md needs it, with no query or answer text. Times are seconds after the fault was in effect. */
export interface TrafficTrialRecord {
  packages: number;
  fault: string;
  target: string;
  partner?: string;
  askedPerMinute: number;
  userQuestions: number;
  userAnswersChanged: number;
  harmless: boolean;
  /** When the fault was in effect (epoch ms). */
  injectedAt: number;
  /** First anomaly of any origin (golden probe, promoted or confirmed traffic replay). */
  detectedS?: number;
  /** First anomalous ProbeResult with origin traffic. */
  trafficDetectedS?: number;
  trafficAnomalies: number;
  goldenAnomalies: number;
  finalCause?: string;
  finalConfidence?: number;
  verifiedS?: number;
  /** Each action as intent:last status. */
  actions: string[];
  outcome: string;
  figures: ReplayFigures;
  blind: BlindSpotFigures;
  seconds: number;
}

/** One run's records, as read back. */
export interface TrafficRun {
  dir: string;
  header: TrafficRunHeader;
  clean: CleanPhase[];
  trials: TrafficTrialRecord[];
  notes: string[];
}

const after = (injectedAt: number, at?: number) => (at === undefined ? undefined : (at - injectedAt) / 1000);

/** The redacted record of a trial row: knowledge ids, counts, times, the cause and the outcome. */
export function trialRecordOf(row: TrialRow): TrafficTrialRecord {
  const { result: r } = row;
  const t = r.trial;
  const optional = <T>(key: string, value: T | undefined) => (value === undefined ? {} : { [key]: value });
  return {
    packages: row.packages,
    fault: r.plan.fault,
    target: r.plan.target,
    ...optional('partner', r.plan.partner),
    askedPerMinute: row.askedPerMinute,
    userQuestions: r.userQuestions,
    userAnswersChanged: r.userAnswersChanged,
    harmless: r.harmless,
    injectedAt: t.injectedAt,
    ...optional('detectedS', after(t.injectedAt, t.detectedAt)),
    ...optional('trafficDetectedS', after(t.injectedAt, r.trafficDetectedAt)),
    trafficAnomalies: r.trafficAnomalies,
    goldenAnomalies: r.goldenAnomalies,
    ...optional('finalCause', t.finalReport?.root_cause),
    ...optional('finalConfidence', t.finalReport?.confidence),
    ...optional('verifiedS', after(t.injectedAt, t.verifiedAt)),
    actions: t.actions.map((a) => `${a.intent}:${a.statuses.at(-1) ?? '?'}`),
    outcome: t.outcome,
    figures: row.figures,
    blind: row.blind,
    seconds: row.seconds,
  };
}

/** A record's field failed its check: names the file, the line and the field. */
export class RunRecordError extends Error {
  constructor(file: string, where: string, message: string) {
    super(`${file}${where}: ${message}`);
    this.name = 'RunRecordError';
  }
}

const count = z.number();
const BlindFigures = z.object({ contentMeasured: count, contentBad: count, spotChecks: count, spotDisagree: count });
const Replay = z.object({
  flagged: count,
  confirmed: count,
  rejected: count,
  replayQueries: count,
  replayConfirmed: count.optional(),
  replayRejected: count.optional(),
});
const RunHeader = z.object({
  version: count,
  stamp: z.string(),
  command: z.string(),
  commit: z.string().optional(),
  startedAt: z.string(),
  endedAt: z.string().optional(),
  machine: z.string(),
  loadAtStart: z.array(count),
  loadAtEnd: z.array(count),
  rag: z.enum(['reference', 'langchain']),
  samples: count,
  alpha: count,
  probes: count,
  interval: count,
  rate: count,
  asked: count,
  seed: count,
  sentinelEnv: z.record(z.string()),
  effectorEnv: z.record(z.string()).optional(),
  faults: z.array(z.string()),
  packages: z.array(count),
  trialsPerFault: count,
  cleanAnswers: count,
  quietSeconds: count,
  timeoutSeconds: count,
  profiledAfter: count,
});
const CleanPhaseRecord = Replay.extend({
  packages: count,
  knowledgeIds: count,
  asked: count,
  sent: count,
  answersRead: count,
  skipped: count,
  seconds: count,
  incidents: count,
  actions: count,
  trafficAnomalies: count,
  goldenAnomalies: count,
  quietCpuPerSecond: count,
  trafficCpuPerSecond: count,
  blind: BlindFigures,
});
const TrialCommon = z.object({ packages: count, askedPerMinute: count, seconds: count, figures: Replay, blind: BlindFigures });
/** A run's full row: only what the redaction reads is checked; the rest passes through to trialRecordOf. */
const FullTrialRow = TrialCommon.extend({
  result: z
    .object({
      plan: z.object({ fault: z.string(), target: z.string(), partner: z.string().optional() }).passthrough(),
      trial: z.object({ injectedAt: count, outcome: z.string(), actions: z.array(z.unknown()) }).passthrough(),
      trafficAnomalies: count,
      goldenAnomalies: count,
      userQuestions: count,
      userAnswersChanged: count,
      harmless: z.boolean(),
    })
    .passthrough(),
}).passthrough();
const KeptTrialRecord = TrialCommon.extend({
  fault: z.string(),
  target: z.string(),
  partner: z.string().optional(),
  userQuestions: count,
  userAnswersChanged: count,
  harmless: z.boolean(),
  injectedAt: count,
  detectedS: count.optional(),
  trafficDetectedS: count.optional(),
  trafficAnomalies: count,
  goldenAnomalies: count,
  finalCause: z.string().optional(),
  finalConfidence: count.optional(),
  verifiedS: count.optional(),
  actions: z.array(z.string()),
  outcome: z.string(),
});

/** What a record's first problem reads as: the field by its path, and what it is not. */
function problem(issue: z.ZodIssue): string {
  const field = issue.path.join('.');
  if (field === '') return 'record is not an object';
  if (issue.code === 'invalid_type') {
    if (issue.received === 'undefined') return `field ${field} is missing`;
    const article = issue.expected === 'object' || issue.expected === 'array' ? 'an' : 'a';
    return `field ${field} is not ${article} ${issue.expected}`;
  }
  if (issue.code === 'invalid_enum_value') return `field ${field} is ${JSON.stringify(issue.received)}, not ${issue.options.join(' or ')}`;
  return `field ${field}: ${issue.message}`;
}

/** The record parsed by its schema; throws naming the file, the line and the first field that fails. */
function parsed<T extends z.ZodTypeAny>(schema: T, value: unknown, file: string, where: string): z.infer<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw new RunRecordError(file, where, problem(result.error.issues[0]!));
  return result.data as z.infer<T>;
}

export function parseRunHeader(text: string, file: string): TrafficRunHeader {
  const header = parsed(RunHeader, parseJson(text, file, ''), file, '');
  if (header.version !== TRAFFIC_RUN_RECORD_VERSION)
    throw new RunRecordError(file, '', `field version is ${String(header.version)}, this reader knows ${TRAFFIC_RUN_RECORD_VERSION}`);
  return header;
}

function parseJson(text: string, file: string, where: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new RunRecordError(file, where, `not JSON (${(error as Error).message})`);
  }
}

function lines(text: string): [number, string][] {
  return text
    .split('\n')
    .map((line, i) => [i + 1, line.trim()] as [number, string])
    .filter(([, line]) => line !== '');
}

export function parseCleanPhases(text: string, file: string): CleanPhase[] {
  return lines(text).map(([n, line]) => parsed(CleanPhaseRecord, parseJson(line, file, `:${n}`), file, `:${n}`));
}

/** Trial lines: full rows (from `.runs/`, redacted here) or kept records. */
export function parseTrials(text: string, file: string): TrafficTrialRecord[] {
  return lines(text).map(([n, line]) => {
    const where = `:${n}`;
    const json = parseJson(line, file, where);
    if (typeof json === 'object' && json !== null && 'result' in json) {
      parsed(FullTrialRow, json, file, where);
      return trialRecordOf(json as TrialRow);
    }
    return parsed(KeptTrialRecord, json, file, where);
  });
}

/** The files of a run directory; notes.txt (one note a line) is optional. */
export const RUN_FILES = { header: 'run.json', clean: 'clean.jsonl', trials: 'trials.jsonl', notes: 'notes.txt' } as const;

/** Reads one run directory; throws naming the file (and line and field) that is missing or does not parse. */
export function readTrafficRun(dir: string): TrafficRun {
  const read = (name: string) => {
    const file = join(dir, name);
    if (!existsSync(file)) throw new RunRecordError(file, '', 'missing (a run directory holds run.json, clean.jsonl and trials.jsonl)');
    return [readFileSync(file, 'utf8'), file] as const;
  };
  const header = parseRunHeader(...read(RUN_FILES.header));
  const clean = parseCleanPhases(...read(RUN_FILES.clean));
  const trials = parseTrials(...read(RUN_FILES.trials));
  const notesFile = join(dir, RUN_FILES.notes);
  const notes = existsSync(notesFile) ? lines(readFileSync(notesFile, 'utf8')).map(([, line]) => line) : [];
  return { dir, header, clean, trials, notes };
}

/**
 * Runs may be merged into one table only when they measured the same thing: the same RAG, and the
 * same golden probes (count and interval; the probes also detect faults, by chance). Returns the
 * differences found; throws on any unless `allowMixed`.
 */
export function checkRunsComparable(runs: readonly TrafficRun[], allowMixed: boolean): string[] {
  if (runs.length === 0) throw new Error('no runs to merge');
  const first = runs[0]!;
  const differences: string[] = [];
  for (const run of runs.slice(1))
    for (const key of ['rag', 'probes', 'interval'] as const)
      if (run.header[key] !== first.header[key])
        differences.push(`${run.dir} has ${key} ${String(run.header[key])}, ${first.dir} has ${key} ${String(first.header[key])}`);
  if (differences.length > 0 && !allowMixed)
    throw new Error(`runs of different settings do not merge (pass --allow-mixed to merge them anyway): ${differences.join('; ')}`);
  return differences;
}
