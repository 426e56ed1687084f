import type { Client } from '@elastic/elasticsearch';
import type { Logger } from 'pino';
import type { ParsedRecommendRequest, Recommendation } from '@rag-immune/memory-client';

/** One /recommend call as it happened: what was asked, what each channel found, what was returned. */
export interface RetrievalAuditRecord {
  audit_id: string;
  at: string;
  incident_id: string;
  request: ParsedRecommendRequest;
  query_text: string;
  filters: Record<string, unknown>;
  vector_candidates: { case_id: string; score: number }[];
  bm25_candidates: { case_id: string; score: number }[];
  fused: { case_id: string; rrf: number; similarity: number | null; symptom_overlap?: number; status?: string; outcome?: string }[];
  threshold: number;
  intent_evidence: { intent: string; score: number; success_weight: number; failure_weight: number }[];
  returned: Recommendation;
  error: string | null;
  latency_ms: number;
}

const AUDIT_MAPPINGS = {
  dynamic: false as const,
  properties: {
    audit_id: { type: 'keyword' as const },
    at: { type: 'date' as const },
    incident_id: { type: 'keyword' as const },
    query_text: { type: 'text' as const },
    threshold: { type: 'float' as const },
    latency_ms: { type: 'float' as const },
    error: { type: 'text' as const },
    returned: {
      properties: {
        source: { type: 'keyword' as const },
        degraded: { type: 'boolean' as const },
        reason: { type: 'keyword' as const },
        confidence: { type: 'float' as const },
        top_similarity: { type: 'float' as const },
      },
    },
  },
};

/**
 * The retrieval audit log of seed 004 §6.5 in Elasticsearch: replaying a call shows whether a case
 * was filtered out, ranked low by both channels, or lost in the strategy ranking. Writes are
 * best-effort and off the request path (an unreachable store must not block /recommend); a lost
 * record is logged with its id.
 */
export class RetrievalAudit {
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly es: Client,
    readonly index: string,
    private readonly logger: Logger,
  ) {}

  async ensure(): Promise<void> {
    if (await this.es.indices.exists({ index: this.index })) return;
    try {
      await this.es.indices.create({ index: this.index, mappings: AUDIT_MAPPINGS });
    } catch (error) {
      if (!JSON.stringify((error as { body?: unknown }).body ?? '').includes('resource_already_exists_exception')) throw error;
    }
  }

  record(entry: RetrievalAuditRecord): void {
    const write = this.es
      .index({ index: this.index, id: entry.audit_id, document: entry }, { requestTimeout: 5000, maxRetries: 1 })
      .then(() => undefined)
      .catch((error: unknown) => {
        this.logger.warn(
          { audit_id: entry.audit_id, err: error instanceof Error ? error.message : String(error) },
          'retrieval audit record not written',
        );
      })
      .finally(() => this.pending.delete(write));
    this.pending.add(write);
  }

  /** Waits for the writes in flight (shutdown, tests). */
  async flush(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  async get(auditId: string): Promise<RetrievalAuditRecord | null> {
    try {
      const doc = await this.es.get<RetrievalAuditRecord>({ index: this.index, id: auditId });
      return doc._source ?? null;
    } catch {
      return null;
    }
  }
}
