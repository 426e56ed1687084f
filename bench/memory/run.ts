/**
 * bench/memory (npm run bench:memory): on the real Elasticsearch and Qdrant of the local stack,
 *  1. leave-one-out recommendation accuracy: every case of a history is stored through the worker's
 *     own CaseRecorder; then for each recovered case memory is asked (its own case excluded, as for
 *     any incident) and is right when its first intent is the one that healed; the expert rules are
 *     asked the same question. Histories: every bench/memory/cases/*.jsonl (RootCauseReport and
 *     RepairAction events captured from the topics of real loop runs, see capture.ts) and, always,
 *     a SYNTHETIC history (synthetic-history.ts), labelled as such;
 *  2. POST /recommend latency over HTTP with 10k cases in the store.
 *
 *   npm run bench:memory -- [--synthetic 240] [--synthetic-seeds 7,11] [--seed 7] [--latency-cases 10000] [--latency-requests 400]
 *                           [--history bench/memory/cases] [--out bench/memory/RESULTS.md]
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { cpus, loadavg, totalmem } from 'node:os';
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { trace } from '@opentelemetry/api';
import { SentenceEmbedder } from '@rag-immune/embeddings';
import { elasticsearchStores } from '@rag-immune/es-store';
import { MemoryClient, RecommendRequest } from '@rag-immune/memory-client';
import { repoRoot } from '@rag-immune/stack';
import { endpoints } from '@rag-immune/test-kit/stack';
import type { RepairAction, RootCauseReport } from '@rag-immune/contracts';
import {
  CachedEmbedder,
  CaseRecorder,
  CaseStore,
  ExpertRules,
  MemoryMetrics,
  MemoryWorker,
  Recommender,
  RetrievalAudit,
  applyEvent,
  embeddingText,
  emptyCase,
  memoryConfigFromEnv,
  pointPayload,
  storeNames,
  type CaseEvent,
  type HealingCase,
} from '@rag-immune/memory';
import { syntheticHistory, type HistoryLine } from './synthetic-history.ts';

const { values } = parseArgs({
  options: {
    synthetic: { type: 'string', default: '240' },
    seed: { type: 'string', default: '7' },
    /** Synthetic histories to score (the first is also the latency store's seed base). */
    'synthetic-seeds': { type: 'string', default: '7,11' },
    'latency-cases': { type: 'string', default: '10000' },
    'latency-requests': { type: 'string', default: '400' },
    history: { type: 'string', default: 'bench/memory/cases' },
    out: { type: 'string', default: 'bench/memory/RESULTS.md' },
  },
});
const seed = Number(values.seed);
const run = randomUUID().slice(0, 8);
const logger = pino({ level: 'error' });
const config = memoryConfigFromEnv({});
const rules = ExpertRules.load(config.MEMORY_RULES_FILE);
const log = (text: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${text}`);
const startedAt = new Date();
const loadAtStart = loadavg()[0] ?? 0;

interface History {
  name: string;
  provenance: string;
  lines: HistoryLine[];
  /**
   * Incidents of this history that were looked at while designing the recommender (listed in
   * `<history>.design-seen.txt`): they are scored with the rest and, apart, left out of the
   * "not seen in design" figure, which is then a held-out figure.
   */
  seenInDesign?: Set<string>;
}

function loadCaptured(dir: string): History[] {
  const path = join(repoRoot(), dir);
  if (!existsSync(path)) return [];
  return readdirSync(path)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .map((file) => {
      const lines = readFileSync(join(path, file), 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l, i) => {
          const parsed = JSON.parse(l) as HistoryLine | RootCauseReport | RepairAction;
          if ('topic' in parsed && 'event' in parsed) return parsed;
          if ('action_id' in parsed) return { topic: 'actions' as const, event: parsed };
          if ('root_cause' in parsed) return { topic: 'reports' as const, event: parsed };
          throw new Error(`${file}:${i + 1}: neither a report nor an action`);
        });
      const seenFile = join(path, file.replace(/\.jsonl$/, '.design-seen.txt'));
      const seenInDesign = existsSync(seenFile)
        ? new Set(
            readFileSync(seenFile, 'utf8')
              .split('\n')
              .map((l) => l.trim())
              .filter((l) => l !== '' && !l.startsWith('#')),
          )
        : undefined;
      return {
        name: file,
        provenance: `captured from the topics of real loop runs (${dir}/${file})`,
        lines,
        ...(seenInDesign ? { seenInDesign } : {}),
      };
    });
}

const time = (line: HistoryLine) => line.event.occurred_at;
const asEvent = (line: HistoryLine): CaseEvent =>
  line.topic === 'reports'
    ? { kind: 'report', event: line.event as RootCauseReport }
    : { kind: 'action', event: line.event as RepairAction };

function storeFor(prefix: string, dimension: number): CaseStore {
  const names = storeNames(prefix);
  return new CaseStore({
    elasticsearchUrl: endpoints.elasticsearchUrl,
    qdrantUrl: endpoints.qdrantUrl,
    qdrantApiKey: endpoints.qdrantApiKey,
    casesIndex: names.cases,
    collection: names.collection,
    dimension,
  });
}

const requestOf = (c: HealingCase) =>
  RecommendRequest.parse({
    incident_id: c.incident_id,
    root_cause: c.signature?.root_cause,
    affected_component: c.signature?.affected_component,
    environment: c.environment,
    claims: (c.signature?.claims ?? []).map(({ kind, metric, observed, baseline }) => ({ kind, metric, observed, baseline })),
    affected_knowledge_ids: c.signature?.affected_knowledge_ids ?? [],
  });

interface AccuracyResult {
  history: History;
  cases: number;
  evaluated: number;
  memoryRight: number;
  rulesRight: number;
  fromCases: number;
  fromCasesRight: number;
  byCause: Map<string, { n: number; memory: number; rules: number; healedBy: Map<string, number> }>;
  /** The scored cases not looked at in design (only for a history with a design-seen list). */
  unseen: { n: number; memory: number; rules: number } | null;
  loadSeconds: number;
  askSeconds: number;
}

async function accuracy(history: History, embedder: CachedEmbedder, index: number): Promise<AccuracyResult> {
  const prefix = `bench-memory-${run}-${index}`;
  const store = storeFor(prefix, embedder.dimension);
  const audit = new RetrievalAudit(elasticsearchStores(store.es), storeNames(prefix).audit, logger);
  await store.ensure();
  await audit.ensure();
  try {
    const loadStart = performance.now();
    const recorder = new CaseRecorder(store, embedder, 'default', logger);
    for (const line of [...history.lines].sort((a, b) => time(a) - time(b))) await recorder.record(asEvent(line));
    await store.refresh();
    const loadSeconds = (performance.now() - loadStart) / 1000;
    const all: HealingCase[] = [];
    for await (const s of store.scan(['active', 'superseded', 'archived'])) all.push(s.healingCase);
    const now = Math.max(...history.lines.map(time)) + 3_600_000;
    const recommender = new Recommender(
      store,
      embedder,
      rules,
      audit,
      new MemoryMetrics(new Registry()),
      trace.getTracer('bench'),
      logger,
      {
        threshold: config.MEMORY_SIMILARITY_THRESHOLD,
        halfLifeDays: config.MEMORY_HALF_LIFE_DAYS,
        candidates: config.MEMORY_CANDIDATES,
        storeTimeoutMs: 10_000,
      },
      () => now,
    );
    const evaluated = all.filter((c) => c.outcome === 'recovered' && c.signature !== null && c.recovered_by !== null);
    const result: AccuracyResult = {
      history,
      cases: all.length,
      evaluated: evaluated.length,
      memoryRight: 0,
      rulesRight: 0,
      fromCases: 0,
      fromCasesRight: 0,
      byCause: new Map(),
      unseen: history.seenInDesign ? { n: 0, memory: 0, rules: 0 } : null,
      loadSeconds,
      askSeconds: 0,
    };
    const askStart = performance.now();
    for (const c of evaluated) {
      const request = requestOf(c);
      const answer = await recommender.recommend(request);
      const memoryRight = answer.strategy[0]?.intent === c.recovered_by;
      const rulesRight = rules.decide(request).strategy[0]?.intent === c.recovered_by;
      result.memoryRight += Number(memoryRight);
      result.rulesRight += Number(rulesRight);
      if (answer.source === 'cases') {
        result.fromCases += 1;
        result.fromCasesRight += Number(memoryRight);
      }
      if (result.unseen && !history.seenInDesign?.has(c.incident_id)) {
        result.unseen.n += 1;
        result.unseen.memory += Number(memoryRight);
        result.unseen.rules += Number(rulesRight);
      }
      const cause = c.signature?.root_cause ?? 'unknown';
      const row = result.byCause.get(cause) ?? { n: 0, memory: 0, rules: 0, healedBy: new Map<string, number>() };
      row.healedBy.set(c.recovered_by as string, (row.healedBy.get(c.recovered_by as string) ?? 0) + 1);
      row.n += 1;
      row.memory += Number(memoryRight);
      row.rules += Number(rulesRight);
      result.byCause.set(cause, row);
    }
    result.askSeconds = (performance.now() - askStart) / 1000;
    await audit.flush();
    return result;
  } finally {
    await store.drop();
    await store.es.indices.delete({ index: audit.index, ignore_unavailable: true });
    await store.close();
  }
}

interface LatencyResult {
  cases: number;
  requests: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  fromCases: number;
  loadSeconds: number;
  distinctTexts: number;
  reasons: Map<string, number>;
  p99FromCases: number;
}

async function latency(embedder: CachedEmbedder, inner: SentenceEmbedder): Promise<LatencyResult> {
  const prefix = `bench-memory-${run}-latency`;
  const count = Number(values['latency-cases']);
  const store = storeFor(prefix, embedder.dimension);
  await store.ensure();
  let worker: MemoryWorker | undefined;
  try {
    const loadStart = performance.now();
    // 10k cases folded by the worker's own merge code, loaded with the bulk APIs (the recorder's
    // one-case-at-a-time path would take the benchmark's whole budget); same documents and payloads.
    const lines = syntheticHistory({ cases: count, seed: seed + 1000, now: Date.now(), spanDays: 365, scopeSets: 30 });
    const byIncident = new Map<string, HealingCase>();
    for (const line of lines) {
      const event = asEvent(line);
      const current = byIncident.get(event.event.incident_id) ?? emptyCase(event.event.incident_id, 'default', new Date());
      byIncident.set(event.event.incident_id, applyEvent(current, event, new Date()) ?? current);
    }
    const cases = [...byIncident.values()];
    const texts = [...new Set(cases.map((c) => embeddingText(c.signature)))];
    const vectors = new Map<string, Float32Array>();
    for (let i = 0; i < texts.length; i += 32) {
      const batch = texts.slice(i, i + 32);
      (await inner.embed(batch)).forEach((v, j) => vectors.set(batch[j] as string, v));
    }
    for (let i = 0; i < cases.length; i += 1000) {
      const batch = cases.slice(i, i + 1000);
      const response = await store.es.bulk({
        operations: batch.flatMap((c) => [{ index: { _index: store.options.casesIndex, _id: c.case_id } }, c]),
      });
      if (response.errors) throw new Error('bulk load reported errors');
      await store.qdrant.upsert(store.options.collection, {
        wait: true,
        points: batch.map((c) => ({
          id: c.case_id,
          vector: Array.from(vectors.get(embeddingText(c.signature)) as Float32Array),
          payload: pointPayload(c),
        })),
      });
    }
    await store.refresh();
    const loadSeconds = (performance.now() - loadStart) / 1000;
    log(`latency store: ${cases.length} cases (${texts.length} distinct signature texts) loaded in ${loadSeconds.toFixed(0)} s`);

    worker = new MemoryWorker({
      config: memoryConfigFromEnv({ ES_INDEX_PREFIX: prefix, MEMORY_PORT: '0', MEMORY_FORGET_INTERVAL_SECONDS: '0' }),
      busConfig: null,
      embedder: inner,
      logger,
      tracer: trace.getTracer('bench'),
    });
    const { port } = await worker.start();
    const client = new MemoryClient({ baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 30_000 });
    // Questions: reports of another synthetic history (new incidents, same kinds of faults).
    const asks = syntheticHistory({ cases: Number(values['latency-requests']) + 20, seed: seed + 2000, now: Date.now(), spanDays: 1 })
      .filter((l) => l.topic === 'reports')
      .map((l) => l.event as RootCauseReport);
    const durations: number[] = [];
    const fromCasesDurations: number[] = [];
    const reasons = new Map<string, number>();
    let fromCases = 0;
    for (const [i, r] of asks.entries()) {
      const t0 = performance.now();
      const answer = await client.recommend({
        incident_id: r.incident_id,
        root_cause: r.root_cause,
        affected_component: r.affected_component,
        claims: r.claims.map(({ kind, metric, observed, baseline }) => ({ kind, metric, observed, baseline })),
        affected_knowledge_ids: r.affected_knowledge_ids,
      });
      const ms = performance.now() - t0;
      if (i < 20) continue; // warm-up: JIT, connection pools, caches
      durations.push(ms);
      fromCases += Number(answer.source === 'cases');
      if (answer.source === 'cases') fromCasesDurations.push(ms);
      const reason = `${answer.reason.split(';')[0]}${answer.degraded ? ' (degraded)' : ''}`;
      reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
    }
    durations.sort((a, b) => a - b);
    fromCasesDurations.sort((a, b) => a - b);
    const quantile = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.ceil(p * xs.length) - 1)] ?? NaN;
    const q = (p: number) => quantile(durations, p);
    return {
      cases: cases.length,
      requests: durations.length,
      p50: q(0.5),
      p95: q(0.95),
      p99: q(0.99),
      max: durations.at(-1) ?? NaN,
      fromCases,
      loadSeconds,
      distinctTexts: texts.length,
      reasons,
      p99FromCases: quantile(fromCasesDurations, 0.99),
    };
  } finally {
    await worker?.audit.flush();
    await worker?.stop();
    await store.drop();
    await store.es.indices.delete({ index: storeNames(prefix).audit, ignore_unavailable: true });
    await store.close();
  }
}

const inner = await SentenceEmbedder.load();
const embedder = new CachedEmbedder(inner, 20_000);
const histories: History[] = [
  ...loadCaptured(values.history),
  ...values['synthetic-seeds']
    .split(',')
    .filter(Boolean)
    .map((text) => {
      const historySeed = Number(text);
      return {
        name: `synthetic-seed-${historySeed}`,
        provenance: `SYNTHETIC (bench/memory/synthetic-history.ts, seed ${historySeed}): generated, not from real loop runs`,
        lines: syntheticHistory({ cases: Number(values.synthetic), seed: historySeed, now: Date.now(), spanDays: 180 }),
      };
    }),
];
const results: AccuracyResult[] = [];
for (const [i, history] of histories.entries()) {
  log(`history ${history.name}: ${history.lines.length} events`);
  const result = await accuracy(history, embedder, i);
  log(`  ${result.evaluated}/${result.cases} cases evaluated: memory ${result.memoryRight}, rules ${result.rulesRight}`);
  results.push(result);
}
const lat = await latency(embedder, inner);
log(`latency: p50 ${lat.p50.toFixed(1)} ms, p99 ${lat.p99.toFixed(1)} ms`);
await inner.release();

const pct = (n: number, d: number) => (d === 0 ? '—' : `${((100 * n) / d).toFixed(1)}% (${n}/${d})`);
const machine = `${cpus().length} cores (${cpus()[0]?.model ?? 'cpu'}), ${Math.round(totalmem() / 2 ** 30)} GiB, Debian 12, Node ${process.version}`;
/** The histories captured from real loop runs (the rest are SYNTHETIC). */
const captured = results.filter((r) => !r.history.provenance.startsWith('SYNTHETIC'));
const capturedCases = captured.reduce((n, r) => n + r.cases, 0);
const capturedMultiHealer = [
  ...new Set(captured.flatMap((r) => [...r.byCause.entries()].filter(([, row]) => row.healedBy.size > 1).map(([cause]) => cause))),
];
const capturedRulesPerfect = captured.every((r) => r.rulesRight === r.evaluated);
const accuracyRows = results
  .map(
    (r) =>
      `| ${r.history.name} | ${r.history.provenance} | ${r.cases} | ${r.evaluated} | **${pct(r.memoryRight, r.evaluated)}** | ${pct(r.rulesRight, r.evaluated)} | ${pct(r.fromCases, r.evaluated)} | ${pct(r.fromCasesRight, r.fromCases)} |`,
  )
  .join('\n');
const heldOut = results.filter((r) => r.unseen !== null);
const heldOutRows = heldOut
  .map(
    (r) =>
      `| ${r.history.name} | ${r.history.seenInDesign?.size ?? 0} | ${r.unseen!.n} | **${pct(r.unseen!.memory, r.unseen!.n)}** | ${pct(r.unseen!.rules, r.unseen!.n)} |`,
  )
  .join('\n');
const causeRows = results
  .flatMap((r) =>
    [...r.byCause.entries()]
      .sort()
      .map(
        ([cause, row]) =>
          `| ${r.history.name} | ${cause} | ${row.n} | ${[...row.healedBy.entries()].map(([intent, n]) => `${intent} ${n}`).join(', ')} | ${pct(row.memory, row.n)} | ${pct(row.rules, row.n)} |`,
      ),
  )
  .join('\n');
const markdown = `# bench/memory results

\`npm run stack -- up && npm run bench:memory\` (= \`tsx bench/memory/run.ts --synthetic ${values.synthetic} --synthetic-seeds ${values['synthetic-seeds']} --seed ${seed} --latency-cases ${values['latency-cases']} --latency-requests ${values['latency-requests']}\`)
(\`bench/memory/run.ts\`). Run of ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machine}, sharing the machine with the
local stack (Kafka, schema registry, Elasticsearch 8.7, qdrant-local, Prometheus) and other work (1-minute load average
${loadAtStart.toFixed(1)} at the start, ${(loadavg()[0] ?? 0).toFixed(1)} at the end, on ${cpus().length} cores${Math.max(loadAtStart, loadavg()[0] ?? 0) > 2 * cpus().length ? ': the latencies below are those of a saturated machine' : ''}). Similarity threshold
${config.MEMORY_SIMILARITY_THRESHOLD}, half-life ${config.MEMORY_HALF_LIFE_DAYS} days, ${config.MEMORY_CANDIDATES} candidates per channel, rules \`${rules.version}\`.

## Leave-one-out recommendation accuracy

Every case of a history is stored through the worker's own \`CaseRecorder\` (Elasticsearch + Qdrant, shared MiniLM
embedder). Then, for every case that recovered, \`Recommender.recommend\` is asked about that incident (its own case is
excluded by the incident filter every request has: leave-one-out) and is right when its first intent is the intent that
healed the case. The expert rules (\`services/memory/rules/${rules.version}.json\`) are asked the same question. Cases
that never recovered have no right answer and are not scored.

| history | provenance | cases | scored | memory | rules only | answered from cases | right when from cases |
| --- | --- | --- | --- | --- | --- | --- | --- |
${accuracyRows}

Seed 003 §2.2: 89.3% on 217 cases. Goal of issue 10: ≥ 92% and strictly better than the rules alone.
${
  heldOut.length > 0
    ? `
Some incidents of a history were looked at while the recommender was being designed (listed in its
\`.design-seen.txt\`); the scored cases among the rest are a held-out figure:

| history | incidents seen in design | scored, not seen | memory | rules only |
| --- | --- | --- | --- | --- |
${heldOutRows}
`
    : ''
}
${
  captured.length > 0
    ? `**Captured histories** (\`${values.history}/*.jsonl\`) were produced by \`bench/memory/real-history.ts\`: the reference RAG
pair and the four workers (sentinel, identifier, effector, memory) as processes on the local stack, one injected fault per
trial with kind, mode, scope fraction and seed varied, each on a fresh online RAG; every RootCauseReport and RepairAction
the run's topics carried. A case is an incident the identifier reported, with every action the effector took. Between
trials the script waits until the identifier has closed every incident on the fresh RAG, so that no case mixes two
trials (the two histories captured before that wait are in \`${values.history}/archive/\`, not scored; see its README).
Each trial's plan (kind, mode, fraction, seed) and outcome are in the \`.trials.txt\` file beside its history. The captured histories hold ${capturedCases} cases in all (${capturedCases >= 200 ? 'at least' : 'fewer than'} the 200 the
issue asks for). The healed-by column below shows whether the same cause needed different actions.
${
  capturedMultiHealer.length === 0 && capturedRulesPerfect
    ? `In the captured histories every cause was healed by one intent only, the one the rules name first. On these cases the
rule table is right by construction, so neither memory nor any other recommender can be strictly better than it. The
comparison shows that memory does not lose to the rules on real cases; it cannot show that memory gains. That needs a
RAG whose causes need different actions under different symptoms (see the SYNTHETIC paragraph).`
    : `Causes healed by more than one intent in the captured histories: ${capturedMultiHealer.join(', ') || 'none'}. The rules
name one intent per cause, so they are wrong on every case healed by another; memory can be right on those only when
the reports' claims tell the cases apart (for knowledge_source_failure: the identifier's freshness claims
\`feed_behind_baseline_days\`, a stale feed that a backup heals, against \`index_behind_feed_days\`, a stalled ingest that only
a re-ingest heals; reference RAG modes \`stale\` and \`ingest-stalled\`).`
}
`
    : `**No history captured from real loop runs was available for this run** (\`${values.history}/*.jsonl\` empty).
`
}
The **SYNTHETIC** figure shows that the retrieval pipeline (filters, vector + BM25, RRF, strategy ranking) learns a
signature → action structure that a cause → action rule table cannot express, *where such structure exists*; the
generator puts it there by assumption (ground truth in \`synthetic-history.ts\`: for vector-index corruption with points
dropped over a wide scope and for a frozen knowledge source the healing intent is not the rules' one, and the effector's
first try is the rules' intent; 4% of cases heal by an alternative, 5% never heal). It is not evidence about the real
loop. The exponential similarity kernel (temperature 0.05) replaced a linear similarity weight after a trial run on an
80-case synthetic history (seed 7) showed the linear weight could not tell stale from frozen sources; a sweep afterwards on
240-case seeds 7 and 11 (vector channel only, same LOO) gave 0.02 → 94.6% / 95.7%, 0.05 → 94.2% / 95.2%, 0.1 → 89.7% /
95.2%, 1 → 87.5% / 93.1%, rules 86.6% / 91.3%: the figure on seed 7 is therefore not an unseen-data figure. On
2026-12-01 the ranking's similarity became the cosine scaled by the symptom overlap (Jaccard of the claims'
kind:metric:move and the scope size), after the first 40 cases of loop-run-4 showed the embedding reading the
affected knowledge ids over the claims; with the same seeds it moved seed 7 from 211 to 209 and seed 11 from 220 to 222
right (431 of 455 either way) and left loop-run-3 at 192/192.

### By cause

| history | cause | scored | healed by | memory | rules only |
| --- | --- | --- | --- | --- | --- |
${causeRows}

## POST /recommend latency with ${lat.cases} cases in the store

${lat.cases} SYNTHETIC cases (${lat.distinctTexts} distinct signature texts) folded by the worker's merge code and bulk-loaded into
Elasticsearch and Qdrant (${lat.loadSeconds.toFixed(0)} s); the worker in-process with its HTTP app on loopback; ${lat.requests}
sequential \`MemoryClient.recommend\` calls for new incidents (after 20 warm-up calls), each embedding its signature,
querying both stores, fusing, ranking and writing its audit record.

| p50 | p95 | p99 | max | answered from cases | p99 of those |
| --- | --- | --- | --- | --- | --- |
| ${lat.p50.toFixed(1)} ms | ${lat.p95.toFixed(1)} ms | **${lat.p99.toFixed(1)} ms** | ${lat.max.toFixed(1)} ms | ${pct(lat.fromCases, lat.requests)} | ${lat.p99FromCases.toFixed(1)} ms |

Answers by reason: ${[...lat.reasons.entries()]
  .sort((a, b) => b[1] - a[1])
  .map(([reason, n]) => `${reason} ${n}`)
  .join(', ')}.
A \`degraded\` answer means a store call exceeded \`MEMORY_STORE_TIMEOUT_MS\` (${config.MEMORY_STORE_TIMEOUT_MS} ms) or the breaker was open: memory
then answers from the rules rather than keep the effector waiting.

qdrant-local searches exactly (no HNSW; see tools/qdrant-local/README.md), so vector search time grows with the number of
cases that pass the hard filters.
`;
writeFileSync(resolve(repoRoot(), values.out), markdown);
console.log(`\n${markdown}`);
process.exit(0);
