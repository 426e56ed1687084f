import type { ProbeResult } from '@rag-immune/contracts';
import type { Trace } from '@rag-immune/rag-contract';
import type { TraceGap } from '@rag-immune/traces';
import type { TraceSource } from './trace-sources.ts';

export type TraceFetch =
  | {
      ok: true;
      online: Trace;
      baseline: Trace;
      source: { online: string; baseline: string };
      gaps: { online: TraceGap[]; baseline: TraceGap[] };
    }
  | { ok: false; side: 'online' | 'baseline'; reason: string; incomplete: boolean };

/**
 * Fetches both traces of one probe run from each side's source. Whatever goes wrong (no trace id,
 * 404, timeout, a body that breaks the contract, spans that lack a piece) comes back as a reason,
 * never a throw: a missing trace is an open question, not a crash.
 */
export async function fetchTracePair(
  sources: { online: TraceSource; baseline: TraceSource },
  result: ProbeResult,
  timeoutMs: number,
): Promise<TraceFetch> {
  const [online, baseline] = await Promise.all([
    sources.online.read(result.online, timeoutMs),
    sources.baseline.read(result.baseline, timeoutMs),
  ]);
  if (!online.ok) return { ok: false, side: 'online', reason: online.reason, incomplete: online.incomplete };
  if (!baseline.ok) return { ok: false, side: 'baseline', reason: baseline.reason, incomplete: baseline.incomplete };
  return {
    ok: true,
    online: online.trace,
    baseline: baseline.trace,
    source: { online: online.source, baseline: baseline.source },
    gaps: { online: online.gaps, baseline: baseline.gaps },
  };
}
