export { ProbeRunner, type ProbeRunnerOptions } from './probe-runner.ts';
export { DebugCapture } from './debug-capture.ts';
export type { RagPort, FactConsistencyPort, FcsVerdict, EvidenceSnippet } from './ports.ts';
export { GoldenProbeSchema, isActive, type GoldenProbe } from './golden-probe.ts';
export { intentCoverage, detectIntents, extractSlots, type IntentCoverage, type IntentKind } from './signals/intent-coverage.ts';
export { knowledgeFreshness, type KnowledgeFreshness } from './signals/knowledge-freshness.ts';
export { compareWithBaseline, defaultThresholds, type AnomalyThresholds, type BaselineVerdict } from './signals/baseline-comparison.ts';
export { ragClientWithHeaders } from './rag-connection.ts';
