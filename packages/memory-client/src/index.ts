export {
  RecommendRequest,
  Recommendation,
  CaseCitation,
  SignatureClaim,
  RootCauseName,
  RagComponentName,
  RepairIntentName,
  type ParsedRecommendRequest,
} from './recommendation.ts';
export { MemoryClient, MemoryUnavailableError, type MemoryClientOptions } from './memory-client.ts';
