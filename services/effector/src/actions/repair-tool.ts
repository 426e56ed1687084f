import type { z } from 'zod';
import type { RepairIntent, RootCauseReport } from '@rag-immune/contracts';
import type { RagClient, RepairResult } from '@rag-immune/rag-contract';
import type { CollectionAliases } from '../snapshots/collection-aliases.ts';
import type { KnowledgePointsPort } from '../snapshots/knowledge-points.ts';
import type { SnapshotRecord } from '../snapshots/snapshot-record.ts';
import type { AliasHistoryPort, CollectionMode, RagRepairAccess, ToolAvailability } from './rag-repair-access.ts';

/** What a tool may read and call: the RAG pair (with the configured headers) and the snapshot records. */
export interface ToolContext {
  report: RootCauseReport;
  online: RagClient;
  baseline: RagClient;
  /** Knowledge-id prefix → knowledge source name (scopes source repairs). */
  sourceByPrefix: Readonly<Record<string, string>>;
  /** The RAG's Qdrant collection and its recorded snapshots (restore tool). */
  collection: string;
  listSnapshots(collection: string): Promise<SnapshotRecord[]>;
  restoreSnapshot(record: SnapshotRecord): Promise<void>;
  /** The alias switch and the generations it retires (blue/green reindex). */
  aliases: CollectionAliases;
  /** The points of named knowledge in a collection (the in-place restore); absent: that tool refuses. */
  points?: KnowledgePointsPort;
  /** Collections an action still in flight names (its way back or its build): retention keeps them. */
  collectionsInFlight(): Promise<Set<string>>;
  timeoutMs: number;
  /**
   * Only while the tool's execute runs: aborts on the execute timeout (or when this replica lost the
   * action's lease), so the repair hook's fetch is cancelled before the undo starts.
   */
  signal?: AbortSignal;
  /** Only while the tool's execute runs: the action id, sent as the repair call's `Idempotency-Key`. */
  idempotencyKey?: string;
  /** A snapshot restore older than this needs a human grant (EFFECTOR_RESTORE_MAX_SNAPSHOT_AGE_HOURS); absent: 24 h. */
  restoreMaxSnapshotAgeMs?: number;
  /** What this RAG lets the effector do (its adapter file's `repair`); absent: it serves the contract's repair hooks. */
  ragRepair?: RagRepairAccess;
  /** The alias targets seen over time (switch_alias_back's way back); absent: none recorded. */
  aliasHistory?: AliasHistoryPort;
}

/** The tool does not apply to this report (e.g. nothing to scope it to): the next action is tried. */
export class PreconditionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PreconditionError';
  }
}

/** The undo cannot succeed however often it is tried (its way back is gone, or was never recorded). */
export class UndoImpossible extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UndoImpossible';
  }
}

/** State captured before execute so undo can put it back (persisted with the action, survives a crash). */
export type PriorState = Record<string, unknown>;

/**
 * One repair behind one interface: a versioned zod input schema, preconditions, whether it writes to
 * Qdrant (then the executor snapshots the collection first and undo restores it), execute, a verify
 * hook (did the change take?), undo, and whether it is reversible (irreversible ones need a grant).
 */
export interface RepairTool<A extends Record<string, unknown> = Record<string, unknown>> {
  readonly name: string;
  readonly version: string;
  readonly intent: RepairIntent;
  readonly description: string;
  /**
   * Its row in the tool table of services/effector/README.md, which `npm run codegen` writes from the
   * catalogue: what it calls on the RAG, and what undo puts back. Absent: `–` (the escalation tool).
   */
  readonly readme?: { ragHook: string; undo: string };
  readonly input: z.ZodType<A>;
  readonly touchesQdrant: boolean;
  readonly reversible: boolean;
  /**
   * Which RAGs the tool applies to: `repair_hooks` (it calls the contract's `/repair/*`), or
   * `without_repair_hooks` (a stand-in for a RAG that serves none). Absent: every RAG (it needs only Qdrant).
   */
  readonly availability?: ToolAvailability;
  /**
   * How a RAG without repair hooks must read its collection for the tool to apply (its adapter's
   * `repair.collection_mode`): `alias` (the tools that switch it) or `by_name` (in place). Absent: either.
   */
  readonly readsCollection?: CollectionMode;
  /**
   * Reaching this tool ends the plan: the executor escalates the incident to a human instead of
   * running it (the escalation tool). Absent: an ordinary repair.
   */
  readonly terminal?: boolean;
  /**
   * Snapshots a planned, unfinished action of this tool still needs besides its own pre-action one
   * (the restore tool's source): snapshot retention keeps them. Absent: none.
   */
  protectedSnapshots?(args: A): string[];
  /**
   * Collections a planned or unfinished action of this tool names (the generation it builds, the one
   * it retired and would switch back to): alias retention keeps them. Absent: none.
   */
  protectedCollections?(args: A, prior: PriorState): string[];
  /**
   * The repair rebuilds every piece of knowledge, not only the named ones (a whole-index rebuild): a
   * later revision that merely names more knowledge seen broken before it finished needs no new repair.
   */
  readonly coversAllKnowledge?: boolean;
  /** Derives the arguments from the report and the RAG pair; throws PreconditionError when inapplicable. */
  plan(ctx: ToolContext, params: Readonly<Record<string, string>>): Promise<A>;
  /**
   * Why this run needs a human grant although the tool is reversible and the mode would not ask
   * (what it would throw away is too much to decide alone: a restore of an old snapshot), shown on
   * the grant request; null (or absent) when it does not.
   */
  grantReason?(ctx: ToolContext, args: A): Promise<string | null>;
  /** Checks the arguments still apply right before execution; throws PreconditionError otherwise. */
  preconditions(ctx: ToolContext, args: A): Promise<void>;
  capture(ctx: ToolContext, args: A): Promise<PriorState>;
  execute(ctx: ToolContext, args: A): Promise<RepairResult | { detail: Record<string, unknown> }>;
  /** Whether the change took (a problem description) — the probes then say whether it healed. */
  verify(ctx: ToolContext, args: A): Promise<string | null>;
  /** Puts back what execute changed outside Qdrant (Qdrant itself comes back from the snapshot). */
  undo(ctx: ToolContext, args: A, prior: PriorState): Promise<void>;
  /**
   * Why undo cannot run now (its way back is gone, or a later change owns what it would put back),
   * asked before a rollback changes anything; null (or absent) when it can.
   */
  undoBlocker?(ctx: ToolContext, args: A, prior: PriorState): Promise<string | null>;
  /** Plain-words description of what undo will change, for `immune rollback --dry-run`. */
  describeUndo(args: A, prior: PriorState): string[];
}
