import { boolean, date, float, keyword, text, type DocumentStore, type DocumentStores, type IndexSpec } from '@rag-immune/es-store';
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

const AUDIT_MAPPINGS: IndexSpec['mappings'] = {
  dynamic: false,
  properties: {
    audit_id: keyword,
    at: date,
    incident_id: keyword,
    query_text: text,
    threshold: float,
    latency_ms: float,
    error: text,
    returned: {
      properties: {
        source: keyword,
        degraded: boolean,
        reason: keyword,
        confidence: float,
        top_similarity: float,
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

  private readonly docs: DocumentStore<RetrievalAuditRecord>;

  constructor(
    stores: DocumentStores,
    readonly index: string,
    private readonly logger: Logger,
  ) {
    this.docs = stores.open<RetrievalAuditRecord>({ name: index, mappings: AUDIT_MAPPINGS });
  }

  ensure(): Promise<void> {
    return this.docs.ensureIndex();
  }

  record(entry: RetrievalAuditRecord): void {
    const write = this.docs
      .put(entry.audit_id, entry, { timeoutMs: 5000 })
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
      return (await this.docs.get(auditId))?.doc ?? null;
    } catch {
      return null;
    }
  }
}
