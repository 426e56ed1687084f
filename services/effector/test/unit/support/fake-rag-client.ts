/**
 * A repair tool on its own, against a fake RAG: the RagClient methods a tool calls, answered from
 * an in-memory RAG whose repair hooks really change what its capabilities report next (a pin moves
 * the active version, a backup switch moves the feed), with every call logged. Beside it the rest
 * of a ToolContext: a report, fake aliases over named collections, recorded snapshots.
 */
import { exampleRootCauseReport, type RootCauseReport } from '@rag-immune/contracts';
import type {
  Capabilities,
  CallOptions,
  QueryRewriteRule,
  RagClient,
  RepairHook,
  RepairResult,
  ReindexRequest,
} from '@rag-immune/rag-contract';
import type { ToolContext } from '../../../src/actions/repair-tool.ts';
import type { CollectionAliases } from '../../../src/snapshots/collection-aliases.ts';
import type { SnapshotRecord } from '../../../src/snapshots/snapshot-record.ts';

/** One call the tool made: the method, its request, and the options it was sent with. */
export interface RagCall {
  method: string;
  request?: unknown;
  options?: CallOptions | undefined;
}

export class FakeRagClient {
  capabilitiesNow: Capabilities = {
    contract_version: '1.4.0',
    repair_hooks: ['reindex', 'reranker_pin', 'knowledge_source', 'answer_validation', 'query_rewrite_rules', 'parser', 'generator_pin'],
    reranker_versions: ['v2.1', 'v2.2-drift'],
    knowledge_sources: ['debian-changelog', 'apt-metadata'],
    parser_versions: ['deb822-chunker-1.0', 'deb822-chunker-1.0+merge-sections'],
    generator_versions: ['extractive-template-1.0', 'extractive-template-1.0+swap'],
    active_versions: {
      reranker: 'v2.2-drift',
      generator: 'extractive-template-1.0+swap',
      parser: 'deb822-chunker-1.0+merge-sections',
      knowledge_sources: { 'debian-changelog': 'primary', 'apt-metadata': 'primary' },
    },
    answer_validation: false,
  };
  rules: QueryRewriteRule[] = [];
  readonly calls: RagCall[] = [];
  /** What the reindex hook reports (`detail.points`); a blue/green build creates the target in `aliases`. */
  reindexed: (request: ReindexRequest) => Record<string, unknown> = () => ({});
  /** A hook call that is accepted but changes nothing (a RAG ignoring the repair). */
  ignoreRepairs = false;

  /** The calls to repair hooks (capabilities and reads left out). */
  get repairs(): RagCall[] {
    return this.calls.filter((c) => !['capabilities', 'getQueryRewriteRules'].includes(c.method));
  }

  private result(hook: RepairHook, changed: number, detail: Record<string, unknown> = {}): RepairResult {
    return { hook, applied_at: new Date().toISOString(), changed, detail };
  }

  private active(): NonNullable<Capabilities['active_versions']> {
    return (this.capabilitiesNow.active_versions ??= {});
  }

  /** The RagClient surface the tools use. */
  readonly client = {
    capabilities: async (options?: CallOptions): Promise<Capabilities> => {
      this.calls.push({ method: 'capabilities', options });
      return structuredClone(this.capabilitiesNow);
    },
    pinReranker: async (request: { version: string }, options?: CallOptions) => {
      this.calls.push({ method: 'pinReranker', request, options });
      if (!this.ignoreRepairs) this.active().reranker = request.version;
      return this.result('reranker_pin', 1);
    },
    pinGenerator: async (request: { version: string }, options?: CallOptions) => {
      this.calls.push({ method: 'pinGenerator', request, options });
      if (!this.ignoreRepairs) this.active().generator = request.version;
      return this.result('generator_pin', 1);
    },
    repairParser: async (request: { version: string; knowledge_ids?: string[] }, options?: CallOptions) => {
      this.calls.push({ method: 'repairParser', request, options });
      if (!this.ignoreRepairs) this.active().parser = request.version;
      return this.result('parser', request.knowledge_ids?.length ?? 0);
    },
    answerValidation: async (request: { enabled: boolean }, options?: CallOptions) => {
      this.calls.push({ method: 'answerValidation', request, options });
      if (!this.ignoreRepairs) this.capabilitiesNow.answer_validation = request.enabled;
      return this.result('answer_validation', 1);
    },
    knowledgeSource: async (request: { action: string; source: string }, options?: CallOptions) => {
      this.calls.push({ method: 'knowledgeSource', request, options });
      const feeds = (this.active().knowledge_sources ??= {});
      if (!this.ignoreRepairs && request.action !== 'refresh')
        feeds[request.source] = request.action === 'switch_to_backup' ? 'backup' : 'primary';
      return this.result('knowledge_source', 3);
    },
    reindex: async (request: ReindexRequest, options?: CallOptions) => {
      this.calls.push({ method: 'reindex', request, options });
      return this.result('reindex', request.knowledge_ids?.length ?? 0, this.reindexed(request));
    },
    getQueryRewriteRules: async (options?: CallOptions) => {
      this.calls.push({ method: 'getQueryRewriteRules', options });
      return { rules: structuredClone(this.rules) };
    },
    setQueryRewriteRules: async (request: { rules: QueryRewriteRule[] }, options?: CallOptions) => {
      this.calls.push({ method: 'setQueryRewriteRules', request, options });
      if (!this.ignoreRepairs) this.rules = structuredClone(request.rules);
      return this.result('query_rewrite_rules', request.rules.length);
    },
  };
}

/** Qdrant's collections and aliases as the blue/green tool sees them, in memory. */
export class FakeAliases {
  readonly aliases = new Map<string, string>();
  readonly collections = new Map<string, { points: number; vectors: unknown }>();
  readonly log: string[] = [];
  async target(alias: string): Promise<string | null> {
    return this.aliases.get(alias) ?? null;
  }
  async describe(collection: string): Promise<{ points: number; vectors: unknown } | null> {
    return this.collections.get(collection) ?? null;
  }
  async swap(alias: string, from: string, to: string): Promise<void> {
    if (this.aliases.get(alias) !== from) throw new Error(`${alias} does not point at ${from}`);
    this.aliases.set(alias, to);
    this.log.push(`swap ${alias} ${from} -> ${to}`);
  }
  async copy(source: string, target: string): Promise<{ points: number }> {
    const from = this.collections.get(this.aliases.get(source) ?? source);
    if (from === undefined) throw new Error(`no collection ${source}`);
    if (this.collections.has(target)) throw new Error(`collection ${target} exists already`);
    this.collections.set(target, { ...from });
    this.log.push(`copy ${source} -> ${target}`);
    return { points: from.points };
  }
  async deleteGeneration(_alias: string, collection: string): Promise<void> {
    this.collections.delete(collection);
    this.log.push(`delete ${collection}`);
  }
  async pruneRetired(): Promise<string[]> {
    return [];
  }
}

export interface FakeContext {
  rag: FakeRagClient;
  baseline: FakeRagClient;
  aliases: FakeAliases;
  snapshots: SnapshotRecord[];
  restored: string[];
  ctx: ToolContext;
}

/** A ToolContext over fakes: the online and baseline RAGs, a report (patched), aliases and snapshots. */
export function fakeContext(patch: { report?: Partial<RootCauseReport>; ctx?: Partial<ToolContext> } = {}): FakeContext {
  const rag = new FakeRagClient();
  const baseline = new FakeRagClient();
  baseline.capabilitiesNow.active_versions = {
    reranker: 'v2.1',
    generator: 'extractive-template-1.0',
    parser: 'deb822-chunker-1.0',
    knowledge_sources: { 'debian-changelog': 'primary', 'apt-metadata': 'primary' },
  };
  const aliases = new FakeAliases();
  const snapshots: SnapshotRecord[] = [];
  const restored: string[] = [];
  const ctx: ToolContext = {
    report: { ...exampleRootCauseReport('inc-tool'), affected_knowledge_ids: ['changelog/curl', 'apt/curl'], ...patch.report },
    online: rag.client as unknown as RagClient,
    baseline: baseline.client as unknown as RagClient,
    sourceByPrefix: { 'changelog/': 'debian-changelog', 'apt/': 'apt-metadata' },
    collection: 'kb',
    listSnapshots: async (collection) => snapshots.filter((s) => s.collection === collection),
    restoreSnapshot: async (record) => void restored.push(record.snapshot_id),
    aliases: aliases as unknown as CollectionAliases,
    collectionsInFlight: async () => new Set<string>(),
    timeoutMs: 1_000,
    ...patch.ctx,
  };
  return { rag, baseline, aliases, snapshots, restored, ctx };
}

/** A recorded snapshot of `kb` taken `ageMs` ago. */
export function snapshotRecord(snapshotId: string, ageMs: number, patch: Partial<SnapshotRecord> = {}): SnapshotRecord {
  return {
    snapshot_id: snapshotId,
    collection: 'kb',
    points_count: 100,
    checksum: `sum-${snapshotId}`,
    size_bytes: 1,
    incident_id: null,
    action_id: null,
    created_at: new Date(Date.now() - ageMs).toISOString(),
    duration_ms: 1,
    status: 'created',
    restored_at: null,
    ...patch,
  };
}
