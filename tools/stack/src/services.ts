import type { StackService } from './service.ts';
import { elasticsearch } from './services/elasticsearch.ts';
import { kafka } from './services/kafka.ts';
import { prometheus } from './services/prometheus.ts';
import { qdrantLocal } from './services/qdrant-local.ts';
import { schemaRegistry } from './services/schema-registry.ts';

/**
 * Every server of the local stack, in start order: the message bus and its registry first (every
 * worker needs both), the stores next, and Prometheus last so its first scrapes find the others.
 * `down` stops them in reverse.
 */
export const STACK_SERVICES: readonly StackService[] = [kafka, schemaRegistry, elasticsearch, qdrantLocal, prometheus];

/** The named services in start order; every name must exist. No names = all of them. */
export function selectServices(names: readonly string[]): StackService[] {
  const unknown = names.filter((name) => !STACK_SERVICES.some((s) => s.name === name));
  if (unknown.length) {
    throw new Error(`unknown service(s) ${unknown.join(', ')}; known: ${STACK_SERVICES.map((s) => s.name).join(', ')}`);
  }
  return names.length ? STACK_SERVICES.filter((s) => names.includes(s.name)) : [...STACK_SERVICES];
}
