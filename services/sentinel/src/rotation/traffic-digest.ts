import { querySignature } from '../traffic/segment-resolver.ts';
import { topKnowledgeId, topRetrievalScore, type UserAnswer } from '../traffic/user-answer.ts';

/** One cluster of similar user queries over the rotation window. Its text is the intake's redacted query. */
export interface TrafficCluster {
  /** The cluster key: the query's distinctive words (the traffic watcher's segmentation). */
  signature: string;
  /** The knowledge its answers were drawn from most often; undefined when none was retrieved. */
  knowledge_id: string | undefined;
  /** The wording users typed most often, as the intake stored it (redacted). */
  query: string;
  asks: number;
  /** Answers with nothing retrieved or a top retrieval score below the low-score bound. */
  weak: number;
}

interface Tally {
  asks: number;
  weak: number;
  texts: Map<string, number>;
  knowledge: Map<string, number>;
}

function mostCommon(counts: ReadonlyMap<string, number>): string | undefined {
  let best: [string, number] | undefined;
  for (const entry of counts) if (best === undefined || entry[1] > best[1] || (entry[1] === best[1] && entry[0] < best[0])) best = entry;
  return best?.[0];
}

/**
 * Counts the users' answers of the window per query cluster: how often each was asked, how often
 * its answer was weak, which knowledge answered it. Only counts and the redacted wording are kept.
 */
export class TrafficDigest {
  private readonly tallies = new Map<string, Tally>();
  private total = 0;

  constructor(private readonly lowScore: number) {}

  add(answer: UserAnswer): void {
    const query = answer.trace.query.trim();
    const signature = querySignature(query);
    if (signature === '') return;
    this.total++;
    const tally = this.tallies.get(signature) ?? { asks: 0, weak: 0, texts: new Map(), knowledge: new Map() };
    tally.asks++;
    const score = topRetrievalScore(answer.trace);
    if (score === undefined || score < this.lowScore) tally.weak++;
    tally.texts.set(query, (tally.texts.get(query) ?? 0) + 1);
    const knowledge = topKnowledgeId(answer);
    if (knowledge !== undefined) tally.knowledge.set(knowledge, (tally.knowledge.get(knowledge) ?? 0) + 1);
    this.tallies.set(signature, tally);
  }

  get answers(): number {
    return this.total;
  }

  clusters(): TrafficCluster[] {
    return [...this.tallies].map(([signature, t]) => ({
      signature,
      knowledge_id: mostCommon(t.knowledge),
      query: mostCommon(t.texts)!,
      asks: t.asks,
      weak: t.weak,
    }));
  }
}
