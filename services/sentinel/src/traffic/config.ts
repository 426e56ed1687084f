import { z } from 'zod';
import { ElasticsearchCredentialsEnv, EsIndexPrefixEnv, elasticsearchCredentialsIssue } from '@rag-immune/worker-runtime';

const number = (schema: z.ZodNumber) => z.coerce.number().pipe(schema);
const int = (min: number, max: number) => number(z.number().int().min(min).max(max));
const share = () => number(z.number().min(0).max(1));

/**
 * The traffic watcher's environment (issue 38), each variable named in the error when it is wrong.
 * Off unless TRAFFIC_WATCH=1: a RAG whose users' traces must stay out is never read.
 */
export const TrafficEnvSchema = z.object({
  TRAFFIC_WATCH: z.enum(['0', '1']).default('0'),
  ELASTICSEARCH_URL: z.string().url().default('http://127.0.0.1:19200'),
  ...ElasticsearchCredentialsEnv,
  /** The intake's prefix: user spans are read from `<prefix>-otlp-user-spans`. */
  ...EsIndexPrefixEnv,
  TRAFFIC_POLL_MS: int(100, 600_000).default(2000),
  TRAFFIC_PAGE_SIZE: int(10, 10_000).default(1000),
  TRAFFIC_MAX_PAGES: int(1, 100).default(5),
  /** A trace counts as complete when none of its spans arrived for this long. */
  TRAFFIC_SETTLE_MS: int(0, 600_000).default(5000),
  /** A settled trace that makes no answer yet (its root span still in the exporter's next batch) is waited for this long after its first span. */
  TRAFFIC_INCOMPLETE_WAIT_MS: int(0, 600_000).default(30_000),
  /** Spans younger than this are left for the next poll (the index refreshes about every second). */
  TRAFFIC_VISIBILITY_MS: int(0, 60_000).default(2000),
  /** The most the watcher may lag; beyond it, it jumps ahead and counts what it passed over. */
  TRAFFIC_MAX_LAG_MS: int(1000, 86_400_000).default(120_000),
  TRAFFIC_MAX_TRACES_PER_POLL: int(1, 100_000).default(500),
  /** Share of answers whose FCS against their own context is scored. */
  TRAFFIC_FCS_SHARE: share().default(0.1),
  TRAFFIC_FCS_MIN: share().default(0.3),
  /** A top retrieval score below this share of the segment's usual is "far below". */
  TRAFFIC_SCORE_DROP_RATIO: number(z.number().gt(0).lt(1)).default(0.8),
  TRAFFIC_FEED_LOOKUPS_PER_MINUTE: int(0, 10_000).default(30),
  TRAFFIC_FEED_CACHE_MS: int(1000, 86_400_000).default(300_000),
  /** Answers of a segment that make its clean profile. */
  TRAFFIC_PROFILE_ANSWERS: int(5, 100_000).default(30),
  TRAFFIC_PRIOR_WEIGHT: number(z.number().min(0)).default(20),
  TRAFFIC_MIN_CLEAN_RATE: number(z.number().gt(0).lt(0.5)).default(0.005),
  TRAFFIC_CONFIDENCE_Z: number(z.number().min(0).max(5)).default(1.645),
  /** The bad-rate increase the detector is designed to catch fastest. */
  TRAFFIC_SHIFT: number(z.number().gt(0).lt(1)).default(0.3),
  /** The alarm budget: ARL0 = TRAFFIC_ANSWERS_PER_DAY / TRAFFIC_ALARMS_PER_DAY answers. */
  TRAFFIC_ANSWERS_PER_DAY: number(z.number().min(1)).default(100_000),
  TRAFFIC_ALARMS_PER_DAY: number(z.number().gt(0)).default(1),
  TRAFFIC_COOLDOWN_S: int(0, 86_400).default(600),
  TRAFFIC_REPLAY_PER_SEGMENT: int(1, 50).default(3),
  TRAFFIC_REPLAY_PER_INCIDENT: int(1, 500).default(10),
  TRAFFIC_REPLAY_INCIDENT_WINDOW_S: int(60, 86_400).default(3600),
  TRAFFIC_REPLAY_PER_HOUR: int(0, 10_000).default(60),
  /** A segment is confirmed when at least this share of its replayed queries are anomalous. */
  TRAFFIC_REPLAY_CONFIRM_SHARE: number(z.number().gt(0).max(1)).default(0.5),
  /**
   * Confirmed replays become probes re-run every TRAFFIC_PROMOTED_INTERVAL_S (their clean results
   * close the incident) until clean TRAFFIC_PROMOTED_CLEAN_ROUNDS times in a row (keep it at least
   * the identifier's IDENTIFIER_CLEAN_ROUNDS_TO_CLOSE) or TRAFFIC_PROMOTED_TTL_S old.
   */
  TRAFFIC_PROMOTED_INTERVAL_S: int(1, 86_400).default(300),
  TRAFFIC_PROMOTED_CLEAN_ROUNDS: int(1, 100).default(3),
  TRAFFIC_PROMOTED_TTL_S: int(60, 7 * 86_400).default(86_400),
  /**
   * The content profile signal: an answer to a question cluster already answered cleanly whose own
   * chunks (content keys) or key facts are at least TRAFFIC_CONTENT_NOVEL_SHARE new counts as bad.
   */
  TRAFFIC_CONTENT_PROFILE: z.enum(['0', '1']).default('1'),
  TRAFFIC_CONTENT_NOVEL_SHARE: number(z.number().gt(0).max(1)).default(0.5),
  /**
   * Whether the content profile judges the answers' key facts too: `auto` does unless the RAG's LLM
   * samples (the sentinel's SENTINEL_SAMPLES_PER_PROBE >= 2), where every sample states other facts.
   */
  TRAFFIC_CONTENT_FACTS: z.enum(['auto', 'on', 'off']).default('auto'),
  /**
   * Budgeted spot checks: a segment's recent query replayed against online and baseline with no
   * signal moving, at most TRAFFIC_SPOT_CHECKS_PER_SEGMENT_HOUR per segment (fractions allowed) and
   * TRAFFIC_SPOT_CHECKS_PER_HOUR over all segments; either at 0 disables them.
   */
  TRAFFIC_SPOT_CHECKS_PER_SEGMENT_HOUR: number(z.number().min(0).max(3600)).default(1),
  TRAFFIC_SPOT_CHECKS_PER_HOUR: int(0, 10_000).default(30),
  /**
   * Evidence-led spot checks: an answer whose segment's own chunks left or changed in its cluster's
   * context asks for a check of that segment now, within TRAFFIC_SPOT_CHECKS_PER_HOUR, at most once
   * per segment in this many seconds; 0 disables them.
   */
  TRAFFIC_LED_CHECK_INTERVAL_S: int(0, 86_400).default(300),
  /** Read traffic from this long before the start (default: only what arrives after). */
  TRAFFIC_START_LOOKBACK_MS: int(0, 86_400_000).default(0),
});

export type TrafficEnv = z.infer<typeof TrafficEnvSchema>;

export class TrafficConfigError extends Error {
  constructor(readonly issues: { key: string; message: string }[]) {
    super(`invalid traffic watcher configuration: ${issues.map((i) => `${i.key}: ${i.message}`).join('; ')}`);
    this.name = 'TrafficConfigError';
  }
}

export function trafficConfigFromEnv(env: NodeJS.ProcessEnv): TrafficEnv {
  const parsed = TrafficEnvSchema.safeParse(env);
  if (!parsed.success)
    throw new TrafficConfigError(parsed.error.issues.map((issue) => ({ key: String(issue.path[0] ?? '(env)'), message: issue.message })));
  const credentials = elasticsearchCredentialsIssue(parsed.data);
  if (credentials !== null) throw new TrafficConfigError([credentials]);
  return parsed.data;
}
