/** What several detectors share: their catalogue entry, and the arithmetic of a score. */
import { CAUSES, type RagComponent, type RepairIntent, type RootCause } from '@rag-immune/contracts';

/** A detector's cause with its component and repair intents as the contract's catalogue has them (avro/common/RootCause.avsc). */
export function catalogued<C extends Exclude<RootCause, 'unknown'>>(
  cause: C,
): { cause: C; component: RagComponent; intents: RepairIntent[] } {
  const entry = CAUSES[cause];
  return { cause, component: entry.component, intents: [...entry.intents] };
}

export const clamp01 = (value: number): number => Math.min(1, Math.max(0, value));
export const bool = (value: boolean): number => (value ? 1 : 0);
