import type { ProbeResult } from './generated/ProbeResult.ts';
import type { RootCauseReport } from './generated/RootCauseReport.ts';
import type { RepairAction } from './generated/RepairAction.ts';

/**
 * The three topics of the immune system. Each topic carries exactly one Avro record type,
 * registered under the subject `<topic>-value` (Confluent's TopicNameStrategy).
 */
export const Topics = {
  probes: {
    name: 'rag-sentinel-probes',
    schemaFile: 'ProbeResult.avsc',
    recordName: 'io.ragimmune.sentinel.ProbeResult',
    /** Probes of one probe_id stay ordered on one partition. */
    keyOf: (event: ProbeResult): string => event.probe_id,
  },
  reports: {
    name: 'rag-identifiers-reports',
    schemaFile: 'RootCauseReport.avsc',
    recordName: 'io.ragimmune.identifier.RootCauseReport',
    keyOf: (event: RootCauseReport): string => event.incident_id,
  },
  actions: {
    name: 'rag-effectors-actions',
    schemaFile: 'RepairAction.avsc',
    recordName: 'io.ragimmune.effector.RepairAction',
    keyOf: (event: RepairAction): string => event.incident_id,
  },
} as const;

export type TopicId = keyof typeof Topics;

/** The event type each topic carries. */
export interface TopicEvents {
  probes: ProbeResult;
  reports: RootCauseReport;
  actions: RepairAction;
}

export const topicIds = Object.keys(Topics) as TopicId[];

export function subjectOf(topic: TopicId): string {
  return `${Topics[topic].name}-value`;
}
