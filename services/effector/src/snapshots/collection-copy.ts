/**
 * Copies every point of a Qdrant collection (id, vectors, payload, whatever its layout) into a new
 * collection with the same vector parameters and payload indexes: the build a hookless rebuild
 * switches the alias to. By scroll, not snapshot, so it reads the source as its readers see it and
 * needs no file access on the server; checked by an exact count before anyone reads it.
 */
import type { QdrantClient } from '@qdrant/js-client-rest';

export async function copyCollection(
  qdrant: QdrantClient,
  source: string,
  target: string,
  options: { batchSize?: number; signal?: AbortSignal } = {},
): Promise<{ points: number }> {
  if ((await qdrant.collectionExists(target)).exists) throw new Error(`collection ${target} exists already: not overwritten`);
  const info = await qdrant.getCollection(source);
  const params = info.config.params;
  await qdrant.createCollection(target, {
    vectors: params.vectors!,
    ...(params.sparse_vectors ? { sparse_vectors: params.sparse_vectors } : {}),
  });
  for (const [field, schema] of Object.entries(info.payload_schema ?? {})) {
    const type = (schema as { data_type?: string }).data_type;
    if (type !== undefined) await qdrant.createPayloadIndex(target, { field_name: field, field_schema: type as never, wait: true });
  }
  let copied = 0;
  let offset: string | number | null | undefined = undefined;
  do {
    options.signal?.throwIfAborted();
    const page = await qdrant.scroll(source, {
      limit: options.batchSize ?? 256,
      with_payload: true,
      with_vector: true,
      ...(offset != null ? { offset } : {}),
    });
    if (page.points.length > 0)
      await qdrant.upsert(target, {
        wait: true,
        points: page.points.map((p) => ({ id: p.id, vector: p.vector as never, payload: p.payload ?? {} })),
      });
    copied += page.points.length;
    offset = page.next_page_offset as string | number | null | undefined;
  } while (offset != null);
  const counted = (await qdrant.count(target, { exact: true })).count;
  if (counted !== copied) throw new Error(`copied ${copied} points into ${target}, which counts ${counted}`);
  return { points: counted };
}
