export * from './schemas.ts';
export { RagClient } from './client.ts';
export type { RagClientOptions, CallOptions } from './client.ts';
export { RagHttpError, RagUnreachableError, ContractViolationError, RagResponseTooLargeError } from './errors.ts';
export { DEFAULT_MAX_RESPONSE_BYTES, ResponseTooLargeError, readTextCapped } from './read-capped.ts';
export { CONTRACT_DOCUMENT_PATH, CONTRACT_VERSION } from './document.ts';
export { aliasGeneration, generationCreatedAt } from './alias-generations.ts';
export { SAME_VECTOR_MIN_COSINE, vectorCosine } from './point-vectors.ts';
export { ragClientWithHeaders } from './client-with-headers.ts';
export {
  FAULT_KINDS,
  EVALUATION_FAULT_KINDS,
  QDRANT_FAULT_KINDS,
  DEPLOY_FAULT_KINDS,
  type FaultApiKind,
  type CatalogueFaultKind,
  FAULT_CATALOGUE,
  type FaultSpec,
  type FaultReadmeRow,
} from './fault-kinds.ts';
export { callFaultAdmin, type FaultAdminResponse } from './fault-admin-client.ts';
export { chunksWith, type PartialChunk, type PartialQueryResponse } from './partial-query-response.ts';

// How every client reads a JSON answer (defined once in the contracts package).
export { jsonOrUndefined, errorBodyMessage } from '@rag-immune/contracts';
