export * from './document-store.ts';
export { ElasticsearchDocuments, elasticsearchStores, toQuery } from './elasticsearch-documents.ts';
export { MemoryDocuments, memoryStores, matches } from './memory-documents.ts';
export * from './mappings.ts';
