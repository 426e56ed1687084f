import type { BaselineRecord } from './baseline-collection.ts';

/**
 * What the operator does next: run a second instance of their RAG on the baseline alias, read-only,
 * and point the sentinel at it. Per kind of RAG, the setting that names the collection.
 */
export function baselineInstructions(record: BaselineRecord): string {
  return [
    `Baseline ${record.alias} -> ${record.collection}: ${record.points} points copied from ${record.source_alias ?? record.source_collection}` +
      (record.previous ? ` (replaces ${record.previous}, kept)` : '') +
      '.',
    '',
    'Run a second instance of your RAG that reads the baseline alias instead of its own collection:',
    `  - this project's reference RAG: QDRANT_COLLECTION=${record.alias} INGEST_ON_START=false`,
    `  - this project's LangChain RAG: QDRANT_ALIAS=${record.alias} INGEST_ON_START=false`,
    // Not the alias: Flowise's Qdrant node (LangChain.js ensureCollection) misses an alias among the
    // collections and tries to create one of that name, which Qdrant refuses (seen with Flowise 2.2.8,
    // bench/rag-products). After a refresh the flow must name the new copy.
    `  - Flowise: in the flow's Qdrant node, "Qdrant Collection Name" = ${record.collection} (the copy's own name: Flowise cannot read through an alias; a copy of the flow, its own chatflow id; after a refresh, the new copy's name)`,
    `  - LangChain / LlamaIndex apps: the vector store's collectionName / collection_name = ${record.alias}`,
    '  Give that instance a read-only Qdrant key (Qdrant read_only_api_key, or a JWT with read access to',
    `  ${record.alias} only): nothing may write into a baseline, or every comparison drifts with it.`,
    '',
    'Then point the sentinel at both:',
    '  SENTINEL_ONLINE_RAG_URL=<your RAG>  SENTINEL_BASELINE_RAG_URL=<the baseline instance>',
    '',
    `After an intended knowledge update: immune baseline refresh --source ${record.source_alias ?? record.source_collection} --reason "<why>"`,
  ].join('\n');
}
