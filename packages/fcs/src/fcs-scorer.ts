import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { Histogram, type Registry } from 'prom-client';
import { z } from 'zod';
import type { EvidencePassage, EvidenceWindow } from './evidence-windows.ts';
import { buildWindows } from './evidence-windows.ts';
import type { V2Combination, V2Features, V2Windowing } from './claim-scoring.ts';
import {
  combineV2,
  DEFAULT_CHUNKS_PER_CLAIM,
  keyFactFeatures,
  lexicalFeatures,
  loadV2Combination,
  needsEmbedder,
  rankChunksForClaim,
  splitClaims,
  unreadKeyFacts,
} from './claim-scoring.ts';
import { SentenceEmbedder } from '@rag-immune/embeddings';
import type { ClaimEmbedder, ClaimsAndChunks, EmbeddingSupport } from './embedding-support.ts';
import { embeddingSupport } from './embedding-support.ts';
import type { ConsistencyModel, ExecutionProviderChoice } from './fcs-model.ts';
import { DEFAULT_MODEL_PATH, DEFAULT_TOKENIZER_PATH, FcsModel, MAX_MODEL_TOKENS } from './fcs-model.ts';
import type { KeyFactFinding, KeyFactKind } from './key-facts.ts';
import { checkKeyFacts, contentOverlap, contentWords, indexEvidence } from './key-facts.ts';
import type { EncodedPair } from './pair-tokenizer.ts';
import { PairTokenizer } from './pair-tokenizer.ts';
import { ScoreCache, scoreCacheKey } from './score-cache.ts';

const passageSchema = z.union([z.string(), z.object({ id: z.string().min(1).optional(), text: z.string() })]);

/** A (question, evidence, answer) triple; evidence is one text, or passages with optional ids. */
export const fcsInputSchema = z.object({
  question: z.string().default(''),
  evidence: z.union([z.string(), z.array(passageSchema)]),
  answer: z.string().min(1, 'answer must not be empty'),
});
export type FcsInput = z.input<typeof fcsInputSchema>;

/** A triple as a JSONL line of labelled data: `id` is echoed back, `label` is the ground truth. */
export const fcsLabelledInputSchema = fcsInputSchema.extend({
  id: z.union([z.string(), z.number()]).optional(),
  label: z.union([z.literal(0), z.literal(1), z.boolean(), z.enum(['consistent', 'inconsistent'])]).optional(),
});
export type FcsLabelledInput = z.output<typeof fcsLabelledInputSchema>;

export function isConsistentLabel(label: NonNullable<FcsLabelledInput['label']>): boolean {
  return label === 1 || label === true || label === 'consistent';
}

export interface EvidenceSnippet {
  passage_id: string;
  text: string;
  stance: 'supports' | 'contradicts';
  /** The model's P(consistent) for the answer (v2: the claim) against this window of evidence. */
  probability: number;
  /** v2: which claim (sentence of the answer) this chunk supports or contradicts, and the chunk's index. */
  claim_index?: number;
  claim?: string;
  chunk_index?: number;
}

/** v2: one sentence of the answer and the evidence chunk that best supports it. */
export interface ClaimVerdict {
  index: number;
  text: string;
  /** max over chunks of the model's P(consistent) for this claim (in the context of the question). */
  probability: number;
  chunk_index: number;
  passage_id: string;
  stance: 'supports' | 'contradicts';
}

export type ScorerVersion = 'v1' | 'v2';
/**
 * The scorer the sentinel and `immune fcs score` use unless told otherwise: v2 (claims x chunks,
 * combination fitted on real data), better on human-labelled data and passing the sentinel's
 * fault-detection test on a quiet machine; see bench/fcs/RESULTS.md.
 */
export const DEFAULT_SCORER_VERSION: ScorerVersion = 'v2';

/** `FCS_SCORER_VERSION` (v1|v2) overrides the default for a process (tests, A/B runs); anything else is a config error. */
export function scorerVersionFromEnv(env: NodeJS.ProcessEnv = process.env): ScorerVersion {
  const value = env.FCS_SCORER_VERSION;
  if (value === undefined || value === '') return DEFAULT_SCORER_VERSION;
  if (value !== 'v1' && value !== 'v2') throw new FcsInputError(`FCS_SCORER_VERSION must be v1 or v2, got ${JSON.stringify(value)}`);
  return value;
}

export interface FcsResult {
  /** 'no_evidence': nothing to judge against; score and label are null, never a guess. */
  status: 'scored' | 'no_evidence';
  /** Combined FCS in [0, 1]: the model probability adjusted by the key-fact check. */
  score: number | null;
  /** The model alone (max over evidence windows), for comparison and debugging. */
  model_probability: number | null;
  label: 'consistent' | 'inconsistent' | null;
  threshold: number;
  evidence_snippets: EvidenceSnippet[];
  key_fact_findings: KeyFactFinding[];
  /** True when any input was cut to fit the model (long sentence, question+answer, window cap). */
  truncated: boolean;
  /** Wall time; amortised over the batch when scored with scoreMany. */
  latency_ms: number;
  execution_provider: string;
  cached: boolean;
  windows: number;
  /** Which scorer produced this result. */
  scorer_version?: ScorerVersion;
  /** v2: true when no question was given, so short answers were judged without their context. */
  question_missing?: boolean;
  /** v2: per-claim verdicts (every sentence of the answer must be supported by some chunk). */
  claims?: ClaimVerdict[];
  /** v2: the features the combination saw (raw values), for debugging and evaluation. */
  features?: V2Features;
}

/** Log-odds weights of the key-fact check; see packages/fcs/README.md for why these values. */
export interface CombinationWeights {
  contradicted: Record<KeyFactKind, number>;
  unsupported: Record<KeyFactKind, number>;
  /** Added per supported fact, only when no fact is contradicted or unsupported. */
  supportedBonus: number;
  maxSupportedBonus: number;
  maxPenalty: number;
  /** The model's logit is clamped to ±this, so a saturated model can still be overruled. */
  logitClamp: number;
}

export const DEFAULT_WEIGHTS: CombinationWeights = {
  // With the logit clamped to ±4, one contradicted fact (-4.5) always lands below 0.5; an
  // unsupported one (-2.5) stands only if the model is over ~92% sure.
  contradicted: { quantity: 4.5, date: 4.5, version: 4.5, number: 4.5, entity: 4.5, negation: 4.5, relation: 4.5 },
  unsupported: { quantity: 2.5, date: 2.5, version: 2.5, number: 2, entity: 2.5, negation: 2, relation: 2 },
  supportedBonus: 0.3,
  maxSupportedBonus: 1,
  maxPenalty: 8,
  logitClamp: 4,
};

/**
 * logit(score) = clamp(logit(p_model)) - sum(penalties of contradicted/unsupported facts, capped)
 *                + (small bonus per supported fact when nothing is wrong).
 */
export function combineScore(
  modelProbability: number,
  findings: readonly KeyFactFinding[],
  weights: CombinationWeights = DEFAULT_WEIGHTS,
): number {
  const p = Math.min(Math.max(modelProbability, 1e-9), 1 - 1e-9);
  let z = Math.min(Math.max(Math.log(p / (1 - p)), -weights.logitClamp), weights.logitClamp);
  let penalty = 0;
  let supported = 0;
  for (const finding of findings) {
    if (finding.status === 'contradicted') penalty += weights.contradicted[finding.kind];
    else if (finding.status === 'unsupported') penalty += weights.unsupported[finding.kind];
    else supported += 1;
  }
  if (penalty > 0) z -= Math.min(penalty, weights.maxPenalty);
  else z += Math.min(supported * weights.supportedBonus, weights.maxSupportedBonus);
  return 1 / (1 + Math.exp(-z));
}

export class FcsInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FcsInputError';
  }
}

export interface FactConsistencyScorerOptions {
  model: ConsistencyModel;
  tokenizer: PairTokenizer;
  threshold?: number;
  maxTokens?: number;
  maxWindows?: number;
  maxSnippets?: number;
  weights?: CombinationWeights;
  /** A cache to reuse, or false for none (evaluation); default: a new 1-hour LRU. */
  cache?: ScoreCache<FcsResult> | false;
  registry?: Registry;
  logger?: Logger | false;
  /** 'v1': whole answer vs windows + key-fact rules; 'v2': claims x chunks + fitted combination. */
  scorerVersion?: ScorerVersion;
  /** v2 combination; default models/fcs/combination-v2.json. */
  combination?: V2Combination;
  /** v2: compute every feature (evaluation and fitting), not only those the combination uses. */
  allFeatures?: boolean;
  /** v2: at most this many claims per answer (default 8) and chunks scored per claim (default 6, by lexical overlap). */
  maxClaims?: number;
  maxChunksPerClaim?: number;
  /** v2: the sentence embedder for the emb_* features; required when the combination (or allFeatures) reads them. */
  embedder?: ClaimEmbedder;
}

export interface LoadScorerOptions extends Omit<FactConsistencyScorerOptions, 'model' | 'tokenizer'> {
  modelPath?: string;
  tokenizerPath?: string;
  executionProvider?: ExecutionProviderChoice;
  intraOpNumThreads?: number;
}

interface PreparedV2 {
  index: number;
  question: string;
  passages: EvidencePassage[];
  claims: string[];
  windows: EvidenceWindow[];
  /**
   * Per variant: per claim, the [pair index, chunk index] scored. 'ctx' (what the score uses): the question
   * is prefixed to short claims only; 'noq': never; 'q': always (the last two for evaluation).
   */
  pairs: Partial<Record<'ctx' | 'noq' | 'q', [number, number][][]>>;
  features: V2Features;
  findings: KeyFactFinding[];
  truncated: boolean;
  cacheKey: string;
}

// v2 input budget: the question's last 48 tokens give the context, a claim keeps at most 96.
const QUESTION_TOKENS = 48;
const CLAIM_TOKENS = 96;
/**
 * A claim with fewer content words than this ("Slovenia.", "Yes, since 2019.") is read with its question
 * in front; longer claims stand alone. Prefixing every claim measured far worse on the dev sets
 * (the model then scores the question's words, not the claim's: bench/fcs/RESULTS.md).
 */
export const SHORT_CLAIM_CONTENT_WORDS = 5;

interface Prepared {
  index: number;
  question: string;
  answer: string;
  passages: EvidencePassage[];
  windows: EvidenceWindow[];
  findings: KeyFactFinding[];
  truncated: boolean;
  cacheKey: string;
  firstPair: number;
}

/**
 * FCS for (question, evidence, answer) triples: the answer is scored by the model against sentence
 * windows of each passage (batched), the best-supporting window's probability is combined with the
 * deterministic key-fact check, and the windows that support or contradict it are returned.
 */
export class FactConsistencyScorer {
  readonly threshold: number;
  private readonly model: ConsistencyModel;
  private readonly tokenizer: PairTokenizer;
  private readonly maxTokens: number;
  private readonly maxWindows: number;
  private readonly maxSnippets: number;
  private readonly weights: CombinationWeights;
  readonly cache: ScoreCache<FcsResult> | undefined;
  private readonly logger: Logger | undefined;
  readonly version: ScorerVersion;
  private readonly combination: V2Combination | undefined;
  private readonly allFeatures: boolean;
  private readonly maxClaims: number;
  private readonly maxChunksPerClaim: number;
  private readonly embedder: ClaimEmbedder | undefined;
  /** Wall time of each scoring call, cache hits included: what scoring costs a probe run (the sentinel's FCS share). */
  private readonly scoreSeconds: Histogram | undefined;

  constructor(options: FactConsistencyScorerOptions) {
    this.model = options.model;
    this.tokenizer = options.tokenizer;
    this.version = options.scorerVersion ?? DEFAULT_SCORER_VERSION;
    this.combination = this.version === 'v2' ? (options.combination ?? loadV2Combination()) : undefined;
    this.allFeatures = options.allFeatures ?? false;
    this.maxClaims = options.maxClaims ?? 8;
    // v2 reads windows as its combination was fitted on them (models/fcs/combination-v2.json "windowing").
    this.maxChunksPerClaim = options.maxChunksPerClaim ?? this.combination?.windowing?.chunks_per_claim ?? DEFAULT_CHUNKS_PER_CLAIM;
    this.threshold = options.threshold ?? this.combination?.threshold ?? 0.5;
    this.maxTokens = options.maxTokens ?? this.combination?.windowing?.max_tokens ?? MAX_MODEL_TOKENS;
    this.maxWindows = options.maxWindows ?? 32;
    this.maxSnippets = options.maxSnippets ?? 3;
    this.weights = options.weights ?? DEFAULT_WEIGHTS;
    this.cache =
      options.cache === false
        ? undefined
        : (options.cache ?? new ScoreCache<FcsResult>(options.registry ? { registry: options.registry } : {}));
    this.logger = options.logger === false ? undefined : options.logger;
    this.embedder = options.embedder;
    this.scoreSeconds =
      options.registry === undefined
        ? undefined
        : new Histogram({
            name: 'rag_immune_fcs_score_seconds',
            help: 'Duration of each FCS scoring call (one or more answers, cache hits included).',
            buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
            registers: [options.registry],
          });
    if (this.version === 'v2' && !this.embedder && (this.allFeatures || needsEmbedder(this.combination!)))
      throw new FcsInputError(
        `the v2 combination reads ${this.allFeatures ? 'every feature' : this.combination!.features.join(', ')}: an embedder is required (FactConsistencyScorer.load loads the shared one)`,
      );
  }

  /** Loads the committed INT8 model and tokenizer (or the given paths). */
  static async load(options: LoadScorerOptions = {}): Promise<FactConsistencyScorer> {
    const model = await FcsModel.load({
      modelPath: options.modelPath ?? DEFAULT_MODEL_PATH,
      executionProvider: options.executionProvider ?? 'auto',
      ...(options.intraOpNumThreads !== undefined ? { intraOpNumThreads: options.intraOpNumThreads } : {}),
      ...(options.logger !== undefined ? { logger: options.logger } : {}),
    });
    const tokenizer = await PairTokenizer.fromFile(options.tokenizerPath ?? DEFAULT_TOKENIZER_PATH);
    const scorerVersion = options.scorerVersion ?? scorerVersionFromEnv();
    const wantsEmbedder =
      scorerVersion === 'v2' && (options.allFeatures === true || needsEmbedder(options.combination ?? loadV2Combination()));
    // The shared MiniLM, batch 1 as everywhere else (INT8 activations are quantised per batch: batch 1 keeps a
    // text's vector the same whatever it is scored with).
    const embedder =
      options.embedder ??
      (wantsEmbedder
        ? await SentenceEmbedder.load({
            executionProvider: options.executionProvider ?? 'auto',
            ...(options.logger ? { logger: options.logger } : {}),
            ...(options.intraOpNumThreads !== undefined ? { intraOpNumThreads: options.intraOpNumThreads } : {}),
          })
        : undefined);
    return new FactConsistencyScorer({ ...options, scorerVersion, model, tokenizer, ...(embedder ? { embedder } : {}) });
  }

  /** The window size and evidence budget this scorer reads with (evaluation records keep them). */
  get windowing(): V2Windowing {
    return { max_tokens: this.maxTokens, chunks_per_claim: this.maxChunksPerClaim };
  }

  get executionProvider(): string {
    return this.model.executionProvider;
  }

  async score(input: FcsInput): Promise<FcsResult> {
    const [result] = await this.scoreMany([input]);
    return result!;
  }

  /** Scores many triples with one batched model pass (what the CLI and evaluation use). */
  async scoreMany(inputs: readonly FcsInput[]): Promise<FcsResult[]> {
    const stopTimer = this.scoreSeconds?.startTimer();
    try {
      return await this.scoreBatch(inputs);
    } finally {
      stopTimer?.();
    }
  }

  private async scoreBatch(inputs: readonly FcsInput[]): Promise<FcsResult[]> {
    const started = performance.now();
    const results = new Array<FcsResult | undefined>(inputs.length);
    const prepared: Prepared[] = [];
    const preparedV2: PreparedV2[] = [];
    const pairs: EncodedPair[] = [];
    for (const [index, raw] of inputs.entries()) {
      const parsed = fcsInputSchema.safeParse(raw);
      if (!parsed.success) {
        throw new FcsInputError(parsed.error.issues.map((issue) => `${issue.path.join('.') || 'input'}: ${issue.message}`).join('; '));
      }
      const { question, answer } = parsed.data;
      const passages = normalisePassages(parsed.data.evidence);
      if (passages.length === 0) {
        results[index] = { ...this.noEvidence(), ...(this.version === 'v2' ? { question_missing: question.trim() === '' } : {}) };
        continue;
      }
      const cacheKey = scoreCacheKey(
        question,
        answer,
        passages.map((p) => p.id),
      );
      const hit = this.cache?.get(cacheKey);
      if (hit) {
        results[index] = { ...hit, label: this.label(hit.score), threshold: this.threshold, cached: true };
        continue;
      }
      if (this.version === 'v2') {
        preparedV2.push(this.prepareV2(index, question, answer, passages, cacheKey, pairs));
        continue;
      }
      const textA = `${question} ${answer}`.trim();
      const idsA = this.tokenizer.ids(textA);
      // Evidence always keeps at least half the budget; a longer question+answer is cut (longest-first).
      const budget = this.maxTokens - 3 - Math.min(idsA.length, Math.floor((this.maxTokens - 3) / 2));
      const plan = buildWindows(passages, (text) => this.tokenizer.ids(text), { budgetTokens: budget, maxWindows: this.maxWindows });
      const encoded = plan.windows.map((w) => this.tokenizer.encodeIds(idsA, w.ids, this.maxTokens));
      prepared.push({
        index,
        question,
        answer,
        passages,
        windows: plan.windows,
        findings: checkKeyFacts(answer, indexEvidence(passages)),
        truncated: plan.truncated || encoded.some((e) => e.truncated),
        cacheKey,
        firstPair: pairs.length,
      });
      pairs.push(...encoded);
    }
    // The embedder runs beside the consistency model (each on its own onnxruntime session).
    const [probabilities, support] = await Promise.all([
      pairs.length > 0 ? this.model.predict(pairs) : Promise.resolve([]),
      this.readsEmbeddings && preparedV2.length > 0 ? this.embeddingSupportOf(preparedV2) : Promise.resolve([]),
    ]);
    preparedV2.forEach((item, k) => Object.assign(item.features, support[k]));
    const latency = (performance.now() - started) / Math.max(1, inputs.length);
    for (const item of prepared) {
      const windowProbabilities = item.windows.map((_, k) => probabilities[item.firstPair + k]!);
      const modelProbability = Math.max(...windowProbabilities);
      const score = combineScore(modelProbability, item.findings, this.weights);
      const result: FcsResult = this.scored(item, score, modelProbability, this.snippets(item, windowProbabilities, score), latency, 'v1');
      this.cache?.set(item.cacheKey, { ...result });
      results[item.index] = result;
    }
    for (const item of preparedV2) {
      const result = this.finishV2(item, probabilities, latency);
      this.cache?.set(item.cacheKey, { ...result });
      results[item.index] = result;
    }
    for (const r of results) if (r && (r.cached || r.status === 'no_evidence')) r.latency_ms = latency;
    this.logger?.debug({ triples: inputs.length, windows: pairs.length, latency_ms: latency }, 'fcs: scored');
    return results as FcsResult[];
  }

  /**
   * v2: the model inputs the score reads ('ctx' variant), per claim, without running the model. The
   * training recipe (models/fcs/recipe/train_real.py) learns on exactly these pairs, so training and
   * inference chunk, rank and truncate alike.
   */
  claimChunkPairs(input: FcsInput): { claims: string[]; pairs: EncodedPair[][] } {
    const parsed = fcsInputSchema.parse(input);
    const passages = normalisePassages(parsed.evidence);
    if (passages.length === 0) return { claims: [], pairs: [] };
    const pairs: EncodedPair[] = [];
    const item = this.prepareV2(0, parsed.question, parsed.answer, passages, '', pairs);
    return { claims: item.claims, pairs: item.pairs.ctx!.map((scored) => scored.map(([pair]) => pairs[pair]!)) };
  }

  /** True when v2 features read through the sentence embedder are needed (the combination's, or all). */
  private get readsEmbeddings(): boolean {
    return this.version === 'v2' && this.embedder !== undefined && (this.allFeatures || needsEmbedder(this.combination!));
  }

  /** v2: each claim's cosine to its nearest chunk (the chunks the model windows are cut from), one embedder pass. */
  private embeddingSupportOf(items: readonly Pick<PreparedV2, 'claims' | 'windows'>[]): Promise<EmbeddingSupport[]> {
    const plans: ClaimsAndChunks[] = items.map((item) => ({ claims: item.claims, chunks: item.windows.map((w) => w.text) }));
    return embeddingSupport(this.embedder!, plans);
  }

  /**
   * v2: the emb_* features of triples exactly as score() computes them, without running the consistency model
   * (packages/fcs/scripts/real-augment.ts adds them to records scored before they existed).
   */
  async embeddingFeatures(inputs: readonly FcsInput[]): Promise<EmbeddingSupport[]> {
    if (!this.embedder) throw new FcsInputError('embeddingFeatures needs a scorer with an embedder');
    const items = inputs.map((input) => {
      const parsed = fcsInputSchema.parse(input);
      return this.prepareV2(0, parsed.question, parsed.answer, normalisePassages(parsed.evidence), '', []);
    });
    return this.embeddingSupportOf(items);
  }

  /** v2: claims (sentences of the answer) x evidence chunks; the pairs are appended to `pairs`. */
  private prepareV2(
    index: number,
    question: string,
    answer: string,
    passages: EvidencePassage[],
    cacheKey: string,
    pairs: EncodedPair[],
  ): PreparedV2 {
    const { claims, truncated: claimsDropped } = splitClaims(answer, this.maxClaims);
    const questionIds = question.trim() ? this.tokenizer.ids(question).slice(-QUESTION_TOKENS) : [];
    const fullClaimIds = claims.map((c) => this.tokenizer.ids(c));
    const claimIds = fullClaimIds.map((ids) => ids.slice(0, CLAIM_TOKENS));
    const longestA = questionIds.length + Math.max(...claimIds.map((ids) => ids.length));
    // One chunking per triple (so snippets can name chunks), sized for the longest claim.
    const budget = Math.max(64, this.maxTokens - 3 - longestA);
    const plan = buildWindows(passages, (text) => this.tokenizer.ids(text), { budgetTokens: budget, maxWindows: this.maxWindows });
    const chunkTexts = plan.windows.map((w) => w.text);
    const ranked = claims.map((claim) => rankChunksForClaim(claim, chunkTexts).slice(0, this.maxChunksPerClaim));
    const used = new Set(this.combination?.features ?? []);
    const hasQuestion = questionIds.length > 0;
    const short = claims.map((claim) => contentWords(claim).length < SHORT_CLAIM_CONTENT_WORDS);
    let truncated = plan.truncated || claimsDropped || fullClaimIds.some((ids) => ids.length > CLAIM_TOKENS);
    const variantPairs: PreparedV2['pairs'] = {};
    // Identical (claim, prefix, chunk) pairs across variants are encoded and scored once.
    const seen = new Map<string, number>();
    const variants: ('ctx' | 'noq' | 'q')[] = ['ctx'];
    if (hasQuestion && (this.allFeatures || used.has('model_noq_min'))) variants.push('noq');
    if (hasQuestion && (this.allFeatures || used.has('model_q_min'))) variants.push('q');
    for (const variant of variants) {
      variantPairs[variant] = claimIds.map((ids, c) => {
        const prefixed = hasQuestion && (variant === 'q' || (variant === 'ctx' && short[c]!));
        return ranked[c]!.map((chunk) => {
          const key = `${c}:${prefixed}:${chunk}`;
          let pair = seen.get(key);
          if (pair === undefined) {
            const encoded = this.tokenizer.encodeIds(prefixed ? [...questionIds, ...ids] : ids, plan.windows[chunk]!.ids, this.maxTokens);
            truncated ||= encoded.truncated;
            pairs.push(encoded);
            pair = pairs.length - 1;
            seen.set(key, pair);
          }
          return [pair, chunk] as [number, number];
        });
      });
    }
    const findings = checkKeyFacts(answer, indexEvidence(passages));
    const features: V2Features = {
      ...lexicalFeatures(question, claims, passages.map((p) => p.text).join('\n')),
      ...keyFactFeatures(findings),
    };
    features.kf_unsupported_unread = unreadKeyFacts(features, plan.windows.length, this.maxChunksPerClaim);
    return { index, question, passages, claims, windows: plan.windows, pairs: variantPairs, features, findings, truncated, cacheKey };
  }

  private finishV2(item: PreparedV2, probabilities: readonly number[], latency: number): FcsResult {
    const best = (variant: [number, number][][]): { probability: number; chunk: number }[] =>
      variant.map((scored) =>
        scored.reduce((a, [pair, chunk]) => (probabilities[pair]! > a.probability ? { probability: probabilities[pair]!, chunk } : a), {
          probability: -1,
          chunk: scored[0]?.[1] ?? 0,
        }),
      );
    const primary = best(item.pairs.ctx!);
    const minOf = (variant: [number, number][][] | undefined): number | undefined =>
      variant ? Math.min(...best(variant).map((b) => Math.max(0, b.probability))) : undefined;
    const perClaim = primary.map((b) => Math.max(0, b.probability));
    const features: V2Features = { ...item.features };
    features.model_min = Math.min(...perClaim);
    features.model_mean = perClaim.reduce((a, b) => a + b, 0) / perClaim.length;
    // Without a question every variant is the same input.
    features.model_noq_min = minOf(item.pairs.noq) ?? (item.question.trim() ? undefined : features.model_min);
    features.model_q_min = minOf(item.pairs.q) ?? (item.question.trim() ? undefined : features.model_min);
    if (features.model_noq_min === undefined) delete features.model_noq_min;
    if (features.model_q_min === undefined) delete features.model_q_min;
    const score = combineV2(features, this.combination!);
    const claims: ClaimVerdict[] = item.claims.map((text, index) => {
      const window = item.windows[primary[index]!.chunk]!;
      return {
        index,
        text,
        probability: perClaim[index]!,
        chunk_index: primary[index]!.chunk,
        passage_id: window.passageId,
        stance: perClaim[index]! >= 0.5 ? 'supports' : 'contradicts',
      };
    });
    const consistent = score >= this.threshold;
    const snippets: EvidenceSnippet[] = claims
      .map((claim) => ({
        passage_id: claim.passage_id,
        text: item.windows[claim.chunk_index]!.text,
        stance: claim.stance,
        probability: claim.probability,
        claim_index: claim.index,
        claim: claim.text,
        chunk_index: claim.chunk_index,
      }))
      // Weakest claims first when the answer is judged inconsistent: that is what an engineer must read.
      .sort((a, b) => (consistent ? b.probability - a.probability : a.probability - b.probability))
      .slice(0, this.maxSnippets);
    return {
      ...this.scored(item, score, features.model_min, snippets, latency, 'v2'),
      question_missing: item.question.trim() === '',
      claims,
      features,
    };
  }

  /** What a scored result of either scorer version says (v2 adds its claims and features). */
  private scored(
    item: Pick<Prepared, 'findings' | 'truncated' | 'windows'>,
    score: number,
    modelProbability: number,
    snippets: EvidenceSnippet[],
    latency: number,
    version: 'v1' | 'v2',
  ): FcsResult {
    return {
      status: 'scored',
      score,
      model_probability: modelProbability,
      label: this.label(score),
      threshold: this.threshold,
      evidence_snippets: snippets,
      key_fact_findings: item.findings,
      truncated: item.truncated,
      latency_ms: latency,
      execution_provider: this.model.executionProvider,
      cached: false,
      windows: item.windows.length,
      scorer_version: version,
    };
  }

  private label(score: number | null): 'consistent' | 'inconsistent' | null {
    if (score === null) return null;
    return score >= this.threshold ? 'consistent' : 'inconsistent';
  }

  private noEvidence(): FcsResult {
    return {
      status: 'no_evidence',
      score: null,
      model_probability: null,
      label: null,
      threshold: this.threshold,
      evidence_snippets: [],
      key_fact_findings: [],
      truncated: false,
      latency_ms: 0,
      execution_provider: this.model.executionProvider,
      cached: false,
      windows: 0,
      scorer_version: this.version,
    };
  }

  /**
   * The windows an engineer should read: those the answer is about (sharing its content words, or
   * cited by a contradicted key fact). Stance: contradicted by a key fact, else the window's
   * combined score against the threshold. Supporting first when consistent, contradicting first otherwise.
   */
  private snippets(item: Prepared, probabilities: number[], score: number): EvidenceSnippet[] {
    const contradictedText = item.findings.filter((f) => f.status === 'contradicted' && f.evidence_text !== undefined);
    const candidates = item.windows.map((window, k) => {
      const citedAgainst = contradictedText.some((f) => f.passage_id === window.passageId && window.text.includes(f.evidence_text!));
      const probability = probabilities[k]!;
      return {
        snippet: {
          passage_id: window.passageId,
          text: window.text,
          // The window's own probability through the same key-fact combination, so the best window's
          // stance always agrees with the triple's label.
          stance: citedAgainst || combineScore(probability, item.findings, this.weights) < this.threshold ? 'contradicts' : 'supports',
          probability,
        } satisfies EvidenceSnippet,
        relevant: citedAgainst || contentOverlap(`${item.question} ${item.answer}`, window.text) >= 0.3,
      };
    });
    let chosen = candidates.filter((c) => c.relevant).map((c) => c.snippet);
    if (chosen.length === 0) {
      const best = candidates.reduce((a, b) => (b.snippet.probability > a.snippet.probability ? b : a));
      chosen = [best.snippet];
    }
    const consistent = score >= this.threshold;
    const rank = (s: EvidenceSnippet): number => (s.stance === (consistent ? 'supports' : 'contradicts') ? 0 : 1);
    chosen.sort((a, b) => rank(a) - rank(b) || (consistent ? b.probability - a.probability : a.probability - b.probability));
    return chosen.slice(0, this.maxSnippets);
  }
}

/** Trims passages, drops empty ones and gives id-less passages a content id (so the cache key is safe). */
export function normalisePassages(evidence: string | (string | { id?: string | undefined; text: string })[]): EvidencePassage[] {
  const list = typeof evidence === 'string' ? [evidence] : evidence;
  const passages: EvidencePassage[] = [];
  for (const item of list) {
    const text = (typeof item === 'string' ? item : item.text).trim();
    if (text.length === 0) continue;
    const id =
      typeof item === 'string' || item.id === undefined
        ? `sha256:${createHash('sha256').update(text).digest('hex').slice(0, 16)}`
        : item.id;
    passages.push({ id, text });
  }
  return passages;
}
