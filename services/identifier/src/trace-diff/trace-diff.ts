/**
 * Layer-by-layer diff of one probe's online trace against its baseline trace (GET /traces/{id}),
 * the way seed 003's trace diff reads them: the query as rewritten and embedded, retrieval candidates
 * before reranking (ids, scores, knowledge versions), the reranked order, the context handed to the
 * generator (chunk text hashes), the answer against its own context and against the baseline's.
 * Pure: the figures here are what the detectors and the evidence ledger record.
 */
import { createHash } from 'node:crypto';
import type { Chunk, ScoredCandidate, Trace } from '@rag-immune/rag-contract';
import { UNREPORTED_MODEL } from '@rag-immune/traces';
import { unsupportedFacts } from './answer-facts.ts';

/** A retrieval score moved by less than this counts as unchanged (float noise between two indexes). */
export const SCORE_EPSILON = 1e-4;

export interface VersionChange {
  knowledge_id: string;
  online_version: string;
  baseline_version: string;
  /** valid_from of each side's chunk, ms; null when unknown. */
  online_valid_from: number | null;
  baseline_valid_from: number | null;
}

export interface TextChange {
  chunk_id: string;
  knowledge_id: string;
  version: string;
  online_text_sha256: string;
  baseline_text_sha256: string;
}

export interface TraceDiff {
  /** When the online RAG ran the query (its trace's created_at, epoch ms, the RAG's own clock). */
  online_traced_at: number;
  query: {
    original: string;
    online_rewritten: string;
    baseline_rewritten: string;
    rewritten_equal: boolean;
    /** Characters of the online rewritten query that a clean normaliser never emits (zero-width, lookalikes, non-ASCII punctuation). */
    online_suspicious_chars: number;
    baseline_suspicious_chars: number;
  };
  candidates: {
    online_count: number;
    baseline_count: number;
    /** Jaccard of the candidate chunk id sets before reranking. */
    jaccard: number;
    shared: number;
    /** Of the shared chunks, the fraction whose retrieval score is unchanged; null when none are shared. */
    shared_score_stable_fraction: number | null;
    mean_abs_score_delta: number | null;
    /** Baseline context chunks (what the answer should rest on) that online retrieval no longer returns. */
    lost_context_chunks: { chunk_id: string; knowledge_id: string; version: string; baseline_score: number; cited: boolean }[];
    /** Baseline context chunks online retrieval still returns but with a moved score (shared chunks whose score changed). */
    moved_context_chunks: { chunk_id: string; knowledge_id: string; online_score: number; baseline_score: number; cited: boolean }[];
  };
  rerank: {
    /** Same candidate ids with the same retrieval scores: reranking got the same input. */
    input_identical: boolean;
    order_changed: boolean;
    /**
     * The chunks both reranked lists hold are in another relative order: seen even when retrieval
     * changed the rest of the input (another fault at the same time).
     */
    shared_order_changed: boolean;
    top1_changed: boolean;
    mean_abs_rerank_delta: number | null;
  };
  versions: {
    /** Knowledge ids both contexts hold in different versions, online's older. */
    older_in_online: VersionChange[];
    newer_in_online: VersionChange[];
  };
  chunks: {
    /** The same chunk (id and version) with different text online: it was parsed differently. */
    text_changed: TextChange[];
    compared: number;
  };
  context: { jaccard: number; identical: boolean; online_chunk_ids: string[]; baseline_chunk_ids: string[] };
  answer: {
    equal_to_baseline: boolean;
    online_abstained: boolean;
    baseline_abstained: boolean;
    /** Facts the online answer states that its own cited chunks do not contain. */
    online_unsupported: string[];
    baseline_unsupported: string[];
  };
  models: {
    online: Trace['models'];
    baseline: Trace['models'];
    changed: ('embedder' | 'reranker' | 'generator')[];
  };
  /** Knowledge ids the diff implicates: lost, moved, re-parsed or older chunks, and the cited ones. */
  implicated_knowledge_ids: string[];
}

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** Zero-width characters, lookalike hyphens/dots/pluses and any non-ASCII punctuation. */
const SUSPICIOUS = /[\u200b-\u200f\u2010-\u2015\u2024\u2027\u2060\ufeff\u2795\u2212\uff0b\uff0d\uff0e]/gu;
const countSuspicious = (text: string) => (text.match(SUSPICIOUS) ?? []).length;

function jaccard<T>(a: Set<T>, b: Set<T>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let shared = 0;
  for (const item of a) if (b.has(item)) shared += 1;
  return shared / (a.size + b.size - shared);
}

const validFrom = (chunk: Chunk | undefined) => (chunk === undefined ? null : Date.parse(chunk.valid_from));

function citedTexts(trace: Trace): string[] {
  const cited = new Set(trace.citations.map((c) => c.chunk_id));
  const texts = trace.context.filter((chunk) => cited.has(chunk.chunk_id)).map((chunk) => chunk.text);
  return texts.length > 0 ? texts : trace.context.map((chunk) => chunk.text);
}

export function diffTraces(online: Trace, baseline: Trace): TraceDiff {
  const onlineRewritten = online.rewritten_query ?? online.query;
  const baselineRewritten = baseline.rewritten_query ?? baseline.query;

  const byId = (list: ScoredCandidate[]) => new Map(list.map((c) => [c.chunk_id, c]));
  const onlineCandidates = byId(online.candidates);
  const baselineCandidates = byId(baseline.candidates);
  const sharedIds = [...onlineCandidates.keys()].filter((id) => baselineCandidates.has(id));
  const deltas = sharedIds.map((id) => Math.abs(onlineCandidates.get(id)!.retrieval_score - baselineCandidates.get(id)!.retrieval_score));
  const stable = deltas.filter((d) => d < SCORE_EPSILON).length;

  // Which baseline chunks the baseline answer rests on: damage there explains a worse answer.
  const baselineCited = new Set(baseline.citations.map((c) => c.chunk_id));
  const lost: TraceDiff['candidates']['lost_context_chunks'] = [];
  const moved: TraceDiff['candidates']['moved_context_chunks'] = [];
  for (const chunk of baseline.context) {
    const there = onlineCandidates.get(chunk.chunk_id);
    const cited = baselineCited.has(chunk.chunk_id);
    if (there === undefined)
      lost.push({
        chunk_id: chunk.chunk_id,
        knowledge_id: chunk.knowledge_id,
        version: chunk.version,
        baseline_score: chunk.retrieval_score,
        cited,
      });
    else if (Math.abs(there.retrieval_score - chunk.retrieval_score) >= SCORE_EPSILON)
      moved.push({
        chunk_id: chunk.chunk_id,
        knowledge_id: chunk.knowledge_id,
        online_score: there.retrieval_score,
        baseline_score: chunk.retrieval_score,
        cited,
      });
  }

  const inputIdentical =
    sharedIds.length === onlineCandidates.size && sharedIds.length === baselineCandidates.size && stable === sharedIds.length;
  const onlineOrder = online.reranked.map((c) => c.chunk_id);
  const baselineOrder = baseline.reranked.map((c) => c.chunk_id);
  const inBoth = new Set(onlineOrder.filter((id) => baselineOrder.includes(id)));
  const sharedOrderChanged =
    onlineOrder.filter((id) => inBoth.has(id)).join('\n') !== baselineOrder.filter((id) => inBoth.has(id)).join('\n');
  const onlineRerank = byId(online.reranked);
  const rerankDeltas = baseline.reranked
    .filter((c) => c.rerank_score !== undefined && onlineRerank.get(c.chunk_id)?.rerank_score !== undefined)
    .map((c) => Math.abs((onlineRerank.get(c.chunk_id)!.rerank_score as number) - (c.rerank_score as number)));

  // Versions: per knowledge id, the newest version each context holds.
  const newestByKnowledge = (chunks: Chunk[]) => {
    const map = new Map<string, Chunk>();
    for (const chunk of chunks) {
      const known = map.get(chunk.knowledge_id);
      if (known === undefined || Date.parse(chunk.valid_from) > Date.parse(known.valid_from)) map.set(chunk.knowledge_id, chunk);
    }
    return map;
  };
  const onlineNewest = newestByKnowledge(online.context);
  const baselineNewest = newestByKnowledge(baseline.context);
  const older: VersionChange[] = [];
  const newer: VersionChange[] = [];
  for (const [knowledgeId, b] of baselineNewest) {
    const o = onlineNewest.get(knowledgeId);
    if (o === undefined || o.version === b.version) continue;
    const change = {
      knowledge_id: knowledgeId,
      online_version: o.version,
      baseline_version: b.version,
      online_valid_from: validFrom(o),
      baseline_valid_from: validFrom(b),
    };
    if ((change.online_valid_from ?? 0) < (change.baseline_valid_from ?? 0)) older.push(change);
    else newer.push(change);
  }

  const baselineChunks = new Map(baseline.context.map((chunk) => [chunk.chunk_id, chunk]));
  const textChanged: TextChange[] = [];
  let compared = 0;
  for (const chunk of online.context) {
    const b = baselineChunks.get(chunk.chunk_id);
    if (b === undefined || b.version !== chunk.version) continue;
    compared += 1;
    const onlineHash = sha256(chunk.text);
    const baselineHash = sha256(b.text);
    if (onlineHash !== baselineHash)
      textChanged.push({
        chunk_id: chunk.chunk_id,
        knowledge_id: chunk.knowledge_id,
        version: chunk.version,
        online_text_sha256: onlineHash,
        baseline_text_sha256: baselineHash,
      });
  }

  const onlineContextIds = online.context.map((c) => c.chunk_id);
  const baselineContextIds = baseline.context.map((c) => c.chunk_id);
  const contextIdentical =
    onlineContextIds.join('\n') === baselineContextIds.join('\n') &&
    online.context.every((chunk, i) => chunk.text === baseline.context[i]?.text);

  // A model a trace does not name (an intake trace whose spans are silent on it) is no evidence of a change.
  const changed = (['embedder', 'reranker', 'generator'] as const).filter(
    (model) =>
      online.models[model] !== baseline.models[model] &&
      online.models[model] !== UNREPORTED_MODEL &&
      baseline.models[model] !== UNREPORTED_MODEL,
  );
  const implicated = new Set<string>([
    ...lost.map((c) => c.knowledge_id),
    ...moved.map((c) => c.knowledge_id),
    ...older.map((c) => c.knowledge_id),
    ...textChanged.map((c) => c.knowledge_id),
    ...baseline.citations.map((c) => c.knowledge_id),
    ...online.citations.map((c) => c.knowledge_id),
  ]);

  return {
    online_traced_at: Date.parse(online.created_at),
    query: {
      original: online.query,
      online_rewritten: onlineRewritten,
      baseline_rewritten: baselineRewritten,
      rewritten_equal: onlineRewritten === baselineRewritten,
      online_suspicious_chars: countSuspicious(onlineRewritten),
      baseline_suspicious_chars: countSuspicious(baselineRewritten),
    },
    candidates: {
      online_count: onlineCandidates.size,
      baseline_count: baselineCandidates.size,
      jaccard: jaccard(new Set(onlineCandidates.keys()), new Set(baselineCandidates.keys())),
      shared: sharedIds.length,
      shared_score_stable_fraction: sharedIds.length === 0 ? null : stable / sharedIds.length,
      mean_abs_score_delta: deltas.length === 0 ? null : deltas.reduce((a, b) => a + b, 0) / deltas.length,
      lost_context_chunks: lost,
      moved_context_chunks: moved,
    },
    rerank: {
      input_identical: inputIdentical,
      order_changed: onlineOrder.join('\n') !== baselineOrder.join('\n'),
      shared_order_changed: sharedOrderChanged,
      top1_changed: onlineOrder[0] !== baselineOrder[0],
      mean_abs_rerank_delta: rerankDeltas.length === 0 ? null : rerankDeltas.reduce((a, b) => a + b, 0) / rerankDeltas.length,
    },
    versions: { older_in_online: older, newer_in_online: newer },
    chunks: { text_changed: textChanged, compared },
    context: {
      jaccard: jaccard(new Set(onlineContextIds), new Set(baselineContextIds)),
      identical: contextIdentical,
      online_chunk_ids: onlineContextIds,
      baseline_chunk_ids: baselineContextIds,
    },
    answer: {
      equal_to_baseline: online.answer === baseline.answer,
      online_abstained: online.abstained ?? false,
      baseline_abstained: baseline.abstained ?? false,
      online_unsupported: online.abstained ? [] : unsupportedFacts(online.answer, citedTexts(online)),
      baseline_unsupported: baseline.abstained ? [] : unsupportedFacts(baseline.answer, citedTexts(baseline)),
    },
    models: { online: online.models, baseline: baseline.models, changed },
    implicated_knowledge_ids: [...implicated].sort(),
  };
}
