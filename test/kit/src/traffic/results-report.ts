/**
 * bench/traffic/RESULTS.md rendered from one or several runs' records (bench-records.ts): run.ts
 * writes it from its own run as it goes, merge.ts from the runs it is given, with the same tables.
 * Every figure here is computed from the records; nothing is typed in.
 */
import { expectationOf } from '../loop/faults.ts';
import type { CleanPhase, TrafficRun, TrafficTrialRecord } from './bench-records.ts';

/** The issue's goal: a harmful fault on knowledge asked at least this often... */
export const GOAL_ASKED_PER_MINUTE = 1;
/** ...detected within this long and healed. */
export const GOAL_DETECTED_WITHIN_S = 300;

export interface GoalShare {
  met: number;
  /** Harmful trials on knowledge asked at least once a minute. */
  of: number;
}

/**
 * The issue's goal over some trials: of the harmful faults (they changed a user answer or drew an
 * anomaly) on knowledge asked at least once a minute, how many were detected (first anomaly of any
 * origin) within 5 minutes and healed (the repair verified).
 */
export function goalShare(trials: readonly TrafficTrialRecord[]): GoalShare {
  const eligible = trials.filter((t) => !t.harmless && t.askedPerMinute >= GOAL_ASKED_PER_MINUTE);
  return {
    met: eligible.filter((t) => t.detectedS !== undefined && t.detectedS <= GOAL_DETECTED_WITHIN_S && t.outcome === 'healed').length,
    of: eligible.length,
  };
}

export interface ReplayCost {
  /** Replayed queries of confirmed segments, the segments confirmed. */
  confirmedQueries: number;
  confirmed: number;
  rejectedQueries: number;
  rejected: number;
  /** Phases (clean phases and trials) whose records lack the split by outcome: left out. */
  phasesWithoutSplit: number;
}

/**
 * Replay calls per confirmed and per rejected segment: the watcher counts the queries it replays by
 * outcome (rag_immune_traffic_replay_queries_total{outcome}); summed over every clean phase and trial,
 * the confirmed segments' replayed queries over the segments confirmed, and the same for rejected.
 * Spot checks and the promoted queries re-run during an incident are not in either. Each replayed
 * query costs one call to the online and one to the baseline RAG (samples calls a side in the sampled mode).
 */
export function replayCost(runs: readonly TrafficRun[]): ReplayCost {
  const phases = runs.flatMap((run) => [...run.clean, ...run.trials.map((t) => t.figures)]);
  const split = phases.filter((p) => p.replayConfirmed !== undefined && p.replayRejected !== undefined);
  return {
    confirmedQueries: split.reduce((s, p) => s + p.replayConfirmed!, 0),
    confirmed: split.reduce((s, p) => s + p.confirmed, 0),
    rejectedQueries: split.reduce((s, p) => s + p.replayRejected!, 0),
    rejected: split.reduce((s, p) => s + p.rejected, 0),
    phasesWithoutSplit: phases.length - split.length,
  };
}

const perSegment = (queries: number, segments: number) =>
  segments === 0 ? '— (none)' : `${(queries / segments).toFixed(1)} (${queries} / ${segments})`;

const median = (xs: number[]) => {
  if (xs.length === 0) return '—';
  const s = [...xs].sort((a, b) => a - b);
  return (s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2).toFixed(1);
};
const sec = (s?: number) => (s === undefined ? '—' : s.toFixed(1));
const load = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(' / ');
const share = (g: GoalShare) => `${g.met}/${g.of}${g.of > 0 ? ` (${((g.met / g.of) * 100).toFixed(0)}%)` : ''}`;

export interface RenderOptions {
  /** The run is still going on (run.ts's writes before its last). */
  partial?: boolean;
  /** Settings in which the merged runs differ (merge.ts --allow-mixed). */
  mixed?: string[];
  /** The merge's own command (merge.ts), so the file says how to render it again. */
  mergeCommand?: string;
}

function runLine(run: TrafficRun): string {
  const h = run.header;
  const env = Object.entries(h.sentinelEnv).map(([k, v]) => `${k}=${v}`);
  const effectorEnv = Object.entries(h.effectorEnv ?? {}).map(([k, v]) => `${k}=${v}`);
  return `- **${h.stamp}**: \`${h.command}\`${h.commit ? ` at ${h.commit}` : ''}; ${h.startedAt.slice(0, 16).replace('T', ' ')} to ${
    h.endedAt ? `${h.endedAt.slice(11, 16)} UTC` : 'cut off or still going (no end recorded)'
  } on ${h.machine}; load average (1/5/15 min) ${load(h.loadAtStart)} at the start, ${load(h.loadAtEnd)} at the end. ${
    h.rag === 'langchain' ? `LangChain RAG (${h.samples} samples a side, alpha ${h.alpha})` : 'Reference RAG'
  }, ${h.probes} golden probes every ${h.interval} s, ${h.rate} requests/s offered over ${h.asked} asked knowledge ids (seed ${h.seed}), ${
    h.cleanAnswers
  } clean answers and ${h.trialsPerFault} trial(s) of each of ${h.faults.join(', ')} requested at ${h.packages.join(', ')} packages; faults on ids asked at least ${
    h.profiledAfter
  } times${env.length > 0 ? `; sentinel env ${env.join(', ')}` : ''}${effectorEnv.length > 0 ? `; effector env ${effectorEnv.join(', ')}` : ''}.`;
}

function cleanRow(run: TrafficRun, c: CleanPhase): string {
  const extra = c.trafficCpuPerSecond - c.quietCpuPerSecond;
  const answersPerSecond = c.answersRead / c.seconds;
  return `| ${run.header.stamp} | ${c.packages} (${c.knowledgeIds} ids, ${c.asked} asked) | ${c.answersRead} (${c.skipped} skipped) | ${c.seconds.toFixed(0)} | ${answersPerSecond.toFixed(2)} | **${c.incidents}** | ${c.actions} | ${c.trafficAnomalies} | ${c.goldenAnomalies} | ${c.flagged} / ${c.confirmed} / ${c.rejected} | ${c.replayQueries} | ${c.blind.contentBad} / ${c.blind.contentMeasured} | ${c.blind.spotChecks} (${c.blind.spotDisagree}) / ${((c.blind.spotChecks / c.seconds) * 3600).toFixed(0)} | ${c.quietCpuPerSecond.toFixed(3)} | ${c.trafficCpuPerSecond.toFixed(3)} | ${answersPerSecond > 0 ? ((extra / answersPerSecond) * 1000).toFixed(1) : '—'} | ${answersPerSecond > 0 ? ((c.trafficCpuPerSecond / answersPerSecond) * 1000).toFixed(1) : '—'} |`;
}

function trialRow(stamp: string, t: TrafficTrialRecord): string {
  const f = t.figures;
  return `| ${stamp} | ${t.packages} | ${t.fault} | ${t.target}${t.partner ? ` + ${t.partner}` : ''} | ${t.askedPerMinute.toFixed(1)} | ${t.userAnswersChanged} of ${t.userQuestions} | ${sec(t.trafficDetectedS)} | ${sec(t.detectedS)} | ${f.flagged} / ${f.confirmed} / ${f.rejected} (${f.replayQueries} replayed) | ${t.blind.contentBad} / ${t.blind.contentMeasured} | ${t.blind.spotChecks} (${t.blind.spotDisagree}) in ${t.seconds.toFixed(0)} s | ${t.trafficAnomalies} | ${t.goldenAnomalies} | ${
    t.finalCause ? `${t.finalCause} ${(t.finalConfidence ?? 0).toFixed(2)}` : '—'
  } | ${sec(t.verifiedS)} | ${t.actions.join(' ') || '—'} | ${t.harmless ? 'harmless to users' : t.outcome} |`;
}

/** The cause a correct report names for a fault (`kind:mode` or an operator fault); undefined for an unseen or unknown kind. */
function expectedCause(fault: string): string | undefined {
  try {
    return expectationOf(fault.split(':')[0]!).cause ?? undefined;
  } catch {
    return undefined;
  }
}

/** RESULTS.md from the runs' records (one run: run.ts's own; several: merge.ts's). */
export function renderTrafficResults(runs: readonly TrafficRun[], options: RenderOptions = {}): string {
  if (runs.length === 0) throw new Error('no runs to render');
  const first = runs[0]!.header;
  const trials = runs.flatMap((run) => run.trials.map((t) => ({ stamp: run.header.stamp, t })));
  const all = trials.map(({ t }) => t);
  const packageCounts = [...new Set([...runs.flatMap((r) => r.header.packages), ...all.map((t) => t.packages)])].sort((a, b) => a - b);
  const faults = [...new Set([...runs.flatMap((r) => r.header.faults), ...all.map((t) => t.fault)])];
  const byFault = packageCounts.flatMap((packages) => {
    const rows = faults.map((fault) => {
      const rs = all.filter((t) => t.packages === packages && t.fault === fault);
      if (rs.length === 0) return `| ${packages} | ${fault} | 0 | | | | | | | | no (0 of 3) |`;
      // Rates over the harmful trials (a harmless one drew no anomaly and no report by definition).
      const harmful = rs.filter((t) => !t.harmless);
      const detected = harmful.filter((t) => t.trafficDetectedS !== undefined);
      const cause = expectedCause(fault);
      const stamps = new Set(trials.filter(({ t }) => rs.includes(t)).map(({ stamp }) => stamp)).size;
      return `| ${packages} | ${fault} | ${rs.length} (${stamps} run${stamps === 1 ? '' : 's'}) | ${rs.filter((t) => t.harmless).length} | ${detected.length}/${harmful.length} | ${median(
        detected.map((t) => t.trafficDetectedS!),
      )} | ${cause === undefined ? '?' : harmful.filter((t) => t.finalCause === cause).length}/${harmful.length} | ${
        harmful.filter((t) => t.outcome === 'healed').length
      }/${harmful.length} | ${median(rs.flatMap((t) => (t.verifiedS === undefined ? [] : [t.verifiedS])))} | **${share(goalShare(rs))}** | ${rs.length >= 3 ? 'yes' : `no (${rs.length} of 3)`} |`;
    });
    const overall = goalShare(all.filter((t) => t.packages === packages));
    return [
      ...rows,
      `| ${packages} | **all kinds** | ${all.filter((t) => t.packages === packages).length} | | | | | | | **${share(overall)}** | |`,
    ];
  });
  const cost = replayCost(runs);
  const mixed = options.mixed ?? [];
  const langchain = first.rag === 'langchain';
  return `# bench/traffic results: faults on knowledge only users ask about (issue 38)

Rendered from ${runs.length} run${runs.length === 1 ? "'s" : "s'"} own records (\`run.json\`, \`clean.jsonl\`, \`trials.jsonl\` of each run, by
\`bench/traffic/run.ts\`${
    options.mergeCommand ? ` and merged by \`${options.mergeCommand}\`` : runs.length > 1 ? ' and merged by `bench/traffic/merge.ts`' : ''
  }); the tables are computed from them, not typed in.
${options.partial ? '\n**Partial: written while the run was going on.**\n' : ''}${
    mixed.length > 0 ? `\n**Mixed settings (merged with --allow-mixed):** ${mixed.join('; ')}.\n` : ''
  }
## Runs

${runs.map(runLine).join('\n')}

Each run: the local stack (Kafka, schema registry, Elasticsearch, the Qdrant server, Prometheus) shared with other people's work; ${
    langchain ? 'the LangChain RAG pair on Gemma 3 270M (sampling)' : 'the reference RAG pair'
  } over the fixed Debian corpus (\`loadDebianKnowledge\`), the trace intake, the four workers as processes, effector in \`auto\`
mode; the online RAG exports every answer's OTLP spans to the intake, which stores users' spans redacted; the sentinel's traffic
watcher reads them (LoopRun's traffic settings: \`LOOP_TRAFFIC_ENV\` in test/kit/src/loop/loop-run.ts, 10 answers to profile a
segment, FCS on 10% of answers, the default alarm budget of one unconfirmed alarm per 100,000 answers, over them the run's sentinel env).
Simulated users: Zipf popularity over the labelled questions about the asked knowledge ids, half of them paraphrased, 10% outside
the knowledge, at most 4 requests in flight. Every fault is placed on a knowledge id drawn at random among those asked often enough
so far and that **no golden probe covers**: an operator's fault (\`vectors-overwritten\`, \`unpublished-knowledge\`,
\`attribution-swap\`) is written straight into the online Qdrant collection, a fault-API fault (\`kind:mode\`) is asked of the
online RAG's fault API scoped to that one id; none is undone by the benchmark (only the repair heals it). Times are seconds
after the fault was placed, "detected" when the first anomaly reached the bus. Runs before commit 2026-12-07 "test kit
trials: detected when the anomaly reached the bus" recorded its probe's start instead (about 0.3 s earlier on the reference
RAG; on the LangChain RAG up to the confirming replay's minutes) and counted from after the post-fault check of the users'
questions (under a second on the reference RAG, about a minute on the LangChain RAG).

## Clean traffic (no fault)

Incidents must be 0. "flagged / confirmed / rejected": segment alarms of the change detector, and what the shadow replay made of them
(a rejected segment opens nothing). CPU: the sentinel process's (prom-client \`process_cpu_seconds_total\`), first a quiet window with
no users (golden probes only), then over the clean phase; "watcher CPU per answer" is the difference divided by the answers read
per second (on a loaded machine the golden probes' share varies more than the watcher's: a difference at or below 0 means
the watcher's cost is under this measurement's noise); the upper bound divides all the sentinel's CPU, golden probes included.
Answers/s is what the RAG served and the watcher read on the shared machine, not the watcher's ceiling.

| run | packages | answers read | seconds | answers/s | incidents | actions | traffic anomalies | golden anomalies | flagged / confirmed / rejected | replayed queries | content novel / measured | spot checks (disagree) / per hour | sentinel CPU s/s quiet | sentinel CPU s/s with traffic | watcher CPU ms / answer | sentinel CPU ms / answer (upper bound) |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
${runs.flatMap((run) => run.clean.map((c) => cleanRow(run, c))).join('\n') || '| (not run) | | | | | | | | | | | | | | | | |'}

## Faults on asked, unprobed knowledge (all runs' trials)

A fault that changed no answer to the labelled questions about its knowledge (asked right before and after it was written) and
drew no anomaly is "harmless to users": nothing was there to catch; rates are over the other (harmful) trials. "Goal": the issue's
goal, of the harmful faults on knowledge asked at least ${GOAL_ASKED_PER_MINUTE} time a minute (the trial's "asked / min", over the
run's traffic so far), how many were detected (first anomaly of any origin) within ${GOAL_DETECTED_WITHIN_S} s **and** healed (repair
verified); "all kinds" is the same over every trial at that size. "≥ 3 trials": whether the issue's minimum is met for the kind.
"cause named": the final report names the fault's catalogue cause (\`?\` for a kind with none).

| packages | fault | trials | harmless to users | detected from traffic | median detection from traffic (s) | cause named | healed (repair verified) | median MTTR (s) | goal: detected ≤ ${GOAL_DETECTED_WITHIN_S} s and healed | ≥ 3 trials |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
${byFault.join('\n')}

## Replay cost

Replay calls per confirmed segment: **${perSegment(cost.confirmedQueries, cost.confirmed)}**; per rejected segment: **${perSegment(
    cost.rejectedQueries,
    cost.rejected,
  )}** (replayed user queries of the segments the shadow replay confirmed, over the segments confirmed; the same for rejected; summed
over every clean phase and trial from the watcher's \`rag_immune_traffic_replay_queries_total{outcome}\`; spot checks and the
promoted queries re-run during an incident count in neither; each replayed query is one call to the online and one to the
baseline RAG, samples calls a side in the sampled mode).${
    cost.phasesWithoutSplit > 0
      ? ` ${cost.phasesWithoutSplit} phase(s) of runs recorded before the split by outcome are left out of these two figures.`
      : ''
  }

## Every trial

"replay": the watcher's flagged / confirmed / rejected segments during the trial; "traffic anomalies": replayed user queries
published as anomalous ProbeResults (origin traffic); "golden anomalies": golden-probe anomalies after the fault (a golden probe
retrieving the damaged chunk by chance); "first anomaly": of any origin.

| run | packages | fault | knowledge id | asked / min | answers changed | detected from traffic | first anomaly | replay | content novel / measured | spot checks (disagree) | traffic anomalies | golden anomalies | final cause | verified (MTTR) | actions (last status) | outcome |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
${trials.map(({ stamp, t }) => trialRow(stamp, t)).join('\n')}
${
  runs.some((r) => r.notes.length > 0)
    ? `\n## Notes\n\n${runs.flatMap((r) => r.notes.map((n) => `- ${r.header.stamp}: ${n}`)).join('\n')}\n`
    : ''
}`;
}
