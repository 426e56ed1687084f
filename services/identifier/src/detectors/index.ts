import type { RootCauseDetector } from './root-cause-detector.ts';
import { vectorIndexCorruptionDetector } from './vector-index-corruption.ts';
import { rerankerDriftDetector } from './reranker-drift.ts';
import { knowledgeSourceFailureDetector } from './knowledge-source-failure.ts';
import { parserBugDetector } from './parser-bug.ts';
import { generatorInconsistencyDetector } from './generator-inconsistency.ts';
import { tokenizerAnomalyDetector } from './tokenizer-anomaly.ts';
import { unpublishedKnowledgeDetector } from './unpublished-knowledge.ts';
import { wrongAttributionDetector } from './wrong-attribution.ts';

export * from './root-cause-detector.ts';

/** Every cause the identifier can name. A new cause is a new file here, added to this list. */
export const DETECTORS: readonly RootCauseDetector[] = [
  vectorIndexCorruptionDetector,
  rerankerDriftDetector,
  knowledgeSourceFailureDetector,
  parserBugDetector,
  generatorInconsistencyDetector,
  tokenizerAnomalyDetector,
  unpublishedKnowledgeDetector,
  wrongAttributionDetector,
];
