export type { EvidencePassage, EvidenceWindow, WindowOptions, WindowPlan } from './evidence-windows.ts';
export { buildWindows, splitSentences } from './evidence-windows.ts';
export type { ConsistencyModel, ExecutionProviderChoice, FcsModelOptions } from './fcs-model.ts';
export { DEFAULT_FP32_MODEL_PATH, DEFAULT_MODEL_PATH, DEFAULT_TOKENIZER_PATH, FcsModel, MAX_MODEL_TOKENS } from './fcs-model.ts';
export type { V2Combination, V2Feature, V2Features, V2Windowing } from './claim-scoring.ts';
export type { ClaimEmbedder, ClaimsAndChunks, EmbeddingSupport } from './embedding-support.ts';
export { embeddingSupport } from './embedding-support.ts';
export {
  combineV2,
  DEFAULT_CHUNKS_PER_CLAIM,
  DEFAULT_V2_COMBINATION_PATH,
  EMBEDDING_FEATURES,
  FALLBACK_V2_COMBINATION,
  lexicalFeatures,
  loadV2Combination,
  needsEmbedder,
  splitClaims,
  transformFeature,
  unreadKeyFacts,
  penalisedContradictions,
  V2_FEATURES,
} from './claim-scoring.ts';
export type {
  ClaimVerdict,
  ScorerVersion,
  CombinationWeights,
  EvidenceSnippet,
  FactConsistencyScorerOptions,
  FcsInput,
  FcsLabelledInput,
  FcsResult,
  LoadScorerOptions,
} from './fcs-scorer.ts';
export {
  combineScore,
  DEFAULT_SCORER_VERSION,
  DEFAULT_WEIGHTS,
  FactConsistencyScorer,
  FcsInputError,
  fcsInputSchema,
  fcsLabelledInputSchema,
  isConsistentLabel,
  normalisePassages,
  scorerVersionFromEnv,
} from './fcs-scorer.ts';
export type { ExtractedFacts, KeyFactFinding, KeyFactKind, KeyFactStatus } from './key-facts.ts';
export { checkKeyFacts, extractFacts, indexEvidence, normaliseForKey } from './key-facts.ts';
export type { EncodedPair } from './pair-tokenizer.ts';
export { PairTokenizer } from './pair-tokenizer.ts';
export type { ScoreCacheOptions } from './score-cache.ts';
export { SCORE_CACHE_TTL_MS, ScoreCache, scoreCacheKey } from './score-cache.ts';
