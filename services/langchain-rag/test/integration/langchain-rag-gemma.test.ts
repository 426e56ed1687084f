/**
 * The LangChain RAG with its real parts: Gemma 3 270M sampling on node-llama-cpp, the shared
 * embedder, @langchain/qdrant on the stack's Qdrant, a few Debian packages of knowledge, and its
 * spans exported over OTLP protobuf (decoded as the trace intake decodes them). Kept to a handful
 * of generations: each costs seconds on a loaded CPU. Skipped, saying why, when the model is not
 * installed (scripts/install-gemma.sh).
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import express from 'express';
import { pino } from 'pino';
import type { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { loadDebianKnowledge, type KnowledgeSource } from '@rag-immune/debian-knowledge';
import { SentenceEmbedder } from '@rag-immune/embeddings';
import { KnowledgeFreshness, RagClient } from '@rag-immune/rag-contract';
import { endpoints } from '@rag-immune/test-kit/stack';
import { decodeProtobufExport, mapSpans, newProbeTraceContext, type SpanRecord } from '@rag-immune/traces';
import { createQdrantClient } from '@rag-immune/worker-runtime';
import { langchainRagConfigFromEnv } from '../../src/config.ts';
import { installedModelPath } from '../../src/generation/installed-model.ts';
import { LlamaCppEngine } from '../../src/generation/llama-cpp-engine.ts';
import { createLangchainRag, type LangchainRag } from '../../src/langchain-rag.ts';
import { SharedSentenceEmbeddings } from '../../src/shared-sentence-embeddings.ts';
import { startTracing } from '../../src/tracing.ts';

const modelPath = process.env.LLM_MODEL_PATH ?? installedModelPath();
const skip = existsSync(modelPath) ? false : `Gemma 3 270M is not installed at ${modelPath}: run scripts/install-gemma.sh`;
// CI installs the model and sets this: there, a missing model is a failure, never a skip.
if (skip && process.env.LANGCHAIN_RAG_MODEL_REQUIRED === '1') throw new Error(`LANGCHAIN_RAG_MODEL_REQUIRED=1: ${skip}`);
if (skip) console.log(`# SKIP langchain-rag-gemma: ${skip}`);

const run = randomUUID().slice(0, 8);
const qdrant = createQdrantClient({ url: endpoints.qdrantUrl, apiKey: endpoints.qdrantApiKey });
const logger = pino({ level: 'warn' });
const exported: SpanRecord[] = [];
let collector: Server;
let provider: NodeTracerProvider;
let engine: LlamaCppEngine;
const servers: Server[] = [];
let online: { rag: LangchainRag; client: RagClient; url: string };
let baseline: { rag: LangchainRag; client: RagClient; url: string };
let sources: KnowledgeSource[];

async function listen(app: express.Express): Promise<{ server: Server; url: string }> {
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  servers.push(server);
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

before(async () => {
  if (skip) return;
  const sink = express();
  sink.post('/v1/traces', express.raw({ type: 'application/x-protobuf', limit: '8mb' }), (req, res) => {
    exported.push(...decodeProtobufExport(req.body as Buffer).spans);
    res.type('application/x-protobuf').send(Buffer.alloc(0));
  });
  const listening = await listen(sink);
  collector = listening.server;
  provider = startTracing({
    serviceName: 'langchain-rag',
    instance: 'test',
    endpoint: `${listening.url}/v1/traces`,
    scheduleDelayMillis: 200,
  });
  engine = await LlamaCppEngine.load({ modelPath, contextSize: 2048, threads: 1, gpu: false });
  const embeddings = new SharedSentenceEmbeddings(await SentenceEmbedder.load());
  sources = loadDebianKnowledge({ packages: 3 }).sources;
  const env = { QDRANT_URL: endpoints.qdrantUrl, LLM_MODEL_PATH: modelPath, LLM_MAX_TOKENS: '32', LLM_SEED: '7' };
  const start = async (extra: Record<string, string>) => {
    const config = langchainRagConfigFromEnv({ ...env, ...extra });
    const rag = await createLangchainRag({ config, embeddings, engine, qdrant, sources, logger });
    const { url } = await listen(rag.app);
    return { rag, url, client: new RagClient({ baseUrl: url, timeoutMs: 120_000 }) };
  };
  online = await start({ QDRANT_ALIAS: `it-lcrag-online-${run}` });
  baseline = await start({ QDRANT_ALIAS: `it-lcrag-baseline-${run}`, INSTANCE: 'baseline', PINNED_AS_OF: '2024-06-01T00:00:00Z' });
});

after(async () => {
  if (skip) return;
  // The collector stays up until the provider's last export.
  for (const server of servers.filter((s) => s !== collector)) server.close();
  await provider?.shutdown();
  await engine?.close();
  const { collections } = await qdrant.getCollections();
  for (const c of collections.filter((c) => c.name.startsWith('it-lcrag-') && c.name.includes(run)))
    await qdrant.deleteCollection(c.name).catch(() => undefined);
  collector?.close();
});

test(
  'a probe gets a sampled answer from Gemma over retrieved, versioned chunks, and its spans map to a complete Trace',
  { skip },
  async () => {
    const question = 'What is the latest version of ' + sources[0]!.recordsPublishedBy(new Date())[0]!.knowledgeId.split('/')[1] + '?';
    const probe = newProbeTraceContext();
    const answered = await online.client.query({ query: question }, { headers: { traceparent: probe.traceparent } });
    assert.equal(answered.trace_id, probe.trace_id);
    assert.ok(answered.answer.length > 0, 'Gemma answered something');
    assert.ok(!answered.answer.includes('\n') && !answered.answer.includes('Question:'), `cut at the stop sequences: ${answered.answer}`);
    assert.equal(answered.chunks.length, 3);
    assert.ok(answered.chunks.every((c) => c.valid_until === null || Date.parse(c.valid_until) > Date.now()));
    assert.match(answered.models.generator, /^gemma-3-270m-q4_k_m\+few-shot-v1$/);
    assert.match(answered.models.embedder, /^all-MiniLM-L6-v2@int8-/);

    await provider.forceFlush();
    const spans = exported.filter((s) => s.trace_id === probe.trace_id);
    const llm = spans.find((s) => s.attributes['openinference.span.kind'] === 'LLM');
    assert.ok(llm, 'the OpenInference instrumentation recorded the LLM call');
    assert.match(String(llm.attributes['llm.invocation_parameters']), /"temperature":0.7/);
    const mapped = mapSpans(probe.trace_id, spans)!;
    assert.deepEqual(mapped.gaps, []);
    assert.equal(mapped.trace!.answer, answered.answer);
    assert.deepEqual(mapped.trace!.context, answered.chunks);
  },
);

test('the baseline answers as of its pin whatever the request asks, from knowledge frozen there', { skip }, async () => {
  const question = 'Who uploaded the latest version of ' + sources[0]!.recordsPublishedBy(new Date())[0]!.knowledgeId.split('/')[1] + '?';
  const answered = await baseline.client.query({ query: question, as_of: '2026-01-01T00:00:00Z' });
  assert.equal(answered.as_of, '2024-06-01T00:00:00.000Z');
  assert.ok(answered.chunks.every((c) => Date.parse(c.valid_from) <= Date.parse('2024-06-01T00:00:00Z')));
  const hooks = async (url: string) => ((await (await fetch(`${url}/capabilities`)).json()) as { repair_hooks: string[] }).repair_hooks;
  assert.deepEqual(await hooks(baseline.url), ['generator_pin'], 'the frozen baseline serves no reindex and no knowledge repair');
  assert.deepEqual(await hooks(online.url), ['reindex', 'generator_pin', 'knowledge_source']);
  // Both answer the freshness lookup, each at its own knowledge time: the baseline's feed as of its pin.
  const id = sources[0]!.recordsPublishedBy(new Date())[0]!.knowledgeId;
  const lookup = async (url: string) => KnowledgeFreshness.parse(await (await fetch(`${url}/knowledge/${encodeURIComponent(id)}`)).json());
  const pinned = await lookup(baseline.url);
  assert.equal(pinned.as_of, '2024-06-01T00:00:00.000Z');
  assert.ok(pinned.feed === null || Date.parse(pinned.feed.valid_from) <= Date.parse('2024-06-01T00:00:00Z'));
  const live = await lookup(online.url);
  assert.equal(live.feed_provider, 'primary');
  assert.deepEqual(
    live.indexed && { version: live.indexed.version, valid_from: live.indexed.valid_from },
    live.feed,
    'the online index holds what its feed publishes',
  );
});
