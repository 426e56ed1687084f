import type { StackService } from './service.ts';
import { elasticsearch } from './services/elasticsearch.ts';
import { kafka } from './services/kafka.ts';
import { prometheus } from './services/prometheus.ts';
import { findQdrantBinary, qdrant } from './services/qdrant.ts';
import { qdrantLocal } from './services/qdrant-local.ts';
import { schemaRegistry } from './services/schema-registry.ts';

/** Every service the stack knows, for lookups by name and for `down`. */
export const KNOWN_SERVICES: readonly StackService[] = [kafka, schemaRegistry, elasticsearch, qdrant, qdrantLocal, prometheus];

/** Which vector store the stack runs: the real Qdrant server, the stand-in, or none (an existing Qdrant at QDRANT_URL). */
export type QdrantChoice =
  { kind: 'qdrant'; binary: string; from: string } | { kind: 'qdrant-local'; why: string } | { kind: 'external'; url: string };

export function qdrantChoice(env: NodeJS.ProcessEnv = process.env): QdrantChoice {
  const external = env.QDRANT_URL?.trim();
  if (external) return { kind: 'external', url: external };
  const binary = findQdrantBinary(env);
  if (binary) return { kind: 'qdrant', binary: binary.path, from: binary.from };
  return {
    kind: 'qdrant-local',
    why:
      'no Qdrant server binary found (QDRANT_BINARY, qdrant on PATH, or ~/.cache/rag-immune-tools/qdrant-*/qdrant, ' +
      'which scripts/install-qdrant.sh fills): falling back to qdrant-local, a STAND-IN that is not Qdrant',
  };
}

/**
 * The servers `up` starts, in start order: the message bus and its registry first (every worker
 * needs both), the stores next, and Prometheus last so its first scrapes find the others. `down`
 * stops them in reverse. The vector store is the real Qdrant wherever a binary is found.
 */
export function stackServices(choice: QdrantChoice = qdrantChoice()): StackService[] {
  const vectors = choice.kind === 'qdrant' ? [qdrant] : choice.kind === 'qdrant-local' ? [qdrantLocal] : [];
  return [kafka, schemaRegistry, elasticsearch, ...vectors, prometheus];
}

/** The named services in start order (all known names are accepted); no names = the stack's default set. */
export function selectServices(names: readonly string[], choice?: QdrantChoice): StackService[] {
  const unknown = names.filter((name) => !KNOWN_SERVICES.some((s) => s.name === name));
  if (unknown.length) {
    throw new Error(`unknown service(s) ${unknown.join(', ')}; known: ${KNOWN_SERVICES.map((s) => s.name).join(', ')}`);
  }
  return names.length ? KNOWN_SERVICES.filter((s) => names.includes(s.name)) : stackServices(choice);
}
