import { SpanStatusCode, context, propagation, trace, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';

/** Every RAG Immune worker reports under one service name so Grafana can join their spans. */
export const TELEMETRY_SERVICE_NAME = 'rag-self-healing';

export interface Telemetry {
  tracer: Tracer;
  /** Whether spans leave the process (an OTLP endpoint is configured). */
  exporting: boolean;
  shutdown(): Promise<void>;
}

/**
 * Starts OpenTelemetry tracing for one worker. The OTLP exporter runs only when
 * OTEL_EXPORTER_OTLP_ENDPOINT (or ..._TRACES_ENDPOINT) is set; otherwise no exporter runs at all
 * (an explicit empty processor list, since the SDK would otherwise default to OTLP on
 * localhost:4318), while spans and W3C trace-context propagation still work in-process.
 */
export function startTelemetry(
  worker: string,
  version: string,
  options: { env?: NodeJS.ProcessEnv; spanProcessors?: SpanProcessor[] } = {},
): Telemetry {
  const env = options.env ?? process.env;
  const exporting = Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT) || Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  const sdk = new NodeSDK({
    resource: resourceFromAttributes({
      [ATTR_SERVICE_NAME]: TELEMETRY_SERVICE_NAME,
      [ATTR_SERVICE_VERSION]: version,
      'rag_immune.worker': worker,
    }),
    ...(exporting ? { traceExporter: new OTLPTraceExporter() } : { spanProcessors: options.spanProcessors ?? [] }),
    instrumentations: [],
  });
  sdk.start();
  return { tracer: trace.getTracer(`rag-immune-${worker}`, version), exporting, shutdown: () => sdk.shutdown() };
}

/** W3C `traceparent`/`tracestate` of the active (or given) context, as Kafka message headers. */
export function traceHeaders(from: Context = context.active()): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(from, carrier);
  return carrier;
}

type KafkaHeaders = Record<string, Buffer | string | (Buffer | string)[] | undefined> | undefined;

/** The trace context a producer put in a Kafka message's headers, to continue its trace. */
export function contextFromHeaders(headers: KafkaHeaders): Context {
  const carrier: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers ?? {})) {
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) carrier[key.toLowerCase()] = first.toString();
  }
  return propagation.extract(context.active(), carrier);
}

/**
 * Runs `work` in an active span under `parent`: an error is recorded on the span (status ERROR)
 * and rethrown, and the span always ends. Every worker's handler span has this shape.
 */
export function inSpan<T>(
  tracer: Tracer,
  name: string,
  attributes: Attributes,
  parent: Context,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  return tracer.startActiveSpan(name, { attributes }, parent, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}
