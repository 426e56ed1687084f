export * from './schemas.ts';
export { RagClient } from './client.ts';
export type { RagClientOptions, CallOptions } from './client.ts';
export { RagHttpError, RagUnreachableError, ContractViolationError } from './errors.ts';
export { CONTRACT_DOCUMENT_PATH, CONTRACT_VERSION } from './document.ts';
export { aliasGeneration, generationCreatedAt } from './alias-generations.ts';
