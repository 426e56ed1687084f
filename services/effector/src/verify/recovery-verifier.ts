import type { ProbeResult, RootCauseReport } from '@rag-immune/contracts';
import type { GoldenProbe, ProbeRunner } from '@rag-immune/probing';
import type { IdentifierRecords } from '../admission/identifier-records.ts';
import { answerUnhealthy } from './answer-health.ts';
import { groupProbeIds } from './cause-scope.ts';

/** What the affected probes say right now, online vs baseline. */
export interface ProbeMeasurement {
  probe_ids: string[];
  /**
   * The probes the repaired cause explains (a subset of probe_ids): what must heal; the others are
   * watched so that none gets worse. Absent: every probe is the group.
   */
  group_probe_ids?: string[];
  fcs: number | null;
  ic: number | null;
  kf_age_days: number | null;
  /** Every probe of the group answered online without an anomaly against the baseline (speed alone aside: answer-health.ts). */
  recovered: boolean;
  anomalies: string[];
  results: ProbeResult[];
  /**
   * Why these figures judge nothing (the baseline did not answer a probe, so there is nothing to
   * compare the online answer with): the verdict is inconclusive, neither recovered nor not.
   * Null or absent: conclusive.
   */
  inconclusive?: string | null;
}

/** A verification's verdict, as Argo Rollouts' analysis: the repair healed, did not, or the measurement failed. */
export type Verdict = 'recovered' | 'not_recovered' | 'inconclusive';

export function verdictOf(measurement: ProbeMeasurement): Verdict {
  if (measurement.inconclusive) return 'inconclusive';
  return measurement.recovered ? 'recovered' : 'not_recovered';
}

export class VerificationTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`verification probes did not finish within ${timeoutMs} ms`);
    this.name = 'VerificationTimeoutError';
  }
}

function mean(values: (number | null | undefined)[]): number | null {
  const present = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  return present.length === 0 ? null : present.reduce((a, b) => a + b, 0) / present.length;
}

/**
 * A result's online FCS or intent coverage: on a RAG whose LLM samples, the median over the run's
 * online samples (the figure the sentinel's verdict compares; online.signals is one representative
 * sample, so a mean of those would report single draws); with one call a side, that call's. None
 * when the online side failed, as with one call (its samples before the failure judge nothing).
 */
export function onlineScore(result: ProbeResult, signal: 'fcs' | 'ic'): number | null {
  if (result.online.call_status !== 'ok') return null;
  const sampled = signal === 'fcs' ? result.comparison.online_fcs_median : result.comparison.online_ic_median;
  return sampled ?? result.online.signals?.[signal] ?? null;
}

/** The probes whose baseline side failed: the online answer has nothing to be judged against. */
function unmeasured(results: ProbeResult[]): string | null {
  const failed = results.filter((r) => r.baseline.call_status !== 'ok');
  if (failed.length === 0) return null;
  return `the baseline did not answer ${failed.map((r) => `${r.probe_id} (${r.baseline.call_status})`).join(', ')}`;
}

/** `work` over every item, at most `limit` at once, results in the items' order. */
export async function mapBounded<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, lane));
  return results;
}

/** The report's affected probes (and `joined`: probes grouped into the incident since) as golden probes the shared ProbeRunner can run. */
export function probesOf(report: RootCauseReport, joined: RootCauseReport['affected_probes'] = []): GoldenProbe[] {
  return [...report.affected_probes, ...joined].map((p) => ({
    id: p.probe_id,
    version: p.probe_version,
    query: p.query,
    expected_sources: report.affected_knowledge_ids.length > 0 ? [...report.affected_knowledge_ids] : ['unknown'],
    business_value: 1,
    cluster: 'incident',
    created_at: new Date(report.occurred_at).toISOString(),
    retired_at: null,
  }));
}

/**
 * Re-runs the report's affected probes with the sentinel's own probing and scoring code
 * (@rag-immune/probing) against the online and the baseline RAG: a repair recovers when every probe
 * of its group (the probes its cause explains) is back to no anomaly against the baseline; the rest
 * are measured too, so that a repair that makes one of them worse is seen (repair-judgement.ts).
 */
export class RecoveryVerifier {
  constructor(
    private readonly runner: Pick<ProbeRunner, 'run'>,
    private readonly timeoutMs: number,
    /** Probes run at once (each an online and a baseline query): a large incident must not flood both RAGs. */
    private readonly concurrency = 8,
    /**
     * The identifier's record of incidents: read again at every measurement, so that probes grouped
     * into the incident after admission are verified too. Unreachable: the report's probes only.
     */
    private readonly records: IdentifierRecords | null = null,
  ) {}

  /** Probes the identifier grouped into the incident that the report does not name (none when it cannot be asked). */
  private async joinedSince(report: RootCauseReport): Promise<RootCauseReport['affected_probes']> {
    if (this.records === null) return [];
    try {
      const record = await this.records.incident(report.incident_id);
      const named = new Set(report.affected_probes.map((p) => p.probe_id));
      return (record?.probes ?? [])
        .filter((p) => !named.has(p.probe_id))
        .map((p) => ({ probe_id: p.probe_id, probe_version: p.probe_version, query: p.query }));
    } catch {
      return [];
    }
  }

  /** Runs the probes within `timeoutMs` (default the verification budget; the before-repair figures get at least that). */
  async measure(report: RootCauseReport, timeoutMs = this.timeoutMs): Promise<ProbeMeasurement> {
    const joined = await this.joinedSince(report);
    const probes = probesOf(report, joined);
    const group = new Set(
      groupProbeIds(
        report,
        joined.map((p) => p.probe_id),
      ),
    );
    if (probes.length === 0) throw new Error('the report names no affected probes: a repair cannot be verified');
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new VerificationTimeoutError(timeoutMs)), timeoutMs);
    });
    try {
      const results = await Promise.race([mapBounded(probes, this.concurrency, (probe) => this.runner.run(probe)), timeout]);
      return {
        probe_ids: probes.map((p) => p.id),
        group_probe_ids: probes.map((p) => p.id).filter((id) => group.has(id)),
        fcs: mean(results.map((r) => onlineScore(r, 'fcs'))),
        ic: mean(results.map((r) => onlineScore(r, 'ic'))),
        kf_age_days: mean(results.map((r) => r.online.signals?.kf_age_days)),
        recovered: results.filter((r) => group.has(r.probe_id)).every((r) => !answerUnhealthy(r)),
        anomalies: results.filter((r) => r.anomaly).map((r) => `${r.probe_id}: ${r.anomaly_signals.join(',')}`),
        results,
        inconclusive: unmeasured(results),
      };
    } finally {
      clearTimeout(timer);
    }
  }
}
