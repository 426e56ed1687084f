/**
 * The RAG's only traces: OpenTelemetry spans from the stock OpenInference LangChain instrumentation
 * (and the adapter's query span), exported over OTLP/HTTP protobuf to RAG Immune's trace intake.
 * The exporter reads OTEL_EXPORTER_OTLP_TRACES_ENDPOINT and OTEL_EXPORTER_OTLP_HEADERS itself.
 */
import * as CallbackManagerModule from '@langchain/core/callbacks/manager';
import { LangChainInstrumentation } from '@arizeai/openinference-instrumentation-langchain';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

export interface TracingOptions {
  serviceName: string;
  instance: string;
  /** Where the spans go; none: no spans leave the process (RAG Immune cannot diagnose it). */
  endpoint?: string;
  scheduleDelayMillis: number;
}

export function startTracing(options: TracingOptions): NodeTracerProvider {
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': options.serviceName, 'service.instance.id': options.instance }),
    // 30 candidate documents overflow the SDK's default 128 attributes per span.
    spanLimits: { attributeCountLimit: 4096 },
    spanProcessors:
      options.endpoint === undefined
        ? []
        : [new BatchSpanProcessor(new OTLPTraceExporter({ url: options.endpoint }), { scheduledDelayMillis: options.scheduleDelayMillis })],
  });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  new LangChainInstrumentation({ tracerProvider: provider }).manuallyInstrument(CallbackManagerModule);
  return provider;
}
