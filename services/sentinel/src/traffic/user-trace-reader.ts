/**
 * Reads the users' traces the intake stored (redacted) in `<prefix>-otlp-user-spans`, in the order
 * they arrived: a cursor on (received_at, trace_id, span_id), bounded pages, spans grouped by trace,
 * a trace taken as complete once no span of it has arrived for `settleMs`, then mapped to the
 * contract's Trace by the same trace mappers the intake uses. A settled trace that makes no answer
 * yet (its root span, which ends last, often comes in the exporter's next batch: OTel's default
 * batch delay is 5 s, as long as the default settle) is held until `incompleteWaitMs` after its
 * first span before it counts as unreadable.
 *
 * Bounded: when the cursor lags more than `maxLagMs` behind, it jumps ahead and counts the traces
 * it passed over; when more traces are ready than one poll scores, a uniform sample is kept and the
 * rest counted as skipped. Spans are read only once `visibilityMs` old, so a write still being
 * refreshed into the index cannot land behind the cursor.
 */
import type { Client } from '@elastic/elasticsearch';
import {
  BLOCKING_PIECES,
  TRACE_MAPPERS,
  extensionCitations,
  mapSpans,
  userSpansIndex,
  type SpanDoc,
  type SpanRecord,
  type TraceGap,
} from '@rag-immune/traces';
import type { Trace } from '@rag-immune/rag-contract';
import type { UserAnswer } from './user-answer.ts';

/** Where the intake keeps users' redacted spans (packages/traces: `<prefix>-otlp-user-spans`). */
export const userSpanIndex = userSpansIndex;

export interface UserTraceReaderOptions {
  index: string;
  /** Spans per page. */
  pageSize: number;
  /** Pages per poll at most. */
  maxPages: number;
  settleMs: number;
  /** How long after its first span a settled trace that makes no answer yet is still waited for. */
  incompleteWaitMs: number;
  visibilityMs: number;
  maxLagMs: number;
  /** Traces handed on per poll at most; the rest of the ready ones are skipped (counted). */
  maxTracesPerPoll: number;
  /** Where reading starts (ms since epoch); default now: traffic before the watcher started is not read. */
  startAt?: number;
  now?: () => number;
  random?: () => number;
}

export interface PollResult {
  answers: UserAnswer[];
  /** Traces passed over because the watcher was behind. */
  skipped: number;
  /** Traces whose spans make no answer the watcher can read (no query, no answer, no convention). */
  unreadable: number;
}

interface Pending {
  spans: SpanRecord[];
  first: number;
  last: number;
}

/** Blocking gaps after which the trace is still an answer to judge: its retrieval is what failed. */
const RETRIEVAL_GAPS: ReadonlySet<string> = new Set(['candidates', 'candidate_scores', 'document_metadata', 'context']);

export class UserTraceReader {
  private cursor: { at: number; after?: [number, string, string] };
  private readonly pending = new Map<string, Pending>();
  /** Recently handed-on trace ids: a straggling span of one is dropped, not read as a new trace. */
  private readonly done = new Set<string>();
  private readonly now: () => number;
  private readonly random: () => number;

  constructor(
    private readonly es: Client,
    private readonly options: UserTraceReaderOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    this.cursor = { at: options.startAt ?? this.now() };
  }

  async poll(): Promise<PollResult> {
    const now = this.now();
    let skipped = await this.catchUp(now);
    await this.readPages(now - this.options.visibilityMs);

    const ready: { traceId: string; answer: UserAnswer | null }[] = [];
    for (const [traceId, p] of this.pending) {
      if (p.last > now - this.options.settleMs) continue;
      const answer = toUserAnswer(traceId, p.spans, p.last);
      // Missing its root (or another piece) yet: its next batch may still be on the way.
      if (answer === null && p.first > now - this.options.incompleteWaitMs) continue;
      ready.push({ traceId, answer });
    }
    let chosen = ready;
    if (ready.length > this.options.maxTracesPerPoll) {
      chosen = sample(ready, this.options.maxTracesPerPoll, this.random);
      skipped += ready.length - chosen.length;
    }
    for (const { traceId } of ready) {
      this.pending.delete(traceId);
      this.done.add(traceId);
    }
    while (this.done.size > 100_000) this.done.delete(this.done.values().next().value!);

    const answers: UserAnswer[] = [];
    let unreadable = 0;
    for (const { answer } of chosen) {
      if (answer === null) unreadable++;
      else answers.push(answer);
    }
    return { answers, skipped, unreadable };
  }

  /** When the cursor lags more than maxLagMs, jumps it ahead; returns the traces passed over. */
  private async catchUp(now: number): Promise<number> {
    const target = now - this.options.visibilityMs - this.options.maxLagMs;
    if (this.cursor.at >= target) return 0;
    const response = await this.es.search({
      index: this.options.index,
      size: 0,
      ignore_unavailable: true,
      query: { range: { received_at: { gte: this.cursor.at, lt: target } } },
      aggs: { traces: { cardinality: { field: 'trace_id' } } },
    });
    this.cursor = { at: target };
    const traces = (response.aggregations?.traces as { value?: number } | undefined)?.value ?? 0;
    return traces;
  }

  private async readPages(until: number): Promise<void> {
    for (let page = 0; page < this.options.maxPages; page++) {
      const response = await this.es.search<SpanDoc>({
        index: this.options.index,
        size: this.options.pageSize,
        ignore_unavailable: true,
        query: { range: { received_at: { gte: this.cursor.at, lt: until } } },
        sort: [{ received_at: 'asc' }, { trace_id: 'asc' }, { span_id: 'asc' }],
        _source: ['trace_id', 'span_id', 'received_at', 'span'],
        ...(this.cursor.after ? { search_after: this.cursor.after } : {}),
      });
      const hits = response.hits.hits;
      for (const hit of hits) {
        const doc = hit._source;
        if (doc === undefined || this.done.has(doc.trace_id)) continue;
        const entry = this.pending.get(doc.trace_id) ?? { spans: [], first: doc.received_at, last: 0 };
        entry.spans.push(doc.span);
        entry.first = Math.min(entry.first, doc.received_at);
        entry.last = Math.max(entry.last, doc.received_at);
        this.pending.set(doc.trace_id, entry);
      }
      const last = hits.at(-1);
      if (last?.sort !== undefined) this.cursor = { at: Number(last.sort[0]), after: last.sort as [number, string, string] };
      if (hits.length < this.options.pageSize) return;
    }
  }
}

function sample<T>(items: T[], n: number, random: () => number): T[] {
  const copy = [...items];
  for (let i = 0; i < n; i++) {
    const j = i + Math.floor(random() * (copy.length - i));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy.slice(0, n);
}

/** One trace's spans as an answer to judge, or null when they make none (no convention, no query, no answer). */
export function toUserAnswer(traceId: string, spans: readonly SpanRecord[], receivedAt: number): UserAnswer | null {
  const mapped = mapSpans(traceId, spans);
  if (mapped === null) return null;
  const cited = extensionCitations(spans);
  if (mapped.trace !== null)
    return { trace_id: traceId, received_at: receivedAt, trace: mapped.trace, gaps: mapped.gaps, cited_chunk_ids: cited };
  // Nothing retrieved, or chunks without their versioned metadata, make no contract Trace, yet they
  // are exactly the unhealthy retrievals the watcher must count: judged with an empty retrieval.
  if (mapped.gaps.some((g) => BLOCKING_PIECES.has(g.piece) && !RETRIEVAL_GAPS.has(g.piece))) return null;
  const mapper = TRACE_MAPPERS.find((m) => m.claims(spans));
  const parts = mapper?.parts(spans);
  if (parts === undefined || 'missing' in parts || parts.query === undefined || parts.answer === undefined) return null;
  const trace: Trace = {
    trace_id: traceId,
    created_at: new Date(parts.root.start_ms).toISOString(),
    query: parts.query,
    as_of: new Date(parts.root.start_ms).toISOString(),
    candidates: [],
    reranked: [],
    context: [],
    answer: parts.answer,
    citations: [],
    models: { embedder: 'unreported', reranker: 'unreported', generator: 'unreported' },
    timings: { total_ms: Math.max(0, parts.root.end_ms - parts.root.start_ms) },
  };
  const gaps: TraceGap[] = mapped.gaps;
  return {
    trace_id: traceId,
    received_at: receivedAt,
    trace,
    gaps,
    cited_chunk_ids: cited,
    retrieved_knowledge: knowledgeOf(parts.candidates),
  };
}

function knowledgeOf(docs: readonly { metadata: Record<string, unknown> }[] | undefined): string | undefined {
  const id = docs?.[0]?.metadata.knowledge_id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}
