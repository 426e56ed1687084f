/**
 * Answer-level comparison of the online and the baseline RAG (issue 15, item 1). FCS judges an
 * answer only against its own retrieved chunks, so a corrupted chunk yields a wrong answer that is
 * perfectly "consistent" with its evidence. Comparing the two sides' answers catches that; the
 * knowledge versions and times of both sides' evidence tell a legitimate update (the online side
 * knows something newer than the pinned baseline) from corruption (same knowledge version, other
 * content).
 */

/** What one side answered, with the evidence it answered from. */
export interface AnswerSide {
  answer: string;
  abstained: boolean;
  /** The RAG's as-of time (the baseline's pinned time), ms since epoch. */
  asOf: number;
  chunks: readonly {
    chunk_id: string;
    knowledge_id: string;
    version: string;
    text: string;
    updated_at: number;
    valid_from: number;
  }[];
}

import type { AttributionCheck } from '@rag-immune/contracts';
import type { FeedCheck } from './knowledge-feed-check.ts';

const VERSION = /\b\d+:[0-9][0-9A-Za-z.+~-]*|\b\d+(?:\.\d+)+(?:[-~+][0-9A-Za-z.+~-]+)?/g;
const NUMBER_OR_DATE_TOKEN = /[\p{L}\p{N}._:+~@-]*\d[\p{L}\p{N}._:+~@-]*/gu;
const EMAIL = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g;
/** Capitalised words after the first word of a sentence: names of people, projects, months. */
const CAPITALISED = /(?<=[^.!?]\s)[A-Z][\p{L}'-]+/gu;

const trimPunctuation = (token: string) => token.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');

/**
 * The key facts an answer states: versions, numbers and dates (any token with a digit), e-mail
 * addresses and capitalised names. Lower-cased, trailing punctuation removed.
 */
export function keyFacts(answer: string): Set<string> {
  const facts = new Set<string>();
  for (const pattern of [VERSION, EMAIL, NUMBER_OR_DATE_TOKEN, CAPITALISED])
    for (const match of answer.matchAll(pattern)) {
      const token = trimPunctuation(match[0]).toLowerCase();
      if (token.length > 0) facts.add(token);
    }
  // A fact that is part of a longer fact (the "2" of "2.3.1-3") adds nothing.
  return withoutContainedFacts(facts);
}

/** Facts up to this length are indexed by their substrings; longer ones (rare) are searched directly. */
const INDEXED_FACT_LENGTH = 64;

/**
 * The facts less those with a digit that occur inside another fact. Comparing every pair was
 * quadratic (a 30 KB answer took over a second); instead each short fact's substrings of the lengths
 * the digit facts have are indexed once, so the cost grows with the answer, not its square.
 */
function withoutContainedFacts(facts: Set<string>): Set<string> {
  const digitFacts = [...facts].filter((fact) => /\d/.test(fact));
  if (digitFacts.length === 0) return facts;
  const lengths = [...new Set(digitFacts.map((fact) => fact.length))].sort((a, b) => a - b);
  const inner = new Set<string>();
  const long: string[] = [];
  for (const fact of facts) {
    if (fact.length > INDEXED_FACT_LENGTH) {
      long.push(fact);
      continue;
    }
    // Only proper substrings: a fact never counts as contained in itself.
    for (const length of lengths) {
      if (length >= fact.length) break;
      for (let at = 0; at + length <= fact.length; at++) inner.add(fact.slice(at, at + length));
    }
  }
  const longText = long.join('\u0000');
  const contained = (fact: string) =>
    inner.has(fact) || (longText.includes(fact) && long.some((other) => other !== fact && other.includes(fact)));
  return new Set([...facts].filter((fact) => !(/\d/.test(fact) && contained(fact))));
}

function contentWords(answer: string): Set<string> {
  return new Set(
    answer
      .toLowerCase()
      .split(/[^\p{L}\p{N}.+~:-]+/u)
      .map(trimPunctuation)
      .filter((w) => w.length > 3),
  );
}

/**
 * Agreement of two answers in [0,1]: the Jaccard overlap of their key facts, or of their content
 * words when neither states a key fact. Null when either side has no usable answer.
 */
export function answerAgreement(online: string, baseline: string): number | null {
  if (online.trim() === '' || baseline.trim() === '') return null;
  let a = keyFacts(online);
  let b = keyFacts(baseline);
  if (a.size === 0 && b.size === 0) {
    a = contentWords(online);
    b = contentWords(baseline);
  }
  if (a.size === 0 && b.size === 0) return 1;
  const shared = [...a].filter((fact) => b.has(fact)).length;
  return shared / (a.size + b.size - shared);
}

/**
 * The key facts of an answer that appear in none of the given texts (case-insensitive). A version,
 * number, date, address or name that no retrieved passage contains was made up or swapped in by the
 * generator: retrieval cannot be blamed for a fact it never returned.
 */
export function ungroundedFacts(answer: string, evidence: readonly string[]): string[] {
  // One lower-cased text; no fact contains the separator, so none matches across two texts.
  const texts = evidence.map((text) => text.toLowerCase()).join('\u0000');
  // Most grounded facts are whole evidence tokens: a set look-up settles them, so only the few facts
  // that are not (the ungrounded ones, or parts of longer tokens) scan the text. Searching the text for
  // every fact was quadratic in the answer and evidence size.
  const tokens = new Set<string>();
  for (const token of texts.split(/[^\p{L}\p{N}._:+~@'-]+/u)) tokens.add(trimPunctuation(token));
  return [...keyFacts(answer)].filter((fact) => !tokens.has(fact) && !texts.includes(fact)).sort();
}

/**
 * Both sides answered from the same evidence: the same chunks (id, version and text), in any order.
 * Then a difference in their answers can only come from generation.
 */
export function sameEvidence(online: AnswerSide, baseline: AnswerSide): boolean {
  const key = (side: AnswerSide) => new Set(side.chunks.map((c) => `${c.chunk_id}\u0000${c.version}\u0000${c.text}`));
  const a = key(online);
  const b = key(baseline);
  return a.size > 0 && a.size === b.size && [...a].every((k) => b.has(k));
}

/**
 * The online answer drops a key fact the baseline stated and states one the baseline did not: a fact
 * replaced, not a paraphrase (which rewords) or a longer answer (which adds).
 */
export function factReplaced(online: string, baseline: string): boolean {
  const a = keyFacts(online);
  const b = keyFacts(baseline);
  return [...b].some((fact) => !a.has(fact)) && [...a].some((fact) => !b.has(fact));
}

/**
 * Whether the online evidence is newer than the baseline's: a chunk the online side retrieved that
 * became valid or was updated after the baseline's pinned time, or a knowledge version of a
 * knowledge id both sides retrieved that is newer on the online side. Such a difference in the
 * answers is a knowledge update, not corruption.
 */
export function onlineKnowledgeIsNewer(online: AnswerSide, baseline: AnswerSide): boolean {
  return newerOnlineChunks(online, baseline).length > 0;
}

/** The online chunks that make the online evidence newer (see onlineKnowledgeIsNewer). */
export function newerOnlineChunks(online: AnswerSide, baseline: AnswerSide): AnswerSide['chunks'][number][] {
  const baselineNewest = new Map<string, number>();
  for (const chunk of baseline.chunks)
    baselineNewest.set(
      chunk.knowledge_id,
      Math.max(baselineNewest.get(chunk.knowledge_id) ?? -Infinity, chunk.valid_from, chunk.updated_at),
    );
  return online.chunks.filter((chunk) => {
    const at = Math.max(chunk.valid_from, chunk.updated_at);
    if (at > baseline.asOf) return true;
    const newest = baselineNewest.get(chunk.knowledge_id);
    return newest !== undefined && at > newest;
  });
}

/**
 * Chunks both sides retrieved under the same id, knowledge version, update and validity time but
 * with different text: content changed without a new version, which no legitimate ingest does.
 */
export function alteredChunks(online: AnswerSide, baseline: AnswerSide): string[] {
  const baselineById = new Map(baseline.chunks.map((chunk) => [chunk.chunk_id, chunk]));
  const altered: string[] = [];
  for (const chunk of online.chunks) {
    const twin = baselineById.get(chunk.chunk_id);
    if (
      twin !== undefined &&
      twin.version === chunk.version &&
      twin.updated_at === chunk.updated_at &&
      twin.valid_from === chunk.valid_from &&
      twin.text !== chunk.text
    )
      altered.push(chunk.chunk_id);
  }
  return [...new Set(altered)];
}

/** The answer-level comparison a ProbeRunner hands to compareWithBaseline. */
export interface AnswerComparison {
  answer_agreement: number | null;
  online_answer_vs_baseline_fcs: number | null;
  baseline_answer_vs_online_fcs: number | null;
  knowledge_update: boolean;
  altered_chunks: string[];
  /** The online answer is empty or whitespace while the baseline answered. */
  online_answer_empty: boolean;
  /**
   * Key facts of the online answer that neither side's evidence contains, and of the baseline's
   * answer that its own evidence does not contain (compared only when the answers differ).
   */
  online_ungrounded_facts: string[];
  baseline_ungrounded_facts: string[];
  /** Same evidence on both sides, yet the online answer replaced a fact of the baseline's. */
  fact_replaced_on_same_evidence: boolean;
  /**
   * The newer online knowledge checked against its feed (null or absent: nothing newer to check).
   * `knowledge_update` is false when the check found a version the feed never published.
   */
  feed_check?: FeedCheck | null;
  /** Which knowledge each side cites against the probe's expected sources (absent: not compared). */
  attribution?: AttributionCheck | null;
}
