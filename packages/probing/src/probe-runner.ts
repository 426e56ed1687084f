import { createHash, randomUUID } from 'node:crypto';
import { SpanStatusCode, type Tracer } from '@opentelemetry/api';
import { ExponentialBackoff, handleWhen, retry } from 'cockatiel';
import { ContractViolationError, RagHttpError, RagUnreachableError, type QueryResponse } from '@rag-immune/rag-contract';
import { eventEnvelope, type ProbeObservation, type ProbeResult, type RagCallStatus } from '@rag-immune/contracts';
import type { GoldenProbe } from './golden-probe.ts';
import type { FactConsistencyPort, FcsVerdict, RagPort } from './ports.ts';
import { intentCoverage } from './signals/intent-coverage.ts';
import { knowledgeFreshness } from './signals/knowledge-freshness.ts';
import { compareWithBaseline, type AnomalyThresholds } from './signals/baseline-comparison.ts';
import type { DebugCapture } from './debug-capture.ts';

export interface ProbeRunnerOptions {
  online: RagPort;
  baseline: RagPort;
  fcs: FactConsistencyPort;
  tracer: Tracer;
  thresholds: AnomalyThresholds;
  sourceTrust: Readonly<Record<string, number>>;
  callTimeoutMs: number;
  /** Attempts per RAG call, first included; only timeouts, network errors and 5xx are retried. */
  callAttempts: number;
  version: string;
  debug?: DebugCapture;
}

/** What one side's call produced, before it is turned into a ProbeObservation. */
interface SideOutcome {
  observation: ProbeObservation;
  fcs?: FcsVerdict;
}

function retryable(error: unknown): boolean {
  if (error instanceof RagUnreachableError) return true;
  return error instanceof RagHttpError && error.status >= 500;
}

function failedObservation(error: unknown, latencyMs: number): ProbeObservation {
  let status: RagCallStatus = 'unknown';
  let httpStatus: number | null = null;
  if (error instanceof RagUnreachableError) status = error.reason === 'timeout' ? 'timeout' : 'connection_error';
  else if (error instanceof RagHttpError) {
    status = 'http_error';
    httpStatus = error.status;
  } else if (error instanceof ContractViolationError) status = 'invalid_response';
  return {
    call_status: status,
    http_status: httpStatus,
    error_message: error instanceof Error ? error.message : String(error),
    trace_id: null,
    latency_ms: latencyMs,
    signals: null,
    retrieved_documents: [],
    component_versions: { embedder: null, reranker: null, generator: null },
  };
}

/**
 * Runs one golden probe: queries the online and the baseline RAG concurrently, scores each answer
 * (FCS, IC, KF), compares them and returns the ProbeResult to publish. A failed call yields an
 * error-typed observation with no signals: never a fake score.
 */
export class ProbeRunner {
  constructor(private readonly options: ProbeRunnerOptions) {}

  async run(probe: GoldenProbe): Promise<ProbeResult> {
    const correlationId = randomUUID();
    const queryHash = createHash('sha256').update(probe.query).digest('hex');
    return this.options.tracer.startActiveSpan(
      'sentinel.probe.start',
      { attributes: { probe_id: probe.id, probe_version: probe.version, query_hash: queryHash, correlation_id: correlationId } },
      async (span) => {
        try {
          const [online, baseline] = await Promise.all([
            this.observe('online', this.options.online, probe, correlationId),
            this.observe('baseline', this.options.baseline, probe, correlationId),
          ]);
          const verdict = compareWithBaseline(online.observation, baseline.observation, this.options.thresholds);
          span.setAttributes({ anomaly: verdict.anomaly, severity: verdict.severity, anomaly_signals: verdict.signals.join(',') });
          return {
            ...eventEnvelope('sentinel', this.options.version),
            correlation_id: correlationId,
            probe_id: probe.id,
            probe_version: probe.version,
            query: probe.query,
            query_hash: queryHash,
            online: online.observation,
            baseline: baseline.observation,
            comparison: verdict.comparison,
            anomaly: verdict.anomaly,
            severity: verdict.severity,
            anomaly_signals: verdict.signals,
          };
        } catch (error) {
          span.recordException(error as Error);
          span.setStatus({ code: SpanStatusCode.ERROR });
          throw error;
        } finally {
          span.end();
        }
      },
    );
  }

  private async observe(side: 'online' | 'baseline', rag: RagPort, probe: GoldenProbe, correlationId: string): Promise<SideOutcome> {
    const started = performance.now();
    const policy = retry(handleWhen(retryable), {
      maxAttempts: this.options.callAttempts - 1,
      backoff: new ExponentialBackoff({ initialDelay: 200, maxDelay: 2000 }),
    });
    let response: QueryResponse;
    try {
      response = await policy.execute(() => rag.query({ query: probe.query }, { timeoutMs: this.options.callTimeoutMs }));
    } catch (error) {
      const observation = failedObservation(error, performance.now() - started);
      await this.options.debug?.record({
        side,
        probe_id: probe.id,
        correlation_id: correlationId,
        request: { query: probe.query },
        error: observation.error_message,
      });
      return { observation };
    }
    const latencyMs = performance.now() - started;
    await this.options.debug?.record({
      side,
      probe_id: probe.id,
      correlation_id: correlationId,
      request: { query: probe.query },
      response,
    });

    const fcs = await this.scoreFcs(side, probe, response);
    const coverage = intentCoverage(probe.query, response.answer, response.abstained ?? false);
    const answeredAt = Date.parse(response.as_of);
    const documents = response.chunks.map((chunk) => ({
      source: chunk.source,
      source_trust: chunk.source_trust,
      retrieval_score: chunk.retrieval_score,
      updated_at: Date.parse(chunk.updated_at),
    }));
    const freshness = knowledgeFreshness(documents, answeredAt, this.options.sourceTrust);
    const observation: ProbeObservation = {
      call_status: 'ok',
      http_status: 200,
      error_message: null,
      trace_id: response.trace_id,
      latency_ms: latencyMs,
      signals: {
        fcs: fcs.status === 'scored' ? fcs.score : null,
        fcs_status: fcs.status,
        fcs_truncated: fcs.truncated,
        ic: coverage.ic,
        kf_as_of: freshness.kf_as_of,
        kf_age_days: freshness.kf_age_days,
      },
      retrieved_documents: response.chunks.map((chunk, index) => ({
        rank: index + 1,
        doc_id: chunk.doc_id,
        chunk_id: chunk.chunk_id,
        knowledge_id: chunk.knowledge_id,
        knowledge_version: chunk.version,
        source: chunk.source,
        source_trust: this.options.sourceTrust[chunk.source] ?? chunk.source_trust,
        updated_at: Date.parse(chunk.updated_at),
        retrieval_score: chunk.retrieval_score,
        rerank_score: chunk.rerank_score ?? null,
      })),
      component_versions: { embedder: response.models.embedder, reranker: response.models.reranker, generator: response.models.generator },
    };
    return { observation, fcs };
  }

  private scoreFcs(side: 'online' | 'baseline', probe: GoldenProbe, response: QueryResponse): Promise<FcsVerdict> {
    return this.options.tracer.startActiveSpan('fcs.score', { attributes: { probe_id: probe.id, side } }, async (span) => {
      try {
        const verdict = await this.options.fcs.score({
          question: probe.query,
          evidence: response.chunks.map((chunk) => ({ id: chunk.chunk_id, text: chunk.text })),
          answer: response.answer,
        });
        span.setAttributes({
          fcs_status: verdict.status,
          truncated: verdict.truncated,
          // The passages behind the score, so an engineer sees in the trace why it fell.
          evidence_snippets: JSON.stringify(verdict.evidence_snippets),
          ...(verdict.score === null ? {} : { score: verdict.score }),
        });
        return verdict;
      } finally {
        span.end();
      }
    });
  }
}
