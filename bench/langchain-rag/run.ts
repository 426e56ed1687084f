/**
 * bench/langchain-rag: false anomalies of the sentinel's present signals on the LangChain RAG, whose
 * online and baseline instances both sample (Gemma 3 270M at temperature > 0, a new seed per call).
 * Nothing is injected: every anomalous probe result is a false one. Each probe result is one real
 * ProbeRunner run (online and baseline /query, FCS on both answers, IC, KF, answer agreement with
 * cross-FCS, the baseline comparison), against two in-process RAG instances on the stack's Qdrant.
 * Probes whose knowledge changed since the baseline's pin are counted apart: there the answers
 * differ for a reason, elsewhere only by sampling.
 *
 * --fault <kind> (issue 39's detection delay): an operator fault (no fault API: the test kit's
 * injectTrafficFault) written into the ONLINE instance's Qdrant collection only, on the knowledge of
 * the probes it runs, before the first run; the baseline stays clean. Kinds: vectors-overwritten:garbage,
 * vectors-overwritten:deleted, unpublished-knowledge, attribution-swap (probed documents swapped two
 * by two). Each line then also carries fault, knowledge_id, touched and the probe's query; the lines go
 * to results/fault-<kind>-<stamp>.jsonl with a header results/fault-<kind>-<stamp>.json (command,
 * machine, time, touched knowledge, summary), never over latest-runs.jsonl / latest.json.
 * replay-pooled.ts replays them. Default none: clean runs, records as before.
 *
 * Usage: npm run stack -- up && bash scripts/install-gemma.sh && npm run bench:langchain-rag
 *        [-- --results 300 --packages 25 --probes 30 --max-minutes 60]
 *        npx tsx bench/langchain-rag/run.ts --fault vectors-overwritten:garbage --results 100 --probes 10
 */
import { createWriteStream, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { trace } from '@opentelemetry/api';
import { FactConsistencyScorer } from '@rag-immune/fcs';
import { loadDebianKnowledge } from '@rag-immune/debian-knowledge';
import { SentenceEmbedder } from '@rag-immune/embeddings';
import { ragClientWithHeaders, type QueryResponse } from '@rag-immune/rag-contract';
import { ProbeRunner, defaultThresholds, probesFromQuestions, type FactConsistencyPort, type RagPort } from '@rag-immune/probing';
import { endpoints } from '@rag-immune/test-kit/stack';
import { loadQuestions } from '@rag-immune/reference-rag/testing';
import { createQdrantClient } from '@rag-immune/worker-runtime';
import type { OnlineIndex } from '@rag-immune/test-kit/loop/operator-faults';
import {
  OPERATOR_TRAFFIC_FAULTS,
  injectTrafficFault,
  type TrafficFault,
  type TrafficFaultPlan,
} from '@rag-immune/test-kit/loop/traffic-trial';
import {
  LlamaCppEngine,
  SharedSentenceEmbeddings,
  createLangchainRag,
  installedModelPath,
  langchainRagConfigFromEnv,
} from '@rag-immune/langchain-rag';

const { values } = parseArgs({
  options: {
    results: { type: 'string', default: '300' },
    packages: { type: 'string', default: '25' },
    probes: { type: 'string', default: '30' },
    'max-minutes': { type: 'string', default: '60' },
    temperature: { type: 'string', default: '0.7' },
    fault: { type: 'string', default: 'none' },
  },
});
if (values.fault !== 'none' && !(OPERATOR_TRAFFIC_FAULTS as readonly string[]).includes(values.fault)) {
  console.error(`bench/langchain-rag: --fault is none or one of ${OPERATOR_TRAFFIC_FAULTS.join(', ')}; got ${values.fault}`);
  process.exit(64);
}
const fault = values.fault === 'none' ? null : (values.fault as TrafficFault);
const wanted = Number(values.results);
const deadline = Date.now() + Number(values['max-minutes']) * 60_000;
const modelPath = process.env.LLM_MODEL_PATH ?? installedModelPath();
if (!existsSync(modelPath)) {
  console.error(`bench/langchain-rag: no model at ${modelPath}; run scripts/install-gemma.sh first`);
  process.exit(1);
}
const logger = pino({ level: 'warn' });
const run = randomUUID().slice(0, 8);
const qdrant = createQdrantClient({ url: endpoints.qdrantUrl, apiKey: endpoints.qdrantApiKey });

console.error(`loading Gemma, the embedder and ${values.packages} packages of knowledge...`);
// One engine for both instances: generations queue, as they would on one CPU.
const engine = await LlamaCppEngine.load({ modelPath, contextSize: 2048, threads: 1, gpu: false });
const embeddings = new SharedSentenceEmbeddings(await SentenceEmbedder.load());
const { sources } = loadDebianKnowledge({ packages: Number(values.packages) });
const servers: Server[] = [];
async function start(env: Record<string, string>): Promise<string> {
  const config = langchainRagConfigFromEnv({
    QDRANT_URL: endpoints.qdrantUrl,
    LLM_MODEL_PATH: modelPath,
    LLM_TEMPERATURE: values.temperature,
    ...env,
  });
  const rag = await createLangchainRag({ config, embeddings, engine, qdrant, sources, logger });
  const server = rag.app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
const onlineUrl = await start({ QDRANT_ALIAS: `bench-lcrag-online-${run}` });
const baselineUrl = await start({
  QDRANT_ALIAS: `bench-lcrag-baseline-${run}`,
  INSTANCE: 'baseline',
  PINNED_AS_OF: '2024-06-01T00:00:00Z',
});

const knowledgeIds = new Set(sources.flatMap((s) => s.recordsPublishedBy(new Date()).map((r) => r.knowledgeId)));
const questions = loadQuestions().filter((q) => knowledgeIds.has(q.knowledge_id));
const step = Math.max(1, Math.floor(questions.length / Number(values.probes)));
const picked = questions.filter((_, i) => i % step === 0).slice(0, Number(values.probes));
const probes = probesFromQuestions(picked, 'lcrag');
const questionOf = new Map(probes.map((p, i) => [p.id, picked[i]!]));

/**
 * The fault's plans on the probed knowledge: one per knowledge id; an attribution swap pairs the ids
 * two by two (two packages, a changelog with an apt document where it can, as the golden-probe
 * trials pair them); an id left without a partner stays untouched.
 */
function faultPlans(kind: TrafficFault, ids: readonly string[]): TrafficFaultPlan[] {
  if (kind !== 'attribution-swap') return ids.map((target) => ({ fault: kind, target }));
  const subject = (id: string) => id.slice(id.indexOf('/') + 1);
  const family = (id: string) => id.slice(0, id.indexOf('/'));
  const open = [...ids];
  const plans: TrafficFaultPlan[] = [];
  while (open.length > 1) {
    const target = open.shift()!;
    const others = open.filter((id) => subject(id) !== subject(target));
    const partner = others.find((id) => family(id) !== family(target)) ?? others[0];
    if (partner === undefined) continue;
    open.splice(open.indexOf(partner), 1);
    plans.push({ fault: kind, target, partner });
  }
  return plans;
}
const touched = new Set<string>();
if (fault !== null) {
  const index: OnlineIndex = {
    qdrantUrl: endpoints.qdrantUrl,
    qdrantApiKey: endpoints.qdrantApiKey,
    collection: `bench-lcrag-online-${run}`,
    // @langchain/qdrant's layout, as the test kit's LangChain pair names it.
    metadataPayloadKey: 'metadata',
    contentPayloadKey: 'content',
  };
  const probed = [...new Set(picked.map((q) => q.knowledge_id))].sort();
  for (const plan of faultPlans(fault, probed)) for (const id of await injectTrafficFault(index, plan)) touched.add(id);
  console.error(`${fault} written into the online collection: ${touched.size} of ${probed.length} probed knowledge ids touched`);
}

/** The answers behind each result (a ProbeResult carries signals, not texts), by the traceparent sent. */
const answers = new Map<string, string>();
const recording = (url: string): RagPort => {
  const client = ragClientWithHeaders(url, {}, 180_000);
  return {
    query: async (request, options) => {
      const response: QueryResponse = await client.query(request, options);
      const traceparent = options?.headers?.traceparent;
      if (traceparent !== undefined) answers.set(traceparent, response.answer);
      return response;
    },
  };
};
const scorer = await FactConsistencyScorer.load({ intraOpNumThreads: 1, cache: false });
let fcsMs = 0;
let fcsCalls = 0;
const fcsScores: number[] = [];
const timedFcs: FactConsistencyPort = {
  score: async (input) => {
    const started = performance.now();
    try {
      return await scorer.score(input);
    } finally {
      fcsMs += performance.now() - started;
      fcsCalls += 1;
    }
  },
};
const runner = new ProbeRunner({
  online: recording(onlineUrl),
  baseline: recording(baselineUrl),
  fcs: timedFcs,
  tracer: trace.getTracer('bench-langchain-rag'),
  thresholds: defaultThresholds,
  sourceTrust: {},
  callTimeoutMs: 180_000,
  callAttempts: 1,
  version: 'bench',
});

const outDir = join(dirname(fileURLToPath(import.meta.url)), 'results');
mkdirSync(outDir, { recursive: true });
// A fault recording goes beside the clean one, never over it.
const stamp = new Date().toISOString().slice(0, 19).replace(/:/g, '-');
const faultFile = fault === null ? null : join(outDir, `fault-${fault.replace(':', '-')}-${stamp}`);
const rows = createWriteStream(faultFile === null ? join(outDir, 'latest-runs.jsonl') : `${faultFile}.jsonl`);
const machine = `${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
const startedAt = new Date().toISOString();
const loadAtStart = loadavg()[0]?.toFixed(1);
const faultHeader = () => ({
  benchmark: 'bench/langchain-rag --fault',
  command: `npx tsx bench/langchain-rag/run.ts ${process.argv.slice(2).join(' ')}`.trim(),
  date: startedAt,
  machine: `${machine}, load average at start ${loadAtStart}`,
  fault,
  // Written into the online instance's collection only; the baseline stays clean.
  instance: 'online',
  touched_knowledge_ids: [...touched].sort(),
  probes: probes.map((p) => ({ probe_id: p.id, knowledge_id: questionOf.get(p.id)!.knowledge_id })),
});
if (faultFile !== null) writeFileSync(`${faultFile}.json`, `${JSON.stringify(faultHeader(), null, 2)}\n`);
const contains = (answer: string, expected: string) => answer.toLowerCase().includes(expected.toLowerCase());

interface Row {
  probe_id: string;
  kind: string;
  knowledge_changed: boolean;
  anomaly: boolean;
  signals: string[];
  online_answer: string;
  baseline_answer: string;
  online_correct: boolean;
  baseline_correct: boolean;
  online_fcs: number | null;
  baseline_fcs: number | null;
  answer_agreement: number | null;
  probe_ms: number;
  rag_ms: number;
  /** Fault runs only (absent on clean ones, whose records stay as they were). */
  fault?: string;
  knowledge_id?: string;
  touched?: boolean;
  query?: string;
}
const results: Row[] = [];
console.error(`${probes.length} probes over ${knowledgeIds.size} knowledge ids; running until ${wanted} results...`);
const started = performance.now();
for (let i = 0; results.length < wanted && Date.now() < deadline; i++) {
  const probe = probes[i % probes.length]!;
  const question = questionOf.get(probe.id)!;
  const t0 = performance.now();
  const result = await runner.run(probe);
  const online = answers.get(result.online.traceparent ?? '') ?? '';
  const baseline = answers.get(result.baseline.traceparent ?? '') ?? '';
  const row: Row = {
    probe_id: probe.id,
    kind: question.kind,
    knowledge_changed: question.expected !== question.expected_baseline,
    anomaly: result.anomaly,
    signals: result.anomaly_signals,
    online_answer: online,
    baseline_answer: baseline,
    online_correct: contains(online, question.expected),
    baseline_correct: question.expected_baseline !== null && contains(baseline, question.expected_baseline),
    online_fcs: result.online.signals?.fcs ?? null,
    baseline_fcs: result.baseline.signals?.fcs ?? null,
    answer_agreement: result.comparison.answer_agreement,
    probe_ms: performance.now() - t0,
    rag_ms: result.online.latency_ms + result.baseline.latency_ms,
    ...(fault === null
      ? {}
      : { fault, knowledge_id: question.knowledge_id, touched: touched.has(question.knowledge_id), query: probe.query }),
  };
  for (const score of [row.online_fcs, row.baseline_fcs]) if (score !== null) fcsScores.push(score);
  results.push(row);
  rows.write(`${JSON.stringify(row)}\n`);
  if (results.length % 10 === 0)
    console.error(
      `${results.length} results, ${results.filter((r) => r.anomaly).length} anomalous, ${((performance.now() - started) / 1000).toFixed(0)} s`,
    );
}
rows.end();
await once(rows, 'finish');

const elapsed = (performance.now() - started) / 1000;
const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return +(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN).toFixed(3);
};
const share = (subset: Row[], pick: (r: Row) => boolean) =>
  subset.length === 0 ? null : +(subset.filter(pick).length / subset.length).toFixed(4);
const bySignal = (subset: Row[]) => {
  const counts: Record<string, number> = {};
  for (const row of subset) for (const signal of row.signals) counts[signal] = (counts[signal] ?? 0) + 1;
  return counts;
};
const distinctAnswers = new Map<string, Set<string>>();
for (const row of results) {
  const set = distinctAnswers.get(row.probe_id) ?? new Set<string>();
  set.add(row.online_answer).add(row.baseline_answer);
  distinctAnswers.set(row.probe_id, set);
}
const unchanged = results.filter((r) => !r.knowledge_changed);
const ragMs = results.reduce((sum, r) => sum + r.rag_ms, 0);
const summary = {
  benchmark: 'bench/langchain-rag',
  date: new Date().toISOString(),
  machine: `${machine}, load average at end ${loadavg()[0]?.toFixed(1)}`,
  settings: {
    model: engine.modelName,
    temperature: Number(values.temperature),
    top_p: 0.95,
    max_tokens: 48,
    top_k_chunks: 3,
    packages: Number(values.packages),
    probes: probes.length,
    probes_with_changed_knowledge: new Set(results.filter((r) => r.knowledge_changed).map((r) => r.probe_id)).size,
    thresholds: defaultThresholds,
  },
  probe_results: results.length,
  seconds: +elapsed.toFixed(0),
  anomalous_result_rate: share(results, (r) => r.anomaly),
  anomalous_results: results.filter((r) => r.anomaly).length,
  anomalous_by_signal: bySignal(results.filter((r) => r.anomaly)),
  unchanged_knowledge: {
    results: unchanged.length,
    anomalous_result_rate: share(unchanged, (r) => r.anomaly),
    anomalous_by_signal: bySignal(unchanged.filter((r) => r.anomaly)),
    answers_differ_rate: share(unchanged, (r) => (r.answer_agreement ?? 1) < 1),
  },
  probes_with_any_anomaly: new Set(results.filter((r) => r.anomaly).map((r) => r.probe_id)).size,
  accuracy: { online: share(results, (r) => r.online_correct), baseline: share(results, (r) => r.baseline_correct) },
  distinct_answers_per_probe_mean: +(
    [...distinctAnswers.values()].reduce((sum, set) => sum + set.size, 0) / Math.max(1, distinctAnswers.size)
  ).toFixed(2),
  fcs: { p50: pct(fcsScores, 50), p01: pct(fcsScores, 1), p99: pct(fcsScores, 99) },
  fcs_ms_per_call: +(fcsMs / Math.max(1, fcsCalls)).toFixed(1),
  rag_call_ms: { mean: +(ragMs / Math.max(1, 2 * results.length)).toFixed(0) },
  probe_ms: {
    p50: pct(
      results.map((r) => r.probe_ms),
      50,
    ),
    p99: pct(
      results.map((r) => r.probe_ms),
      99,
    ),
  },
  fcs_share_of_answer_time: +(fcsMs / (fcsMs + ragMs)).toFixed(3),
};
console.log(JSON.stringify(summary, null, 2));
if (faultFile === null) writeFileSync(join(outDir, 'latest.json'), `${JSON.stringify(summary, null, 2)}\n`);
else {
  writeFileSync(`${faultFile}.json`, `${JSON.stringify({ ...faultHeader(), summary }, null, 2)}\n`);
  console.error(`recorded ${faultFile}.jsonl and .json`);
}

for (const server of servers) server.close();
await engine.close();
const { collections } = await qdrant.getCollections();
for (const c of collections.filter((c) => c.name.startsWith('bench-lcrag-') && c.name.includes(run)))
  await qdrant.deleteCollection(c.name).catch(() => undefined);
process.exit(0);
