/**
 * Whether an injected fault did any harm the probes can see: the online RAG's answers to every golden
 * probe before and after the injection. A fault that changes no answer (permuted query vectors that
 * still retrieve the right chunks on this knowledge) is harmless, and a harmless fault expects no
 * action: a trial reports it as such instead of waiting for a repair that nothing should make.
 */
import { RagClient, type QueryResponse } from '@rag-immune/rag-contract';
import type { GoldenProbe } from '@rag-immune/probing';

/**
 * `answers` compares the answer texts (a deterministic RAG); `retrieval` the retrieved chunks'
 * knowledge ids and versions in rank order (a RAG whose LLM samples answers differently every call).
 */
export type FaultEffectCheck = 'answers' | 'retrieval';

/** What one probe's call returned, reduced to what the check compares; errors are outcomes too. */
export type ProbeOutcome = string;

export async function probeOutcomes(
  onlineUrl: string,
  probes: readonly GoldenProbe[],
  check: FaultEffectCheck,
  timeoutMs = 20_000,
): Promise<Map<string, ProbeOutcome>> {
  const rag = new RagClient({ baseUrl: onlineUrl, timeoutMs });
  const out = new Map<string, ProbeOutcome>();
  for (const probe of probes) {
    try {
      out.set(probe.id, outcomeOf(await rag.query({ query: probe.query }), check));
    } catch (error) {
      // A timeout or an error is a change a probe sees (latency faults change no answer text).
      out.set(probe.id, `error: ${(error as Error).name}`);
    }
  }
  return out;
}

export function outcomeOf(response: QueryResponse, check: FaultEffectCheck): ProbeOutcome {
  if (check === 'answers') return response.answer.trim();
  return response.chunks.map((chunk) => `${chunk.knowledge_id}@${chunk.version}`).join(' ');
}

/** The probes whose outcome differs after the injection. */
export function harmedProbes(before: Map<string, ProbeOutcome>, after: Map<string, ProbeOutcome>): string[] {
  return [...after].filter(([id, outcome]) => before.get(id) !== outcome).map(([id]) => id);
}
