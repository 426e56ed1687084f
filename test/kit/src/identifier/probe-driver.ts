/**
 * Drives golden probes in-process the way the sentinel does (ProbeRunner with the real FCS model)
 * and publishes every ProbeResult to the namespace's probes topic with its trace context.
 */
import { ragClientWithHeaders } from '@rag-immune/rag-contract';
import { trace } from '@opentelemetry/api';
import type { EventPublisher } from '@rag-immune/bus';
import type { ProbeResult } from '@rag-immune/contracts';
import { FactConsistencyScorer } from '@rag-immune/fcs';
import { ProbeRunner, defaultThresholds, type GoldenProbe } from '@rag-immune/probing';
import { traceHeaders } from '@rag-immune/worker-runtime';

export class ProbeDriver {
  private constructor(
    private readonly runner: ProbeRunner,
    private readonly publisher: EventPublisher,
    readonly probes: GoldenProbe[],
  ) {}

  static async create(rag: { online: string; baseline: string }, probes: GoldenProbe[], publisher: EventPublisher): Promise<ProbeDriver> {
    const fcs = await FactConsistencyScorer.load({ intraOpNumThreads: 1 });
    const headers = { 'user-agent': 'rag-immune-identifier/test' };
    const runner = new ProbeRunner({
      online: ragClientWithHeaders(rag.online, headers, 30_000),
      baseline: ragClientWithHeaders(rag.baseline, headers, 30_000),
      fcs,
      tracer: trace.getTracer('identifier-test'),
      thresholds: defaultThresholds,
      sourceTrust: {},
      callTimeoutMs: 30_000,
      callAttempts: 2,
      version: 'test',
    });
    return new ProbeDriver(runner, publisher, probes);
  }

  /** One round: every probe once, each result published (with W3C trace headers) as it finishes. */
  async round(): Promise<ProbeResult[]> {
    const results: ProbeResult[] = [];
    const tracer = trace.getTracer('identifier-test');
    for (const probe of this.probes) {
      const result = await this.runner.run(probe);
      await tracer.startActiveSpan('sentinel.publish', async (span) => {
        await this.publisher.publishMany('probes', [result], undefined, () => traceHeaders());
        span.end();
      });
      results.push(result);
    }
    return results;
  }
}
