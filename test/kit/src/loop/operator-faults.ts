/**
 * Faults an operator causes without any fault API, made here the way they happen: writes straight
 * into the online RAG's Qdrant collection (through its alias), as a bad ingest job or a botched
 * migration script would. Issue 30: knowledge no feed ever published, and chunk metadata naming the
 * wrong document. Issue 27: some knowledge's vectors overwritten with garbage (or its points
 * deleted). Nothing here undoes them: only the immune system's repair (re-ingesting from the feed)
 * does, or dropping the collection at the end of a run. The operator's other way in, a faulty
 * deploy of the RAG itself (a regressed prompt), is in ./deploy-faults.ts.
 */
import { randomUUID } from 'node:crypto';
import { createQdrantClient } from '@rag-immune/worker-runtime';
import { DEPLOY_FAULT_KINDS, QDRANT_FAULT_KINDS } from '@rag-immune/rag-contract';

/** The operator faults written into Qdrant (this file); named in the fault catalogue (@rag-immune/rag-contract). */
export { QDRANT_FAULT_KINDS };
export type QdrantFaultKind = (typeof QDRANT_FAULT_KINDS)[number];

/** Every operator fault, no fault API: the Qdrant writes here and the deploys of ./deploy-faults.ts. */
export const OPERATOR_FAULT_KINDS = [...QDRANT_FAULT_KINDS, ...DEPLOY_FAULT_KINDS] as const;
export type OperatorFaultKind = (typeof OPERATOR_FAULT_KINDS)[number];

export const isOperatorFault = (kind: string): kind is OperatorFaultKind => (OPERATOR_FAULT_KINDS as readonly string[]).includes(kind);

/** Where the online RAG's vectors are: Qdrant and the collection (or alias) it queries. */
export interface OnlineIndex {
  qdrantUrl: string;
  qdrantApiKey?: string | undefined;
  collection: string;
  /**
   * Where a point keeps the chunk's metadata: top level (the reference RAG) or under this key
   * (@langchain/qdrant: `metadata`, its `metadataPayloadKey`).
   */
  metadataPayloadKey?: string;
  /** Where a point keeps the chunk's text: `text` (the reference RAG) unless named (@langchain/qdrant: `content`). */
  contentPayloadKey?: string;
}

/** The chunk metadata both RAGs write (services/reference-rag ChunkPayload; services/langchain-rag knowledge-documents). */
interface ChunkMetadata {
  chunk_id: string;
  doc_id: string;
  knowledge_id: string;
  version: string;
  valid_from: string;
  valid_until: string | null;
  updated_at: string;
  indexed_at?: string;
  [key: string]: unknown;
}

interface Point {
  id: string | number;
  payload: Record<string, unknown>;
  vector?: number[];
}

/** A point's chunk metadata, wherever its layout keeps it. */
function metadataOf(index: OnlineIndex, point: Point): ChunkMetadata {
  const key = index.metadataPayloadKey;
  return (key === undefined ? point.payload : point.payload[key]) as ChunkMetadata;
}

const textOf = (index: OnlineIndex, point: Point): string => point.payload[index.contentPayloadKey ?? 'text'] as string;

/** A payload in the index's layout: `point`'s, with the metadata and text replaced. */
function payloadWith(index: OnlineIndex, point: Point, metadata: ChunkMetadata, text: string): Record<string, unknown> {
  const key = index.metadataPayloadKey;
  const content = { [index.contentPayloadKey ?? 'text']: text };
  return key === undefined ? { ...point.payload, ...metadata, ...content } : { ...point.payload, [key]: metadata, ...content };
}

/** Sets metadata fields on points, in the index's layout (Qdrant's set-payload `key` reaches a nested object). */
async function setMetadata(index: OnlineIndex, points: Point[], fields: Partial<ChunkMetadata>): Promise<void> {
  const qdrant = createQdrantClient({ url: index.qdrantUrl, apiKey: index.qdrantApiKey });
  await qdrant.setPayload(index.collection, {
    wait: true,
    points: points.map((p) => p.id),
    payload: fields,
    ...(index.metadataPayloadKey === undefined ? {} : { key: index.metadataPayloadKey }),
  });
}

async function pointsOf(index: OnlineIndex, knowledgeIds: string[], withVector: boolean): Promise<Point[]> {
  const qdrant = createQdrantClient({ url: index.qdrantUrl, apiKey: index.qdrantApiKey });
  const points: Point[] = [];
  let offset: string | number | undefined;
  for (;;) {
    const page = await qdrant.scroll(index.collection, {
      limit: 256,
      with_payload: true,
      with_vector: withVector,
      filter: {
        must: [
          {
            key: `${index.metadataPayloadKey === undefined ? '' : `${index.metadataPayloadKey}.`}knowledge_id`,
            match: { any: knowledgeIds },
          },
        ],
      },
      ...(offset === undefined ? {} : { offset }),
    });
    for (const p of page.points)
      points.push({
        id: p.id,
        payload: p.payload as Record<string, unknown>,
        ...(Array.isArray(p.vector) ? { vector: p.vector as number[] } : {}),
      });
    const next = page.next_page_offset;
    if (next === null || next === undefined || typeof next === 'object') return points;
    offset = next;
  }
}

/**
 * A version the feed never published, ingested for each knowledge id (a leaked test record, a
 * poisoned import): the id's current chunks copied under a new version (`<version>+test1`, valid
 * from a second ago, same vectors, the version in the text changed), and the current version closed
 * at that time, as an ingest of a real new version would do. Returns the knowledge ids written.
 */
export async function ingestUnpublishedVersion(index: OnlineIndex, knowledgeIds: string[]): Promise<string[]> {
  const qdrant = createQdrantClient({ url: index.qdrantUrl, apiKey: index.qdrantApiKey });
  const current = (await pointsOf(index, knowledgeIds, true)).filter((p) => metadataOf(index, p).valid_until === null);
  const missing = knowledgeIds.filter((id) => !current.some((p) => metadataOf(index, p).knowledge_id === id));
  if (missing.length > 0) throw new Error(`no current chunks in ${index.collection} for ${missing.join(', ')}`);
  const at = new Date(Date.now() - 1000).toISOString();
  const leaked = current.map((p) => {
    const metadata = metadataOf(index, p);
    const version = `${metadata.version}+test1`;
    const swap = (text: string) => text.split(metadata.version).join(version);
    return {
      id: randomUUID(),
      vector: p.vector!,
      payload: payloadWith(
        index,
        p,
        { ...metadata, chunk_id: swap(metadata.chunk_id), version, valid_from: at, updated_at: at, indexed_at: at },
        swap(textOf(index, p)),
      ),
    };
  });
  await qdrant.upsert(index.collection, { wait: true, points: leaked });
  await setMetadata(index, current, { valid_until: at });
  return [...new Set(current.map((p) => metadataOf(index, p).knowledge_id))].sort();
}

/**
 * Two documents' ids swapped in the chunk metadata (a migration script that mixed up two rows):
 * every chunk of `a` carries `b`'s knowledge and document id and the reverse; text and vectors stay.
 */
export async function swapDocumentIds(index: OnlineIndex, a: string, b: string): Promise<string[]> {
  const points = await pointsOf(index, [a, b], false);
  const of = (id: string) => points.filter((p) => metadataOf(index, p).knowledge_id === id);
  const [pa, pb] = [of(a), of(b)];
  if (pa.length === 0 || pb.length === 0)
    throw new Error(`nothing to swap in ${index.collection}: ${a} ${pa.length} chunks, ${b} ${pb.length}`);
  const ids = (list: Point[]) => {
    const metadata = metadataOf(index, list[0]!);
    return { knowledge_id: metadata.knowledge_id, doc_id: metadata.doc_id };
  };
  const [ida, idb] = [ids(pa), ids(pb)];
  await setMetadata(index, pa, idb);
  await setMetadata(index, pb, ida);
  return [a, b].sort();
}

/** A unit vector in a random direction: near-orthogonal to every real embedding, so no query finds it. */
function garbageVector(dimensions: number): number[] {
  const raw = Array.from({ length: dimensions }, () => Math.random() * 2 - 1);
  const norm = Math.hypot(...raw);
  return raw.map((x) => x / norm);
}

/**
 * The vectors of some knowledge's points damaged in place, as a botched migration or re-embedding
 * script would: `garbage` overwrites each vector with a random one (the payload stays, so the points
 * look intact), `deleted` removes the points. Retrieval loses that knowledge; every other point keeps
 * its vector and its scores. Returns the knowledge ids whose points were damaged.
 */
export async function damageVectors(index: OnlineIndex, knowledgeIds: string[], mode: 'garbage' | 'deleted'): Promise<string[]> {
  const qdrant = createQdrantClient({ url: index.qdrantUrl, apiKey: index.qdrantApiKey });
  const points = await pointsOf(index, knowledgeIds, mode === 'garbage');
  if (points.length === 0) throw new Error(`no points in ${index.collection} for ${knowledgeIds.join(', ')}`);
  if (mode === 'deleted') await qdrant.delete(index.collection, { wait: true, points: points.map((p) => p.id) });
  else
    await qdrant.updateVectors(index.collection, {
      wait: true,
      points: points.map((p) => ({ id: p.id, vector: garbageVector(p.vector!.length) })),
    });
  return [...new Set(points.map((p) => metadataOf(index, p).knowledge_id))].sort();
}

/**
 * Chunk text edited in place by a script (a find-and-replace run straight on the payloads): each
 * current chunk's version string becomes `<version>-edited`, the vectors stay, so retrieval finds the
 * same chunks, whose text now says something else. No catalogue cause makes this change (any ingest
 * re-embeds what it rewrites, a relabelling keeps the text): the identifier must say so with the
 * index diff, not borrow a cause. Evaluation only, so not in the fault catalogue; re-ingesting heals it.
 * Returns the knowledge ids whose chunks were edited.
 */
export async function editChunkTextInPlace(index: OnlineIndex, knowledgeIds: string[]): Promise<string[]> {
  const qdrant = createQdrantClient({ url: index.qdrantUrl, apiKey: index.qdrantApiKey });
  const current = (await pointsOf(index, knowledgeIds, false)).filter((p) => metadataOf(index, p).valid_until === null);
  if (current.length === 0) throw new Error(`no current chunks in ${index.collection} for ${knowledgeIds.join(', ')}`);
  for (const point of current) {
    const { version } = metadataOf(index, point);
    const text = textOf(index, point).split(version).join(`${version}-edited`);
    await qdrant.setPayload(index.collection, { wait: true, points: [point.id], payload: { [index.contentPayloadKey ?? 'text']: text } });
  }
  return [...new Set(current.map((p) => metadataOf(index, p).knowledge_id))].sort();
}
