export { VersionedMetadata, versionedMetadataOf, validAt, toChunk } from './versioned-metadata.ts';
export { ImmuneRetriever, type ImmuneRetrieverOptions } from './immune-retriever.ts';
export { queryHandler, type QueryHandlerOptions } from './query-handler.ts';
export { inQueryScope, currentQueryScope, type QueryScope } from './request-scope.ts';
export { AliasedQdrantVectorStore } from './aliased-qdrant-store.ts';
export { AliasReindex, TargetCollectionError, type AliasReindexOptions, type ReindexOutcome } from './repair/alias-reindex.ts';
export { PinnedGenerator } from './repair/pinned-generator.ts';
export { KnowledgeSourceSwitch, type SwitchableSource } from './repair/knowledge-source-switch.ts';
export {
  repairRoutes,
  capabilities,
  servedHooks,
  type RepairParts,
  type KnowledgeSourceRepairs,
  type KnowledgeFreshnessLookup,
} from './repair/repair-routes.ts';
