import { fileURLToPath } from 'node:url';

/**
 * Absolute path of the repository root. Derived from this file's location (tools/stack/src)
 * rather than process.cwd(), so tests and scripts started from any folder find the same stack.
 */
export function repoRoot(): string {
  return fileURLToPath(new URL('../../../', import.meta.url)).replace(/\/$/, '');
}
