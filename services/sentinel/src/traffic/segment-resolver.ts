import { LRUCache } from 'lru-cache';

const STOPWORDS = new Set(
  'the and for are but not you all any can had her was one our out has his how its may new now old see way who did get let put say she too use what when where which why with does this that from have into than them then they there these those their about would could should will version package packaged debian'.split(
    ' ',
  ),
);

/** The distinctive words of a text (a query, a knowledge id): lower-cased, filler and punctuation dropped. */
export function distinctiveWords(text: string): string[] {
  const words = text
    .toLowerCase()
    .split(/[^\p{L}\p{N}.+-]+/u)
    .map((w) => w.replace(/^[.+-]+|[.+-]+$/g, ''))
    .filter((w) => w.length >= 3 && !STOPWORDS.has(w));
  return [...new Set(words)];
}

/** One wording of a query: as asked, case and runs of spacing aside. */
const wording = (query: string) => query.toLowerCase().replace(/\s+/g, ' ').trim();

/** The query's cluster key: its distinctive words, sorted (word order and filler do not split a cluster). */
export function querySignature(query: string): string {
  return distinctiveWords(query).sort().join(' ');
}

/** The knowledge a query is usually answered from, and how that is known. */
export interface UsualKnowledge {
  knowledgeId: string;
  /**
   * `exact`: this very cluster was answered from it when healthy. `near`: a rewording not seen
   * healthy yet, whose words only that knowledge's clusters carry (e.g. the name of what it asks about).
   */
  match: 'exact' | 'near';
  /**
   * Exact matches only: a knowledge id that sat beside it in this wording's first healthy context
   * (the next ranks) and is retrieved no more. The answer lost that knowledge: a package's changelog
   * deleted while its binary's entry still ranks first for the changelog's questions (LangChain
   * bench, 17:49).
   */
  lostCompanion?: string;
}

export interface SegmentResolverOptions {
  maxClusters?: number;
  /** A word points to one knowledge id once at least this many of its healthy clusters, and no other id's, carry it. */
  minClustersPerWord?: number;
  /** Other knowledge ids of a wording's first healthy context remembered as its companions (default 2: the next ranks). */
  companionRanks?: number;
}

/**
 * Which knowledge id an answer belongs to. A fault that breaks retrieval (overwritten or deleted
 * vectors) makes a query about X retrieve Y, so the segment cannot be the knowledge retrieved now:
 * it is the knowledge the query's cluster was answered from when first seen healthy.
 *
 * A rewording never seen healthy has no cluster yet, and users reword all the time: without more,
 * its answers would land in the segment of whatever the broken retriever returns instead (the
 * LangChain bench's deleted knowledge went unseen that way, 2026-12-07). So a new cluster whose
 * distinctive words point to one knowledge id (every healthy cluster carrying them was answered
 * from it) is resolved to that id when nothing retrieved now explains the query's words (no
 * retrieved id is the id one of them points to, or carries in its name one that points nowhere
 * else): a `near` match. Being a guess, it is not learned: the cluster is kept pending with what it
 * retrieved, and learned from that once a check against the baseline finds it healthy
 * (`checkedHealthy`, `segmentCleared`).
 */
export class SegmentResolver {
  private readonly learned: LRUCache<string, string>;
  /**
   * Per wording (the query as asked, case and spacing aside): the other knowledge ids of its first
   * healthy context, in rank order. Per wording, not per cluster: retrieval is deterministic for one
   * wording only, and the next ranks differ between a cluster's wordings (the reference run of 02:39
   * replayed, 8,478 answers: kept per cluster, 66 losses on knowledge no fault touched; per wording, none).
   */
  private readonly companions: LRUCache<string, readonly string[]>;
  /** Word to the knowledge ids whose learned clusters carry it, with how many clusters. */
  private readonly postings = new Map<string, Map<string, number>>();
  /** Near-matched clusters whose usual knowledge was missing: signature to the segment and the id retrieved instead. */
  private readonly pending: LRUCache<string, { segment: string; retrieved: string }>;
  private readonly minClustersPerWord: number;
  private readonly companionRanks: number;

  constructor(options: SegmentResolverOptions = {}) {
    const max = options.maxClusters ?? 50_000;
    this.minClustersPerWord = options.minClustersPerWord ?? 2;
    this.companionRanks = options.companionRanks ?? 2;
    this.learned = new LRUCache({ max, dispose: (knowledgeId, key) => this.index(key, knowledgeId, -1) });
    this.companions = new LRUCache({ max });
    this.pending = new LRUCache({ max: Math.max(1, Math.floor(max / 10)) });
  }

  /** The knowledge this query's cluster was answered from when healthy, if known. */
  usualKnowledgeOf(query: string): string | undefined {
    return this.learned.get(querySignature(query));
  }

  /**
   * The knowledge this query is usually answered from: its own cluster's, else a near match
   * (never one of `retrievedNow`, and only when none of them explains the query's words).
   */
  usualKnowledge(query: string, retrievedNow: readonly string[] = []): UsualKnowledge | undefined {
    const key = querySignature(query);
    if (key === '') return undefined;
    const exact = this.learned.get(key);
    if (exact !== undefined) {
      const companions = this.companions.get(wording(query)) ?? [];
      const lost = retrievedNow.length === 0 ? undefined : companions.find((id) => !retrievedNow.includes(id));
      return { knowledgeId: exact, match: 'exact', ...(lost === undefined ? {} : { lostCompanion: lost }) };
    }
    const words = key.split(' ');
    let near: string | undefined;
    for (const word of words) {
      const id = this.pointsTo(word);
      if (id === undefined) continue;
      if (near !== undefined && near !== id) return undefined;
      near = id;
    }
    if (near === undefined || retrievedNow.includes(near)) return undefined;
    if (retrievedNow.some((id) => this.explains(id, words))) return undefined;
    return { knowledgeId: near, match: 'near' };
  }

  /**
   * Records the knowledge a healthy answer to the query came from (the first one sticks), and the
   * other knowledge ids of its context (`context`: the context's knowledge ids in rank order).
   */
  learn(query: string, knowledgeId: string, context: readonly string[] = []): void {
    const key = querySignature(query);
    if (key === '') return;
    this.learnSignature(key, knowledgeId);
    const asked = wording(query);
    if (!this.companions.has(asked))
      this.companions.set(asked, [...new Set(context)].filter((id) => id !== knowledgeId).slice(0, this.companionRanks));
  }

  /** A near-matched answer's usual knowledge was missing: what it retrieved instead, learned only if found healthy. */
  holdPending(query: string, segment: string, retrieved: string): void {
    const key = querySignature(query);
    if (key !== '' && !this.learned.has(key)) this.pending.set(key, { segment, retrieved });
  }

  /** A check against the baseline found this query's online answer healthy: a pending cluster is learned. */
  checkedHealthy(query: string): void {
    const key = querySignature(query);
    const held = this.pending.get(key);
    if (held !== undefined) this.learnSignature(key, held.retrieved);
  }

  /** The segment's shadow replay agreed with the baseline: its pending clusters were healthy after all. */
  segmentCleared(segment: string): void {
    for (const [key, held] of [...this.pending.entries()]) if (held.segment === segment) this.learnSignature(key, held.retrieved);
  }

  segmentOf(query: string, retrievedNow: string | undefined): string | undefined {
    return this.usualKnowledge(query, retrievedNow === undefined ? [] : [retrievedNow])?.knowledgeId ?? retrievedNow;
  }

  private learnSignature(key: string, knowledgeId: string): void {
    this.pending.delete(key);
    if (this.learned.has(key)) return;
    this.learned.set(key, knowledgeId);
    this.index(key, knowledgeId, +1);
  }

  /** The one knowledge id whose clusters (enough of them, and no other id's) carry the word. */
  private pointsTo(word: string): string | undefined {
    const ids = this.postings.get(word);
    if (ids?.size !== 1) return undefined;
    const [id, clusters] = [...ids][0]!;
    return clusters >= this.minClustersPerWord ? id : undefined;
  }

  /**
   * The retrieved id accounts for one of the query's words: the word points to it, or its name
   * carries a word that points to no other id. A word the healthy answers tie to another id is no
   * explanation even in this id's name: a package's changelog and its binary share the name, and
   * with the changelog's points deleted its questions retrieve the binary (LangChain bench, 18:00).
   */
  private explains(knowledgeId: string, words: readonly string[]): boolean {
    const name = new Set(distinctiveWords(knowledgeId));
    return words.some((w) => {
      const pointed = this.pointsTo(w);
      return pointed === knowledgeId || (pointed === undefined && name.has(w));
    });
  }

  private index(key: string, knowledgeId: string, delta: 1 | -1): void {
    for (const word of key.split(' ')) {
      const ids = this.postings.get(word) ?? new Map<string, number>();
      const count = (ids.get(knowledgeId) ?? 0) + delta;
      if (count > 0) ids.set(knowledgeId, count);
      else ids.delete(knowledgeId);
      if (ids.size > 0) this.postings.set(word, ids);
      else this.postings.delete(word);
    }
  }
}
