import { homedir } from 'node:os';
import { join } from 'node:path';

/** Where scripts/install-gemma.sh puts the model (RAG_IMMUNE_TOOLS_DIR overrides the tools cache, as there). */
export function installedModelPath(env: NodeJS.ProcessEnv = process.env): string {
  const tools = env.RAG_IMMUNE_TOOLS_DIR ?? join(homedir(), '.cache', 'rag-immune-tools');
  return join(tools, 'models', 'gemma-3-270m-q4_k_m-1.0.0', 'gemma-3-270m-q4_k_m.gguf');
}
