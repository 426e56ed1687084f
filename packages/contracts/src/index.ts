export { Topics, topicIds, subjectOf, type TopicId, type TopicEvents } from './topics.ts';
export { loadTopicSchema, sharedTypes, avroDir, type AvroRecordSchema } from './schemas.ts';
export { assembleSchema, loadSharedTypes, type SharedType } from './avro-assembly.ts';
export * from './generated/catalogue.ts';
export { eventEnvelope, type EventEnvelope } from './envelope.ts';
export { reportForFinding, type Finding } from './report-findings.ts';

import type { IoRagimmuneCommon } from './generated/ProbeResult.ts';
import type { IoRagimmuneSentinel } from './generated/ProbeResult.ts';
import type { IoRagimmuneIdentifier } from './generated/RootCauseReport.ts';
import type { IoRagimmuneEffector } from './generated/RepairAction.ts';
import type { IoRagimmuneCommon as RepairCommon } from './generated/RepairAction.ts';
import type { INCIDENT_OUTCOMES } from './generated/catalogue.ts';

export type { ProbeResult } from './generated/ProbeResult.ts';
export type { RootCauseReport } from './generated/RootCauseReport.ts';
export type { RepairAction } from './generated/RepairAction.ts';

export type EventProducer = IoRagimmuneCommon.EventProducer;
export type ProbeObservation = IoRagimmuneSentinel.ProbeObservation;
export type HealthSignals = IoRagimmuneSentinel.HealthSignals;
export type RetrievedDocument = IoRagimmuneSentinel.RetrievedDocument;
export type RagCallStatus = IoRagimmuneSentinel.RagCallStatus;
export type AnomalySeverity = IoRagimmuneSentinel.AnomalySeverity;
export type AnomalySignal = IoRagimmuneSentinel.AnomalySignal;
export type BaselineComparison = IoRagimmuneSentinel.BaselineComparison;
export type FeedCheckStatus = IoRagimmuneSentinel.FeedCheckStatus;
export type UnpublishedKnowledge = IoRagimmuneSentinel.UnpublishedKnowledge;
export type AttributionCheck = IoRagimmuneSentinel.AttributionCheck;
export type FcsStatus = IoRagimmuneSentinel.FcsStatus;
export type RootCause = IoRagimmuneIdentifier.RootCause;
export type RagComponent = IoRagimmuneIdentifier.RagComponent;
export type EvidenceClaim = IoRagimmuneIdentifier.EvidenceClaim;
export type OpenQuestion = IoRagimmuneIdentifier.OpenQuestion;
export type RepairIntent = RepairCommon.RepairIntent;
export type RepairStatus = IoRagimmuneEffector.RepairStatus;
export type IncidentOutcome = (typeof INCIDENT_OUTCOMES)[number];
export type RecoveryVerification = IoRagimmuneEffector.RecoveryVerification;
export { exampleProbeResult, exampleRootCauseReport, exampleRepairAction } from './examples.ts';
