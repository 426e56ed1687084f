export {
  Effector,
  ReopenRefused,
  RollbackRefused,
  CRASH_POINTS,
  type CrashPoint,
  type IncidentOutcome,
  type RollbackPlan,
  type EffectorDeps,
} from './effector.ts';
export { startEffectorWorker, type EffectorWorker, type EffectorWorkerOptions } from './worker.ts';
export {
  effectorConfigFromEnv,
  effectorIndices,
  identifierCheckWarning,
  verificationSampling,
  EffectorConfigSchema,
  EFFECTOR_VERSION,
  DEFAULT_POLICY_FILE,
  type EffectorConfig,
} from './config.ts';
export { TOOLS, INTENT_TOOLS, CATALOGUE, toolNamed, toolBox, type ToolBox } from './actions/catalogue.ts';
export { RULE_SETS } from './actions/set-query-rewrite-rules.ts';
export { type RepairTool, type ToolContext } from './actions/repair-tool.ts';
export { defineTool } from './actions/tool-helpers.ts';
export { loadPolicy, parsePolicy, InvalidPolicyError, RepairPolicySchema, type RepairPolicy } from './policy/policy.ts';
export { decide, toolsNotToRetry, branchMatches, type Decision, type PlannedStep, type RepairHistory } from './policy/decision.ts';
export { breakerVerdict, type BreakerLimits, type BreakerVerdict } from './breaker/circuit-breaker.ts';
export { ComponentRateClaims, type RateClaim, type RateClaimDoc } from './breaker/rate-claims.ts';
export {
  IdentifierRecordClient,
  IdentifierUnreachableError,
  IdentifierIncidentSchema,
  type IdentifierIncident,
  type IdentifierRecords,
} from './admission/identifier-records.ts';
export {
  admitReport,
  checkAgainstRecord,
  probeCapRefusal,
  DEFAULT_MAX_AFFECTED_PROBES,
  type Admission,
  type RefusalReason,
} from './admission/report-admission.ts';
export { DEFAULT_BACKLOG, RepairBacklogFullError, RepairSlots, type BacklogBound, type RepairBacklogBounds } from './plan/repair-slots.ts';
export { effectiveStatus, GrantStore, GrantError, type GrantDoc, type GrantStatus } from './grants/grant-store.ts';
export { SnapshotStore, SnapshotError } from './snapshots/snapshot-store.ts';
export { QdrantSnapshotArchive, type SnapshotArchive, type SnapshotRecovery } from './snapshots/qdrant-archive.ts';
export type { SnapshotRecord } from './snapshots/snapshot-record.ts';
export { ActionStore, actionKey, actionIdOf, newActionDoc, type ActionDoc } from './state/action-store.ts';
export {
  IncidentStore,
  implausibleRevision,
  MAX_REVISION_JUMP,
  MAX_REPORT_REVISION,
  type IncidentDoc,
  type RecordVerdict,
} from './state/incident-store.ts';
export {
  IncidentLeases,
  IncidentLeaseRefused,
  type IncidentLease,
  type IncidentLeaseDoc,
  type IncidentLeaseOptions,
} from './state/incident-lease.ts';
export { AuditLog, type AuditEntry } from './state/audit-log.ts';
export { ModeStore, MODES, type EffectorMode } from './state/mode-store.ts';
export { ACTION_STATUSES, canMoveAction, InvalidActionTransitionError, type ActionStatus } from './state/action-state.ts';
export { CollectionAliases, AliasConflictError } from './snapshots/collection-aliases.ts';
export { RecoveryVerifier, probesOf, verdictOf, type ProbeMeasurement, type Verdict } from './verify/recovery-verifier.ts';
export { EffectorMetrics } from './metrics.ts';
