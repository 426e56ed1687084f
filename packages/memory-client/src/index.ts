export {
  RecommendRequest,
  Recommendation,
  CaseCitation,
  SignatureClaim,
  RootCauseName,
  RagComponentName,
  RepairIntentName,
  IncidentOutcomeName,
  type ParsedRecommendRequest,
} from './recommendation.ts';
export { MemoryClient, MemoryUnavailableError, type MemoryClientOptions } from './memory-client.ts';
