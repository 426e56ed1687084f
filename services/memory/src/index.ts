export { MemoryConfigSchema, memoryConfigFromEnv, storeNames, MEMORY_VERSION, DEFAULT_RULES_FILE, type MemoryConfig } from './config.ts';
export {
  applyEvent,
  caseIdOf,
  derive,
  embeddingText,
  emptyCase,
  moveWord,
  signatureKey,
  signatureSymptoms,
  signatureText,
  symptomOverlap,
  stepResult,
  type CaseAction,
  type CaseCard,
  type CaseClaim,
  type CaseEvent,
  type CaseOutcome,
  type CaseSignature,
  type CaseStatus,
  type CardTransition,
  type HealingCase,
} from './cases/healing-case.ts';
export { CaseStore, CaseVersionConflictError, pointPayload, type CaseFilter, type StoredCase } from './cases/case-store.ts';
export { CachedEmbedder, CaseRecorder, type SignatureEmbedder } from './cases/case-recorder.ts';
export { reciprocalRankFusion } from './recommend/rrf.ts';
export {
  rankStrategies,
  rankingSimilarity,
  halfLifeWeight,
  caseWeight,
  type RankingCandidate,
  type StrategyRanking,
} from './recommend/strategy-ranking.ts';
export { ExpertRules, RulesFile, RulesFileError } from './recommend/expert-rules.ts';
export { Recommender, cosine } from './recommend/recommender.ts';
export { planForgetting, conflictScore, type ForgettingPlan } from './forgetting/forgetting-policy.ts';
export { Forgetter } from './forgetting/forgetter.ts';
export { RetrievalAudit, type RetrievalAuditRecord } from './audit/retrieval-audit.ts';
export { MemoryMetrics } from './metrics.ts';
export { MemoryWorker, type MemoryWorkerDeps } from './worker.ts';
