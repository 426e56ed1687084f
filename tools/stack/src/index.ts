/** Public API of @rag-immune/stack: how tests and tools find the running local stack. */
export { loadStackConfig, StackConfigError, StackConfigSchema, stackEnvVarName } from './config.ts';
export type { StackConfig } from './config.ts';
export { stackEndpoints, qdrantEnv, CCOMPAT_PATH } from './endpoints.ts';
export type { StackEndpoints } from './endpoints.ts';
export { repoRoot } from './repo-root.ts';
export { KNOWN_SERVICES, qdrantChoice, selectServices, stackServices, type QdrantChoice } from './services.ts';
export { findQdrantBinary, qdrantApiKey, QDRANT_TOOLS_CACHE } from './services/qdrant.ts';
export { StackManager } from './stack-manager.ts';
export type { ServiceStatus, UpResult } from './stack-manager.ts';
export type { LaunchSpec, StackContext, StackService } from './service.ts';
