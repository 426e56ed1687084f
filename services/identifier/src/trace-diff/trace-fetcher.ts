import type { ProbeResult } from '@rag-immune/contracts';
import type { Trace } from '@rag-immune/rag-contract';
import type { TraceGap } from '@rag-immune/traces';
import { checkTraceBinding, type TraceMismatchField } from './trace-binding.ts';
import type { TraceSource } from './trace-sources.ts';

export type TraceFetch =
  | {
      ok: true;
      online: Trace;
      baseline: Trace;
      source: { online: string; baseline: string };
      gaps: { online: TraceGap[]; baseline: TraceGap[] };
    }
  | {
      ok: false;
      side: 'online' | 'baseline';
      reason: string;
      incomplete: boolean;
      /** Set when an intake trace was there but is not this call's (checkTraceBinding). */
      mismatch?: TraceMismatchField;
    };

/**
 * Fetches both traces of one probe run from each side's source. Whatever goes wrong (no trace id,
 * 404, timeout, a body that breaks the contract, spans that lack a piece) comes back as a reason,
 * never a throw: a missing trace is an open question, not a crash. An intake trace whose query or
 * answer is not the ProbeResult's is refused like a missing one (trace-binding.ts); a RAG's own
 * GET /traces answer is as trusted as its answer and is not re-checked.
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
  for (const [side, read] of [
    ['online', online],
    ['baseline', baseline],
  ] as const) {
    if (read.source !== 'intake') continue;
    const binding = checkTraceBinding(result, result[side], read.trace);
    if (!binding.ok) return { ok: false, side, reason: `trace intake: ${binding.reason}`, incomplete: false, mismatch: binding.field };
  }
  return {
    ok: true,
    online: online.trace,
    baseline: baseline.trace,
    source: { online: online.source, baseline: baseline.source },
    gaps: { online: online.gaps, baseline: baseline.gaps },
  };
}
