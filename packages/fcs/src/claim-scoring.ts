/**
 * FCS v2 building blocks: answers split into claims (sentences), lexical support features, and the
 * logistic combination fitted on the real dev sets (models/fcs/combination-v2.json, written by
 * packages/fcs/scripts/real-fit.ts). An answer is supported when every claim is supported by some
 * evidence chunk (the SummaC / AlignScore chunk-and-aggregate scheme): model feature = min over claims
 * of the max over chunks.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { splitSentences } from './evidence-windows.ts';
import type { KeyFactFinding } from './key-facts.ts';
import { contentWords } from './key-facts.ts';

export const DEFAULT_V2_COMBINATION_PATH = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
  'models',
  'fcs',
  'combination-v2.json',
);

/** Every feature the v2 scorer can compute; the fitted combination uses a subset. */
export const V2_FEATURES = [
  'model_min',
  'model_mean',
  'model_noq_min',
  'model_q_min',
  'lex_cov',
  'lex_min',
  'lex_novel',
  'kf_contradicted',
  'kf_unsupported_entity',
  'kf_unsupported_number',
  'kf_supported',
  'kf_unsupported_unread',
  'kf_contradicted_number',
  'emb_min',
  'emb_mean',
] as const;
export type V2Feature = (typeof V2_FEATURES)[number];
export type V2Features = Partial<Record<V2Feature, number>>;

/** Features read through the sentence embedder (embedding-support.ts): a scorer using them needs one. */
export const EMBEDDING_FEATURES: readonly V2Feature[] = ['emb_min', 'emb_mean'];

export function needsEmbedder(combination: Pick<V2Combination, 'features'>): boolean {
  return combination.features.some((f) => EMBEDDING_FEATURES.includes(f));
}

/** A logistic regression over (transformed) features; P(consistent) = sigmoid(bias + w·x). */
export interface V2Combination {
  features: V2Feature[];
  weights: number[];
  bias: number;
  /** Decision threshold on the calibrated probability. */
  threshold: number;
  /**
   * Log-odds subtracted per key fact the evidence contradicts (a changed value, unit, date or version),
   * after the regression. Not fitted: such swaps are rare in the real dev sets but are exactly what a
   * broken generator produces (the reference RAG's generator-inconsistency fault); real-fit.ts keeps it
   * only when it costs (almost) nothing on dev, and records both figures.
   */
  contradiction_penalty?: number;
  /**
   * Which contradicted key facts the penalty counts: 'all' (the default; kf_contradicted) or 'numbers'
   * (kf_contradicted_number: numbers, quantities, dates and versions, leaving out names and negations,
   * which on the real sets are mostly paraphrases).
   */
  contradiction_penalty_on?: 'all' | 'numbers';
  /**
   * How the features it was fitted on were read: tokens per (claim, chunk) window and chunks read per
   * claim. The scorer applies a combination as it was fitted (unless told otherwise); absent means the
   * defaults of the time, 256 tokens and 6 chunks.
   */
  windowing?: V2Windowing;
  /** Free-form provenance (data, fit, dev metrics), kept in the JSON for the model card. */
  fitted?: unknown;
}

export interface V2Windowing {
  max_tokens: number;
  chunks_per_claim: number;
}

/** The largest window the model takes (it was trained and exported for pairs of at most 256 tokens). */
const MAX_WINDOW_TOKENS = 256;
/** Below this a window has no room for evidence beside a long claim (the scorer keeps at least 64 evidence tokens). */
const MIN_WINDOW_TOKENS = 96;

/** Until a fit exists: the model's min-over-claims probability alone (identity on the logit). */
export const FALLBACK_V2_COMBINATION: V2Combination = { features: ['model_min'], weights: [1], bias: 0, threshold: 0.5 };

export function loadV2Combination(path: string = DEFAULT_V2_COMBINATION_PATH): V2Combination {
  if (!existsSync(path)) return FALLBACK_V2_COMBINATION;
  const parsed = JSON.parse(readFileSync(path, 'utf8')) as V2Combination;
  if (parsed.features.length !== parsed.weights.length) throw new Error(`${path}: features and weights differ in length`);
  for (const f of parsed.features) if (!(V2_FEATURES as readonly string[]).includes(f)) throw new Error(`${path}: unknown feature ${f}`);
  if (parsed.contradiction_penalty_on !== undefined && !['all', 'numbers'].includes(parsed.contradiction_penalty_on))
    throw new Error(`${path}: contradiction_penalty_on must be "all" or "numbers", got ${String(parsed.contradiction_penalty_on)}`);
  if (parsed.windowing !== undefined) {
    const { max_tokens: tokens, chunks_per_claim: chunks } = parsed.windowing;
    if (!Number.isInteger(tokens) || tokens < MIN_WINDOW_TOKENS || tokens > MAX_WINDOW_TOKENS)
      throw new Error(`${path}: windowing.max_tokens must be an integer from ${MIN_WINDOW_TOKENS} to ${MAX_WINDOW_TOKENS}, got ${tokens}`);
    if (!Number.isInteger(chunks) || chunks < 1)
      throw new Error(`${path}: windowing.chunks_per_claim must be a positive integer, got ${chunks}`);
  }
  return parsed;
}

const LOGIT_CLIP = 6;

/** Model probabilities enter as clipped logits, counts as they are, coverages as fractions. */
export function transformFeature(name: V2Feature, value: number): number {
  if (name.startsWith('model_')) {
    const p = Math.min(Math.max(value, 1e-6), 1 - 1e-6);
    return Math.min(Math.max(Math.log(p / (1 - p)), -LOGIT_CLIP), LOGIT_CLIP);
  }
  return value;
}

/** The contradicted key facts a combination's penalty counts. */
export function penalisedContradictions(features: V2Features, combination: Pick<V2Combination, 'contradiction_penalty_on'>): number {
  return (combination.contradiction_penalty_on === 'numbers' ? features.kf_contradicted_number : features.kf_contradicted) ?? 0;
}

export function combineV2(features: V2Features, combination: V2Combination): number {
  let z = combination.bias;
  combination.features.forEach((name, i) => {
    const value = features[name];
    if (value === undefined) throw new Error(`v2 combination needs feature ${name}`);
    z += combination.weights[i]! * transformFeature(name, value);
  });
  if (combination.contradiction_penalty) z -= combination.contradiction_penalty * penalisedContradictions(features, combination);
  return 1 / (1 + Math.exp(-z));
}

/**
 * Sentences of the answer as claims. Fragments of fewer than four words ("Yes.", a list bullet) are
 * joined to the previous claim, since alone they state nothing checkable; at most `maxClaims`
 * (the rest are dropped and reported as truncation).
 */
export function splitClaims(answer: string, maxClaims: number): { claims: string[]; truncated: boolean } {
  const claims: string[] = [];
  const short = (text: string): boolean => text.split(/\s+/).length < 4;
  for (const sentence of splitSentences(answer)) {
    if (claims.length > 0 && (short(sentence) || short(claims[claims.length - 1]!))) claims[claims.length - 1] += ` ${sentence}`;
    else claims.push(sentence);
  }
  if (claims.length === 0) claims.push(answer.trim());
  return { claims: claims.slice(0, maxClaims), truncated: claims.length > maxClaims };
}

/** A crude stem (first six letters) so "supported"/"supports" and "cities"/"city's" still match. */
function stems(text: string): Set<string> {
  return new Set(contentWords(text.normalize('NFKC')).map((w) => w.slice(0, 6)));
}

/** Fraction of `words` found in `evidence`; 1 when there is nothing to check. */
function coverage(words: Set<string>, evidence: Set<string>): number {
  if (words.size === 0) return 1;
  let hit = 0;
  for (const w of words) if (evidence.has(w)) hit += 1;
  return hit / words.size;
}

/**
 * Lexical support: share of the answer's content words present in the evidence (whole answer, the
 * worst claim, and only the words the question did not already contain: echoing the question is not support).
 */
export function lexicalFeatures(
  question: string,
  claims: readonly string[],
  evidenceText: string,
): Pick<V2Features, 'lex_cov' | 'lex_min' | 'lex_novel'> {
  const evidence = stems(evidenceText);
  const answerWords = stems(claims.join(' '));
  const questionWords = stems(question);
  const novel = new Set([...answerWords].filter((w) => !questionWords.has(w)));
  return {
    lex_cov: coverage(answerWords, evidence),
    lex_min: Math.min(...claims.map((c) => coverage(stems(c), evidence))),
    lex_novel: coverage(novel, evidence),
  };
}

const NUMERIC_KINDS: readonly KeyFactFinding['kind'][] = ['quantity', 'number', 'date', 'version'];

/** Key-fact findings as capped counts. */
export function keyFactFeatures(
  findings: readonly KeyFactFinding[],
): Pick<V2Features, 'kf_contradicted' | 'kf_contradicted_number' | 'kf_unsupported_entity' | 'kf_unsupported_number' | 'kf_supported'> {
  const count = (pred: (f: KeyFactFinding) => boolean): number => Math.min(3, findings.filter(pred).length);
  return {
    kf_contradicted: count((f) => f.status === 'contradicted'),
    // A number, quantity, date or version the evidence states otherwise: on the real dev sets the one kind of
    // contradiction that says "wrong" (SummEdits' edited figures), where a contradicted negation or name is
    // mostly a paraphrase.
    kf_contradicted_number: count((f) => f.status === 'contradicted' && NUMERIC_KINDS.includes(f.kind)),
    kf_unsupported_entity: count((f) => f.status === 'unsupported' && f.kind === 'entity'),
    kf_unsupported_number: count((f) => f.status === 'unsupported' && NUMERIC_KINDS.includes(f.kind)),
    kf_supported: count((f) => f.status === 'supported'),
  };
}

/** How many evidence chunks the model reads per claim (the best by shared content words). */
export const DEFAULT_CHUNKS_PER_CLAIM = 6;

/**
 * The answer's key facts (names, numbers, dates, versions) found nowhere in the evidence, counted only
 * when the evidence has more chunks than the model reads per claim. There the model saw only the best
 * few chunks, and the key-fact check is the one reading all of it: the v1 rules that still won on long
 * evidence (WiCE, whole web pages). On short evidence the model reads everything, and the extractor's
 * misses (a paraphrased name) only add noise. Capped at 3 like the other counts.
 */
export function unreadKeyFacts(features: V2Features, chunks: number, chunksPerClaim: number): number {
  if (chunks <= chunksPerClaim) return 0;
  return Math.min(3, (features.kf_unsupported_entity ?? 0) + (features.kf_unsupported_number ?? 0));
}

/** Ranks chunks for one claim by shared content words (most first, ties by position). */
export function rankChunksForClaim(claim: string, chunks: readonly string[]): number[] {
  const words = stems(claim);
  const scored = chunks.map((text, index) => ({ index, overlap: coverage(words, stems(text)) }));
  scored.sort((a, b) => b.overlap - a.overlap || a.index - b.index);
  return scored.map((s) => s.index);
}
