/**
 * @rag-immune/langchain on the real LangChain packages (langchain's @langchain/core runnables,
 * @langchain/qdrant over the stack's real Qdrant) and the real OpenInference instrumentation: an
 * LCEL RAG answers the contract's POST /query with ids, scores and versioned metadata, valid at the
 * request's as-of time; its spans, exported by the real OTLP exporter and mapped by
 * @rag-immune/traces, make a complete Trace; the repair hooks reindex behind an alias (and roll
 * back), pin a generator version and switch a knowledge source.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import express from 'express';
import { LangChainInstrumentation } from '@arizeai/openinference-instrumentation-langchain';
import * as CallbackManagerModule from '@langchain/core/callbacks/manager';
import { Document } from '@langchain/core/documents';
import { StringOutputParser } from '@langchain/core/output_parsers';
import { ChatPromptTemplate } from '@langchain/core/prompts';
import { BaseDocumentCompressor } from '@langchain/core/retrievers/document_compressors';
import { RunnablePassthrough, RunnableSequence } from '@langchain/core/runnables';
import { FakeListChatModel, SyntheticEmbeddings } from '@langchain/core/utils/testing';
import { QdrantVectorStore } from '@langchain/qdrant';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { RagClient, RagHttpError } from '@rag-immune/rag-contract';
import { endpoints } from '@rag-immune/test-kit/stack';
import { decodeJsonExport, mapSpans, newProbeTraceContext, probeTraceHeaders, spanOrigin, type SpanRecord } from '@rag-immune/traces';
import { createQdrantClient } from '@rag-immune/worker-runtime';
import { AliasReindex, ImmuneRetriever, KnowledgeSourceSwitch, PinnedGenerator, queryHandler, repairRoutes } from '../../src/index.ts';

const qdrant = createQdrantClient({ url: endpoints.qdrantUrl, apiKey: endpoints.qdrantApiKey });
const run = randomUUID().slice(0, 8);
const alias = `it-langchain-${run}`;
const TOKEN = 'langchain-repair-token-0123';
const embeddings = new SyntheticEmbeddings({ vectorSize: 32 });

const meta = (knowledge: string, version: string, from: string, until: string | null, source = 'debian-changelog') => ({
  doc_id: `${knowledge}-${version}`,
  chunk_id: `${knowledge}-${version}#0`,
  knowledge_id: knowledge,
  version,
  source,
  source_trust: 0.9,
  updated_at: from,
  valid_from: from,
  valid_until: until,
});
const PRIMARY = [
  new Document({
    pageContent: 'openssl 3.0.11 is the latest openssl version.',
    metadata: meta('openssl', '3.0.11', '2023-09-20T00:00:00.000Z', '2024-03-01T00:00:00.000Z'),
  }),
  new Document({
    pageContent: 'openssl 3.0.13 is the latest openssl version.',
    metadata: meta('openssl', '3.0.13', '2024-03-01T00:00:00.000Z', null),
  }),
  new Document({ pageContent: 'curl 8.7.1 fixes CVE-2024-2398.', metadata: meta('curl', '8.7.1', '2024-03-27T00:00:00.000Z', null) }),
  new Document({ pageContent: 'bash 5.2 is the default shell.', metadata: meta('bash', '5.2', '2023-01-01T00:00:00.000Z', null) }),
];
const BACKUP = [
  new Document({
    pageContent: 'openssl 3.0.13 is the latest openssl version (mirror).',
    metadata: meta('openssl', '3.0.13', '2024-03-01T00:00:00.000Z', null, 'debian-mirror'),
  }),
];

/** A deterministic reranker: shared words with the question, as a LangChain compressor writes it (relevanceScore). */
class OverlapReranker extends BaseDocumentCompressor {
  async compressDocuments(documents: Document[], query: string): Promise<Document[]> {
    const words = new Set(query.toLowerCase().match(/[a-z0-9.]+/g));
    return documents
      .map((doc) => {
        const overlap = (doc.pageContent.toLowerCase().match(/[a-z0-9.]+/g) ?? []).filter((w) => words.has(w)).length;
        return new Document({ pageContent: doc.pageContent, metadata: { ...doc.metadata, relevanceScore: overlap / words.size } });
      })
      .sort((a, b) => (b.metadata.relevanceScore as number) - (a.metadata.relevanceScore as number));
  }
}

const exported: SpanRecord[] = [];
let provider: NodeTracerProvider;
let collector: Server;
let server: Server;
let url: string;
let reindex: AliasReindex;
let generator: PinnedGenerator<never, unknown>;
let rag: RagClient;

async function listen(app: express.Express): Promise<{ server: Server; url: string }> {
  const listening = app.listen(0, '127.0.0.1');
  await once(listening, 'listening');
  return { server: listening, url: `http://127.0.0.1:${(listening.address() as AddressInfo).port}` };
}

before(async () => {
  // The spans go over real OTLP/JSON to a collector that decodes them as the intake does.
  const sink = express();
  sink.use(express.json({ limit: '8mb' }));
  sink.post('/v1/traces', (req, res) => {
    exported.push(...decodeJsonExport(req.body).spans);
    res.json({});
  });
  const listening = await listen(sink);
  collector = listening.server;
  provider = new NodeTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${listening.url}/v1/traces` }))],
  });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  new LangChainInstrumentation({ tracerProvider: provider }).manuallyInstrument(CallbackManagerModule);

  reindex = new AliasReindex({ client: qdrant, alias, embeddings, load: async () => PRIMARY });
  await reindex.reindex();
  const backup = await QdrantVectorStore.fromDocuments(BACKUP, embeddings, { client: qdrant, collectionName: `${alias}-backup` });
  const sources = new KnowledgeSourceSwitch({ debian: { primary: reindex.store(), backup } });
  const prompt = ChatPromptTemplate.fromMessages([
    ['system', 'Answer from the context.\n{context}'],
    ['human', '{question}'],
  ]);
  const answering = (text: string) =>
    prompt.pipe(new FakeListChatModel({ responses: Array(20).fill(text) })).pipe(new StringOutputParser());
  generator = new PinnedGenerator(
    { 'prompt-v1': answering('v1 says 3.0.13'), 'prompt-v2': answering('openssl 3.0.13') } as never,
    'prompt-v2',
  );
  const retriever = new ImmuneRetriever({
    vectorStore: () => sources.store('debian'),
    candidates: 10,
    reranker: new OverlapReranker(),
    defaultTopK: 2,
  });
  const chain = RunnableSequence.from([
    { context: retriever.pipe((docs: Document[]) => docs.map((d) => d.pageContent).join('\n')), question: new RunnablePassthrough() },
    generator.runnable as never,
  ]) as never;

  const app = express();
  app.use(express.json());
  app.post(
    '/query',
    queryHandler({
      chain,
      models: () => ({ embedder: 'synthetic-32', reranker: 'overlap-v1', generator: generator.version }),
      defaultTopK: 2,
    }),
  );
  app.use(repairRoutes({ reindex, generator, knowledgeSources: sources, bearerToken: TOKEN, reranker: () => 'overlap-v1' }));
  ({ server, url } = await listen(app));
  rag = new RagClient({ baseUrl: url });
});

after(async () => {
  server?.close();
  await provider?.shutdown();
  collector?.close();
  const { aliases } = await qdrant.getAliases();
  for (const a of aliases.filter((a) => a.alias_name === alias)) await qdrant.deleteCollection(a.collection_name).catch(() => undefined);
  const { collections } = await qdrant.getCollections();
  for (const c of collections.filter((c) => c.name.startsWith(alias))) await qdrant.deleteCollection(c.name).catch(() => undefined);
});

test('POST /query answers with ids, retrieval and rerank scores and versioned metadata, valid at as_of', async () => {
  const now = await rag.query({ query: 'What is the latest openssl version?', as_of: '2024-06-01T00:00:00Z' });
  assert.equal(now.answer, 'openssl 3.0.13');
  assert.equal(now.chunks.length, 2);
  assert.equal(now.chunks[0]!.chunk_id, 'openssl-3.0.13#0');
  assert.ok(now.chunks.every((c) => typeof c.retrieval_score === 'number' && typeof c.rerank_score === 'number'));
  assert.ok(
    now.chunks.every((c) => c.chunk_id !== 'openssl-3.0.11#0'),
    'the expired version is not served at 2024-06',
  );
  assert.deepEqual(now.models, { embedder: 'synthetic-32', reranker: 'overlap-v1', generator: 'prompt-v2' });
  const then = await rag.query({ query: 'What is the latest openssl version?', as_of: '2024-01-01T00:00:00Z' });
  assert.equal(then.chunks[0]!.chunk_id, 'openssl-3.0.11#0');
  assert.ok(
    then.chunks.every((c) => c.chunk_id !== 'openssl-3.0.13#0'),
    'a version not yet valid is not served',
  );
  await assert.rejects(rag.query({ query: '' }), /query/);
  const bad = await fetch(`${url}/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query": 7}' });
  assert.equal(bad.status, 400);
  assert.match(((await bad.json()) as { error: string }).error, /query: Expected string/);
});

test('its spans, through the stock OpenInference instrumentation and OTLP, map to a complete Trace under the probe’s traceparent', async () => {
  const probe = newProbeTraceContext();
  const answered = await rag.query(
    { query: 'What is the latest openssl version?', as_of: '2024-06-01T00:00:00Z' },
    { headers: probeTraceHeaders(probe) },
  );
  assert.equal(answered.trace_id, probe.trace_id);
  await provider.forceFlush();
  const spans = exported.filter((s) => s.trace_id === probe.trace_id);
  // The probe mark rides on every span (OTLP trace_state): the trace intake keeps them as a probe's.
  assert.deepEqual(
    spans.filter((s) => spanOrigin(s) !== 'probe').map((s) => s.name),
    [],
  );
  assert.ok(
    spans.some((s) => s.parent_span_id === probe.parent_span_id),
    'the query span is the child of the probe’s parent id',
  );
  const mapped = mapSpans(probe.trace_id, spans)!;
  assert.deepEqual(mapped.gaps, []);
  const trace = mapped.trace!;
  assert.equal(trace.query, 'What is the latest openssl version?');
  assert.equal(trace.answer, 'openssl 3.0.13');
  assert.deepEqual(trace.context, answered.chunks);
  assert.deepEqual(trace.citations, answered.citations);
  assert.ok(trace.candidates.length >= trace.reranked.length && trace.reranked.length === 2);
  assert.ok(trace.candidates.every((c) => Number.isFinite(c.retrieval_score)));
  assert.deepEqual(trace.models, answered.models);
});

test('repair hooks: reindex into a new collection behind the alias (and back), pin a generator version, switch a knowledge source', async () => {
  const unauthorized = await fetch(`${url}/repair/reindex`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  assert.equal(unauthorized.status, 401);
  const repair = (path: string, body: object) =>
    fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify(body),
    });

  const before = await reindex.current();
  const reindexed = (await (await repair('/repair/reindex', {})).json()) as {
    hook: string;
    changed: number;
    detail: { collection: string; previous: string };
  };
  assert.equal(reindexed.hook, 'reindex');
  assert.equal(reindexed.changed, PRIMARY.length);
  assert.equal(reindexed.detail.previous, before);
  assert.equal(await reindex.current(), reindexed.detail.collection);
  assert.notEqual(reindexed.detail.collection, before);
  assert.equal(
    (await rag.query({ query: 'What is the latest openssl version?', as_of: '2024-06-01T00:00:00Z' })).chunks[0]!.chunk_id,
    'openssl-3.0.13#0',
  );
  assert.deepEqual(await reindex.rollback(), { collection: before, from: reindexed.detail.collection });
  assert.equal(await reindex.current(), before);

  assert.equal((await repair('/repair/generator/pin', { version: 'prompt-v9' })).status, 400);
  const pinned = (await (await repair('/repair/generator/pin', { version: 'prompt-v1' })).json()) as {
    changed: number;
    detail: { previous: string };
  };
  assert.deepEqual([pinned.changed, pinned.detail.previous], [1, 'prompt-v2']);
  const v1 = await rag.query({ query: 'What is the latest openssl version?' });
  assert.equal(v1.answer, 'v1 says 3.0.13');
  assert.equal(v1.models.generator, 'prompt-v1');

  const switched = await repair('/repair/knowledge-source', { action: 'switch_to_backup', source: 'debian' });
  assert.equal(switched.status, 200);
  const fromBackup = await rag.query({ query: 'What is the latest openssl version?', as_of: '2024-06-01T00:00:00Z' });
  assert.deepEqual(
    fromBackup.chunks.map((c) => c.source),
    ['debian-mirror'],
  );
  const capabilities = await rag.capabilities();
  assert.equal(capabilities.traces, 'otlp');
  assert.deepEqual(capabilities.repair_hooks, ['reindex', 'generator_pin', 'knowledge_source']);
  assert.deepEqual(capabilities.active_versions, {
    generator: 'prompt-v1',
    reranker: 'overlap-v1',
    knowledge_sources: { debian: 'backup' },
  });
  const unknown = await repair('/repair/knowledge-source', { action: 'refresh', source: 'debian' });
  assert.equal(unknown.status, 400);
  assert.match(((await unknown.json()) as { error: string }).error, /no refresh/);
  await assert.rejects(rag.pinGenerator({ version: 'prompt-v2' }), (error) => error instanceof RagHttpError && error.status === 401);
});
