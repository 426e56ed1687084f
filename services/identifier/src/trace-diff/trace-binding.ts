/**
 * A trace from the trace intake is evidence for a probe call only when it is that call's: the
 * intake files spans under the trace id the sentinel sent, but whoever learns that id (the RAG, a
 * Collector in between, a client that posts spans) could put spans of another question, or of
 * another answer, under it. So the trace must carry the ProbeResult's query and an answer whose
 * hash is the observation's `answer_hash` (what the sentinel actually received). A mismatch is no
 * evidence: the analysis is recorded as without a trace, counted and logged, and the diagnosis is
 * made from what else there is.
 */
import { answerHash, type ProbeObservation, type ProbeResult } from '@rag-immune/contracts';
import type { Trace } from '@rag-immune/rag-contract';

export type TraceMismatchField = 'query' | 'answer';

export type TraceBinding = { ok: true } | { ok: false; field: TraceMismatchField; reason: string };

const normalised = (text: string) => text.normalize('NFC').trim().replace(/\s+/g, ' ');

export function checkTraceBinding(
  result: Pick<ProbeResult, 'query'>,
  observation: ProbeObservation,
  trace: Pick<Trace, 'query' | 'answer'>,
): TraceBinding {
  if (normalised(trace.query) !== normalised(result.query))
    return { ok: false, field: 'query', reason: "the trace's query is not the probe's: not this call's trace, not used as evidence" };
  // A result from a sentinel that predates answer_hash is checked on its query only.
  const expected = observation.answer_hash ?? null;
  if (expected !== null && answerHash(trace.answer) !== expected)
    return {
      ok: false,
      field: 'answer',
      reason: "the trace's answer does not hash to the answer the sentinel received: not this call's trace, not used as evidence",
    };
  return { ok: true };
}
