/**
 * What the sampled mode costs: RAG calls behind probe results. The sentinel counts them per result in
 * its rag_immune_sentinel_rag_calls_per_result histogram (services/sentinel/src/metrics.ts), with the
 * same rule as ragCallsOf below; a benchmark reads the histogram across a phase with no restart, and
 * the results themselves across a trial (a deploy fault restarts the sentinel, which resets its counters).
 */
import type { ProbeResult } from '@rag-immune/contracts';

/** The calls behind one result: the pooled test's own count, else the calls asked (k a side). */
export function ragCallsOf(result: Pick<ProbeResult, 'comparison'>): number {
  return result.comparison.pooled_test?.rag_calls ?? 2 * (result.comparison.samples ?? 1);
}

export interface RagCallCount {
  results: number;
  calls: number;
}

export function countRagCalls(results: readonly Pick<ProbeResult, 'comparison'>[]): RagCallCount {
  return { results: results.length, calls: results.reduce((sum, r) => sum + ragCallsOf(r), 0) };
}

/** `12.4 (620 calls / 50 results)`, or `—` with no result. */
export function callsPerResultText(count: RagCallCount): string {
  return count.results === 0 ? '—' : `${(count.calls / count.results).toFixed(1)} (${count.calls} calls / ${count.results} results)`;
}

/**
 * A counter's or histogram's `_sum`/`_count` line from a Prometheus text exposition (no labels);
 * undefined when absent (a sentinel that predates the metric).
 */
export function metricValue(text: string, name: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
}
