import { LRUCache } from 'lru-cache';

const STOPWORDS = new Set(
  'the and for are but not you all any can had her was one our out has his how its may new now old see way who did get let put say she too use what when where which why with does this that from have into than them then they there these those their about would could should will version package packaged debian'.split(
    ' ',
  ),
);

/** The query's cluster key: its distinctive words, lower-cased and sorted (word order and filler do not split a cluster). */
export function querySignature(query: string): string {
  const words = query
    .toLowerCase()
    .split(/[^\p{L}\p{N}.+-]+/u)
    .map((w) => w.replace(/^[.+-]+|[.+-]+$/g, ''))
    .filter((w) => w.length >= 3 && !STOPWORDS.has(w));
  return [...new Set(words)].sort().join(' ');
}

/**
 * Which knowledge id an answer belongs to. A fault that breaks retrieval (overwritten or deleted
 * vectors) makes a query about X retrieve Y, so the segment cannot be the knowledge retrieved now:
 * it is the knowledge the query's cluster was answered from when first seen healthy, and only for
 * a cluster never seen before the knowledge retrieved now.
 */
export class SegmentResolver {
  private readonly learned: LRUCache<string, string>;

  constructor(maxClusters = 50_000) {
    this.learned = new LRUCache({ max: maxClusters });
  }

  /** The knowledge this query's cluster was answered from when healthy, if known. */
  usualKnowledgeOf(query: string): string | undefined {
    return this.learned.get(querySignature(query));
  }

  /** Records the knowledge a healthy answer to the query came from (the first one sticks). */
  learn(query: string, knowledgeId: string): void {
    const key = querySignature(query);
    if (key !== '' && !this.learned.has(key)) this.learned.set(key, knowledgeId);
  }

  segmentOf(query: string, retrievedNow: string | undefined): string | undefined {
    return this.usualKnowledgeOf(query) ?? retrievedNow;
  }
}
