import { ContractViolationError, RagHttpError, RagUnreachableError, type RagClient, type Trace } from '@rag-immune/rag-contract';

export type TraceFetch = { ok: true; online: Trace; baseline: Trace } | { ok: false; side: 'online' | 'baseline'; reason: string };

function describe(error: unknown): string {
  if (error instanceof RagUnreachableError) return `unreachable (${error.reason})`;
  if (error instanceof RagHttpError) return `HTTP ${error.status}`;
  if (error instanceof ContractViolationError) return `malformed trace: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

/**
 * Fetches both traces of one probe run through the RAG health contract. Whatever goes wrong (no
 * trace id, 404, timeout, a body that breaks the contract) comes back as a reason, never a throw:
 * a missing trace is an open question, not a crash.
 */
export async function fetchTracePair(
  clients: { online: RagClient; baseline: RagClient },
  ids: { online: string | null; baseline: string | null },
  timeoutMs: number,
): Promise<TraceFetch> {
  if (ids.online === null) return { ok: false, side: 'online', reason: 'the probe result carries no online trace id' };
  if (ids.baseline === null) return { ok: false, side: 'baseline', reason: 'the probe result carries no baseline trace id' };
  const get = async (side: 'online' | 'baseline', id: string) => {
    try {
      return { side, trace: await clients[side].trace(id, { timeoutMs }) };
    } catch (error) {
      return { side, error: describe(error) };
    }
  };
  const [online, baseline] = await Promise.all([get('online', ids.online), get('baseline', ids.baseline)]);
  if ('error' in online) return { ok: false, side: 'online', reason: online.error as string };
  if ('error' in baseline) return { ok: false, side: 'baseline', reason: baseline.error as string };
  return { ok: true, online: online.trace as Trace, baseline: baseline.trace as Trace };
}
