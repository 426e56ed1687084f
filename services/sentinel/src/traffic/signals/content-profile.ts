import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { querySignature } from '../segment-resolver.ts';
import type { UserAnswer } from '../user-answer.ts';
import type { AnswerSignal, SegmentView, SignalReading } from './answer-signal.ts';

export interface ContentProfileOptions {
  /**
   * An answer is novel when at least this share of its segment's own context chunks (content keys),
   * or of its key facts, were never seen in the clean answers to the same question cluster (0..1].
   */
  novelShare: number;
  /**
   * Whether key facts are judged too (default true). Off for a RAG whose LLM samples: each sample
   * states other numbers and names, so novel facts are the clean rate there (the LangChain RAG on
   * Gemma at 0.7: 66 % of its clean answers, 2026-12-07), while retrieval stays deterministic and its
   * context still tells a fault.
   */
  facts?: boolean;
  /** Question clusters remembered (the oldest forgotten first). */
  maxClusters?: number;
  /** Novel items held per segment until a replay rejection teaches them. */
  maxPendingPerSegment?: number;
}

interface ClusterProfile {
  /** Content keys (knowledge id, version, text hash) of the segment's own chunks its clean answers were built from. */
  ownKeys: Set<string>;
  /** Whether a clean answer of the cluster had any chunk of the segment's own knowledge. */
  hadOwn: boolean;
  /** Key facts (versions, numbers, names) its clean answers stated. */
  facts: Set<string>;
}

interface Observed {
  cluster: string;
  ownKeys: string[];
  facts: string[];
}

/** One chunk's content, as the user saw it: which knowledge, which version, which text. */
export function contentKey(chunk: { knowledge_id: string; version: string; text: string }): string {
  const text = createHash('sha256').update(chunk.text.replace(/\s+/g, ' ').trim()).digest('hex').slice(0, 16);
  return `${chunk.knowledge_id}@${chunk.version}#${text}`;
}

/**
 * The answer's key facts: tokens with a digit (versions, dates, numbers, sizes) and capitalised words
 * not opening a sentence (names), lower-cased; those already in the query are not facts the answer
 * brought (the package's own name). Redaction placeholders are not facts.
 */
export function keyFacts(answer: string, query: string): string[] {
  const asked = new Set(query.toLowerCase().split(/[^\p{L}\p{N}.:~+-]+/u));
  const facts = new Set<string>();
  const sentences = answer.split(/(?<=[.!?])\s+/);
  for (const sentence of sentences) {
    const words = sentence.split(/[\s,;()"'`]+/).filter(Boolean);
    words.forEach((raw, i) => {
      const word = raw.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
      if (word === '' || /^\[?redacted/i.test(word)) return;
      const hasDigit = /\p{N}/u.test(word);
      const name = i > 0 && /^\p{Lu}[\p{L}-]{2,}$/u.test(word);
      if (!hasDigit && !name) return;
      const fact = word.toLowerCase();
      if (!asked.has(fact)) facts.add(fact);
    });
  }
  return [...facts];
}

const novelShareOf = (items: readonly string[], known: ReadonlySet<string>) =>
  items.length === 0 ? 0 : items.filter((item) => !known.has(item)).length / items.length;

/**
 * A per-question-cluster content profile (issue 38, the watcher's blind spot): the content keys of
 * the segment's own chunks and the key facts that the clean answers to a question cluster were built
 * from. A fault that leaves a faithful answer to well-retrieved but different content (a stale feed's
 * old version, re-parsed chunks, zeroed vectors pulling other chunks, a generator stating another
 * fact) moves no other signal; it changes what a question already answered cleanly is answered from,
 * or what the answer states. Profiled per cluster (the query's distinctive words, as segments are),
 * not per segment: a question asked for the first time is new, not novel, so it is learned and not
 * measured, and retrieval is deterministic for one wording, so clean repeats stay quiet.
 *
 * A clean answer (not novel) teaches its cluster. A novel answer's items are held per segment, never
 * learned on their own (a fault that persists would otherwise teach itself after one answer): they
 * are learned when the segment's shadow replay is rejected (`segmentCleared`: the frozen baseline
 * agrees, the drift is not a fault) and dropped when it is confirmed.
 */
export class ContentProfile implements AnswerSignal {
  readonly name = 'content_novel';
  private readonly clusters: LRUCache<string, ClusterProfile>;
  private readonly pending = new Map<string, Observed[]>();
  private readonly maxPending: number;

  constructor(private readonly options: ContentProfileOptions) {
    if (!(options.novelShare > 0 && options.novelShare <= 1))
      throw new RangeError(`novelShare must be in (0, 1], got ${options.novelShare}`);
    this.clusters = new LRUCache({ max: options.maxClusters ?? 50_000 });
    this.maxPending = options.maxPendingPerSegment ?? 200;
  }

  read(answer: UserAnswer, view: SegmentView): Promise<SignalReading | null> {
    const { trace } = answer;
    const cluster = querySignature(trace.query);
    if (cluster === '' || trace.abstained === true) return Promise.resolve(null);
    const own = trace.context.filter((c) => c.knowledge_id === view.segment).map(contentKey);
    const observed: Observed = { cluster, ownKeys: own, facts: keyFacts(trace.answer, trace.query) };
    const key = `${view.segment}\u0000${cluster}`;
    const profile = this.clusters.get(key);
    if (profile === undefined) {
      this.learn(key, observed);
      return Promise.resolve(null);
    }
    const contextNovel = profile.hadOwn && (own.length === 0 || novelShareOf(own, profile.ownKeys) >= this.options.novelShare);
    const factsNovel =
      this.options.facts !== false &&
      observed.facts.length > 0 &&
      profile.facts.size > 0 &&
      novelShareOf(observed.facts, profile.facts) >= this.options.novelShare;
    if (!contextNovel && !factsNovel) {
      this.learn(key, observed);
      return Promise.resolve({ signal: this.name, bad: false });
    }
    const held = this.pending.get(view.segment) ?? [];
    held.push(observed);
    this.pending.set(view.segment, held.slice(-this.maxPending));
    const kind = contextNovel ? 'novel_context' : 'novel_facts';
    const detail = contextNovel
      ? own.length === 0
        ? 'no chunk of the segment in a context its cluster was answered from'
        : `${own.filter((k) => !profile.ownKeys.has(k)).length}/${own.length} of the segment's chunks never seen for this question cluster`
      : `${observed.facts.filter((f) => !profile.facts.has(f)).length}/${observed.facts.length} key facts never stated for this question cluster`;
    // A changed context is the retriever's doing, deterministic for one wording: decisive. Novel facts
    // can be the generator's wording alone.
    return Promise.resolve({ signal: this.name, bad: true, kind, detail, decisive: contextNovel });
  }

  /** The segment's replay was rejected: what it serves now matches the baseline, so its novel items are clean. */
  segmentCleared(segment: string): void {
    for (const observed of this.pending.get(segment) ?? []) this.learn(`${segment}\u0000${observed.cluster}`, observed);
    this.pending.delete(segment);
  }

  /** The segment's replay confirmed a fault: its novel items are the fault's, never learned. */
  segmentConfirmed(segment: string): void {
    this.pending.delete(segment);
  }

  private learn(key: string, observed: Observed): void {
    const profile = this.clusters.get(key) ?? { ownKeys: new Set<string>(), hadOwn: false, facts: new Set<string>() };
    for (const k of observed.ownKeys) profile.ownKeys.add(k);
    if (observed.ownKeys.length > 0) profile.hadOwn = true;
    for (const f of observed.facts) profile.facts.add(f);
    this.clusters.set(key, profile);
  }
}

/** The content profile signal (one per watcher: it learns). */
export function contentProfile(options: ContentProfileOptions): ContentProfile {
  return new ContentProfile(options);
}
