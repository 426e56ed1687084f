/**
 * Confirmation by shadow replay. A drifting segment is never an incident by itself: a capped sample
 * of its users' own (redacted) queries is run as probes through the SAME ProbeRunner the golden
 * probes use (online against the frozen baseline, sampled mode included, the same comparison), and
 * the segment is confirmed only when at least `confirmShare` of the chosen queries are anomalous
 * (asked in order, stopping once that is reached or out of reach).
 * Only then are its anomalous results published, as ProbeResults with origin `traffic` and the
 * segment: the identifier and effector take them as any probe's, and the effector's verification
 * re-runs them from the report (a replay probe's id is stable per query, its query in the result).
 * They are never scheduled, so they expire with the incident. A rejected segment publishes nothing.
 */
import { createHash } from 'node:crypto';
import type { ProbeResult } from '@rag-immune/contracts';
import type { GoldenProbe, ProbeRunner } from '@rag-immune/probing';

export interface ReplayCaps {
  /** Queries replayed per flagged segment. */
  perSegment: number;
  /**
   * Queries replayed for one segment within `incidentWindowMs` (its incident), over all its flags;
   * reset when its incident ends (`incidentEnded`).
   */
  perIncident: number;
  incidentWindowMs: number;
  /** Queries replayed per hour over all segments (each is a call to both RAGs). */
  perHour: number;
}

export interface ReplayOutcome {
  segment: string;
  replayed: number;
  anomalous: number;
  confirmed: boolean;
  /** Why nothing (or less) was replayed, when a cap cut it. */
  capped?: string;
  published: string[];
  /** The published results themselves (kept in memory for the promoted re-runs; never logged). */
  publishedResults: ProbeResult[];
}

/** A replay probe's id: stable per query, so every replay of one query is the same probe to the identifier. */
export function replayProbeId(segment: string, query: string): string {
  const slug = segment
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .slice(0, 80);
  return `traffic-${slug || 'segment'}-${createHash('sha256').update(query).digest('hex').slice(0, 12)}`;
}

export function replayProbe(segment: string, query: string, now: Date): GoldenProbe {
  return {
    id: replayProbeId(segment, query),
    version: 1,
    query,
    expected_sources: [segment],
    business_value: 0.5,
    cluster: `traffic:${segment}`,
    created_at: now.toISOString(),
    retired_at: null,
  };
}

export class ShadowReplay {
  private readonly hourly: number[] = [];
  private readonly perSegment = new Map<string, number[]>();
  private readonly now: () => number;

  constructor(
    private readonly runner: Pick<ProbeRunner, 'run'>,
    private readonly publish: (result: ProbeResult) => Promise<void>,
    private readonly caps: ReplayCaps,
    private readonly confirmShare: number,
    now?: () => number,
  ) {
    this.now = now ?? Date.now;
  }

  /** How many queries the caps allow for this segment now. */
  private allowance(segment: string): { n: number; capped?: string } {
    const now = this.now();
    while (this.hourly.length > 0 && this.hourly[0]! <= now - 3_600_000) this.hourly.shift();
    const recent = (this.perSegment.get(segment) ?? []).filter((t) => t > now - this.caps.incidentWindowMs);
    this.perSegment.set(segment, recent);
    const limits: [number, string][] = [
      [this.caps.perSegment, 'per segment'],
      [this.caps.perIncident - recent.length, 'per incident'],
      [this.caps.perHour - this.hourly.length, 'per hour'],
    ];
    const [n, name] = limits.reduce((a, b) => (b[0] < a[0] ? b : a));
    return n < this.caps.perSegment ? { n: Math.max(0, n), capped: name } : { n };
  }

  /**
   * The segment's incident is over (its promoted replays came back clean): its per-incident budget
   * starts again, so a later fault on the same knowledge is not left unconfirmed by the last one's
   * spending (the traffic bench of 2026-12-07 replayed a segment hit by three trials within the hour).
   */
  incidentEnded(segment: string): void {
    this.perSegment.delete(segment);
  }

  async confirm(segment: string, queries: readonly string[]): Promise<ReplayOutcome> {
    const distinct = [...new Set(queries)];
    const { n, capped } = this.allowance(segment);
    const chosen = distinct.slice(0, n);
    const stamps = this.perSegment.get(segment)!;
    const at = new Date(this.now());
    // The bar is a count over the chosen queries, fixed before the first is asked. The replay stops
    // once it is reached or out of reach: the verdict is the one all of them would give, and on a slow
    // RAG each query saved is a minute (the LangChain RAG, sampled: 65 s a query, 2026-12-07).
    const required = Math.max(1, Math.ceil(this.confirmShare * chosen.length));
    const results: ProbeResult[] = [];
    let anomalousSoFar = 0;
    for (const [i, query] of chosen.entries()) {
      if (anomalousSoFar >= required || anomalousSoFar + (chosen.length - i) < required) break;
      this.hourly.push(this.now());
      stamps.push(this.now());
      const result = await this.runner.run(replayProbe(segment, query, at));
      results.push({ ...result, origin: 'traffic', segment });
      if (result.anomaly) anomalousSoFar++;
    }
    const anomalous = results.filter((r) => r.anomaly);
    const confirmed = chosen.length > 0 && anomalous.length >= required;
    const publishedResults: ProbeResult[] = [];
    if (confirmed)
      for (const result of anomalous) {
        await this.publish(result);
        publishedResults.push(result);
      }
    return {
      segment,
      replayed: results.length,
      anomalous: anomalous.length,
      confirmed,
      published: publishedResults.map((r) => r.probe_id),
      publishedResults,
      ...(capped ? { capped } : {}),
    };
  }
}
