import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { context, type Tracer } from '@opentelemetry/api';
import { inSpan } from '@rag-immune/worker-runtime';
import { ConsecutiveBreaker, TimeoutStrategy, circuitBreaker, handleAll, timeout, wrap, type IPolicy } from 'cockatiel';
import { RecommendRequest, type ParsedRecommendRequest, type Recommendation } from '@rag-immune/memory-client';
import { embeddingText, signatureText, symptomOverlap, type CaseSignature, type HealingCase } from '../cases/healing-case.ts';
import type { CaseFilter, CaseStore, ScoredId } from '../cases/case-store.ts';
import type { SignatureEmbedder } from '../cases/case-recorder.ts';
import type { RetrievalAudit, RetrievalAuditRecord } from '../audit/retrieval-audit.ts';
import type { MemoryMetrics } from '../metrics.ts';
import { reciprocalRankFusion } from './rrf.ts';
import { rankStrategies, rankingSimilarity, type StrategyRanking } from './strategy-ranking.ts';
import type { ExpertRules } from './expert-rules.ts';

export interface RecommenderOptions {
  threshold: number;
  halfLifeDays: number;
  candidates: number;
  storeTimeoutMs: number;
  /** Most citations returned. */
  maxCitations?: number;
  rrfK?: number;
}

interface Retrieved {
  vector: ScoredId[];
  bm25: ScoredId[];
  /** similarity: the embedding cosine; symptom_overlap: of the case's signature with the incident's. */
  fused: { case_id: string; rrf: number; similarity: number; symptom_overlap: number; healingCase: HealingCase }[];
}

/**
 * POST /recommend: hard metadata filters inside both stores, vector (Qdrant) and BM25
 * (Elasticsearch) candidates fused by reciprocal rank fusion, then intents ranked by observed
 * success weighted by similarity and recency. Below the similarity threshold, or with a store
 * unreachable, the expert rules answer and the reply says why. Every call is audited.
 */
export class Recommender {
  private readonly storePolicy: IPolicy;

  constructor(
    private readonly store: CaseStore,
    private readonly embedder: SignatureEmbedder,
    private readonly rules: ExpertRules,
    private readonly audit: RetrievalAudit,
    private readonly metrics: MemoryMetrics,
    private readonly tracer: Tracer,
    private readonly logger: Logger,
    private readonly options: RecommenderOptions,
    private readonly clock: () => number = Date.now,
  ) {
    // A dead store costs one timeout per call at most, and nothing once the breaker opens.
    this.storePolicy = wrap(
      circuitBreaker(handleAll, { halfOpenAfter: 5_000, breaker: new ConsecutiveBreaker(3) }),
      timeout(options.storeTimeoutMs, TimeoutStrategy.Aggressive),
    );
  }

  async recommend(body: unknown): Promise<Recommendation> {
    const request = RecommendRequest.parse(body);
    return inSpan(
      this.tracer,
      'memory.recommend',
      { 'rag_immune.incident_id': request.incident_id, 'rag_immune.root_cause': request.root_cause },
      context.active(),
      async (span) => {
        const answer = await this.answer(request);
        span.setAttributes({
          'memory.source': answer.source,
          'memory.degraded': answer.degraded,
          'memory.reason': answer.reason,
          'memory.citations': answer.citations.length,
        });
        return answer;
      },
    );
  }

  private async answer(request: ParsedRecommendRequest): Promise<Recommendation> {
    const started = performance.now();
    const auditId = randomUUID();
    const filter: CaseFilter = {
      environment: request.environment,
      root_cause: request.root_cause,
      affected_component: request.affected_component,
      excludeIncidentId: request.incident_id,
    };
    const signature = signatureOf(request);
    const queryText = signatureText(signature);
    let retrieved: Retrieved | null = null;
    let error: string | null = null;
    try {
      const [vector] = await this.embedder.embed([embeddingText(signature)]);
      if (vector === undefined) throw new Error('embedder returned no vector');
      retrieved = await this.storePolicy.execute(() => this.retrieve(vector, queryText, signature, filter));
    } catch (caught) {
      error = caught instanceof Error ? `${caught.name}: ${caught.message}` : String(caught);
      this.logger.warn(
        { incident_id: request.incident_id, audit_id: auditId, err: error },
        'case stores unreachable; answering from rules',
      );
    }

    let answer: Recommendation;
    let ranking: StrategyRanking | null = null;
    if (retrieved === null) {
      answer = this.fromRules(request, auditId, 'store_unavailable', true, null, []);
    } else {
      const topSimilarity = retrieved.fused.reduce<number | null>(
        (best, c) => (best === null || c.similarity > best ? c.similarity : best),
        null,
      );
      const similar = retrieved.fused.filter((c) => c.similarity >= this.options.threshold);
      if (similar.length === 0) {
        const reason = retrieved.fused.length === 0 ? 'no_candidate_cases' : 'below_similarity_threshold';
        answer = this.fromRules(request, auditId, reason, false, topSimilarity, []);
      } else {
        // Which cases weigh most: the embedding's similarity scaled by the symbolic overlap of
        // symptoms (the threshold above stays on the embedding alone).
        const weighted = similar.map((c) => ({
          healingCase: c.healingCase,
          similarity: rankingSimilarity(c.similarity, c.symptom_overlap),
        }));
        ranking = rankStrategies(weighted, {
          now: this.clock(),
          halfLifeDays: this.options.halfLifeDays,
          excludeIntents: request.exclude_intents,
        });
        if (ranking.strategy.length === 0) {
          const cited = similar.sort((a, b) => b.similarity - a.similarity).slice(0, this.options.maxCitations ?? 5);
          answer = this.fromRules(request, auditId, 'no_successful_strategy_in_similar_cases', false, topSimilarity, cited);
        } else {
          // Citations carry the embedding similarity, the figure the threshold and top_similarity speak of.
          const embedded = new Map(similar.map((c) => [c.healingCase.case_id, c.similarity]));
          const cited = ranking.supporting
            .slice(0, this.options.maxCitations ?? 5)
            .map((c) => ({ healingCase: c.healingCase, similarity: embedded.get(c.healingCase.case_id) ?? c.similarity }));
          answer = {
            incident_id: request.incident_id,
            source: 'cases',
            degraded: false,
            strategy: ranking.strategy.map((e) => ({ intent: e.intent, tool: e.tool })),
            confidence: round(ranking.confidence),
            top_similarity: topSimilarity === null ? null : round(topSimilarity),
            citations: cited.map((c) => citation(c.healingCase, c.similarity)),
            rules_version: null,
            reason: 'similar_cases',
            audit_id: auditId,
          };
          void this.touch(cited.map((c) => c.healingCase.case_id));
        }
      }
    }
    const latencyMs = performance.now() - started;
    this.metrics.recordAnswer(answer.source, answer.degraded, answer.reason, latencyMs / 1000);
    this.audit.record(this.auditRecord(request, queryText, filter, retrieved, ranking, answer, error, latencyMs));
    return answer;
  }

  private async retrieve(vector: Float32Array, text: string, signature: CaseSignature, filter: CaseFilter): Promise<Retrieved> {
    const budget = { timeoutMs: this.options.storeTimeoutMs };
    const [vectorHits, bm25Hits] = await Promise.all([
      this.store.nearest(vector, filter, this.options.candidates),
      this.store.bm25(text, filter, this.options.candidates, budget),
    ]);
    const fused = reciprocalRankFusion([vectorHits.map((h) => h.case_id), bm25Hits.map((h) => h.case_id)], this.options.rrfK ?? 60).slice(
      0,
      this.options.candidates,
    );
    const similarity = new Map(vectorHits.map((h) => [h.case_id, clamp01(h.score)]));
    const missing = fused.map((f) => f.id).filter((id) => !similarity.has(id));
    if (missing.length > 0) {
      for (const [id, stored] of await this.store.vectorsOf(missing)) similarity.set(id, clamp01(cosine(vector, stored)));
    }
    const cases = new Map(
      (
        await this.store.many(
          fused.map((f) => f.id),
          budget,
        )
      ).map((c) => [c.case_id, c]),
    );
    return {
      vector: vectorHits,
      bm25: bm25Hits,
      fused: fused.flatMap((f) => {
        const healingCase = cases.get(f.id);
        // The filters again on the documents: the Qdrant payload may lag a status change.
        if (
          healingCase === undefined ||
          healingCase.card.status !== 'active' ||
          healingCase.incident_id === filter.excludeIncidentId ||
          healingCase.environment !== filter.environment
        )
          return [];
        return [
          {
            case_id: f.id,
            rrf: f.score,
            similarity: similarity.get(f.id) ?? 0,
            symptom_overlap: symptomOverlap(signature, healingCase.signature),
            healingCase,
          },
        ];
      }),
    };
  }

  private fromRules(
    request: ParsedRecommendRequest,
    auditId: string,
    reason: string,
    degraded: boolean,
    topSimilarity: number | null,
    cited: { healingCase: HealingCase; similarity: number }[],
  ): Recommendation {
    const decision = this.rules.decide(request);
    return {
      incident_id: request.incident_id,
      source: 'rules',
      degraded,
      strategy: decision.strategy,
      confidence: decision.confidence,
      top_similarity: topSimilarity === null ? null : round(topSimilarity),
      citations: cited.map((c) => citation(c.healingCase, c.similarity)),
      rules_version: this.rules.version,
      reason: `${reason}; rule ${decision.rule_id}`,
      audit_id: auditId,
    };
  }

  /** Access count and last use of cited cases (importance by use, seed 004 §4.1); best-effort. */
  private async touch(caseIds: string[]): Promise<void> {
    const now = new Date(this.clock()).toISOString();
    for (const caseId of caseIds) {
      for (let attempt = 0; attempt < 3; attempt++) {
        try {
          const stored = await this.store.get(caseId);
          if (stored === null) break;
          const next = structuredClone(stored.healingCase);
          next.card.access_count += 1;
          next.card.last_used_at = now;
          await this.store.write(next, stored);
          break;
        } catch (error) {
          if (attempt === 2) this.logger.debug({ case_id: caseId, err: String(error) }, 'access count not updated');
        }
      }
    }
  }

  private auditRecord(
    request: ParsedRecommendRequest,
    queryText: string,
    filter: CaseFilter,
    retrieved: Retrieved | null,
    ranking: StrategyRanking | null,
    returned: Recommendation,
    error: string | null,
    latencyMs: number,
  ): RetrievalAuditRecord {
    return {
      audit_id: returned.audit_id,
      at: new Date(this.clock()).toISOString(),
      incident_id: request.incident_id,
      request,
      query_text: queryText,
      filters: { ...filter, status: 'active' },
      vector_candidates: retrieved?.vector ?? [],
      bm25_candidates: retrieved?.bm25 ?? [],
      fused: (retrieved?.fused ?? []).map((f) => ({
        case_id: f.case_id,
        rrf: f.rrf,
        similarity: f.similarity,
        symptom_overlap: f.symptom_overlap,
        status: f.healingCase.card.status,
        outcome: f.healingCase.outcome,
      })),
      threshold: this.options.threshold,
      intent_evidence: (ranking?.evidence ?? []).map((e) => ({
        intent: e.intent,
        score: e.score,
        success_weight: e.successWeight,
        failure_weight: e.failureWeight,
      })),
      returned,
      error,
      latency_ms: latencyMs,
    };
  }
}

/** The incident a request describes, as a case signature. */
function signatureOf(request: ParsedRecommendRequest): CaseSignature {
  return {
    report_event_id: '',
    report_revision: 0,
    root_cause: request.root_cause,
    affected_component: request.affected_component,
    confidence: 0,
    claims: request.claims.map((c) => ({ ...c, subject: '' })),
    affected_knowledge_ids: [...new Set(request.affected_knowledge_ids)].sort(),
    window_start: 0,
  };
}

function citation(healingCase: HealingCase, similarity: number): Recommendation['citations'][number] {
  return {
    case_id: healingCase.case_id,
    similarity: round(clamp01(similarity)),
    outcome: healingCase.outcome,
    intents: healingCase.intents,
  };
}

export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

const clamp01 = (x: number) => Math.min(1, Math.max(0, x));
const round = (x: number) => Math.round(x * 10_000) / 10_000;
