/** Payloads the agreement test validates against both the OpenAPI document and the zod schemas. */
const chunk = {
  doc_id: 'debian-changelog:openssl',
  chunk_id: 'debian-changelog:openssl@3.0.15-1~deb12u1#0',
  knowledge_id: 'pkg/openssl',
  version: '3.0.15-1~deb12u1',
  source: 'debian-changelog',
  source_trust: 0.9,
  updated_at: '2024-09-05T18:30:12.000Z',
  valid_from: '2024-09-05T18:30:12.000Z',
  valid_until: null,
  retrieval_score: 0.71,
  rerank_score: 0.93,
  text: 'openssl 3.0.15-1~deb12u1 was released on 2024-09-05.',
};
const models = { embedder: 'all-MiniLM-L6-v2@onnx-fp32', reranker: 'v2.1', generator: 'extractive-1.0' };
const citation = { chunk_id: chunk.chunk_id, doc_id: chunk.doc_id, knowledge_id: chunk.knowledge_id, version: chunk.version };

export const VALID: Record<string, unknown[]> = {
  QueryRequest: [{ query: 'What is the latest version of openssl?' }, { query: 'x', as_of: '2024-01-01T00:00:00Z', top_k: 3 }],
  QueryResponse: [
    {
      trace_id: 't-1',
      answer: 'The latest version of openssl is 3.0.15-1~deb12u1.',
      citations: [citation],
      chunks: [chunk],
      models,
      timings: { embed_ms: 3, retrieve_ms: 2, rerank_ms: 1, generate_ms: 0.2, total_ms: 7 },
      as_of: '2025-01-01T00:00:00Z',
      instance: 'online',
    },
    {
      trace_id: 't-2',
      answer: '',
      abstained: true,
      citations: [],
      chunks: [],
      models,
      timings: { total_ms: 1 },
      as_of: '2025-01-01T00:00:00Z',
    },
  ],
  Chunk: [chunk, { ...chunk, valid_until: '2025-01-01T00:00:00Z', rerank_score: undefined }],
  Trace: [
    {
      trace_id: 't-1',
      created_at: '2025-01-01T00:00:00.123Z',
      query: 'What is the latest version of openssl?',
      rewritten_query: 'what is the latest version of openssl?',
      as_of: '2025-01-01T00:00:00Z',
      candidates: [{ chunk_id: 'c', knowledge_id: 'pkg/openssl', version: '1', retrieval_score: 0.7, rank: 1 }],
      reranked: [{ chunk_id: 'c', knowledge_id: 'pkg/openssl', version: '1', retrieval_score: 0.7, rerank_score: 0.9, rank: 1 }],
      context: [chunk],
      answer: 'a',
      citations: [citation],
      models,
      timings: { total_ms: 3 },
      token_probabilities: [{ token: 'a', probability: 0.5 }],
    },
  ],
  Capabilities: [
    { contract_version: '1.0.0', instance: 'online', repair_hooks: ['reindex', 'reranker_pin'], reranker_versions: ['v2.1'] },
    {
      contract_version: '1.1.0',
      repair_hooks: ['knowledge_source'],
      knowledge_sources: ['debian-changelog'],
      active_versions: { reranker: 'v2.1', knowledge_sources: { 'debian-changelog': 'backup' } },
    },
  ],
  KnowledgeVersionRef: [{ version: '3.0.11-1', valid_from: '2023-09-20T00:00:00Z' }],
  IndexedVersionRef: [
    { version: '3.0.11-1', valid_from: '2023-09-20T00:00:00Z' },
    { version: '3.0.15-1', valid_from: '2024-10-01T00:00:00Z', indexed_at: '2026-11-30T08:00:00Z' },
  ],
  KnowledgeFreshness: [
    {
      knowledge_id: 'changelog/openssl',
      source: 'debian-changelog',
      feed_provider: 'primary',
      as_of: '2026-11-30T00:00:00Z',
      feed: { version: '3.0.15-1', valid_from: '2024-10-01T00:00:00Z' },
      indexed: { version: '3.0.11-1', valid_from: '2023-09-20T00:00:00Z' },
    },
    { knowledge_id: 'changelog/gone', source: null, feed_provider: null, as_of: '2026-11-30T00:00:00Z', feed: null, indexed: null },
  ],
  ReindexRequest: [{}, { since: '2024-01-01T00:00:00Z' }, { knowledge_ids: ['pkg/openssl'] }],
  RerankerPinRequest: [{ version: 'v2.1' }],
  KnowledgeSourceRequest: [
    { action: 'refresh', source: 'debian-changelog' },
    { action: 'switch_to_backup', source: 'debian-changelog' },
  ],
  AnswerValidationRequest: [{ enabled: true }],
  QueryRewriteRules: [{ rules: [] }, { rules: [{ pattern: '\\u2010', replacement: '-' }] }],
  RepairResult: [{ hook: 'reindex', applied_at: '2025-01-01T00:00:00Z', changed: 12, detail: { chunks: 12 } }],
  Health: [{ status: 'ok', instance: 'online' }],
  Error: [{ error: 'query: Required', issues: [{ path: 'query', message: 'Required' }] }],
};

export const INVALID: Record<string, unknown[]> = {
  QueryRequest: [
    {},
    { query: '' },
    { query: 'x', top_k: 0 },
    { query: 'x', top_k: 1.5 },
    { query: 'x', extra: 1 },
    { query: 'x', as_of: 'yesterday' },
    { query: 7 },
  ],
  QueryResponse: [
    { trace_id: 't', answer: 'a', citations: [], chunks: [], models, timings: { total_ms: 1 } },
    {
      trace_id: 't',
      answer: 'a',
      citations: [],
      chunks: [{ ...chunk, source_trust: 2 }],
      models,
      timings: { total_ms: 1 },
      as_of: '2025-01-01T00:00:00Z',
    },
    { trace_id: 't', answer: 'a', citations: [{}], chunks: [], models, timings: { total_ms: 1 }, as_of: '2025-01-01T00:00:00Z' },
  ],
  Chunk: [
    { ...chunk, knowledge_id: '' },
    { ...chunk, valid_until: undefined },
    { ...chunk, retrieval_score: '0.7' },
  ],
  Trace: [{ trace_id: 't' }],
  Capabilities: [
    { contract_version: '1', repair_hooks: ['reboot'] },
    { contract_version: '1.1.0', repair_hooks: [], active_versions: { knowledge_sources: { 'debian-changelog': '' } } },
  ],
  KnowledgeVersionRef: [{ version: '', valid_from: '2024-01-01T00:00:00Z' }, { version: '1' }],
  IndexedVersionRef: [
    { version: '1', valid_from: '2024-01-01T00:00:00Z', indexed_at: 'just now' },
    { version: '1', valid_from: '2024-01-01T00:00:00Z', indexed_by: 'ingest' },
  ],
  KnowledgeFreshness: [
    { knowledge_id: 'k', source: 's', feed_provider: 'primary', as_of: '2026-11-30T00:00:00Z', feed: null },
    { knowledge_id: 'k', source: 's', feed_provider: 'primary', as_of: 'yesterday', feed: null, indexed: null },
  ],
  ReindexRequest: [{ since: 'now' }, { knowledge_ids: [''] }],
  RerankerPinRequest: [{}, { version: '' }],
  KnowledgeSourceRequest: [{ action: 'delete', source: 'x' }, { action: 'refresh' }],
  AnswerValidationRequest: [{ enabled: 'yes' }],
  QueryRewriteRules: [{ rules: [{ pattern: '', replacement: 'x' }] }, {}],
  RepairResult: [{ hook: 'reindex', applied_at: '2025-01-01T00:00:00Z', changed: -1 }],
  Health: [{ status: 'down' }],
  Error: [{ error: '' }, {}],
};
