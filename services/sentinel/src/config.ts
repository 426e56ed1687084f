import { z } from 'zod';
import { defaultThresholds } from '@rag-immune/probing';

const jsonObject = <T extends z.ZodTypeAny>(values: T) =>
  z.string().transform((text, ctx) => {
    try {
      return z.record(values).parse(JSON.parse(text));
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: `must be a JSON object (${(error as Error).message.split('\n')[0]})` });
      return z.NEVER;
    }
  });

const number = (schema: z.ZodNumber) => z.coerce.number().pipe(schema);

/** Environment variables of the sentinel worker, each named in the error when it is wrong. */
export const SentinelEnvSchema = z.object({
  SENTINEL_ONLINE_RAG_URL: z.string().url(),
  SENTINEL_BASELINE_RAG_URL: z.string().url(),
  SENTINEL_PROBES_FILE: z.string().min(1),
  SENTINEL_INTERVAL_SECONDS: number(z.number().min(1).max(86_400)).default(600),
  SENTINEL_JITTER: number(z.number().min(0).max(0.5)).default(0.1),
  SENTINEL_MAX_CONCURRENT: number(z.number().int().min(1).max(64)).default(4),
  SENTINEL_CALL_TIMEOUT_MS: number(z.number().int().min(100).max(300_000)).default(10_000),
  SENTINEL_CALL_ATTEMPTS: number(z.number().int().min(1).max(5)).default(2),
  /** Extra headers on every RAG call, e.g. a User-Agent a WAF accepts. */
  SENTINEL_HEADERS: jsonObject(z.string()).default('{}'),
  SENTINEL_SOURCE_TRUST: jsonObject(z.number().min(0).max(1)).default('{}'),
  SENTINEL_FCS_DROP: number(z.number().min(0).max(1)).default(defaultThresholds.fcsDrop),
  SENTINEL_IC_DROP: number(z.number().min(0).max(1)).default(defaultThresholds.icDrop),
  SENTINEL_KF_LAG_DAYS: number(z.number().min(0)).default(defaultThresholds.kfLagDays),
  SENTINEL_DEBUG: z.enum(['0', '1']).default('0'),
  SENTINEL_DEBUG_DIR: z.string().default('/tmp/rag-immune-sentinel-debug'),
  SENTINEL_FCS_MODEL: z.string().optional(),
  SENTINEL_HOST: z.string().default('0.0.0.0'),
  SENTINEL_PORT: number(z.number().int().min(0).max(65535)).default(9464),
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
  if (parsed.success) return parsed.data;
  throw new SentinelConfigError(parsed.error.issues.map((issue) => ({ key: String(issue.path[0] ?? '(env)'), message: issue.message })));
}

export const SENTINEL_VERSION = '0.1.0';
export const DEFAULT_USER_AGENT = `rag-immune-sentinel/${SENTINEL_VERSION}`;
