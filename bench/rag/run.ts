/**
 * bench/rag: the reference RAG on this machine, against the local stack's qdrant-local.
 *   - ingest throughput: chunks per second from parsed knowledge to points in Qdrant, embedding
 *     (all-MiniLM-L6-v2, onnxruntime-node, CPU) included, with a cold embedding cache;
 *   - POST /query latency p50/p99 over HTTP (in-process server, sequential client);
 *   - exact-answer accuracy on the labelled questions, clean and under each fault (--faults).
 * Usage: npm run stack -- up && npx tsx bench/rag/run.ts [--packages N] [--questions 300] [--faults]
 * Results are written to bench/rag/results/<timestamp>.json; RESULTS.md keeps the reported figures.
 */
import { loadSentenceEmbedder, ragConfigFromEnv, loadDebianKnowledge, createReferenceRag } from '@rag-immune/reference-rag';
import { accuracy, grade, loadQuestions, percentile, touchedByTokenizerAnomaly } from '@rag-immune/reference-rag/testing';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { RagClient } from '@rag-immune/rag-contract';
import { loadStackConfig, stackEndpoints, qdrantEnv } from '@rag-immune/stack';
import pino from 'pino';

const { values } = parseArgs({
  options: { packages: { type: 'string' }, questions: { type: 'string', default: '300' }, faults: { type: 'boolean', default: false } },
});
const packages = values.packages === undefined ? undefined : Number(values.packages);
const { sources } = loadDebianKnowledge(packages === undefined ? {} : { packages });
const embedder = await loadSentenceEmbedder();
const rag = createReferenceRag(
  ragConfigFromEnv({
    ...qdrantEnv(stackEndpoints(loadStackConfig())),
    PORT: '0',
    LOG_LEVEL: 'warn',
    RAG_FAULT_INJECTION: 'enabled',
    QDRANT_COLLECTION: `bench-rag-${randomUUID().slice(0, 8)}`,
  }),
  { embedder, sources, logger: pino({ level: 'warn' }) },
);
try {
  const t0 = performance.now();
  const ingest = await rag.ingest();
  const ingestSeconds = (performance.now() - t0) / 1000;
  console.log(
    `ingest: ${ingest.chunks} chunks in ${ingestSeconds.toFixed(1)} s = ${(ingest.chunks / ingestSeconds).toFixed(1)} chunks/s (embed ${(ingest.embedMs / 1000).toFixed(1)} s, write ${(ingest.writeMs / 1000).toFixed(1)} s)`,
  );
  const { url } = await rag.listen();
  const client = new RagClient({ baseUrl: url, timeoutMs: 60_000 });
  const ids = new Set(sources.flatMap((source) => source.recordsPublishedBy(new Date()).map((record) => record.knowledgeId)));
  const all = loadQuestions().filter((q) => ids.has(q.knowledge_id));
  // A deterministic spread over the whole set: every k-th question.
  const step = Math.max(1, Math.floor(all.length / Number(values.questions)));
  const questions = all.filter((_q, i) => i % step === 0).slice(0, Number(values.questions));
  await grade(client, questions.slice(0, 20)); // warm-up
  const clean = await grade(client, questions);
  const latencies = clean.map((g) => g.latencyMs);
  const byKind: Record<string, number> = {};
  for (const kind of new Set(questions.map((q) => q.kind)))
    byKind[kind] = Number(accuracy(clean.filter((g) => g.question.kind === kind)).toFixed(3));
  const result: Record<string, unknown> = {
    at: new Date().toISOString(),
    machine: { cpus: cpus().length, cpu_model: cpus()[0]?.model, memory_gib: Math.round(totalmem() / 2 ** 30), node: process.version },
    embedder: embedder.version,
    ingest: {
      chunks: ingest.chunks,
      seconds: Number(ingestSeconds.toFixed(2)),
      chunks_per_second: Number((ingest.chunks / ingestSeconds).toFixed(1)),
    },
    query: { n: clean.length, p50_ms: Number(percentile(latencies, 50).toFixed(1)), p99_ms: Number(percentile(latencies, 99).toFixed(1)) },
    accuracy: { clean: Number(accuracy(clean).toFixed(3)), by_kind: byKind, questions: questions.length },
  };
  console.log(JSON.stringify(result));
  if (values.faults) {
    const faults: Record<string, unknown> = {};
    const cases: [string, Record<string, unknown>][] = [
      ['vector-index-corruption', { mode: 'perturb', scope: { fraction: 0.4 } }],
      ['reranker-drift', {}],
      ['knowledge-source-failure', { mode: 'stale', stale_as_of: '2024-06-01T00:00:00.000Z', scope: { fraction: 0.6 } }],
      ['parser-bug', { mode: 'boilerplate', scope: { fraction: 0.4 } }],
      ['parser-bug', { mode: 'merge-sections', scope: { fraction: 0.4 } }],
      ['generator-inconsistency', { scope: { fraction: 0.4 } }],
      ['tokenizer-anomaly', {}],
    ];
    for (const [kind, body] of cases) {
      const t = performance.now();
      const injected = (await (
        await fetch(`${url}/admin/faults/${kind}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).json()) as {
        fault: { affected_knowledge_ids: string[] | null };
      };
      const injectMs = performance.now() - t;
      const affected = injected.fault.affected_knowledge_ids ? new Set(injected.fault.affected_knowledge_ids) : null;
      const during = await grade(client, questions);
      const touches = (id: string, question: string, changed: boolean): boolean =>
        kind === 'tokenizer-anomaly'
          ? touchedByTokenizerAnomaly(question)
          : kind === 'knowledge-source-failure'
            ? (affected?.has(id) ?? false) && changed
            : (affected?.has(id) ?? true);
      const touched = during.filter((g) =>
        touches(g.question.knowledge_id, g.question.question, g.question.expected !== g.question.expected_baseline),
      );
      const untouched = during.filter((g) => !touched.includes(g));
      const cleanOf = (set: typeof during) => accuracy(clean.filter((g) => set.some((s) => s.question.id === g.question.id)));
      const u = performance.now();
      await fetch(`${url}/admin/faults/${kind}`, { method: 'DELETE' });
      const undoMs = performance.now() - u;
      const restored = await grade(client, questions);
      const entry = {
        mode: body.mode ?? 'default',
        inject_ms: Math.round(injectMs),
        undo_ms: Math.round(undoMs),
        all: Number(accuracy(during).toFixed(3)),
        touched: { n: touched.length, clean: Number(cleanOf(touched).toFixed(3)), faulty: Number(accuracy(touched).toFixed(3)) },
        untouched: { n: untouched.length, clean: Number(cleanOf(untouched).toFixed(3)), faulty: Number(accuracy(untouched).toFixed(3)) },
        p99_ms: Number(
          percentile(
            during.map((g) => g.latencyMs),
            99,
          ).toFixed(1),
        ),
        after_undo: Number(accuracy(restored).toFixed(3)),
      };
      faults[`${kind}/${entry.mode}`] = entry;
      console.log(kind, JSON.stringify(entry));
    }
    result.faults = faults;
  }
  const dir = fileURLToPath(new URL('./results/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}${new Date().toISOString().replace(/[:.]/g, '-')}.json`, JSON.stringify(result, null, 2) + '\n');
} finally {
  await rag.close();
  await rag.index.drop();
}
