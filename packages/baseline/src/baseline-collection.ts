/**
 * A frozen baseline made from a RAG's own Qdrant collection: every point (id, vectors, payload, in
 * whatever payload layout the RAG writes) copied by scroll into a new collection with the same
 * vector and payload-index configuration, marked in the collection's metadata, and reached through
 * an alias that a second instance of the RAG reads. Scroll rather than a snapshot: a snapshot is per
 * node in a Qdrant cluster, a scroll reads the collection as the RAG sees it. A refresh (after an
 * intended knowledge update) copies again and moves the alias atomically, with its reason recorded;
 * the previous copy is kept so that the refresh itself can be undone.
 */
import type { QdrantClient } from '@qdrant/js-client-rest';

/** What the collection metadata says of a baseline copy (key `rag_immune_baseline`). */
export interface BaselineRecord {
  role: 'baseline';
  collection: string;
  alias: string;
  source_collection: string;
  /** The alias the source was named by, when it was one (the RAG's alias). */
  source_alias: string | null;
  points: number;
  created_at: string;
  actor: string;
  reason: string;
  /** The copy this one replaced (refresh), null for the first. */
  previous: string | null;
}

export const METADATA_KEY = 'rag_immune_baseline';

export interface BaselineOptions {
  qdrant: QdrantClient;
  /** The RAG's collection or alias. */
  source: string;
  /** The alias the baseline RAG instance reads; default `<source>-baseline`. */
  alias?: string;
  actor: string;
  reason: string;
  now?: () => Date;
  batchSize?: number;
  onProgress?: (copied: number, total: number) => void;
}

export class BaselineError extends Error {
  override name = 'BaselineError';
}

export const defaultAlias = (source: string): string => `${source}-baseline`;

/** Creates the first baseline copy and its alias; refuses when the alias already exists (that is a refresh). */
export async function createBaseline(options: BaselineOptions): Promise<BaselineRecord> {
  const alias = options.alias ?? defaultAlias(options.source);
  if ((await aliasTarget(options.qdrant, alias)) !== null) {
    throw new BaselineError(`alias ${alias} exists already: use 'immune baseline refresh --reason …' to replace the baseline`);
  }
  const record = await copyCollection(options, alias, null);
  await options.qdrant.updateCollectionAliases({ actions: [{ create_alias: { collection_name: record.collection, alias_name: alias } }] });
  return record;
}

/** Copies the source again and moves the alias to the new copy in one atomic alias update. */
export async function refreshBaseline(options: BaselineOptions): Promise<BaselineRecord> {
  if (options.reason.trim() === '')
    throw new BaselineError('a refresh needs a reason (--reason): it changes what every comparison is judged against');
  const alias = options.alias ?? defaultAlias(options.source);
  const previous = await aliasTarget(options.qdrant, alias);
  if (previous === null) throw new BaselineError(`no baseline alias ${alias}: create one first ('immune baseline create')`);
  const record = await copyCollection(options, alias, previous);
  await options.qdrant.updateCollectionAliases({
    actions: [{ delete_alias: { alias_name: alias } }, { create_alias: { collection_name: record.collection, alias_name: alias } }],
  });
  return record;
}

/** The baseline behind an alias, as its metadata records it. */
export async function describeBaseline(qdrant: QdrantClient, alias: string): Promise<BaselineRecord | null> {
  const collection = await aliasTarget(qdrant, alias);
  if (collection === null) return null;
  const info = await qdrant.getCollection(collection);
  const record = (info.config as { metadata?: Record<string, unknown> | null }).metadata?.[METADATA_KEY];
  return (record as BaselineRecord | undefined) ?? null;
}

export async function aliasTarget(qdrant: QdrantClient, alias: string): Promise<string | null> {
  const { aliases } = await qdrant.getAliases();
  return aliases.find((a) => a.alias_name === alias)?.collection_name ?? null;
}

async function copyCollection(options: BaselineOptions, alias: string, previous: string | null): Promise<BaselineRecord> {
  const { qdrant } = options;
  const now = (options.now ?? (() => new Date()))();
  const sourceAlias = await aliasTarget(qdrant, options.source);
  const sourceCollection = sourceAlias ?? options.source;
  if (!(await qdrant.collectionExists(sourceCollection)).exists) throw new BaselineError(`no collection or alias named ${options.source}`);
  const info = await qdrant.getCollection(sourceCollection);
  const target = `${alias}--${now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'z')
    .toLowerCase()}`;
  if ((await qdrant.collectionExists(target)).exists) throw new BaselineError(`collection ${target} exists already`);

  const params = info.config.params;
  await qdrant.createCollection(target, {
    vectors: params.vectors!,
    ...(params.sparse_vectors ? { sparse_vectors: params.sparse_vectors } : {}),
    // Small and never written after the copy: one shard, no replication beyond the source's.
    shard_number: 1,
    ...(params.replication_factor ? { replication_factor: params.replication_factor } : {}),
  });
  try {
    for (const [field, schema] of Object.entries(info.payload_schema ?? {})) {
      const type = (schema as { data_type?: string }).data_type;
      if (type === undefined) continue;
      await qdrant.createPayloadIndex(target, { field_name: field, field_schema: type as never, wait: true });
    }
    const total = (await qdrant.count(sourceCollection, { exact: true })).count;
    let copied = 0;
    let offset: string | number | undefined | null = undefined;
    const limit = options.batchSize ?? 256;
    do {
      const page = await qdrant.scroll(sourceCollection, {
        limit,
        with_payload: true,
        with_vector: true,
        ...(offset != null ? { offset } : {}),
      });
      if (page.points.length > 0) {
        await qdrant.upsert(target, {
          wait: true,
          points: page.points.map((p) => ({ id: p.id, vector: p.vector as never, payload: p.payload ?? {} })),
        });
      }
      copied += page.points.length;
      options.onProgress?.(copied, total);
      offset = page.next_page_offset as string | number | null | undefined;
    } while (offset != null);
    const counted = (await qdrant.count(target, { exact: true })).count;
    if (counted !== copied) throw new BaselineError(`copied ${copied} points into ${target} but it counts ${counted}`);
    const record: BaselineRecord = {
      role: 'baseline',
      collection: target,
      alias,
      source_collection: sourceCollection,
      source_alias: sourceAlias === null ? null : options.source,
      points: copied,
      created_at: now.toISOString(),
      actor: options.actor,
      reason: options.reason,
      previous,
    };
    await qdrant.updateCollection(target, { metadata: { [METADATA_KEY]: record as unknown as Record<string, unknown> } });
    return record;
  } catch (error) {
    // A half copy must never become a baseline: nothing points at it yet, so it goes.
    await qdrant.deleteCollection(target).catch(() => undefined);
    throw error;
  }
}
