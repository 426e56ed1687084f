export { ProbeRunner, sampledModeProblem, DEFAULT_SAMPLE_ALPHA, type ProbeRunnerOptions, type PooledTestOptions } from './probe-runner.ts';
export { DebugCapture } from './debug-capture.ts';
export type { RagPort, FactConsistencyPort, FcsVerdict, EvidenceSnippet } from './ports.ts';
export { GoldenProbeSchema, isActive, type GoldenProbe } from './golden-probe.ts';
export { intentCoverage, detectIntents, extractSlots, type IntentCoverage, type IntentKind } from './signals/intent-coverage.ts';
export { knowledgeFreshness, type KnowledgeFreshness } from './signals/knowledge-freshness.ts';
export {
  compareWithBaseline,
  defaultThresholds,
  answerAndLatencyDefaults,
  type AnomalyThresholds,
  type BaselineVerdict,
  type ComparedSignals,
  type ComparisonInputs,
  type SampledScores,
} from './signals/baseline-comparison.ts';
export {
  mannWhitneyLessP,
  mannWhitneyLessNull,
  median,
  sampledDrop,
  sampledDropFires,
  smallestPossibleP,
  type NullDistribution,
  type SampledDrop,
} from './signals/sample-test.ts';
export { factFrequencyTest, type FactFrequencyTest } from './signals/fact-frequency-test.ts';
export {
  eValue,
  EDetector,
  PooledEvidence,
  pooledThreshold,
  POOLED_SIGNALS,
  type PooledEvidenceOptions,
  type PooledSignal,
  type PooledSignalState,
  type PooledVerdict,
} from './signals/pooled-test.ts';
export { KnowledgePooledEvidence, withPoolAlarms, type KnowledgePoolOptions, type KnowledgePoolVerdict } from './signals/knowledge-pool.ts';
export { AdaptiveSampling, type AdaptiveSamplingOptions } from './signals/adaptive-sampling.ts';
export { answersAreConsistent, baselineFactsLossP, factsKey, modalAnswerIndex } from './signals/sample-consensus.ts';
export {
  answerAgreement,
  keyFacts,
  alteredChunks,
  onlineKnowledgeIsNewer,
  newerOnlineChunks,
  type AnswerComparison,
  type AnswerSide,
} from './signals/answer-agreement.ts';
export {
  checkAgainstFeed,
  aheadOfFeed,
  MAX_FEED_LOOKUPS,
  type FeedCheck,
  type FreshnessLookup,
  type NewerKnowledgeWithoutLookup,
  type NewerChunk,
} from './signals/knowledge-feed-check.ts';
export { attributionCheck, misattributed, type CitingSide } from './signals/attribution.ts';
export { CallHealthWindow, percentile, type CallHealthComparison, type CallOutcome } from './signals/call-health.ts';
export { detectability, BROKEN_FCS_FLOOR, type Detectability, type CleanStateSignals } from './signals/detectability.ts';

// Probe curation: the golden probe file, building a probe set from a query log, rotation, history.
export { ProbeCatalog, parseProbeFile, formatProbeFile, InvalidProbeFileError, type ProbeFileIssue } from './catalog/probe-catalog.ts';
export {
  ProbeSetBuilder,
  attribution,
  defaultProbeSetOptions,
  queryVariants,
  type ProbeSetOptions,
  type ProbeSetReport,
  type CandidateVerdict,
} from './catalog/probe-set-builder.ts';
export {
  planRotation,
  applyRotation,
  defaultRotationOptions,
  type RotationDecision,
  type RotationOptions,
} from './catalog/probe-rotation.ts';
export { parseQueryLog, type QueryLogEntry } from './catalog/query-log.ts';
export { readOnlineFcsHistory, readProbeHistory, type ProbeHistory } from './catalog/probe-history.ts';
export { probesFromQuestions, type LabelledQuestionLike } from './catalog/labelled-question-probes.ts';
/** The probe runners' side of the signed probe mark (PROBE_MARK_KEY), for the workers that run probes. */
export { ProbeMarkSigner, PROBE_MARK_MIN_KEY_LENGTH } from '@rag-immune/traces';
export { seededRandom } from './random.ts';
