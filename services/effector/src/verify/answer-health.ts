/**
 * What a repair is judged on: the answers, not the RAG's speed. `latency_regression` and
 * `timeout_rate` compare the online RAG's recent call times with the frozen baseline's, and the
 * online one serves the users (and re-embeds during an index repair) while the baseline serves
 * only probes: under load the online side is slower whatever the repair did. No repair in the
 * catalogue makes a RAG faster, so a probe anomalous on speed alone cannot be healed by one, and
 * judging it so undid a verified index repair (the LangChain RAG under 0.2 users/s, 2026-12-07:
 * "probes still anomalous against the baseline: traffic-apt-jbig2dec-…: latency_regression",
 * twice, then escalated). A probe whose own call failed stays unhealthy: an answer that never came
 * is not about speed. The sentinel keeps reporting speed anomalies; they are not this judgement's.
 */
import type { AnomalySignal, ProbeResult } from '@rag-immune/contracts';

export const SPEED_SIGNALS: ReadonlySet<AnomalySignal> = new Set<AnomalySignal>(['latency_regression', 'timeout_rate']);

/** The probe's answer is anomalous against the baseline (speed alone aside), or it did not come. */
export function answerUnhealthy(result: Pick<ProbeResult, 'anomaly' | 'anomaly_signals' | 'online'>): boolean {
  if (result.online.call_status !== 'ok') return true;
  if (!result.anomaly) return false;
  // An anomaly naming no signal is taken at its word.
  return result.anomaly_signals.length === 0 || result.anomaly_signals.some((s) => !SPEED_SIGNALS.has(s));
}
