import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { startTelemetry as startWorkerTelemetry, TELEMETRY_SERVICE_NAME, type Telemetry } from '@rag-immune/worker-runtime';

export { TELEMETRY_SERVICE_NAME };

/** The sentinel's tracing: the shared worker telemetry (no exporter unless OTLP is configured). */
export function startTelemetry(version: string, env: NodeJS.ProcessEnv = process.env, spanProcessors?: SpanProcessor[]): Telemetry {
  return startWorkerTelemetry('sentinel', version, { env, ...(spanProcessors ? { spanProcessors } : {}) });
}
