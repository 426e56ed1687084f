import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { Counter, Gauge, Registry } from 'prom-client';
import { normaliseForKey } from './key-facts.ts';

export interface ScoreCacheOptions {
  /** Entries kept; least recently used go first. */
  max?: number;
  ttlMs?: number;
  /** Where the hit/miss metrics register; the sentinel passes its own. */
  registry?: Registry;
}

export const SCORE_CACHE_TTL_MS = 60 * 60 * 1000;

/**
 * The cache key: the normalised key facts and wording of question and answer (case, punctuation,
 * date and unit spellings do not matter) plus the evidence ids in order. Evidence is identified by
 * id, not text, so ids must change when a passage's content changes (the scorer hashes the text
 * when a caller gives no id).
 */
export function scoreCacheKey(question: string, answer: string, evidenceIds: readonly string[]): string {
  return createHash('sha256')
    .update(JSON.stringify([normaliseForKey(question), normaliseForKey(answer), evidenceIds]))
    .digest('hex');
}

/** LRU of scored results (1 hour TTL) with hit/miss counters and a hit-ratio gauge. */
export class ScoreCache<V extends object> {
  private readonly cache: LRUCache<string, V>;
  private hits = 0;
  private misses = 0;
  private readonly hitCounter: Counter;
  private readonly missCounter: Counter;

  constructor(options: ScoreCacheOptions = {}) {
    this.cache = new LRUCache<string, V>({ max: options.max ?? 10_000, ttl: options.ttlMs ?? SCORE_CACHE_TTL_MS });
    const registers = [options.registry ?? new Registry()];
    this.hitCounter = new Counter({ name: 'rag_immune_fcs_cache_hits_total', help: 'FCS score cache hits', registers });
    this.missCounter = new Counter({ name: 'rag_immune_fcs_cache_misses_total', help: 'FCS score cache misses', registers });
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the gauge reads the ratio at scrape time
    const cache = this;
    new Gauge({
      name: 'rag_immune_fcs_cache_hit_ratio',
      help: 'FCS score cache hits / lookups since start',
      registers,
      collect() {
        this.set(cache.hitRatio());
      },
    });
  }

  get(key: string): V | undefined {
    const value = this.cache.get(key);
    if (value === undefined) {
      this.misses += 1;
      this.missCounter.inc();
    } else {
      this.hits += 1;
      this.hitCounter.inc();
    }
    return value;
  }

  set(key: string, value: V): void {
    this.cache.set(key, value);
  }

  hitRatio(): number {
    const lookups = this.hits + this.misses;
    return lookups === 0 ? 0 : this.hits / lookups;
  }

  stats(): { hits: number; misses: number; hitRatio: number; size: number } {
    return { hits: this.hits, misses: this.misses, hitRatio: this.hitRatio(), size: this.cache.size };
  }
}
