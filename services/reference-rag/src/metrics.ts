import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The RAG's infrastructure metrics: the ones that stay green while answers go wrong. */
export function createRagMetrics(instance: string) {
  const registry = new Registry();
  registry.setDefaultLabels({ instance_role: instance });
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    queries: new Counter({
      name: 'reference_rag_queries_total',
      help: 'Queries answered, by outcome',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    queryDuration: new Histogram({
      name: 'reference_rag_query_duration_seconds',
      help: 'POST /query latency',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    chunksIndexed: new Counter({
      name: 'reference_rag_chunks_indexed_total',
      help: 'Chunks embedded and written to the vector index',
      registers: [registry],
    }),
    activeFaults: new Gauge({
      name: 'reference_rag_active_faults',
      help: 'Injected faults currently active',
      labelNames: ['kind'],
      registers: [registry],
    }),
  };
}
export type RagMetrics = ReturnType<typeof createRagMetrics>;
