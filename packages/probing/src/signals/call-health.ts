/**
 * Latency and timeouts of one side's recent RAG calls (issue 15, item 2): a hung or slow online RAG
 * is judged against the baseline answering the same probes at the same time, so machine load that
 * slows both sides does not look like an online fault.
 */
export interface CallOutcome {
  latencyMs: number;
  /** The call timed out, or was not made because the side's circuit was open after timeouts. */
  timedOut: boolean;
  ok: boolean;
}

export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? null;
}

/** The last `size` calls of one side. */
export class CallHealthWindow {
  private readonly outcomes: CallOutcome[] = [];

  constructor(private readonly size = 50) {}

  record(outcome: CallOutcome): void {
    this.outcomes.push(outcome);
    if (this.outcomes.length > this.size) this.outcomes.shift();
  }

  get count(): number {
    return this.outcomes.length;
  }

  /** p95 latency of the successful calls; null with fewer than `minSamples` of them. */
  latencyP95(minSamples = 5): number | null {
    const latencies = this.outcomes.filter((o) => o.ok).map((o) => o.latencyMs);
    return latencies.length < minSamples ? null : percentile(latencies, 95);
  }

  /** Share of the calls that timed out; null before any call. */
  timeoutRate(): number | null {
    return this.outcomes.length === 0 ? null : this.outcomes.filter((o) => o.timedOut).length / this.outcomes.length;
  }
}

/** What a ProbeRunner hands to compareWithBaseline about latency and timeouts. */
export interface CallHealthComparison {
  online_latency_p95_ms: number | null;
  baseline_latency_p95_ms: number | null;
  online_timeout_rate: number | null;
  /** This run's own online call: its latency and whether it timed out (or met an open circuit). */
  online_latency_ms: number;
  online_timed_out: boolean;
}
