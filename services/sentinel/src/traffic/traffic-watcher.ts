/**
 * The sentinel's second input: live user traffic. Each poll reads the users' new traced answers,
 * judges each with the per-answer signals, puts it in its segment (the knowledge id its query is
 * answered from), and feeds the segment's change detector; a segment that alarms is confirmed (or
 * not) by shadow replay. Nothing here logs user text: segments, ids and counts only.
 */
import type { Logger } from 'pino';
import type { AnswerSignal, SegmentView, SignalReading } from './signals/answer-signal.ts';
import { retrievalProblem } from './signals/retrieval-health.ts';
import type { DriftMonitor, SegmentSummary } from './drift-monitor.ts';
import type { SegmentResolver } from './segment-resolver.ts';
import type { PromotedReplays } from './promoted-replays.ts';
import type { ReplayOutcome, ShadowReplay } from './shadow-replay.ts';
import type { SpotCheck } from './spot-check.ts';
import type { TrafficMetrics } from './traffic-metrics.ts';
import { retrievedKnowledgeIds, topKnowledgeId, topRetrievalScore, type UserAnswer } from './user-answer.ts';
import type { PollResult } from './user-trace-reader.ts';

export interface TrafficSource {
  poll(): Promise<PollResult>;
}

export interface TrafficWatcherOptions {
  pollMs: number;
  scoreDropRatio: number;
  /** Recent distinct queries kept per segment for its replay (in memory only). */
  queriesKept: number;
}

/** The segment of answers that name no knowledge at all (nothing retrieved, no learned cluster). */
export const NO_KNOWLEDGE = 'unknown';

export class TrafficWatcher {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private readonly badQueries = new Map<string, string[]>();
  private readonly replays = new Map<string, Promise<ReplayOutcome | undefined>>();
  private promotedRun: Promise<void> | undefined;
  private spotRun: Promise<void> | undefined;
  readonly outcomes: ReplayOutcome[] = [];

  constructor(
    private readonly source: TrafficSource,
    private readonly signals: readonly AnswerSignal[],
    private readonly monitor: DriftMonitor,
    private readonly resolver: SegmentResolver,
    private readonly replay: ShadowReplay,
    private readonly metrics: TrafficMetrics,
    private readonly options: TrafficWatcherOptions,
    private readonly logger?: Logger,
    private readonly promoted?: PromotedReplays,
    private readonly spotCheck?: SpotCheck,
  ) {}

  start(): void {
    this.stopped = false;
    const loop = () => {
      if (this.stopped) return;
      this.running = this.tick().finally(() => {
        if (!this.stopped) this.timer = setTimeout(loop, this.options.pollMs);
      });
    };
    this.timer = setTimeout(loop, 0);
    this.logger?.info({ arl0: this.monitor.arl0 }, 'traffic watcher started');
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    await Promise.allSettled([...this.replays.values(), this.promotedRun, this.spotRun]);
  }

  /** One poll: read, judge, detect, start replays. Exposed for tests. */
  async tick(): Promise<void> {
    let polled: PollResult;
    try {
      polled = await this.source.poll();
    } catch (error) {
      this.metrics.pollErrors.inc();
      this.logger?.warn({ err: error }, 'traffic poll failed');
      return;
    }
    this.metrics.skipped.inc(polled.skipped);
    this.metrics.unreadable.inc(polled.unreadable);
    if (polled.skipped > 0) this.logger?.warn({ skipped: polled.skipped }, 'traffic watcher behind: traces sampled out');
    for (const answer of polled.answers) await this.judge(answer);
    this.metrics.segments.set(this.monitor.summary().length);
    this.rerunPromoted();
    this.runSpotCheck();
  }

  /**
   * One budgeted spot check in the background (one at a time): a segment's query compared with the
   * baseline, led by decisive evidence or on the segment's schedule; a disagreement flags the segment
   * for the normal confirmation.
   */
  private runSpotCheck(): void {
    if (this.spotCheck === undefined || this.spotRun !== undefined) return;
    const candidates = new Map([...this.badQueries].filter(([segment]) => segment !== NO_KNOWLEDGE && !this.replays.has(segment)));
    const due = this.spotCheck.next(candidates);
    if (due === undefined) return;
    this.metrics.replayCalls.inc({ outcome: 'spot_check' });
    const trigger = due.trigger;
    this.spotRun = this.spotCheck
      .check(due.segment, due.query)
      .then((outcome) => {
        this.metrics.spotChecks.inc({ outcome: outcome.disagrees ? 'disagree' : 'agree', trigger });
        if (!outcome.disagrees) {
          this.resolver.checkedHealthy(outcome.query);
          return;
        }
        this.logger?.warn({ segment: outcome.segment, trigger }, 'traffic spot check disagrees with the baseline');
        this.flag(outcome.segment, outcome.query);
      })
      .catch((error: unknown) => {
        this.metrics.spotChecks.inc({ outcome: 'failed', trigger });
        this.logger?.warn({ err: error, segment: due.segment }, 'traffic spot check failed');
      })
      .finally(() => (this.spotRun = undefined));
  }

  /** The promoted replay probes that are due, in the background (one batch at a time). */
  private rerunPromoted(): void {
    if (this.promoted === undefined || this.promotedRun !== undefined) return;
    this.promotedRun = this.promoted
      .runDue()
      .then((run) => {
        if (run.ran > 0) this.metrics.replayCalls.inc({ outcome: 'promoted' }, run.ran);
        for (const segment of run.healedSegments) this.replay.incidentEnded(segment);
        if (run.ran > 0 || run.expired.length > 0)
          this.logger?.info(
            { ran: run.ran, anomalous: run.anomalous, expired: run.expired, healed_segments: run.healedSegments },
            'promoted traffic probes re-run',
          );
      })
      .catch((error: unknown) => this.logger?.error({ err: error }, 'promoted traffic probes failed'))
      .finally(() => (this.promotedRun = undefined));
  }

  /** Each segment's profile, detector design and counts (ids and figures only). */
  segments(): SegmentSummary[] {
    return this.monitor.summary();
  }

  /** Waits for the spot check and the replays in flight (tests). */
  async settled(): Promise<void> {
    await this.spotRun;
    await Promise.allSettled([...this.replays.values()]);
  }

  private async judge(answer: UserAnswer): Promise<void> {
    this.metrics.answersRead.inc();
    const query = answer.trace.query;
    const retrievedNow = topKnowledgeId(answer);
    const usual = this.resolver.usualKnowledge(query, retrievedKnowledgeIds(answer));
    const segment = usual?.knowledgeId ?? retrievedNow ?? NO_KNOWLEDGE;
    const view: SegmentView = { segment };
    const usualTopScore = this.monitor.usualTopScore(segment);
    if (usualTopScore !== undefined) view.usualTopScore = usualTopScore;
    if (usual !== undefined) {
      view.usualKnowledgeId = usual.knowledgeId;
      view.usualMatch = usual.match;
    }
    const readings: SignalReading[] = [];
    for (const signal of this.signals) {
      try {
        const reading = await signal.read(answer, view);
        if (reading === null) continue;
        readings.push(reading);
        this.metrics.signalMeasured.inc({ signal: reading.signal });
        if (reading.bad) this.metrics.signalBad.inc({ signal: reading.signal });
      } catch (error) {
        this.logger?.warn({ err: error, signal: signal.name, trace_id: answer.trace_id }, 'traffic signal failed');
      }
    }
    const scoreDropped = readings.some((r) => r.kind === 'score_drop');
    const badOther = readings.some((r) => r.bad && r.kind !== 'score_drop');
    const bad = badOther || scoreDropped;
    if (!bad && retrievedNow !== undefined && retrievalProblem(answer, view, this.options) === null)
      this.resolver.learn(
        query,
        retrievedNow,
        answer.trace.context.map((c) => c.knowledge_id),
      );
    if (usual?.match === 'near') {
      // A guess from the words: the rewording is learned only once a check finds its answer healthy.
      this.metrics.resolvedNear.inc();
      if (retrievedNow !== undefined) this.resolver.holdPending(query, segment, retrievedNow);
    }
    this.remember(segment, query, bad);
    this.companionLost(usual?.lostCompanion, query);
    if (segment !== NO_KNOWLEDGE && !this.replays.has(segment) && readings.some((r) => r.bad && r.decisive === true))
      if (this.spotCheck?.lead(segment, query) === true)
        this.logger?.info({ segment }, 'decisive evidence in a user answer: spot check led');
    if (this.monitor.observe(segment, { badOther, scoreDropped, topScore: topRetrievalScore(answer.trace) }, this.options.scoreDropRatio))
      this.flag(segment);
  }

  /**
   * The answer lost knowledge its wording's healthy context held beside the top id (a changelog
   * deleted while its binary still ranks first for its questions: the LangChain bench, 17:49). The
   * answer stays in its segment and is not counted bad there (the query may well be about the top
   * id, whose answer is unaffected: the CI trial's garbage vectors on one id made other ids' answers
   * lose it, and counting them against it diluted its confirmation); it leads a budgeted spot check
   * of the lost knowledge with this query instead, whose replay expects the lost knowledge as its
   * source. Kept at the tail of that segment's queries: never ahead of its own answers' bad ones.
   */
  private companionLost(lost: string | undefined, query: string): void {
    if (lost === undefined) return;
    this.metrics.companionsLost.inc();
    this.remember(lost, query, false);
    if (!this.replays.has(lost) && this.spotCheck?.lead(lost, query) === true)
      this.logger?.info({ segment: lost }, 'knowledge left a user answer it used to be in: spot check led');
  }

  /** The segment's recent queries, bad answers' first: what its replay asks. */
  private remember(segment: string, query: string, bad: boolean): void {
    const kept = this.badQueries.get(segment) ?? [];
    const rest = kept.filter((q) => q !== query);
    const next = bad ? [query, ...rest] : [...rest, query];
    this.badQueries.set(segment, next.slice(0, this.options.queriesKept));
  }

  /** Starts the segment's confirmation by shadow replay; `first`: a query to replay first (a spot check's). */
  private flag(segment: string, first?: string): void {
    this.metrics.segmentsFlagged.inc();
    const summary = this.monitor.summary().find((s) => s.segment === segment);
    this.logger?.warn(
      { segment, answers: summary?.answers, bad: summary?.bad, p0: summary?.design?.p0, h: summary?.design?.h },
      'traffic segment drifting: confirming by shadow replay',
    );
    if (this.replays.has(segment)) return;
    const recent = this.badQueries.get(segment) ?? [];
    const queries = first === undefined ? recent : [first, ...recent.filter((q) => q !== first)];
    const run = this.replay
      .confirm(segment, queries)
      .then((outcome) => {
        this.outcomes.push(outcome);
        this.metrics.replayCalls.inc({ outcome: outcome.confirmed ? 'confirmed' : 'rejected' }, outcome.replayed);
        if (outcome.confirmed) {
          this.metrics.segmentsConfirmed.inc();
          this.promoted?.promote(segment, outcome.publishedResults);
        } else {
          this.metrics.segmentsRejected.inc();
          if (outcome.replayed > 0) this.resolver.segmentCleared(segment);
          // The baseline judged the segment's answers clean: its clean profile was too optimistic.
          if (outcome.replayed > 0 && this.monitor.relearn(segment)) this.metrics.segmentsRelearned.inc();
        }
        // Learning signals hear the verdict; a replay that asked nothing (capped) decides nothing.
        if (outcome.replayed > 0)
          for (const signal of this.signals)
            if (outcome.confirmed) signal.segmentConfirmed?.(segment);
            else signal.segmentCleared?.(segment);
        const log = {
          segment,
          replayed: outcome.replayed,
          anomalous: outcome.anomalous,
          capped: outcome.capped,
          probes: outcome.published,
        };
        if (outcome.confirmed) this.logger?.warn(log, 'traffic drift confirmed by shadow replay: published as anomalies');
        else this.logger?.info(log, 'traffic drift not confirmed by shadow replay: nothing opened');
        return outcome;
      })
      .catch((error: unknown) => {
        this.logger?.error({ err: error, segment }, 'shadow replay failed');
        return undefined;
      })
      .finally(() => this.replays.delete(segment));
    this.replays.set(segment, run);
  }
}
