import type { Tracer } from '@opentelemetry/api';
import type { Logger } from 'pino';
import type { RepairAction } from '@rag-immune/contracts';
import type { MemoryClient } from '@rag-immune/memory-client';
import type { RagClient } from '@rag-immune/rag-contract';
import type { ToolBox } from './actions/catalogue.ts';
import type { AliasHistoryPort, RagRepairAccess } from './actions/rag-repair-access.ts';
import type { IdentifierRecords } from './admission/identifier-records.ts';
import type { BreakerLimits } from './breaker/circuit-breaker.ts';
import type { ComponentRateClaims } from './breaker/rate-claims.ts';
import type { GrantStore } from './grants/grant-store.ts';
import type { EffectorMetrics } from './metrics.ts';
import type { RepairBacklogBounds } from './plan/repair-slots.ts';
import type { RepairPolicy } from './policy/policy.ts';
import type { SnapshotRetentionPolicy } from './snapshots/snapshot-retention.ts';
import type { CollectionAliases } from './snapshots/collection-aliases.ts';
import type { KnowledgePointsPort } from './snapshots/knowledge-points.ts';
import type { SnapshotStore } from './snapshots/snapshot-store.ts';
import type { CrashPoint } from './run/crash-points.ts';
import type { ActionStore } from './state/action-store.ts';
import type { AuditLog } from './state/audit-log.ts';
import type { IncidentLeases } from './state/incident-lease.ts';
import type { IncidentStore } from './state/incident-store.ts';
import type { ModeStore } from './state/mode-store.ts';
import type { RecoveryVerifier } from './verify/recovery-verifier.ts';

/**
 * What the effector's parts are given: stores, clients, limits and settings (built once in worker.ts).
 * Only the dependencies: the crash-test hooks are in run/crash-points.ts, a tool's view of them in
 * actions/tool-context.ts.
 */
export interface EffectorDeps {
  policy: RepairPolicy;
  online: RagClient;
  baseline: RagClient;
  collection: string;
  sourceByPrefix: Readonly<Record<string, string>>;
  actions: ActionStore;
  incidents: IncidentStore;
  /**
   * The incident lease across replicas (state/incident-lease.ts): taken by the repair run and by a
   * manual rollback, so two replicas never act on one incident at once. Absent (unit tests of one
   * process): only this process's per-incident chain orders them.
   */
  incidentLeases?: IncidentLeases;
  snapshots: SnapshotStore;
  /** The RAG collection's alias switch and retired generations (blue/green reindex). */
  aliases: CollectionAliases;
  /** The points of named knowledge in the RAG's collection (restore_knowledge_from_collection). Absent: that tool refuses. */
  points?: KnowledgePointsPort;
  /** What the RAG lets the effector do (its adapter file's `repair`). Absent: the contract's repair hooks. */
  ragRepair?: RagRepairAccess;
  /** Where the RAG's alias pointed over time (switch_alias_back). Absent: none recorded. */
  aliasHistory?: AliasHistoryPort;
  grants: GrantStore;
  audit: AuditLog;
  modes: ModeStore;
  /** What re-runs the affected probes before and after a repair. */
  verifier: Pick<RecoveryVerifier, 'measure'>;
  memory: Pick<MemoryClient, 'recommend'> | null;
  memoryMinConfidence: number;
  environment: string;
  publish: (events: RepairAction[]) => Promise<void>;
  metrics: EffectorMetrics;
  logger: Logger;
  tracer: Tracer;
  instanceId: string;
  limits: BreakerLimits;
  /**
   * The component rate limit's atomic claims (breaker/rate-claims.ts): a repair starts only after
   * claiming a slot, so two replicas cannot both start past the limit. Absent: the count alone.
   */
  rateClaims?: ComponentRateClaims;
  /**
   * The identifier's record of each incident (its HTTP API): a report from Kafka is acted on only when
   * it is the identifier's own. Null or absent (development): reports are trusted as they come.
   */
  identifierRecords?: IdentifierRecords | null;
  /** A report naming more affected probes is refused as implausible. Absent: 200. */
  maxAffectedProbes?: number;
  /** Repairs this process runs at once; further ones wait in arrival order. Absent: 2. */
  maxConcurrentRepairs?: number;
  /** Bounds of this process's backlog (effector.ts): beyond them a report is left in Kafka. Absent: DEFAULT_BACKLOG. */
  backlog?: Partial<RepairBacklogBounds>;
  leaseMs: number;
  executeTimeoutMs: number;
  ragTimeoutMs: number;
  /**
   * The verification's budget (EFFECTOR_VERIFY_TIMEOUT_MS). The before-repair figures run the same
   * probes and get at least this, and at least max(ragTimeoutMs, 60 s). Absent: that floor alone.
   */
  verifyTimeoutMs?: number;
  /** The tools the plan may run; default the shipped catalogue (actions/catalogue.ts). */
  tools?: ToolBox;
  /**
   * How long an abstention (`unknown` cause) waits for a better-evidenced revision before it pages a
   * human: the identifier's first report often rests on one probe, and its next, seconds later, names
   * the cause. 0 escalates at once.
   */
  abstentionGraceMs?: number;
  /**
   * An inconclusive verification (the measurement failed, not the repair: the baseline did not
   * answer, the probes errored) holds the repair and measures again after `delayMs`, at most
   * `remeasures` times, then hands it to a human still applied. Absent: 3 re-measures 30 s apart.
   */
  inconclusiveHold?: { remeasures: number; delayMs: number };
  /** How long after an undo met an error it is tried again in this process. Absent: 30 s. */
  undoRetryMs?: number;
  /**
   * A snapshot restore that would roll the collection back further than this (discarding every
   * knowledge update since) waits for a human grant. Absent: 24 h.
   */
  restoreMaxSnapshotAgeMs?: number;
  /** Which snapshots to keep after each new one (snapshots/snapshot-retention.ts); absent keeps them all. */
  snapshotRetention?: SnapshotRetentionPolicy;
  /**
   * Bytes the collection's live snapshots may take together (snapshots/snapshot-pruning.ts, `makeRoom`):
   * over it, a repair that needs a snapshot first prunes beyond keep-last, then is refused. Absent: no budget.
   */
  snapshotBudgetBytes?: number;
  /** Benchmark only: kill -9 this process at this step of an action. */
  crashAt?: CrashPoint;
  /**
   * Unit tests only: called at `crashAt` instead of the SIGKILL, to simulate this replica dying there
   * in-process (the test freezes everything the replica would do next).
   */
  onCrash?: (step: CrashPoint) => void;
}
