/** Public API of @rag-immune/stack: how tests and tools find the running local stack. */
export { loadStackConfig, StackConfigError, StackConfigSchema, stackEnvVarName } from './config.ts';
export type { StackConfig } from './config.ts';
export { stackEndpoints, CCOMPAT_PATH } from './endpoints.ts';
export type { StackEndpoints } from './endpoints.ts';
export { repoRoot } from './repo-root.ts';
export { STACK_SERVICES, selectServices } from './services.ts';
export { StackManager } from './stack-manager.ts';
export type { ServiceStatus, UpResult } from './stack-manager.ts';
export type { LaunchSpec, StackContext, StackService } from './service.ts';
