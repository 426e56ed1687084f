import { createHash } from 'node:crypto';
import { z } from 'zod';
import { GENERATOR_VERSION, type ExtractiveGenerator } from '../generation/extractive-generator.ts';
import { PARSER_VERSION, type KnowledgeIndexer } from '../ingest/knowledge-indexer.ts';
import type { ChunkPayload, VectorIndex } from '../index/vector-index.ts';
import { HistoryProvider } from '@rag-immune/debian-knowledge';
import type { Reranker } from '../rerank/reranker.ts';
import type { QueryNormalizer } from '../text/query-normalizer.ts';
import type { FaultJournal, JournalEntry } from './fault-journal.ts';
import { RequestRefusedError } from '../errors.ts';

import { EVALUATION_FAULT_KINDS, FAULT_CATALOGUE, FAULT_KINDS } from '@rag-immune/rag-contract';

export { FAULT_KINDS, EVALUATION_FAULT_KINDS };
export const FaultKind = z.enum([...FAULT_KINDS, ...EVALUATION_FAULT_KINDS]);
export type FaultKind = z.infer<typeof FaultKind>;

/** Body of POST /admin/faults/{kind}. */
export const InjectRequest = z
  .object({
    mode: z.string().optional(),
    /** Which knowledge the fault hits: explicit ids, or a seeded fraction of all ids (default 0.5). */
    scope: z
      .object({
        knowledge_ids: z.array(z.string().min(1)).min(1).optional(),
        fraction: z.number().gt(0).max(1).optional(),
        seed: z.string().optional(),
      })
      .strict()
      .optional(),
    /** knowledge-source-failure: the source that fails (default debian-changelog). */
    source: z.string().optional(),
    /** knowledge-source-failure/stale: the source serves versions as published by this time; ingest-stalled: the index stopped ingesting then. */
    stale_as_of: z.string().datetime().optional(),
    /** vector-index-corruption/perturb: noise scale relative to the unit vector (default 6: the vector keeps ~0.15 cosine to itself). */
    noise: z.number().positive().max(100).optional(),
  })
  .strict();
export type InjectRequest = z.infer<typeof InjectRequest>;

export interface ActiveFault {
  kind: FaultKind;
  mode: string;
  injected_at: string;
  /** null when the fault is not scoped by knowledge (tokenizer anomaly: by query, reranker: global). */
  affected_knowledge_ids: string[] | null;
  params: Record<string, unknown>;
}

export interface FaultTargets {
  instance: string;
  index: VectorIndex;
  indexer: KnowledgeIndexer;
  reranker: Reranker;
  generator: ExtractiveGenerator;
  normalizer: QueryNormalizer;
  /** Where the query embedding can be altered after the model ran (embedding-model-swap). */
  queryEncoder: { queryVectorDefect: ((vector: Float32Array) => Float32Array) | undefined };
  /** The knowledge time the online instance syncs to (now). */
  knowledgeClock: () => Date;
  pinnedRerankerVersion: () => string;
}

/** Deterministic fraction pick: the same seed and fraction always hit the same knowledge ids. */
export function pickFraction(ids: string[], fraction: number, seed: string): string[] {
  const threshold = Math.floor(fraction * 0xffffffff);
  return ids.filter((id) => createHash('sha1').update(`${seed}:${id}`).digest().readUInt32BE(0) < threshold);
}

/**
 * Injects and undoes the six production fault kinds into the live components. Each injection is
 * journalled with its timestamp and the knowledge it affects, so tests and benchmarks can measure
 * detection time and check which answers should degrade.
 */
export class FaultInjector {
  private readonly active = new Map<FaultKind, ActiveFault & { undo: () => Promise<void> }>();

  constructor(
    private readonly targets: FaultTargets,
    private readonly journal: FaultJournal,
  ) {}

  list(): ActiveFault[] {
    return [...this.active.values()].map(({ undo: _undo, ...fault }) => fault);
  }

  async inject(kind: FaultKind, request: InjectRequest): Promise<{ fault: ActiveFault; journal: JournalEntry }> {
    if (this.active.has(kind)) throw new RequestRefusedError(`fault ${kind} is already active; undo it first`, 409);
    // The modes each kind takes, the default first: the shared fault catalogue's (@rag-immune/rag-contract).
    const { modes } = FAULT_CATALOGUE[kind];
    const mode = request.mode ?? modes[0];
    if (!modes.includes(mode)) throw new RequestRefusedError(`mode for ${kind} must be one of ${modes.join(', ')}`, 400);
    const injectedAt = new Date();
    const { affected, undo, params } = await this.apply(kind, mode, request);
    const fault: ActiveFault = { kind, mode, injected_at: injectedAt.toISOString(), affected_knowledge_ids: affected, params };
    this.active.set(kind, { ...fault, undo });
    const entry = this.journal.record(
      { action: 'inject', kind, mode, instance: this.targets.instance, affected_knowledge_ids: affected, detail: params },
      injectedAt,
    );
    return { fault, journal: entry };
  }

  async undo(kind: FaultKind): Promise<{ journal: JournalEntry }> {
    const fault = this.active.get(kind);
    if (fault === undefined) throw new RequestRefusedError(`fault ${kind} is not active`, 409);
    await fault.undo();
    this.active.delete(kind);
    return {
      journal: this.journal.record({
        action: 'undo',
        kind,
        mode: fault.mode,
        instance: this.targets.instance,
        affected_knowledge_ids: fault.affected_knowledge_ids,
      }),
    };
  }

  private scopeIds(request: InjectRequest): string[] {
    const all = [
      ...new Set(this.targets.indexer.chunksPublishedBy(this.targets.knowledgeClock()).map((chunk) => chunk.knowledgeId)),
    ].sort();
    if (request.scope?.knowledge_ids !== undefined) {
      const known = new Set(all);
      const unknown = request.scope.knowledge_ids.filter((id) => !known.has(id));
      if (unknown.length > 0) throw new RequestRefusedError(`unknown knowledge ids: ${unknown.slice(0, 5).join(', ')}`, 400);
      return [...request.scope.knowledge_ids].sort();
    }
    return pickFraction(all, request.scope?.fraction ?? 0.5, request.scope?.seed ?? 'rag-immune');
  }

  private async apply(
    kind: FaultKind,
    mode: string,
    request: InjectRequest,
  ): Promise<{ affected: string[] | null; undo: () => Promise<void>; params: Record<string, unknown> }> {
    const { index, indexer, reranker, generator, normalizer } = this.targets;
    switch (kind) {
      case 'reranker-drift': {
        const previous = reranker.version;
        reranker.use(mode);
        return { affected: null, params: { from: previous, to: mode }, undo: async () => reranker.use(previous) };
      }
      case 'embedding-model-swap': {
        // Queries are embedded by "another model": the same vector with its dimensions shuffled
        // (seeded), so they no longer live in the space the documents were indexed in. The version
        // string the RAG reports does not change: a silent swap.
        const seed = request.scope?.seed ?? 'rag-immune';
        const { queryEncoder } = this.targets;
        const rank = (i: number) => createHash('sha1').update(`${seed}:${i}`).digest().readUInt32BE(0);
        let order: number[] = [];
        queryEncoder.queryVectorDefect = (vector) => {
          if (order.length !== vector.length) order = [...vector.keys()].sort((a, b) => rank(a) - rank(b));
          return Float32Array.from(order, (i) => vector[i]!);
        };
        return {
          affected: null,
          params: { touches: 'every query', seed },
          undo: async () => void (queryEncoder.queryVectorDefect = undefined),
        };
      }
      case 'tokenizer-anomaly': {
        normalizer.tokenizerDefect = true;
        return {
          affected: null,
          params: { touches: "queries with a word-internal '-', '.' or '+'" },
          undo: async () => void (normalizer.tokenizerDefect = false),
        };
      }
      case 'generator-inconsistency': {
        const affected = this.scopeIds(request);
        const set = new Set(affected);
        const previous = generator.version;
        generator.install(`${GENERATOR_VERSION}+${mode}`, { affects: (id) => set.has(id) });
        return { affected, params: { from: previous, to: generator.version }, undo: async () => generator.use(previous) };
      }
      case 'parser-bug': {
        const affected = this.scopeIds(request);
        const set = new Set(affected);
        const previous = indexer.parserVersion;
        indexer.installParser(`${PARSER_VERSION}+${mode}`, {
          mode: mode as 'merge-sections' | 'boilerplate',
          affects: (id) => set.has(id),
        });
        const result = await indexer.sync(this.targets.knowledgeClock(), { knowledgeIds: set });
        return {
          affected,
          params: { rewritten_chunks: result.upserted, from: previous, to: indexer.parserVersion },
          undo: async () => {
            indexer.useParser(previous);
            await indexer.sync(this.targets.knowledgeClock(), { knowledgeIds: set });
          },
        };
      }
      case 'knowledge-source-failure': {
        const sourceName = request.source ?? 'debian-changelog';
        const source = indexer.sources.find((candidate) => candidate.name === sourceName);
        if (source === undefined) throw new RequestRefusedError(`unknown knowledge source ${sourceName}`, 400);
        const affected = this.scopeIds(request).filter((id) =>
          indexer.chunksPublishedBy(this.targets.knowledgeClock()).some((c) => c.knowledgeId === id && c.source === sourceName),
        );
        const set = new Set(affected);
        const staleAsOf = new Date(request.stale_as_of ?? '2024-01-01T00:00:00Z');
        if (mode === 'ingest-stalled') {
          // The feeds stay current; the index holds the versions ingested by stale_as_of, and a dead
          // ingestion lease keeps routine syncs (a backup switch, a refresh) from touching them.
          const result = await indexer.sync(staleAsOf, { knowledgeIds: set });
          indexer.stallIngest(set);
          return {
            affected,
            params: { source: sourceName, ingested_as_of: staleAsOf.toISOString(), changed_chunks: result.upserted + result.deleted },
            undo: async () => {
              indexer.releaseIngest(set);
              await indexer.sync(this.targets.knowledgeClock(), { knowledgeIds: set });
            },
          };
        }
        // stale: the feed serves an old snapshot; frozen: it stops at the injection time.
        const frozenAt = mode === 'stale' ? staleAsOf : new Date();
        source.wrapPrimary((inner) => ({
          recordsPublishedBy: (t) => [
            ...inner.recordsPublishedBy(t).filter((record) => !set.has(record.knowledgeId)),
            ...new HistoryProvider(inner.recordsPublishedBy(frozenAt))
              .recordsPublishedBy(t)
              .filter((record) => set.has(record.knowledgeId)),
          ],
        }));
        const result = await indexer.sync(this.targets.knowledgeClock(), { knowledgeIds: set });
        return {
          affected,
          params: { source: sourceName, serves_as_of: frozenAt.toISOString(), changed_chunks: result.upserted + result.deleted },
          undo: async () => {
            source.wrapPrimary(undefined);
            await indexer.sync(this.targets.knowledgeClock(), { knowledgeIds: set });
          },
        };
      }
      case 'vector-index-corruption': {
        const affected = this.scopeIds(request);
        const points = await index.scroll({ must: [{ key: 'knowledge_id', match: { any: affected } }] }, true);
        const backup = points.filter((point) => point.vector !== undefined) as {
          pointId: string;
          payload: ChunkPayload;
          vector: number[];
        }[];
        const noise = request.noise ?? 6;
        let rng = 0x9e3779b9;
        const random = (): number => {
          rng = (Math.imul(rng ^ (rng >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
          return rng / 0x100000000 - 0.5;
        };
        if (mode === 'drop') await index.deletePoints(backup.map((point) => point.pointId));
        else
          await index.writeVectors(
            backup.map((point) => ({
              ...point,
              vector: mode === 'zero' ? point.vector.map(() => 0) : point.vector.map((value) => value + noise * random() * 0.2),
            })),
          );
        return {
          affected,
          params: { points: backup.length, ...(mode === 'perturb' ? { noise } : {}) },
          undo: async () => index.writeVectors(backup),
        };
      }
    }
  }
}
