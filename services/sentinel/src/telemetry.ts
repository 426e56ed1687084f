import { trace, type Tracer } from '@opentelemetry/api';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';

/** Every RAG Immune worker reports under one service name so Grafana can join their spans. */
export const TELEMETRY_SERVICE_NAME = 'rag-self-healing';

/**
 * Starts OpenTelemetry tracing. The OTLP exporter is configured by the standard environment
 * variables (OTEL_EXPORTER_OTLP_ENDPOINT, ..._HEADERS); without an endpoint no exporter runs and
 * spans stay in-process (the tracer still works, so code paths are the same).
 */
export function startTelemetry(version: string, env: NodeJS.ProcessEnv = process.env): { tracer: Tracer; shutdown(): Promise<void> } {
  const exporting = env.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT !== undefined;
  const sdk = new NodeSDK({
    resource: resourceFromAttributes({
      [ATTR_SERVICE_NAME]: TELEMETRY_SERVICE_NAME,
      [ATTR_SERVICE_VERSION]: version,
      'rag_immune.worker': 'sentinel',
    }),
    ...(exporting ? { traceExporter: new OTLPTraceExporter() } : {}),
    instrumentations: [],
  });
  sdk.start();
  return { tracer: trace.getTracer('rag-immune-sentinel', version), shutdown: () => sdk.shutdown() };
}
