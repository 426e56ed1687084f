import { LRUCache } from 'lru-cache';
import { RagHttpError, type KnowledgeFreshness } from '@rag-immune/rag-contract';
import type { UserAnswer } from '../user-answer.ts';
import type { AnswerSignal, SignalReading } from './answer-signal.ts';

export interface FeedFreshnessOptions {
  /** The online RAG's GET /knowledge/{id}; undefined where the RAG offers none. */
  lookup: ((knowledgeId: string) => Promise<KnowledgeFreshness>) | undefined;
  /** How long one lookup's answer is reused. */
  cacheTtlMs: number;
  /** Lookups per minute at most (each is a call to the user's RAG). */
  maxLookupsPerMinute: number;
  now?: () => number;
}

/**
 * Knowledge behind or ahead of its feed: the version an answer's context carries against what the
 * knowledge's active feed publishes (the RAG's GET /knowledge/{id}). Lookups are cached and their rate
 * bounded; a RAG that answers 404 is not asked again for a cache lifetime. Answers whose knowledge
 * was not looked up are not measured.
 */
export function feedFreshness(options: FeedFreshnessOptions): AnswerSignal {
  const now = options.now ?? Date.now;
  const cache = new LRUCache<string, KnowledgeFreshness>({ max: 10_000, ttl: options.cacheTtlMs });
  let notServedUntil = 0;
  let windowStart = 0;
  let lookupsInWindow = 0;

  const freshnessOf = async (knowledgeId: string): Promise<KnowledgeFreshness | undefined> => {
    const cached = cache.get(knowledgeId);
    if (cached !== undefined || options.lookup === undefined || now() < notServedUntil) return cached;
    if (now() - windowStart >= 60_000) {
      windowStart = now();
      lookupsInWindow = 0;
    }
    if (lookupsInWindow >= options.maxLookupsPerMinute) return undefined;
    lookupsInWindow++;
    try {
      const freshness = await options.lookup(knowledgeId);
      cache.set(knowledgeId, freshness);
      return freshness;
    } catch (error) {
      if (error instanceof RagHttpError && error.status === 404) notServedUntil = now() + options.cacheTtlMs;
      return undefined;
    }
  };

  return {
    name: 'feed_mismatch',
    async read(answer: UserAnswer): Promise<SignalReading | null> {
      const chunk = answer.trace.context[0];
      if (chunk === undefined) return null;
      const freshness = await freshnessOf(chunk.knowledge_id);
      if (freshness === undefined) return null;
      // The feed knows no such id: knowledge served that no feed publishes.
      if (freshness.feed === null) return { signal: 'feed_mismatch', bad: true, detail: `${chunk.knowledge_id}: no feed publishes it` };
      if (freshness.feed.version === chunk.version) return { signal: 'feed_mismatch', bad: false };
      const served = Date.parse(chunk.valid_from);
      const published = Date.parse(freshness.feed.valid_from);
      const direction = served < published ? 'behind' : 'ahead of';
      return {
        signal: 'feed_mismatch',
        bad: true,
        detail: `${chunk.knowledge_id}: served version ${chunk.version} is ${direction} the feed's ${freshness.feed.version}`,
      };
    },
  };
}
