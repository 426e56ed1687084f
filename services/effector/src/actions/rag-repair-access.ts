/**
 * What the effector may do to the RAG it guards, as its adapter file declares (`repair`): a RAG that
 * serves the contract's `/repair/*` hooks gets the hook tools; one that serves none gets the tools
 * that need only its Qdrant, its ingestion webhook when it declares one, else a recommendation that
 * names the operator's step. The policy's branches name both kinds; the plan keeps those this RAG has.
 */
import type { IngestionCallOptions, IngestionRequest, IngestionResult, RagAdapterFile } from '@rag-immune/rag-adapter';
import { IngestionWebhookClient } from '@rag-immune/rag-adapter';

export type ToolAvailability = 'repair_hooks' | 'without_repair_hooks';

/** How the RAG reads its Qdrant collection: through an alias the effector may switch, or by its name (Flowise). */
export type CollectionMode = 'alias' | 'by_name';

/** The user's ingestion job as the webhook tool calls it. */
export interface IngestionPort {
  call(request: IngestionRequest, options?: IngestionCallOptions): Promise<IngestionResult>;
  describe(): { method: string; url: string; headers: string[] };
  /** How long the job needs after answering before its result is served (verification waits). */
  readonly settleMs: number;
}

export interface RagRepairAccess {
  hooks: 'contract' | 'none';
  /** A collection or alias of known-good points to rebuild from (the pinned baseline copy); null: none named. */
  rebuildFrom: string | null;
  /** Absent: `alias` (the switching tools apply, the in-place restore does not), as before the key existed. */
  collectionMode?: CollectionMode;
  ingestion: IngestionPort | null;
  /** What an operator runs to re-ingest, named in the recommendation; null: a generic description. */
  operatorStep: string | null;
  /** How long the recommendation waits, once approved, for the operator's step before verifying. */
  operatorWaitMs: number;
  /**
   * What an operator runs to put the RAG's generation setting (prompt, chat model) back, named in the
   * generator-side recommendation; null or absent: a generic description naming the cause.
   */
  generationStep?: string | null;
}

/** A RAG serving the health contract's repair hooks: everything as before the adapter's `repair` key. */
export const CONTRACT_HOOKS: RagRepairAccess = {
  hooks: 'contract',
  rebuildFrom: null,
  ingestion: null,
  operatorStep: null,
  operatorWaitMs: 0,
};

/** Whether `tool` applies to a RAG with this access (an unknown tool is left to the plan to refuse). */
export function toolAvailable(
  tool: { availability?: ToolAvailability; readsCollection?: CollectionMode } | undefined,
  access: RagRepairAccess = CONTRACT_HOOKS,
): boolean {
  if (tool?.availability === undefined) return true;
  if (tool.availability === 'repair_hooks') return access.hooks === 'contract';
  // An alias switch cannot reach a RAG reading its collection by name; an in-place restore is not needed behind an alias.
  return access.hooks === 'none' && (tool.readsCollection === undefined || tool.readsCollection === (access.collectionMode ?? 'alias'));
}

/**
 * The access an adapter file declares (none: the contract's hooks). Binding the webhook reads its
 * `${env:…}` now: a missing variable throws AdapterFileError naming the key, before anything starts.
 */
export function ragRepairAccess(
  adapter: Pick<RagAdapterFile, 'repair'> | null,
  env: Readonly<Record<string, string | undefined>> = process.env,
): RagRepairAccess {
  const repair = adapter?.repair;
  if (repair === undefined || repair.hooks === 'contract') return { ...CONTRACT_HOOKS, operatorStep: repair?.operator_step ?? null };
  const ingestion = repair.ingestion;
  let port: IngestionPort | null = null;
  if (ingestion !== undefined) {
    const client = new IngestionWebhookClient(ingestion, env);
    port = {
      call: (request, options) => client.call(request, options),
      describe: () => client.describe(),
      settleMs: ingestion.settle_seconds * 1000,
    };
  }
  return {
    hooks: 'none',
    rebuildFrom: repair.rebuild_from ?? null,
    collectionMode: repair.collection_mode,
    ingestion: port,
    operatorStep: repair.operator_step ?? null,
    operatorWaitMs: repair.operator_wait_seconds * 1000,
    generationStep: repair.generation_step ?? null,
  };
}

/** One alias target the effector saw, and when first and last. */
export interface AliasSighting {
  alias: string;
  collection: string;
  first_seen: string;
  last_seen: string;
}

/** The alias targets seen over time: recorded by a watch and around every alias switch. */
export interface AliasHistoryPort {
  observe(alias: string, collection: string, at?: Date): Promise<void>;
  /** Every target `alias` was seen pointing at, most recently seen first. */
  sightings(alias: string): Promise<AliasSighting[]>;
}
