/**
 * Which of the sentinel's signals a RAG's answers can support, from what its adapter maps. A signal
 * whose inputs the RAG does not return is reported unavailable with the missing keys, so an operator
 * sees "no dates, no KF" at start-up instead of a KF that never moves.
 */
import type { RagAdapterFile } from './adapter-file.ts';

/** A response field an adapter can map, by its key in the adapter file. */
export type MappedField =
  | 'response.documents'
  | 'response.documents.doc_id'
  | 'response.documents.chunk_id'
  | 'response.documents.knowledge_id'
  | 'response.documents.version'
  | 'response.documents.source'
  | 'response.documents.updated_at'
  | 'response.documents.valid_from'
  | 'response.documents.retrieval_score'
  | 'response.documents.rerank_score'
  | 'response.citations'
  | 'response.trace_id'
  | 'response.models.reranker'
  | 'response.models.generator'
  | 'response.as_of';

/** Every signal and what it is computed from (see packages/probing and the identifier's detectors). */
const SIGNALS: readonly { signal: string; needs: readonly MappedField[]; what: string }[] = [
  { signal: 'fcs', needs: ['response.documents'], what: "fact consistency of the answer with the retrieved documents' text" },
  { signal: 'ic', needs: [], what: 'intent coverage of the answer' },
  { signal: 'answer_agreement', needs: [], what: "the online answer's key facts against the baseline's" },
  {
    signal: 'kf',
    needs: ['response.documents.updated_at', 'response.documents.retrieval_score'],
    what: 'knowledge freshness: update times weighted by retrieval score',
  },
  {
    signal: 'knowledge_update',
    needs: [
      'response.documents.chunk_id',
      'response.documents.knowledge_id',
      'response.documents.version',
      'response.documents.updated_at',
      'response.documents.valid_from',
    ],
    what: 'telling a knowledge update from corruption, altered chunks, same-evidence generator faults',
  },
  {
    signal: 'attribution',
    needs: ['response.documents.chunk_id', 'response.documents.doc_id', 'response.documents.knowledge_id', 'response.citations'],
    what: 'wrong attribution: which knowledge the answer cites, chunks relabelled between the sides',
  },
  {
    signal: 'retrieved_documents',
    needs: ['response.documents.doc_id', 'response.documents.chunk_id'],
    what: "the probe result's retrieved documents (the identifier's freshness and retrieval evidence)",
  },
  { signal: 'rerank_evidence', needs: ['response.documents.rerank_score'], what: 'rerank scores of the retrieved documents' },
  {
    signal: 'component_versions',
    needs: ['response.models.reranker', 'response.models.generator'],
    what: 'reranker and generator versions per answer',
  },
  {
    signal: 'trace_lookup',
    needs: ['response.trace_id'],
    what: "the RAG's own trace id (GET /traces/{id}); OTLP spans are found by traceparent without it",
  },
];

export interface SignalAvailability {
  signal: string;
  available: boolean;
  /** The adapter keys the signal needs that this adapter does not map. */
  missing: MappedField[];
  what: string;
}

export interface RagSignals {
  /** The adapter's metadata.name, or `contract` for the health-contract client. */
  adapter: string;
  available: string[];
  unavailable: { signal: string; missing: MappedField[] }[];
  signals: SignalAvailability[];
}

function mapped(adapter: RagAdapterFile): Set<MappedField> {
  const response = adapter.response;
  const fields = new Set<MappedField>();
  const documents = response.documents;
  if (documents !== undefined) {
    fields.add('response.documents');
    for (const key of [
      'doc_id',
      'chunk_id',
      'knowledge_id',
      'version',
      'source',
      'updated_at',
      'valid_from',
      'retrieval_score',
      'rerank_score',
    ] as const)
      if (documents[key] !== undefined) fields.add(`response.documents.${key}`);
  }
  if (response.citations !== undefined) fields.add('response.citations');
  if (response.trace_id !== undefined) fields.add('response.trace_id');
  if (response.models?.reranker !== undefined) fields.add('response.models.reranker');
  if (response.models?.generator !== undefined) fields.add('response.models.generator');
  if (response.as_of !== undefined) fields.add('response.as_of');
  return fields;
}

function summarise(adapter: string, has: (field: MappedField) => boolean): RagSignals {
  const signals = SIGNALS.map(({ signal, needs, what }) => {
    const missing = needs.filter((field) => !has(field));
    return { signal, available: missing.length === 0, missing, what };
  });
  return {
    adapter,
    available: signals.filter((s) => s.available).map((s) => s.signal),
    unavailable: signals.filter((s) => !s.available).map((s) => ({ signal: s.signal, missing: s.missing })),
    signals,
  };
}

/**
 * The signals an adapter's mapping can feed. A mapped path may still find nothing in a given answer
 * (the probing code then leaves that value out); an unmapped one never can.
 */
export function signalAvailability(adapter: RagAdapterFile): RagSignals {
  const fields = mapped(adapter);
  return summarise(adapter.metadata.name, (field) => fields.has(field));
}

/** A health-contract RAG returns every field, so every signal is available. */
export function contractSignals(): RagSignals {
  return summarise('contract', () => true);
}
