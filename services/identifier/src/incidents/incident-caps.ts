import { isVerification, type Incident, type TimelineEntry } from './incident.ts';

/**
 * How much of a long-running incident its document keeps. While the group window slides under a
 * persistent fault, every anomaly adds an event id, an analysis and a timeline entry: uncapped, the
 * document grew to megabytes, its reports passed the bus's 10,000-item arrays (dead-lettered) and
 * 1 MB messages (never published). The most recent entries are kept, with counts of the dropped ones.
 */
export interface IncidentCaps {
  /** The incident's probe event ids (replay detection looks here: a replay older than these is not recognised). */
  probeEventIds: number;
  /** Event ids kept per probe. */
  probeEventIdsPerProbe: number;
  /** Analyses the verdict is computed from: the most recent ones. */
  analyses: number;
  /** Timeline entries: `anomaly` entries are dropped first (they are one per anomaly, as the analyses). */
  timeline: number;
}

export const DEFAULT_INCIDENT_CAPS: IncidentCaps = { probeEventIds: 1000, probeEventIdsPerProbe: 100, analyses: 200, timeline: 400 };

/** Probe event ids a report carries: the most recent ones, far below the bus's array limit. */
export const REPORT_MAX_PROBE_EVENT_IDS = 500;

/** What rolling dropped from the incident so far (absent on documents written before the caps). */
export interface DroppedCounts {
  probe_event_ids: number;
  analyses: number;
  timeline: number;
}

/** Drops the oldest entries past the caps, counting them in `incident.dropped`. Returns whether anything was dropped. */
export function rollIncident(incident: Incident, caps: IncidentCaps = DEFAULT_INCIDENT_CAPS): boolean {
  const dropped: DroppedCounts = { probe_event_ids: 0, analyses: 0, timeline: 0, ...incident.dropped };
  const before = dropped.probe_event_ids + dropped.analyses + dropped.timeline;
  dropped.probe_event_ids += dropOldest(incident.probe_event_ids, caps.probeEventIds);
  for (const probe of incident.probes) dropOldest(probe.event_ids, caps.probeEventIdsPerProbe);
  dropped.analyses += dropOldest(incident.analyses, caps.analyses);
  dropped.timeline += rollTimeline(incident.timeline, caps.timeline);
  if (dropped.probe_event_ids + dropped.analyses + dropped.timeline === before) return false;
  incident.dropped = dropped;
  return true;
}

/** The probe event ids a report on this incident carries (the most recent ones). */
export function reportProbeEventIds(incident: Pick<Incident, 'probe_event_ids'>, max = REPORT_MAX_PROBE_EVENT_IDS): string[] {
  return incident.probe_event_ids.slice(-max);
}

function dropOldest(list: unknown[], cap: number): number {
  const excess = list.length - cap;
  if (excess <= 0) return 0;
  list.splice(0, excess);
  return excess;
}

/**
 * Drops the oldest `anomaly` entries first, then the oldest others, never the latest verification
 * (grouping reads when the last repair was verified from it).
 */
function rollTimeline(timeline: TimelineEntry[], cap: number): number {
  let excess = timeline.length - cap;
  if (excess <= 0) return 0;
  let lastVerified = -1;
  for (let i = timeline.length - 1; i >= 0; i--)
    if (isVerification(timeline[i]!)) {
      lastVerified = i;
      break;
    }
  const drop = new Set<number>();
  for (let i = 0; i < timeline.length && drop.size < excess; i++) if (timeline[i]!.event === 'anomaly') drop.add(i);
  for (let i = 0; i < timeline.length && drop.size < excess; i++) if (i !== lastVerified) drop.add(i);
  excess = drop.size;
  const kept = timeline.filter((_entry, i) => !drop.has(i));
  timeline.splice(0, timeline.length, ...kept);
  return excess;
}
