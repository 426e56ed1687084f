/** What several detectors share: their catalogue entry, and the arithmetic of a score. */
import { CAUSES, type RagComponent, type RepairIntent, type RootCause } from '@rag-immune/contracts';
import type { DetectorVerdict, Measurement, RootCauseDetector } from '../root-cause-detector.ts';

/** A detector's cause with its component and repair intents as the contract's catalogue has them (avro/common/RootCause.avsc). */
export function catalogued<C extends Exclude<RootCause, 'unknown'>>(
  cause: C,
): { cause: C; component: RagComponent; intents: RepairIntent[] } {
  const entry = CAUSES[cause];
  return { cause, component: entry.component, intents: [...entry.intents] };
}

export const clamp01 = (value: number): number => Math.min(1, Math.max(0, value));
export const bool = (value: boolean): number => (value ? 1 : 0);

/** A detector's verdict on one probe: its score, the measurements it rests on (none for 0) and the knowledge it implicates. */
export function verdict(
  detector: Pick<RootCauseDetector, 'cause' | 'component'>,
  score: number,
  measurements: Measurement[] = [],
  knowledgeIds: string[] = [],
): DetectorVerdict {
  return { cause: detector.cause, component: detector.component, score, measurements, knowledge_ids: knowledgeIds };
}
