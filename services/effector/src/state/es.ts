import { errors, type Client } from '@elastic/elasticsearch';

/** Creates an index with the given keyword/date mappings unless it exists (concurrent creators race benignly). */
export async function ensureIndex(es: Client, index: string, properties: Record<string, { type: string }>): Promise<void> {
  if (await es.indices.exists({ index })) return;
  try {
    await es.indices.create({
      index,
      settings: { number_of_shards: 1, number_of_replicas: 0 },
      // Only the fields the effector filters or sorts on are indexed; the rest is kept in _source.
      mappings: { dynamic: false, properties: properties as Record<string, { type: 'keyword' }> },
    });
  } catch (error) {
    if (!(error instanceof errors.ResponseError && error.body?.error?.type === 'resource_already_exists_exception')) throw error;
  }
}

export function isConflict(error: unknown): boolean {
  return error instanceof errors.ResponseError && error.statusCode === 409;
}

export function isNotFound(error: unknown): boolean {
  return error instanceof errors.ResponseError && error.statusCode === 404;
}

export const kw = { type: 'keyword' } as const;
export const date = { type: 'date' } as const;
export const int = { type: 'integer' } as const;
