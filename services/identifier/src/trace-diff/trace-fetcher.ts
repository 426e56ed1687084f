import type { ProbeResult } from '@rag-immune/contracts';
import type { Trace } from '@rag-immune/rag-contract';
import { BLOCKING_PIECES, type TraceGap } from '@rag-immune/traces';
import { onlyScoresMissing, scorelessSide, sideOfTrace, type ScorelessSide } from './scoreless.ts';
import { checkTraceBinding, type TraceMismatchField } from './trace-binding.ts';
import type { TraceRead, TraceSource } from './trace-sources.ts';

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
      /**
       * Set when what kept a Trace from being made is only the retrieval scores, on one side or both,
       * and both sides name their context chunks by id (and are this call's): see scoreless.ts.
       */
      scoreless?: { online: ScorelessSide; baseline: ScorelessSide; source: { online: string; baseline: string } };
    };

/** A side of a score-less pair: a whole Trace, or spans that lack only the scores; null otherwise. */
function scorelessOf(read: TraceRead): ScorelessSide | null {
  if (read.ok) return sideOfTrace(read.trace, read.gaps);
  if (!read.incomplete || read.partial === undefined || !onlyScoresMissing(read.partial.gaps, BLOCKING_PIECES)) return null;
  return scorelessSide(read.partial.observed, read.partial.gaps);
}

/** Both sides as a score-less pair when that is all they lack and they are this call's; undefined otherwise. */
function scorelessPair(result: ProbeResult, online: TraceRead, baseline: TraceRead): Extract<TraceFetch, { ok: false }>['scoreless'] {
  const sides = { online: scorelessOf(online), baseline: scorelessOf(baseline) };
  if (sides.online === null || sides.baseline === null) return undefined;
  // Spans under the sentinel's trace id are evidence only when they carry this call's query and answer.
  const sourceOf = (read: TraceRead) => (read.ok ? read.source : 'intake');
  if (sourceOf(online) === 'intake' && !checkTraceBinding(result, result.online, sides.online).ok) return undefined;
  if (sourceOf(baseline) === 'intake' && !checkTraceBinding(result, result.baseline, sides.baseline).ok) return undefined;
  return { online: sides.online, baseline: sides.baseline, source: { online: sourceOf(online), baseline: sourceOf(baseline) } };
}

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
  if (!online.ok || !baseline.ok) {
    const scoreless = scorelessPair(result, online, baseline);
    const failed = !online.ok
      ? { side: 'online' as const, read: online }
      : { side: 'baseline' as const, read: baseline as Extract<TraceRead, { ok: false }> };
    return {
      ok: false,
      side: failed.side,
      reason: failed.read.reason,
      incomplete: failed.read.incomplete,
      ...(scoreless ? { scoreless } : {}),
    };
  }
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
