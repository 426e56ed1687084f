/**
 * The trace intake of a loop run with traffic (issue 38), a child process like the workers: the
 * online RAG exports its OTLP spans to it; it stores probe spans in `<namespace>-otlp-spans` and
 * users' spans, redacted, in `<namespace>-otlp-user-spans`, where the sentinel's traffic watcher
 * reads them. Its index prefix is the run's namespace, so the run's cleanup removes both indices.
 */
import { join } from 'node:path';
import type { StackEndpoints } from '@rag-immune/stack';
import { ManagedProcess, freePort, logMessage } from '../processes.ts';

export interface TraceIntakeProcess {
  process: ManagedProcess;
  /** OTLP/HTTP traces endpoint: what OTEL_EXPORTER_OTLP_TRACES_ENDPOINT names. */
  tracesUrl: string;
}

export async function startTraceIntakeProcess(options: {
  runDir: string;
  endpoints: StackEndpoints;
  namespace: string;
  env?: Record<string, string>;
}): Promise<TraceIntakeProcess> {
  const port = await freePort();
  const proc = new ManagedProcess({
    name: 'trace-intake',
    entry: 'services/trace-intake/src/main.ts',
    env: {
      TRACE_INTAKE_HOST: '127.0.0.1',
      TRACE_INTAKE_PORT: String(port),
      ELASTICSEARCH_URL: options.endpoints.elasticsearchUrl,
      ES_INDEX_PREFIX: options.namespace,
      LOG_LEVEL: 'info',
      ...(options.env ?? {}),
    },
    logFile: join(options.runDir, 'trace-intake.log'),
    ready: logMessage('trace intake listening'),
    startTimeoutMs: 120_000,
  });
  await proc.start();
  return { process: proc, tracesUrl: `http://127.0.0.1:${port}/v1/traces` };
}
