/**
 * Simulated users against a RAG's POST /query, for tests, benches and the demo: questions from a
 * UserQueryMix at a steady rate (request i is due at start + i / rate), each a plain user request
 * with its own fresh W3C traceparent and no `tracestate` (so never marked as a probe). Bounded by a
 * request count and a duration, whichever comes first, and by an abort signal; at most
 * `maxInFlight` calls at once: when the RAG is slower than the rate, the schedule slips (counted
 * as `late`) instead of piling calls up. It stops by itself and waits for its last calls.
 */
import { randomBytes } from 'node:crypto';
import { RagClient, type QueryResponse } from '@rag-immune/rag-contract';
import type { UserQuery, UserQueryMix } from './user-queries.ts';

/** One user request as sent and how it went. */
export interface UserRequest extends UserQuery {
  /** The W3C trace id sent in the traceparent: the RAG's spans of the call carry it. */
  trace_id: string;
  sent_at: number;
  outcome: 'answered' | 'failed';
  error?: string;
  /** The RAG's own id of the call (its response's trace_id). */
  rag_trace_id?: string;
}

export interface TrafficReport {
  requests: UserRequest[];
  answered: number;
  failed: number;
  /** Requests sent after their due time because `maxInFlight` calls were still running. */
  late: number;
  duration_ms: number;
  /** How many requests asked about each knowledge id. */
  asked: Map<string, number>;
}

/** How one request reaches the RAG; the default is the contract's RagClient. */
export type SendQuery = (query: string, headers: Record<string, string>, signal: AbortSignal) => Promise<Pick<QueryResponse, 'trace_id'>>;

export interface TrafficGeneratorOptions {
  mix: UserQueryMix;
  /** Requests per second (> 0). */
  rate: number;
  /** Stop after this many requests. */
  maxRequests: number;
  /** Stop after this long (ms), whichever comes first. */
  maxDurationMs: number;
  /** The RAG's base URL (with `send` left out). */
  url?: string;
  /** Headers every request carries (e.g. the RAG's bearer token). */
  headers?: Record<string, string>;
  send?: SendQuery;
  /** Calls at once (default 4). */
  maxInFlight?: number;
  /** Per-call timeout (default 30 s). */
  callTimeoutMs?: number;
  signal?: AbortSignal;
  /** Clock and sleep, replaced by unit tests. */
  now?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** A fresh, sampled W3C traceparent with random non-zero ids: a user call as any traced client makes it. */
export function userTraceparent(): { trace_id: string; traceparent: string } {
  const hex = (bytes: number) => {
    for (;;) {
      const value = randomBytes(bytes).toString('hex');
      if (!/^0+$/.test(value)) return value;
    }
  };
  const traceId = hex(16);
  return { trace_id: traceId, traceparent: `00-${traceId}-${hex(8)}-01` };
}

const abortableSleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted || ms <= 0) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

export class TrafficGenerator {
  private readonly send: SendQuery;

  constructor(private readonly options: TrafficGeneratorOptions) {
    if (!(options.rate > 0)) throw new RangeError(`rate must be > 0 requests/s, not ${options.rate}`);
    if (!(Number.isInteger(options.maxRequests) && options.maxRequests >= 0))
      throw new RangeError(`maxRequests must be a whole number >= 0, not ${options.maxRequests}`);
    if (!(options.maxDurationMs > 0)) throw new RangeError(`maxDurationMs must be > 0, not ${options.maxDurationMs}`);
    if (options.send === undefined && options.url === undefined)
      throw new RangeError('a traffic generator needs a RAG url or a send function');
    const timeoutMs = options.callTimeoutMs ?? 30_000;
    const client = options.url === undefined ? null : new RagClient({ baseUrl: options.url, timeoutMs });
    this.send = options.send ?? ((query, headers, signal) => client!.query({ query }, { headers, signal }));
  }

  /** The due time (ms after start) of request i at the configured rate. */
  static dueAt(index: number, rate: number): number {
    return (index * 1000) / rate;
  }

  async run(): Promise<TrafficReport> {
    const now = this.options.now ?? Date.now;
    const sleep = this.options.sleep ?? abortableSleep;
    const maxInFlight = this.options.maxInFlight ?? 4;
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    this.options.signal?.addEventListener('abort', onAbort, { once: true });
    if (this.options.signal?.aborted) stop.abort();

    const started = now();
    const deadline = started + this.options.maxDurationMs;
    const requests: UserRequest[] = [];
    const inFlight = new Set<Promise<void>>();
    let late = 0;
    try {
      for (let i = 0; i < this.options.maxRequests && !stop.signal.aborted; i += 1) {
        const due = started + TrafficGenerator.dueAt(i, this.options.rate);
        if (due >= deadline) break;
        await sleep(due - now(), stop.signal);
        while (inFlight.size >= maxInFlight && !stop.signal.aborted) await Promise.race(inFlight);
        if (stop.signal.aborted || now() >= deadline) break;
        if (now() - due > 1000 / this.options.rate) late += 1;
        const call = this.call(this.options.mix.next(), now(), stop.signal).then((request) => {
          requests.push(request);
        });
        const tracked: Promise<void> = call.finally(() => inFlight.delete(tracked));
        inFlight.add(tracked);
      }
      await Promise.all(inFlight);
    } finally {
      this.options.signal?.removeEventListener('abort', onAbort);
    }

    requests.sort((a, b) => a.sent_at - b.sent_at);
    const asked = new Map<string, number>();
    for (const r of requests) if (r.knowledge_id !== null) asked.set(r.knowledge_id, (asked.get(r.knowledge_id) ?? 0) + 1);
    return {
      requests,
      answered: requests.filter((r) => r.outcome === 'answered').length,
      failed: requests.filter((r) => r.outcome === 'failed').length,
      late,
      duration_ms: now() - started,
      asked,
    };
  }

  private async call(query: UserQuery, sentAt: number, signal: AbortSignal): Promise<UserRequest> {
    const { trace_id, traceparent } = userTraceparent();
    // A user's call: its own traceparent and never a tracestate (the probe mark is the sentinel's alone).
    const { tracestate: _ignored, ...common } = this.options.headers ?? {};
    const headers = { ...common, traceparent };
    try {
      const response = await this.send(query.query, headers, signal);
      return { ...query, trace_id, sent_at: sentAt, outcome: 'answered', rag_trace_id: response.trace_id };
    } catch (error) {
      return { ...query, trace_id, sent_at: sentAt, outcome: 'failed', error: (error as Error).message };
    }
  }
}
