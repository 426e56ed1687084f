/**
 * Assembles the traffic watcher from its configuration and the sentinel's own parts: the same
 * ProbeRunner (so a replay is run and compared exactly as a golden probe), the same publication,
 * the same FCS scorer, the online RAG's freshness lookup.
 */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { ProbeResult } from '@rag-immune/contracts';
import type { FactConsistencyPort, ProbeRunner, RagPort } from '@rag-immune/probing';
import { createElasticsearchClient, elasticsearchConnection } from '@rag-immune/worker-runtime';
import type { TrafficEnv } from './config.ts';
import { DriftMonitor } from './drift-monitor.ts';
import { PromotedReplays } from './promoted-replays.ts';
import { EsPromotedStore, promotedReplaysIndex } from './promoted-store.ts';
import { SegmentResolver } from './segment-resolver.ts';
import { ShadowReplay } from './shadow-replay.ts';
import { citationCheck } from './signals/citation-check.ts';
import { contentProfile } from './signals/content-profile.ts';
import { SpotCheck } from './spot-check.ts';
import { fcsAgainstContext } from './signals/fcs-against-context.ts';
import { feedFreshness } from './signals/feed-freshness.ts';
import { retrievalHealth } from './signals/retrieval-health.ts';
import type { AnswerSignal } from './signals/answer-signal.ts';
import { TrafficMetrics } from './traffic-metrics.ts';
import { TrafficWatcher } from './traffic-watcher.ts';
import { UserTraceReader, userSpanIndex } from './user-trace-reader.ts';

export interface TrafficParts {
  runner: Pick<ProbeRunner, 'run'>;
  publish(result: ProbeResult): Promise<void>;
  fcs: FactConsistencyPort;
  online: RagPort;
  registry: Registry;
  logger?: Logger;
  /** The RAG's LLM samples (the sentinel runs in sampled mode): its answers' facts vary by themselves. */
  sampling?: boolean;
}

export function trafficWatcher(config: TrafficEnv, parts: TrafficParts): TrafficWatcher {
  const es = createElasticsearchClient(elasticsearchConnection(config, { requestTimeoutMs: 10_000, maxRetries: 2 }));
  const reader = new UserTraceReader(es, {
    index: userSpanIndex(config.ES_INDEX_PREFIX),
    pageSize: config.TRAFFIC_PAGE_SIZE,
    maxPages: config.TRAFFIC_MAX_PAGES,
    settleMs: config.TRAFFIC_SETTLE_MS,
    incompleteWaitMs: config.TRAFFIC_INCOMPLETE_WAIT_MS,
    visibilityMs: config.TRAFFIC_VISIBILITY_MS,
    maxLagMs: config.TRAFFIC_MAX_LAG_MS,
    maxTracesPerPoll: config.TRAFFIC_MAX_TRACES_PER_POLL,
    startAt: Date.now() - config.TRAFFIC_START_LOOKBACK_MS,
  });
  const online = parts.online;
  const signals: AnswerSignal[] = [
    retrievalHealth({ scoreDropRatio: config.TRAFFIC_SCORE_DROP_RATIO }),
    citationCheck(),
    fcsAgainstContext({ fcs: parts.fcs, minScore: config.TRAFFIC_FCS_MIN, share: config.TRAFFIC_FCS_SHARE }),
    feedFreshness({
      lookup:
        online.knowledgeFreshness === undefined || config.TRAFFIC_FEED_LOOKUPS_PER_MINUTE === 0
          ? undefined
          : (id) => online.knowledgeFreshness!(id, { timeoutMs: 5000 }),
      cacheTtlMs: config.TRAFFIC_FEED_CACHE_MS,
      maxLookupsPerMinute: config.TRAFFIC_FEED_LOOKUPS_PER_MINUTE,
    }),
  ];
  if (config.TRAFFIC_CONTENT_PROFILE === '1')
    signals.push(
      contentProfile({
        novelShare: config.TRAFFIC_CONTENT_NOVEL_SHARE,
        facts: config.TRAFFIC_CONTENT_FACTS === 'auto' ? parts.sampling !== true : config.TRAFFIC_CONTENT_FACTS === 'on',
      }),
    );
  const monitor = new DriftMonitor({
    profileAnswers: config.TRAFFIC_PROFILE_ANSWERS,
    priorWeight: config.TRAFFIC_PRIOR_WEIGHT,
    minCleanRate: config.TRAFFIC_MIN_CLEAN_RATE,
    confidenceZ: config.TRAFFIC_CONFIDENCE_Z,
    shift: config.TRAFFIC_SHIFT,
    answersPerDay: config.TRAFFIC_ANSWERS_PER_DAY,
    alarmsPerDay: config.TRAFFIC_ALARMS_PER_DAY,
    cooldownMs: config.TRAFFIC_COOLDOWN_S * 1000,
  });
  const maxProbes = Math.max(config.TRAFFIC_REPLAY_PER_INCIDENT, 10);
  const replay = new ShadowReplay(
    parts.runner,
    parts.publish,
    {
      perSegment: config.TRAFFIC_REPLAY_PER_SEGMENT,
      perIncident: config.TRAFFIC_REPLAY_PER_INCIDENT,
      incidentWindowMs: config.TRAFFIC_REPLAY_INCIDENT_WINDOW_S * 1000,
      perHour: config.TRAFFIC_REPLAY_PER_HOUR,
    },
    config.TRAFFIC_REPLAY_CONFIRM_SHARE,
  );
  return new TrafficWatcher(
    reader,
    signals,
    monitor,
    new SegmentResolver(),
    replay,
    new TrafficMetrics(parts.registry),
    {
      pollMs: config.TRAFFIC_POLL_MS,
      scoreDropRatio: config.TRAFFIC_SCORE_DROP_RATIO,
      queriesKept: Math.max(10, config.TRAFFIC_REPLAY_PER_SEGMENT * 3),
    },
    parts.logger,
    new PromotedReplays(
      parts.runner,
      parts.publish,
      {
        intervalMs: config.TRAFFIC_PROMOTED_INTERVAL_S * 1000,
        cleanRoundsToExpire: config.TRAFFIC_PROMOTED_CLEAN_ROUNDS,
        ttlMs: config.TRAFFIC_PROMOTED_TTL_S * 1000,
        maxProbes,
      },
      undefined,
      new EsPromotedStore(es, promotedReplaysIndex(config.ES_INDEX_PREFIX), maxProbes),
      (error) => parts.logger?.warn({ err: error }, 'promoted traffic probe not stored (it runs, but would not survive a restart)'),
    ),
    new SpotCheck(parts.runner, {
      perSegmentPerHour: config.TRAFFIC_SPOT_CHECKS_PER_SEGMENT_HOUR,
      perHour: config.TRAFFIC_SPOT_CHECKS_PER_HOUR,
      ledIntervalMs: config.TRAFFIC_LED_CHECK_INTERVAL_S * 1000,
    }),
  );
}
