import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import {
  ElasticsearchCredentialsEnv,
  EsIndexPrefixEnv,
  elasticsearchCredentialsIssue,
  NamedTokensEnv,
  NamedTokensFileEnv,
  parseWorkerEnv,
  type ConfigIssue,
} from '@rag-immune/worker-runtime';
import { DEFAULT_SAMPLE_ALPHA, PROBE_MARK_MIN_KEY_LENGTH, sampledModeProblem } from '@rag-immune/probing';
import { ApiRolesEnv } from './http/api-roles.ts';

export const EFFECTOR_VERSION = '0.1.0';
/** The settings every effector index is created with. */
export const EFFECTOR_INDEX_SETTINGS = { number_of_shards: 1, number_of_replicas: 0 } as const;
export const DEFAULT_POLICY_FILE = fileURLToPath(new URL('../policy/policy.v1.yaml', import.meta.url));

const jsonRecord = z.string().transform((text, ctx) => {
  try {
    const value: unknown = JSON.parse(text);
    const parsed = z.record(z.string()).safeParse(value);
    if (parsed.success) return parsed.data;
    ctx.addIssue({ code: 'custom', message: 'must be a JSON object of string values' });
  } catch {
    ctx.addIssue({ code: 'custom', message: 'must be valid JSON' });
  }
  return z.NEVER;
});

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/** The effector's environment; a bad value stops it naming the variable (exit 78). */
export const EffectorConfigSchema = z.object({
  EFFECTOR_HOST: z.string().min(1).default('127.0.0.1'),
  EFFECTOR_PORT: int(0, 65_535).default(9466),
  /**
   * Shared bearer token of the effector's API (actions, snapshots, rollback, grants, mode): every
   * manual command is authenticated, but the audit's actor is then only the name the caller claims
   * (recorded with actor_verified: false). Prefer EFFECTOR_API_TOKENS.
   */
  EFFECTOR_API_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /**
   * Signs every probe call's tracestate mark (`rag-immune=probe:<issued>:<mac>`), the key the trace
   * intake verifies it with: only then are the RAG's spans of the call filed as a probe's. Unset:
   * the unsigned mark (an intake with the key files such spans as a user's, redacted).
   */
  PROBE_MARK_KEY: z.string().min(PROBE_MARK_MIN_KEY_LENGTH, `must be at least ${PROBE_MARK_MIN_KEY_LENGTH} characters`).optional(),
  /** One token per caller, `name:token` pairs (comma- or newline-separated): the audit's actor is the token's name. */
  EFFECTOR_API_TOKENS: NamedTokensEnv.optional(),
  /** The same as a file of `name:token` lines (a mounted secret). */
  EFFECTOR_API_TOKENS_FILE: NamedTokensFileEnv.optional(),
  /**
   * Each caller's roles, `name=read+operate,bob=read+grant` (read | operate | grant), names of
   * EFFECTOR_API_TOKENS(_FILE). Unset: every caller may do everything (as before roles). Set: an
   * unlisted caller may do nothing, and the shared EFFECTOR_API_TOKEN only read (src/http/api-roles.ts).
   */
  EFFECTOR_API_ROLES: ApiRolesEnv.optional(),
  EFFECTOR_GROUP_ID: z.string().min(1).default('rag-immune-effector'),
  /** Stable replica name: a restarted replica resumes the actions it owned. */
  EFFECTOR_INSTANCE_ID: z.string().min(1).optional(),
  EFFECTOR_ONLINE_RAG_URL: z.string().url(),
  EFFECTOR_BASELINE_RAG_URL: z.string().url(),
  /** Extra headers for every RAG call, e.g. {"authorization":"Bearer …"} for its /repair hooks. */
  EFFECTOR_RAG_HEADERS: jsonRecord.default('{}'),
  EFFECTOR_RAG_TIMEOUT_MS: int(100, 600_000).default(120_000),
  /** A declarative adapter (@rag-immune/rag-adapter) for verifying a repair on a RAG without the contract's POST /query. */
  EFFECTOR_RAG_ADAPTER_FILE: z.string().min(1).optional(),
  EFFECTOR_QDRANT_URL: z.string().url().optional(),
  QDRANT_URL: z.string().url().default('http://127.0.0.1:16333'),
  /** Qdrant's api-key (a secured server, Qdrant Cloud); EFFECTOR_QDRANT_API_KEY when the RAG's Qdrant has its own. */
  QDRANT_API_KEY: z.string().min(1).optional(),
  EFFECTOR_QDRANT_API_KEY: z.string().min(1).optional(),
  /**
   * The RAG Qdrant's snapshots directory as that server sees it (its storage.snapshots_path, e.g.
   * /qdrant/snapshots in the official image): a restore then recovers by a file:// URL inside it,
   * with no transfer. Unset: the effector downloads the snapshot and uploads it back (works for
   * Qdrant Cloud and any server whose disk it cannot name).
   */
  EFFECTOR_QDRANT_SNAPSHOTS_PATH: z.string().regex(/^\//, 'an absolute path on the Qdrant server').optional(),
  /** The RAG's Qdrant collection: what the effector snapshots before a repair that writes to it. */
  EFFECTOR_QDRANT_COLLECTION: z.string().min(1),
  ELASTICSEARCH_URL: z.string().url().default('http://127.0.0.1:19200'),
  ...ElasticsearchCredentialsEnv,
  ...EsIndexPrefixEnv,
  EFFECTOR_POLICY_FILE: z.string().min(1).default(DEFAULT_POLICY_FILE),
  EFFECTOR_MEMORY_URL: z.string().url().optional(),
  EFFECTOR_MEMORY_TOKEN: z.string().min(1).optional(),
  EFFECTOR_MEMORY_TIMEOUT_MS: int(10, 30_000).default(1500),
  /** Memory's strategy is followed only at or above this confidence (and not degraded). */
  EFFECTOR_MEMORY_MIN_CONFIDENCE: z.coerce.number().min(0).max(1).default(0.6),
  EFFECTOR_ENVIRONMENT: z.string().min(1).default('default'),
  /** Start-up mode when none is persisted yet: observe plans only (the safe first install). */
  EFFECTOR_MODE: z.enum(['observe', 'approve', 'auto']).default('observe'),
  EFFECTOR_MAX_FAILED_REPAIRS: int(1, 20).default(3),
  EFFECTOR_COMPONENT_RATE_LIMIT: int(1, 1000).default(6),
  EFFECTOR_COMPONENT_RATE_WINDOW_SECONDS: int(1, 86_400).default(600),
  /**
   * The identifier's API (its GET /incidents/{id}): a report is acted on only when the identifier's
   * own record of the incident agrees (the incident exists, the revision is its latest, the probes
   * and window are its own). Unset (development): reports are trusted as they come, with a warning.
   */
  EFFECTOR_IDENTIFIER_URL: z.string().url().optional(),
  /**
   * `off`: the explicit opt-out for a deployment with no identifier API (logged at every start).
   * With BUS_PROFILE=production the effector otherwise refuses to start without EFFECTOR_IDENTIFIER_URL:
   * unchecked, anyone who can write the reports topic makes it act.
   */
  EFFECTOR_IDENTIFIER_CHECK: z.enum(['off']).optional(),
  /** The identifier's bearer token (its IDENTIFIER_API_TOKEN). */
  EFFECTOR_IDENTIFIER_TOKEN: z.string().min(1).optional(),
  /** Per call to the identifier; 2 tries a delivery, then the bus retries the delivery with backoff. */
  EFFECTOR_IDENTIFIER_TIMEOUT_MS: int(100, 10_000).default(2000),
  /** A report naming more affected probes than this is refused as implausible (verification re-runs each one). */
  EFFECTOR_MAX_AFFECTED_PROBES: int(1, 10_000).default(200),
  /** Repairs this process runs at once (across incidents); further reports wait, in arrival order. */
  EFFECTOR_MAX_CONCURRENT_REPAIRS: int(1, 64).default(2),
  /**
   * The backlog this process holds (issue 40 item 11): repairs waiting for a slot, incidents with work
   * queued or running, runs queued for one incident. Past a bound a report is not taken: the delivery
   * fails, the bus retries it and leaves it in Kafka (effector_repair_backlog_refused_total{bound}).
   */
  EFFECTOR_MAX_WAITING_REPAIRS: int(0, 10_000).default(64),
  EFFECTOR_MAX_INCIDENTS_IN_HAND: int(1, 100_000).default(256),
  EFFECTOR_MAX_RUNS_PER_INCIDENT: int(1, 100).default(4),
  /** Affected probes a verification runs at once (each is an online and a baseline query). */
  EFFECTOR_VERIFY_CONCURRENCY: int(1, 256).default(8),
  EFFECTOR_GRANT_TTL_SECONDS: int(10, 7 * 86_400).default(900),
  /** An `unknown` verdict waits this long for a revision that names the cause before paging a human. */
  EFFECTOR_ABSTENTION_GRACE_SECONDS: int(0, 3600).default(15),
  EFFECTOR_VERIFY_TIMEOUT_MS: int(1, 600_000).default(120_000),
  /**
   * Calls per side per verification probe, as the sentinel's SENTINEL_SAMPLES_PER_PROBE: a RAG whose
   * LLM samples needs the same sampled test to judge a repair as the sentinel used to see the fault
   * (one sample a side fires on sampling noise alone, so a good repair would be undone). Set both alike.
   */
  EFFECTOR_VERIFY_SAMPLES_PER_PROBE: int(1, 20).default(1),
  EFFECTOR_VERIFY_SAMPLE_ALPHA: z.coerce.number().gt(0).lt(1).default(DEFAULT_SAMPLE_ALPHA),
  EFFECTOR_EXECUTE_TIMEOUT_MS: int(100, 600_000).default(300_000),
  /**
   * A verification that could not measure (baseline unreachable, probe errors) holds the repair
   * and measures again after DELAY, at most REMEASURES times, before a human decides (as Argo
   * Rollouts' inconclusive analysis): the repair is not undone for the measurement's fault.
   */
  EFFECTOR_VERIFY_INCONCLUSIVE_REMEASURES: int(0, 20).default(3),
  EFFECTOR_VERIFY_INCONCLUSIVE_DELAY_SECONDS: int(0, 3600).default(30),
  /** A failed repair whose undo met an error (a server unreachable) is undone again after this (3 tries, then a human). */
  EFFECTOR_UNDO_RETRY_SECONDS: int(1, 3600).default(30),
  /** restore_collection_snapshot waits for a human grant when its snapshot is older than this (knowledge updates since are lost). */
  EFFECTOR_RESTORE_MAX_SNAPSHOT_AGE_HOURS: z.coerce
    .number()
    .min(0)
    .max(24 * 365)
    .default(24),
  /**
   * How long a replica's claim on an action holds without being renewed (then another may take it
   * over). Renewed every third of it while the replica works on the action; must exceed
   * EFFECTOR_EXECUTE_TIMEOUT_MS + EFFECTOR_VERIFY_TIMEOUT_MS + LEASE_MARGIN_MS.
   */
  EFFECTOR_LEASE_MS: int(1000, 3_600_000).default(600_000),
  /**
   * The effector's Elasticsearch request timeout: the longest a lease renewal may take to land, so the
   * lease must outlast it (see leaseIssue). Lower it with a nearby cluster to allow a shorter lease.
   */
  EFFECTOR_ES_REQUEST_TIMEOUT_MS: int(1000, 120_000).default(30_000),
  /** Every this often, actions whose lease expired (their replica died) are taken over and resumed or undone. */
  EFFECTOR_RECOVERY_SWEEP_SECONDS: int(1, 3600).default(60),
  /**
   * On SIGTERM: no new reports are read, and repairs in hand get this long to finish; those still
   * running are then given up at a safe point for another replica to resume. Keep it at least 10 s
   * below the pod's terminationGracePeriodSeconds (the process exits at drain + 8 s whatever happens).
   */
  EFFECTOR_DRAIN_SECONDS: int(0, 3600).default(20),
  /** Benchmark hook: SIGKILL the process at this step of an action (see bench/effector). Never set in production. */
  EFFECTOR_TEST_CRASH_AT: z
    .enum(['after_planned', 'after_snapshot', 'after_started', 'after_execute', 'after_executed', 'after_succeeded'])
    .optional(),
  /**
   * Snapshot retention (keep-last / keep-within, as restic): after each new snapshot, those of the collection
   * that are neither among the newest KEEP_LAST nor younger than KEEP_WITHIN_DAYS (nor protecting an action in
   * flight) are deleted. A repair older than that can still be rolled back by its tool, not from its snapshot.
   */
  EFFECTOR_SNAPSHOT_KEEP_LAST: int(1, 10_000).default(10),
  EFFECTOR_SNAPSHOT_KEEP_WITHIN_DAYS: z.coerce.number().min(0).max(3650).default(7),
  /**
   * Bytes the collection's live snapshots may take together (unset: no budget). Before a new snapshot the
   * effector adds the newest one's recorded size to those recorded; over the budget it first deletes the
   * oldest that no unfinished action needs and that are older than KEEP_WITHIN_DAYS (the rollback window),
   * then refuses the repair (`snapshot_failed`, escalated as `snapshot_budget`) rather than fill the disk.
   * Unset: no budget in development; with BUS_PROFILE=production, PRODUCTION_SNAPSHOT_BUDGET_BYTES (10 GiB),
   * since snapshots younger than KEEP_WITHIN_DAYS are never pruned by count and a burst of repairs would
   * otherwise grow them without end. `off`: no budget, explicitly (logged at start-up).
   */
  EFFECTOR_SNAPSHOT_BUDGET_BYTES: z.union([z.literal('off'), int(1, Number.MAX_SAFE_INTEGER)]).optional(),
  /**
   * Retired generations behind the RAG's alias (each blue/green reindex retires the one before it, a
   * whole copy of the index): kept while among the newest N or younger than the days, or named by an
   * action in flight. A rollback needs the generation its repair retired.
   */
  EFFECTOR_RETIRED_COLLECTIONS_KEEP_LAST: int(1, 1000).default(2),
  EFFECTOR_RETIRED_COLLECTIONS_KEEP_WITHIN_DAYS: z.coerce.number().min(0).max(3650).default(1),
  /**
   * For a RAG without repair hooks (adapter `repair.hooks: none`): how often the effector records
   * where the RAG's alias points (switch_alias_back's way back when its own ingestion moves it). 0: never.
   */
  EFFECTOR_ALIAS_WATCH_SECONDS: int(0, 86_400).default(60),
  EFFECTOR_FCS_MODEL: z.string().min(1).optional(),
  EFFECTOR_FCS_THREADS: int(1, 64).default(1),
  /** Knowledge-id prefix → knowledge source name, to scope source repairs from the report's knowledge ids. */
  EFFECTOR_SOURCE_BY_PREFIX: jsonRecord.default('{"changelog/":"debian-changelog","apt/":"apt-metadata"}'),
});
export type EffectorConfig = z.infer<typeof EffectorConfigSchema>;

/** The API needs a token: the shared one, one per caller, or both (never neither, never both per-caller forms). */
function apiTokenIssue(config: EffectorConfig): ConfigIssue | null {
  if (config.EFFECTOR_API_TOKENS !== undefined && config.EFFECTOR_API_TOKENS_FILE !== undefined)
    return { key: 'EFFECTOR_API_TOKENS', message: 'set EFFECTOR_API_TOKENS or EFFECTOR_API_TOKENS_FILE, not both' };
  if (config.EFFECTOR_API_TOKEN === undefined && config.EFFECTOR_API_TOKENS === undefined && config.EFFECTOR_API_TOKENS_FILE === undefined)
    return {
      key: 'EFFECTOR_API_TOKEN',
      message: 'is required (or EFFECTOR_API_TOKENS / EFFECTOR_API_TOKENS_FILE: one name:token per caller)',
    };
  return null;
}

/**
 * Production checks every report against the identifier's own record unless explicitly told not to:
 * an unset URL is a forgotten setting, not a decision. Development keeps trusting reports (with a warning).
 */
function identifierCheckIssue(env: NodeJS.ProcessEnv): (config: EffectorConfig) => ConfigIssue | null {
  return (config) => {
    if (config.EFFECTOR_IDENTIFIER_CHECK === 'off' && config.EFFECTOR_IDENTIFIER_URL !== undefined)
      return { key: 'EFFECTOR_IDENTIFIER_CHECK', message: 'is off but EFFECTOR_IDENTIFIER_URL is set: unset one of them' };
    if (env.BUS_PROFILE !== 'production' || config.EFFECTOR_IDENTIFIER_URL !== undefined || config.EFFECTOR_IDENTIFIER_CHECK === 'off')
      return null;
    return {
      key: 'EFFECTOR_IDENTIFIER_URL',
      message:
        "is required with BUS_PROFILE=production (reports are checked against the identifier's record); " +
        'a deployment without an identifier API sets EFFECTOR_IDENTIFIER_CHECK=off instead',
    };
  };
}

/** What the effector logs at start-up about the identifier check, when it is not on (null: on). */
export function identifierCheckWarning(
  config: Pick<EffectorConfig, 'EFFECTOR_IDENTIFIER_URL' | 'EFFECTOR_IDENTIFIER_CHECK'>,
): string | null {
  if (config.EFFECTOR_IDENTIFIER_URL !== undefined) return null;
  if (config.EFFECTOR_IDENTIFIER_CHECK === 'off')
    return "effector: EFFECTOR_IDENTIFIER_CHECK=off; reports are acted on without checking them against the identifier's record (anyone who can write the reports topic can make the effector act)";
  return "effector: no EFFECTOR_IDENTIFIER_URL set; reports are acted on without checking them against the identifier's record (anyone who can write the reports topic can make the effector act: development only)";
}

/** Roles name callers that have a token: a typo would otherwise leave the intended caller locked out unnoticed. */
function apiRolesIssue(config: EffectorConfig): ConfigIssue | null {
  if (config.EFFECTOR_API_ROLES === undefined) return null;
  const callers = new Set(Object.keys(effectorNamedTokens(config)));
  const unknown = Object.keys(config.EFFECTOR_API_ROLES).filter((name) => !callers.has(name));
  return unknown.length === 0
    ? null
    : { key: 'EFFECTOR_API_ROLES', message: `names callers with no EFFECTOR_API_TOKENS entry: ${unknown.join(', ')}` };
}

/** The default of EFFECTOR_ES_REQUEST_TIMEOUT_MS: a lease renewal may take this long to land. */
export const ES_REQUEST_TIMEOUT_MS = 30_000;
/** Slack on top of a renewal's round trip (clock skew between replicas, the event loop). */
export const LEASE_MARGIN_MS = 5_000;

/**
 * The lease must survive one renewal going slowly: renewed every third of it, a renewal that takes
 * the whole Elasticsearch request timeout (plus the margin) must still land before it runs out, or
 * a replica that is still working would see its action taken over and undone under it. A working
 * replica renews for as long as execute and verify take, and gives the action up (its execute
 * cancelled) when it cannot renew in time, so the lease need not outlast EFFECTOR_EXECUTE_TIMEOUT_MS +
 * EFFECTOR_VERIFY_TIMEOUT_MS itself (the test kit's loop runs a 60 s lease with the 300 s + 120 s defaults).
 */
function leaseIssue(config: EffectorConfig): ConfigIssue | null {
  const timeout = config.EFFECTOR_ES_REQUEST_TIMEOUT_MS;
  const renewal = timeout + LEASE_MARGIN_MS;
  if (config.EFFECTOR_LEASE_MS - Math.floor(config.EFFECTOR_LEASE_MS / 3) > renewal) return null;
  return {
    key: 'EFFECTOR_LEASE_MS',
    message:
      `too short to be renewed in time: renewed every third of it, the remaining two thirds must exceed a renewal's ` +
      `worst round trip (${timeout} ms EFFECTOR_ES_REQUEST_TIMEOUT_MS + ${LEASE_MARGIN_MS} ms), i.e. more than ` +
      `${Math.ceil((renewal * 3) / 2)} ms; got ${config.EFFECTOR_LEASE_MS}`,
  };
}

/** A verification sampling setting whose test can never fire (k samples a side never reach p < alpha). */
function verifySamplingIssue(config: EffectorConfig): ConfigIssue | null {
  const problem = sampledModeProblem(config.EFFECTOR_VERIFY_SAMPLES_PER_PROBE, config.EFFECTOR_VERIFY_SAMPLE_ALPHA);
  return problem === null ? null : { key: 'EFFECTOR_VERIFY_SAMPLES_PER_PROBE', message: problem };
}

/** How the verification's ProbeRunner samples each side (the sentinel's sampled mode when k > 1). */
export function verificationSampling(config: EffectorConfig): { samplesPerProbe: number; sampleAlpha: number } {
  return { samplesPerProbe: config.EFFECTOR_VERIFY_SAMPLES_PER_PROBE, sampleAlpha: config.EFFECTOR_VERIFY_SAMPLE_ALPHA };
}

/** The per-caller tokens, from EFFECTOR_API_TOKENS or its file. */
export function effectorNamedTokens(config: EffectorConfig): Record<string, string> {
  return config.EFFECTOR_API_TOKENS ?? config.EFFECTOR_API_TOKENS_FILE ?? {};
}

/** The snapshot byte budget production gets when EFFECTOR_SNAPSHOT_BUDGET_BYTES is unset. */
export const PRODUCTION_SNAPSHOT_BUDGET_BYTES = 10 * 1024 ** 3;

/** The budget the effector runs with: the configured bytes, production's default when unset, none when `off`. */
export function snapshotBudgetBytes(
  config: Pick<EffectorConfig, 'EFFECTOR_SNAPSHOT_BUDGET_BYTES'>,
  profile: 'development' | 'production',
): number | undefined {
  const configured = config.EFFECTOR_SNAPSHOT_BUDGET_BYTES;
  if (configured === 'off') return undefined;
  return configured ?? (profile === 'production' ? PRODUCTION_SNAPSHOT_BUDGET_BYTES : undefined);
}

export function effectorConfigFromEnv(env: NodeJS.ProcessEnv): EffectorConfig {
  return parseWorkerEnv('effector', EffectorConfigSchema, env, [
    elasticsearchCredentialsIssue,
    apiTokenIssue,
    apiRolesIssue,
    leaseIssue,
    verifySamplingIssue,
    identifierCheckIssue(env),
  ]);
}

/** Elasticsearch indices of the effector, all under the prefix so tests and deployments isolate. */
export function effectorIndices(prefix: string) {
  return {
    actions: `${prefix}-repair-actions`,
    incidents: `${prefix}-repair-incidents`,
    snapshots: `${prefix}-snapshots`,
    grants: `${prefix}-repair-grants`,
    audit: `${prefix}-effector-audit`,
    settings: `${prefix}-effector-settings`,
    /** The component rate limit's claims (breaker/rate-claims.ts): one create-only or compare-and-set slot per repair started. */
    rateClaims: `${prefix}-repair-rate-claims`,
    /** Where the RAG's alias pointed over time (a RAG without repair hooks: snapshots/alias-history.ts). */
    aliasHistory: `${prefix}-alias-history`,
    /** Who acts on each incident now, across replicas (state/incident-lease.ts): the repair run or a manual rollback. */
    incidentLeases: `${prefix}-repair-incident-leases`,
  };
}
export type EffectorIndices = ReturnType<typeof effectorIndices>;
