/**
 * What the repairs an incident already kept cover, cause by cause: a cause whose probes a kept repair
 * healed needs no second repair (none runs twice).
 */
import type { RootCauseReport } from '@rag-immune/contracts';
import type { ActionDoc } from '../state/action-store.ts';
import { groupProbeIds } from '../verify/cause-scope.ts';

/**
 * A kept repair of this incident, for the slice's component, that healed every probe the slice's
 * cause explains (or verified them all recovered): the cause needs no second repair. Null when none.
 */
export function healedAlready(actions: readonly ActionDoc[], slice: RootCauseReport): ActionDoc | null {
  const group = groupProbeIds(slice);
  return (
    actions.find((a) => {
      if (a.status !== 'succeeded' || a.component !== slice.affected_component || a.verification === null) return false;
      // What it healed; a record from before per-probe verdicts (outcome unknown) that recovered healed all it measured.
      const legacy = (a.verification.outcome ?? 'unknown') === 'unknown' && a.verification.recovered;
      const covered = new Set(legacy ? a.verification.probe_ids : (a.verification.healed_probe_ids ?? []));
      return group.length > 0 && group.every((id) => covered.has(id));
    }) ?? null
  );
}

/**
 * A repair of this incident kept for the slice's component: verified recovered (against its group
 * then) or kept as a partial recovery. Null when none.
 */
export function keptRepairOf(actions: readonly ActionDoc[], slice: RootCauseReport): ActionDoc | null {
  return (
    actions.find(
      (a) =>
        a.status === 'succeeded' &&
        a.component === slice.affected_component &&
        (a.verification?.recovered === true || a.verification?.outcome === 'partial'),
    ) ?? null
  );
}
