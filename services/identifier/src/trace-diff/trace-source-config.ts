import type { RagClient } from '@rag-immune/rag-contract';
import { ProbeTraceReader, type SpanStore } from '@rag-immune/traces';
import type { IdentifierEnv } from '../config.ts';
import { CapabilityTraceSource, EndpointTraceSource, IntakeTraceSource, type TraceSource } from './trace-sources.ts';

/** Each side's trace source as IDENTIFIER_TRACE_SOURCE says (auto: as the RAG's capabilities say). */
export function traceSources(
  config: Pick<IdentifierEnv, 'IDENTIFIER_TRACE_SOURCE' | 'IDENTIFIER_INTAKE_WAIT_MS'>,
  rag: { online: RagClient; baseline: RagClient },
  spans: SpanStore,
): { online: TraceSource; baseline: TraceSource } {
  const intake = new IntakeTraceSource(new ProbeTraceReader(spans, { waitMs: config.IDENTIFIER_INTAKE_WAIT_MS }));
  const side = (client: RagClient): TraceSource => {
    const endpoint = new EndpointTraceSource(client);
    if (config.IDENTIFIER_TRACE_SOURCE === 'endpoint') return endpoint;
    if (config.IDENTIFIER_TRACE_SOURCE === 'intake') return intake;
    return new CapabilityTraceSource(client, { endpoint, otlp: intake });
  };
  return { online: side(rag.online), baseline: side(rag.baseline) };
}
