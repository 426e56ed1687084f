import { z } from 'zod';
import {
  PROBE_MARK_MIN_KEY_LENGTH,
  DEFAULT_SAMPLE_ALPHA,
  answerAndLatencyDefaults,
  defaultThresholds,
  sampledModeProblem,
  type PooledTestOptions,
} from '@rag-immune/probing';
import { isLoopback } from '@rag-immune/worker-runtime';

/**
 * A JSON object in one variable. For a variable that may hold secrets (`secret`), the error
 * never quotes the parser's message: JSON.parse and zod echo parts of the input.
 */
const jsonObject = <T extends z.ZodTypeAny>(values: T, secret = false) =>
  z.string().transform((text, ctx) => {
    try {
      return z.record(values).parse(JSON.parse(text));
    } catch (error) {
      const detail = secret ? 'value not shown: it may hold credentials' : (error as Error).message.split('\n')[0];
      ctx.addIssue({ code: 'custom', message: `must be a JSON object (${detail})` });
      return z.NEVER;
    }
  });

const number = (schema: z.ZodNumber) => z.coerce.number().pipe(schema);

/** Environment variables of the sentinel worker, each named in the error when it is wrong. */
export const SentinelEnvSchema = z.object({
  SENTINEL_ONLINE_RAG_URL: z.string().url(),
  SENTINEL_BASELINE_RAG_URL: z.string().url(),
  SENTINEL_PROBES_FILE: z.string().min(1),
  /**
   * A declarative adapter (@rag-immune/rag-adapter) for a RAG that does not serve the health
   * contract: how to ask it and where its answer and documents are. Unset: the contract client.
   */
  SENTINEL_RAG_ADAPTER_FILE: z.string().min(1).optional(),
  SENTINEL_INTERVAL_SECONDS: number(z.number().min(1).max(86_400)).default(600),
  SENTINEL_JITTER: number(z.number().min(0).max(0.5)).default(0.1),
  SENTINEL_MAX_CONCURRENT: number(z.number().int().min(1).max(64)).default(4),
  SENTINEL_CALL_TIMEOUT_MS: number(z.number().int().min(100).max(300_000)).default(10_000),
  SENTINEL_CALL_ATTEMPTS: number(z.number().int().min(1).max(5)).default(2),
  /** Extra headers on every RAG call, e.g. a User-Agent a WAF accepts. */
  SENTINEL_HEADERS: jsonObject(z.string(), true).default('{}'),
  SENTINEL_SOURCE_TRUST: jsonObject(z.number().min(0).max(1)).default('{}'),
  SENTINEL_FCS_DROP: number(z.number().min(0).max(1)).default(defaultThresholds.fcsDrop),
  SENTINEL_IC_DROP: number(z.number().min(0).max(1)).default(defaultThresholds.icDrop),
  SENTINEL_KF_LAG_DAYS: number(z.number().min(0)).default(defaultThresholds.kfLagDays),
  /** A differing online answer whose FCS against the baseline's evidence is below this disagrees. */
  SENTINEL_CROSS_FCS_MIN: number(z.number().min(0).max(1)).default(answerAndLatencyDefaults.crossFcsMin),
  SENTINEL_LATENCY_P95_RATIO: number(z.number().min(1)).default(answerAndLatencyDefaults.latencyP95Ratio),
  SENTINEL_LATENCY_MIN_EXTRA_MS: number(z.number().min(0)).default(answerAndLatencyDefaults.latencyMinExtraMs),
  SENTINEL_TIMEOUT_RATE: number(z.number().min(0).max(1)).default(answerAndLatencyDefaults.timeoutRate),
  /**
   * Calls per side per probe run (default 1). Above 1, for a RAG whose LLM samples, fcs_drop and
   * ic_drop need a one-sided exact Mann–Whitney p below SENTINEL_SAMPLE_ALPHA: k times the RAG calls.
   */
  SENTINEL_SAMPLES_PER_PROBE: number(z.number().int().min(1).max(20)).default(1),
  /** Level of the sampled test; with the pooled test, per probe: at least 1 / alpha clean runs between false anomalies. */
  SENTINEL_SAMPLE_ALPHA: number(z.number().gt(0).lt(1)).default(DEFAULT_SAMPLE_ALPHA),
  /**
   * Sampled mode (SENTINEL_SAMPLES_PER_PROBE >= 2): pool the evidence over each probe's runs (an
   * always-valid sequential test, see the README) instead of judging each run alone. Default on.
   */
  SENTINEL_POOLED_TEST: z.enum(['on', 'off']).default('on'),
  /** Pooled: calls a side while a probe's evidence leans towards a change (the cap per run); default SENTINEL_SAMPLES_PER_PROBE. */
  SENTINEL_SAMPLES_MAX: number(z.number().int().min(2).max(20)).optional(),
  /** Pooled: share of the alarm threshold at which a probe's evidence leans and its runs take SENTINEL_SAMPLES_MAX. */
  SENTINEL_SAMPLE_LEAN: number(z.number().gt(0).max(1)).default(0.01),
  /** Pooled: most RAG calls in any hour (both sides, all probes) before leaning probes stop taking more; none when unset. */
  SENTINEL_SAMPLE_CALLS_PER_HOUR: number(z.number().int().min(1)).optional(),
  /**
   * Pooled: also pool the evidence across the probes that expect the same knowledge id (a pool per
   * id, alarming once SENTINEL_KNOWLEDGE_POOL_MIN_PROBES probes fed it). Off by default: it adds
   * the pools' false-alarm budget (SENTINEL_KNOWLEDGE_POOL_ALPHA per pooled run) to the probes' own.
   */
  SENTINEL_KNOWLEDGE_POOL: z.enum(['on', 'off']).default('off'),
  /** Level of each knowledge pool: at least 1 / alpha runs of its probes between false alarms; default SENTINEL_SAMPLE_ALPHA. */
  SENTINEL_KNOWLEDGE_POOL_ALPHA: number(z.number().gt(0).lt(1)).optional(),
  /** Distinct probes that must have fed a knowledge pool since its restart before it may alarm. */
  SENTINEL_KNOWLEDGE_POOL_MIN_PROBES: number(z.number().int().min(2).max(1000)).default(2),
  /** Most time one side of a probe may take, retries included; default 1.5 x the call timeout. */
  SENTINEL_PROBE_DEADLINE_MS: number(z.number().int().min(100).max(600_000)).optional(),
  SENTINEL_DEBUG: z.enum(['0', '1']).default('0'),
  SENTINEL_DEBUG_DIR: z.string().default('/tmp/rag-immune-sentinel-debug'),
  SENTINEL_FCS_MODEL: z.string().optional(),
  /** FCS scorer: v2 (answer sentences x evidence chunks, combination fitted on real data) or v1; default: the package's. */
  SENTINEL_FCS_SCORER: z.enum(['v1', 'v2']).optional(),
  /** Loopback by default; binding elsewhere needs SENTINEL_API_TOKEN. */
  SENTINEL_HOST: z.string().default('127.0.0.1'),
  /** Bearer token for /probes (it reveals the probe set and the last results); /healthz and /metrics stay open. */
  SENTINEL_API_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  SENTINEL_PORT: number(z.number().int().min(0).max(65535)).default(9464) /**
   * Signs every probe call's tracestate mark (`rag-immune=probe:<issued>:<mac>`), the key the trace
   * intake verifies it with: only then are the RAG's spans of the call filed as a probe's. Unset:
   * the unsigned mark (an intake with the key files such spans as a user's, redacted).
   */,
  PROBE_MARK_KEY: z.string().min(PROBE_MARK_MIN_KEY_LENGTH, `must be at least ${PROBE_MARK_MIN_KEY_LENGTH} characters`).optional(),
});

export type SentinelEnv = z.infer<typeof SentinelEnvSchema>;

export class SentinelConfigError extends Error {
  constructor(readonly issues: { key: string; message: string }[]) {
    super(`invalid sentinel configuration: ${issues.map((i) => `${i.key}: ${i.message}`).join('; ')}`);
    this.name = 'SentinelConfigError';
  }
}

export function sentinelConfigFromEnv(env: NodeJS.ProcessEnv): SentinelEnv {
  const parsed = SentinelEnvSchema.safeParse(env);
  if (parsed.success) {
    const pooled = pooledTest(parsed.data);
    const sampling = sampledModeProblem(parsed.data.SENTINEL_SAMPLES_PER_PROBE, parsed.data.SENTINEL_SAMPLE_ALPHA, pooled);
    if (sampling !== null) throw new SentinelConfigError([{ key: 'SENTINEL_SAMPLES_PER_PROBE', message: sampling }]);
    const max = parsed.data.SENTINEL_SAMPLES_MAX;
    if (max !== undefined && !pooled)
      throw new SentinelConfigError([
        { key: 'SENTINEL_SAMPLES_MAX', message: 'needs the pooled test (SENTINEL_SAMPLES_PER_PROBE >= 2 and SENTINEL_POOLED_TEST=on)' },
      ]);
    if (max !== undefined && max < parsed.data.SENTINEL_SAMPLES_PER_PROBE)
      throw new SentinelConfigError([
        {
          key: 'SENTINEL_SAMPLES_MAX',
          message: `must be at least SENTINEL_SAMPLES_PER_PROBE (${parsed.data.SENTINEL_SAMPLES_PER_PROBE}), got ${max}`,
        },
      ]);
    if (parsed.data.SENTINEL_KNOWLEDGE_POOL === 'on' && !pooled)
      throw new SentinelConfigError([
        { key: 'SENTINEL_KNOWLEDGE_POOL', message: 'needs the pooled test (SENTINEL_SAMPLES_PER_PROBE >= 2 and SENTINEL_POOLED_TEST=on)' },
      ]);
    if (parsed.data.SENTINEL_API_TOKEN === undefined && !isLoopback(parsed.data.SENTINEL_HOST))
      throw new SentinelConfigError([
        { key: 'SENTINEL_API_TOKEN', message: `is required to bind SENTINEL_HOST=${parsed.data.SENTINEL_HOST} (beyond loopback)` },
      ]);
    return parsed.data;
  }
  throw new SentinelConfigError(parsed.error.issues.map((issue) => ({ key: String(issue.path[0] ?? '(env)'), message: issue.message })));
}

/** The pooled test runs in sampled mode unless switched off. */
export function pooledTest(config: Pick<SentinelEnv, 'SENTINEL_SAMPLES_PER_PROBE' | 'SENTINEL_POOLED_TEST'>): boolean {
  return config.SENTINEL_SAMPLES_PER_PROBE >= 2 && config.SENTINEL_POOLED_TEST === 'on';
}

/** The ProbeRunner's pooled-test options from the configuration; undefined when it is off. */
export function pooledTestOptions(config: SentinelEnv): PooledTestOptions | undefined {
  if (!pooledTest(config)) return undefined;
  return {
    alpha: config.SENTINEL_SAMPLE_ALPHA,
    leanFraction: config.SENTINEL_SAMPLE_LEAN,
    ...(config.SENTINEL_SAMPLES_MAX !== undefined ? { maxSamples: config.SENTINEL_SAMPLES_MAX } : {}),
    ...(config.SENTINEL_SAMPLE_CALLS_PER_HOUR !== undefined ? { callsPerHour: config.SENTINEL_SAMPLE_CALLS_PER_HOUR } : {}),
    ...(config.SENTINEL_KNOWLEDGE_POOL === 'on'
      ? {
          acrossProbes: {
            alpha: config.SENTINEL_KNOWLEDGE_POOL_ALPHA ?? config.SENTINEL_SAMPLE_ALPHA,
            minProbes: config.SENTINEL_KNOWLEDGE_POOL_MIN_PROBES,
          },
        }
      : {}),
  };
}

export const SENTINEL_VERSION = '0.1.0';
export const DEFAULT_USER_AGENT = `rag-immune-sentinel/${SENTINEL_VERSION}`;
