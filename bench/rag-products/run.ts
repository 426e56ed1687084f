/**
 * bench/rag-products: the closed loop on a RAG nobody here wrote, as its users run it, offline (issue
 * 42 item 5). The product (--product, ./products/): Flowise 2.2.8 from npm serving a Conversational
 * Retrieval QA chatflow, or a LangServe 0.3.3 route (./langserve/app.py) serving a retrieval chain, each
 * over a Qdrant collection; their LLM and embeddings are OpenAI-compatible endpoints over the project's
 * Gemma 3 270M and all-MiniLM-L6-v2 (./llm-server.ts, ./embeddings-server.ts).
 * The platform team's side, all from outside the product: the knowledge loaded into its collection
 * (./knowledge.ts), a baseline copied from that collection by `immune baseline create` and served by a
 * second instance, and the four workers (sentinel and effector verification through the product's
 * adapter file in packages/rag-adapter/examples/; the identifier diffing the two Qdrant collections and
 * reading the product's own spans from the trace intake).
 * Then N clean probe results (anomalous share, incidents), and the faults an operator can cause from
 * outside: vectors overwritten or deleted in its collection, an unpublished version ingested into it,
 * its prompt changed where its users change it. For each: detection, cause, repair, MTTR, what was only
 * recommended. Results: bench/rag-products/RESULTS-<product>.md (written by the run) and results/.
 *
 * Usage (stack up: `npm run stack -- up`; the product installed by tools/rag-products/install-<product>.sh):
 *   flock -s /tmp/bench.lock npx tsx bench/rag-products/run.ts [--product flowise|langserve]
 *     [--packages 25 --probes 5 --interval 30 --clean-results 100 --trial-minutes 10 --max-minutes 80
 *      --faults vectors-overwritten:garbage,vectors-overwritten:deleted,unpublished-knowledge,prompt-regressed:instruct-v2]
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { pino, destination } from 'pino';
import { busConfigFromEnv } from '@rag-immune/bus';
import { loadStackConfig, repoRoot, stackEndpoints } from '@rag-immune/stack';
import { loadDebianKnowledge } from '@rag-immune/debian-knowledge';
import { SentenceEmbedder } from '@rag-immune/embeddings';
import { PROMPTS, knowledgeDocuments, type PromptVersion } from '@rag-immune/langchain-rag';
import { createElasticsearchClient, createQdrantClient } from '@rag-immune/worker-runtime';
import { ElasticsearchSpanStore, mapSpans, newProbeTraceContext, parseTraceparent, probeTraceHeaders } from '@rag-immune/traces';
import { freePort } from '@rag-immune/test-kit';
import { ImmuneSystem } from '@rag-immune/test-kit/loop/immune-system';
import { LoopRecorder } from '@rag-immune/test-kit/loop/timeline';
import { newNamespace, removeNamespace, removeSnapshots } from '@rag-immune/test-kit/loop/namespace';
import { selectLoopProbes, writeProbeFile } from '@rag-immune/test-kit/loop/probes';
import { expectationOf, type FaultPlan } from '@rag-immune/test-kit/loop/faults';
import { runTrial, type TrialContext, type TrialResult } from '@rag-immune/test-kit/loop/trial';
import { startTraceIntakeProcess } from '@rag-immune/test-kit/loop/trace-intake';
import { randomBytes } from 'node:crypto';
import { embeddingsApp } from './embeddings-server.ts';
import { startLlmServer } from './llm-server.ts';
import { loadKnowledge, reloadKnowledge } from './knowledge.ts';
import type { ProductName, RagProduct, RunningProduct } from './products/product.ts';
import { flowise } from './products/flowise.ts';
import { langserve } from './products/langserve.ts';

const PRODUCTS: Record<ProductName, RagProduct> = { flowise, langserve };

const { values } = parseArgs({
  options: {
    /** The RAG product under trial (./products/). */
    product: { type: 'string', default: 'flowise' },
    packages: { type: 'string', default: '25' },
    probes: { type: 'string', default: '5' },
    interval: { type: 'string', default: '30' },
    'clean-results': { type: 'string', default: '100' },
    'trial-minutes': { type: 'string', default: '10' },
    'max-minutes': { type: 'string', default: '80' },
    /** An absolute end (ISO time) as well: the run shortens its clean phase and skips faults to finish by then. */
    until: { type: 'string' },
    faults: {
      type: 'string',
      default: 'vectors-overwritten:garbage,vectors-overwritten:deleted,unpublished-knowledge,prompt-regressed:instruct-v2',
    },
    /** The share of the probed knowledge ids a scoped fault hits (seeded pick; 1: every probed id). */
    fraction: { type: 'string', default: '0.5' },
    'keep-namespace': { type: 'boolean', default: false },
    /** Stop after the recorded answer and its spans: checks the install, the product's setup, the adapter and its traces in a few minutes. */
    'record-only': { type: 'boolean', default: false },
  },
});
/** Thrown by --record-only after the recorded answer (declared before the top-level code that throws it). */
class RecordOnly extends Error {}
const here = dirname(fileURLToPath(import.meta.url));
const root = repoRoot();
const command = `npx tsx bench/rag-products/run.ts ${process.argv.slice(2).join(' ')}`.trim();
const deadline = Math.min(
  Date.now() + Number(values['max-minutes']) * 60_000,
  values.until === undefined ? Infinity : Date.parse(values.until),
);
if (Number.isNaN(deadline)) throw new Error(`--until ${values.until}: not an ISO time`);
const resultsFile = join(here, `RESULTS-${values.product}.md`);
const say = (line: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${line}`);

// --- the product, installed by the project's script (idempotent) ---
if (!(values.product in PRODUCTS)) throw new Error(`--product ${values.product}: one of ${Object.keys(PRODUCTS).join(', ')}`);
const product = PRODUCTS[values.product as ProductName];
product.install();
const adapterFile = product.adapterFile;

const endpoints = stackEndpoints(loadStackConfig());
const qdrant = createQdrantClient({ url: endpoints.qdrantUrl, apiKey: endpoints.qdrantApiKey });
const namespace = newNamespace(`rp-${product.name}`);
const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
const runDir = join(root, '.runs', `${stamp}-${namespace}`);
mkdirSync(runDir, { recursive: true });
const collection = `${namespace}-${product.name}-online`;
say(`run ${namespace}; logs in ${runDir}`);

let running: RunningProduct | undefined;
/** What the intake holds of the product's spans for the clean probes (null: not looked yet). */
let spans: SpansSeen | null = null;
let system: ImmuneSystem | undefined;
let recorder: LoopRecorder | undefined;
const closers: (() => Promise<unknown>)[] = [];
async function cleanUp(): Promise<void> {
  await recorder?.stop().catch(() => undefined);
  await system?.stop().catch(() => undefined);
  await running?.stop().catch(() => undefined);
  for (const close of closers.reverse()) await close().catch(() => undefined);
  if (!values['keep-namespace']) {
    await removeSnapshots(endpoints, [collection]).catch(() => undefined);
    await removeNamespace(endpoints, namespace).catch(() => undefined);
  }
}
process.on('SIGINT', () => void cleanUp().then(() => process.exit(130)));

try {
  // --- the model endpoints the product is configured with ---
  const embedder = await SentenceEmbedder.load({ intraOpNumThreads: 1 });
  const embPort = await freePort();
  const embServer = embeddingsApp(embedder).listen(embPort, '127.0.0.1');
  closers.push(async () => embServer.close());
  const llm = await startLlmServer(await freePort(), { threads: 1 });
  closers.push(async () => {
    llm.server.close();
    await llm.engine.close();
  });
  say(`embeddings http://127.0.0.1:${embPort}/v1, LLM ${llm.url} (${llm.engine.modelName})`);

  // --- the platform team's ingestion job: the Debian corpus into the product's collection ---
  const { sources } = loadDebianKnowledge({ packages: Number(values.packages) });
  const now = new Date();
  const documents = knowledgeDocuments(sources, now);
  const knowledgeIds = new Set(documents.map((d) => d.metadata.knowledge_id as string));
  const loadStarted = performance.now();
  const points = await loadKnowledge(qdrant, collection, documents, embedder);
  say(
    `${points} points in ${collection} (${knowledgeIds.size} knowledge ids) in ${((performance.now() - loadStarted) / 1000).toFixed(0)} s`,
  );

  // --- the baseline, made from the RAG's own collection by the project's CLI ---
  const baselineOut = execFileSync(
    'npx',
    ['tsx', 'apps/cli/src/main.ts', 'baseline', 'create', '--source', collection, '--reason', 'rag-products trial', '--json'],
    {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, QDRANT_URL: endpoints.qdrantUrl, QDRANT_API_KEY: endpoints.qdrantApiKey ?? '' },
    },
  );
  const baseline = JSON.parse(baselineOut) as { alias: string; collection: string; points: number };
  say(`baseline: alias ${baseline.alias} -> ${baseline.collection} (${baseline.points} points)`);
  // The adapter as an operator would deploy it: its `repair.rebuild_from` names this run's baseline alias
  // (Flowise reads its collection by name: the effector restores knowledge in place from the baseline).
  const adapterText = readFileSync(adapterFile, 'utf8');
  const runAdapterText = adapterText.replace(/^(\s+rebuild_from:).*$/m, `$1 ${baseline.alias}`);
  if (runAdapterText === adapterText) throw new Error(`${adapterFile} has no repair.rebuild_from to point at the baseline`);
  const runAdapterFile = join(runDir, `${product.name}-adapter.yaml`);
  writeFileSync(runAdapterFile, runAdapterText);

  // --- the trace intake the product exports its OpenInference spans to (with its own token) ---
  const intakeToken = randomBytes(24).toString('hex');
  const intake = await startTraceIntakeProcess({
    runDir,
    endpoints,
    namespace,
    env: {
      TRACE_INTAKE_API_TOKEN: intakeToken,
      TRACE_INTAKE_API_TOKEN_RAG: product.traceRagName,
      // Only the probes' spans matter here: no user traffic is stored.
      TRACE_INTAKE_USER_TRAFFIC: 'off',
    },
  });
  closers.push(() => intake.process.stop());
  say(`trace intake ${intake.tracesUrl}`);

  // --- the product, online on its collection and a second instance on the baseline copy ---
  running = await product.start({
    runDir,
    namespace,
    qdrantUrl: endpoints.qdrantUrl,
    qdrantApiKey: endpoints.qdrantApiKey,
    onlineCollection: collection,
    baselineAlias: baseline.alias,
    baselineCollection: baseline.collection,
    embeddingsBaseUrl: `http://127.0.0.1:${embPort}/v1`,
    llmBaseUrl: llm.url,
    llmModel: llm.engine.modelName,
    tracesUrl: intake.tracesUrl,
    intakeToken,
  });
  const { onlineUrl, baselineUrl } = running;
  say(`${product.name} up after ${running.startSeconds.toFixed(0)} s: online ${onlineUrl}, baseline ${baselineUrl}`);

  // --- one real answer, recorded (the adapter's fixture is taken from it) ---
  const probes = selectLoopProbes(knowledgeIds, Number(values.probes), 'rpf');
  const first = probes.probes[0]!;
  const recordedStarted = performance.now();
  // Sent as a probe is (traceparent + the probe mark): its spans should reach the intake under this trace.
  const recordedTrace = newProbeTraceContext();
  const recorded = await fetch(running.askUrl.online, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...probeTraceHeaders(recordedTrace) },
    body: JSON.stringify(running.requestBody(first.query)),
    signal: AbortSignal.timeout(300_000),
  });
  const recordedBody = await recorded.text();
  const firstAnswerSeconds = (performance.now() - recordedStarted) / 1000;
  mkdirSync(join(here, 'results'), { recursive: true });
  writeFileSync(join(here, 'results', `${product.name}-prediction.json`), recordedBody);
  if (!recorded.ok) throw new Error(`${product.name} answered ${recorded.status}: ${recordedBody.slice(0, 1000)}`);
  say(`first answer in ${firstAnswerSeconds.toFixed(1)} s: ${recordedBody.slice(0, 300)}`);
  await new Promise((resolve) => setTimeout(resolve, 5000)); // the exporters batch for a second
  spans = await recordProductSpans([recordedTrace.traceparent], true);
  say(`the recorded answer's spans in the intake: ${JSON.stringify(spans)}`);
  if (values['record-only']) {
    // The baseline instance too (it reads the copy `immune baseline create` made): one plain question.
    const answer = await fetch(running.askUrl.baseline, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(running.requestBody(first.query)),
      signal: AbortSignal.timeout(300_000),
    });
    say(`the baseline instance answered ${answer.status}: ${(await answer.text()).slice(0, 200)}`);
    if (!answer.ok) throw new Error(`the baseline ${product.name} instance answered ${answer.status}`);
    throw new RecordOnly();
  }

  // --- the immune system, pointed at the two instances through the adapter file ---
  const probesFile = join(runDir, 'probes.jsonl');
  writeProbeFile(probesFile, probes.probes);
  const interval = Number(values.interval);
  system = new ImmuneSystem({
    runDir,
    endpoints,
    namespace,
    onlineUrl,
    baselineUrl,
    onlineCollection: collection,
    probesFile,
    probeIntervalSeconds: interval,
    effectorMode: 'auto',
    env: {
      sentinel: {
        SENTINEL_RAG_ADAPTER_FILE: runAdapterFile,
        SENTINEL_MAX_CONCURRENT: '1',
        SENTINEL_CALL_TIMEOUT_MS: '180000',
      },
      identifier: {
        IDENTIFIER_QDRANT_URL: endpoints.qdrantUrl,
        ...(endpoints.qdrantApiKey ? { IDENTIFIER_QDRANT_API_KEY: endpoints.qdrantApiKey } : {}),
        IDENTIFIER_ONLINE_COLLECTION: collection,
        IDENTIFIER_BASELINE_COLLECTION: baseline.alias,
        IDENTIFIER_INDEX_PAYLOAD_LAYOUT: 'metadata',
        IDENTIFIER_BASELINE_PINNED_AS_OF: now.toISOString(),
        IDENTIFIER_MAX_WAIT_SECONDS: String(Math.max(60, interval * 3)),
        // A product serves no GET /traces/{id}: its spans are in the intake, under the probe's traceparent.
        IDENTIFIER_TRACE_SOURCE: 'intake',
        IDENTIFIER_INTAKE_WAIT_MS: '30000',
      },
      effector: {
        EFFECTOR_RAG_ADAPTER_FILE: runAdapterFile,
        EFFECTOR_VERIFY_CONCURRENCY: '1',
        EFFECTOR_VERIFY_TIMEOUT_MS: '600000',
      },
    },
  });
  const harnessLog = pino({ level: 'info' }, destination({ dest: join(runDir, 'harness.log'), sync: false }));
  recorder = new LoopRecorder(busConfigFromEnv({ ...system.commonEnv() }, 'loop-recorder'), () => system!.processes(), harnessLog);
  await recorder.start();
  await system.start();
  say(`workers up: sentinel (${probes.probes.length} probes every ${interval} s), identifier, effector (auto), memory`);

  // --- clean phase ---
  const wantedClean = Number(values['clean-results']);
  const cleanStarted = Date.now();
  const trialBudgetMs = Number(values['trial-minutes']) * 60_000;
  const faults = values.faults.split(',').filter((f) => f !== '');
  // Keep time for the faults: the clean phase stops early rather than eat their budget.
  const cleanDeadline = Math.max(Date.now() + 5 * 60_000, deadline - faults.length * trialBudgetMs);
  let lastReport = 0;
  while (recorder.probes.length < wantedClean && Date.now() < cleanDeadline) {
    await new Promise((resolve) => setTimeout(resolve, 2000));
    if (recorder.probes.length >= lastReport + 5) {
      lastReport = recorder.probes.length;
      say(`clean: ${recorder.probes.length} results, ${recorder.probes.filter((p) => p.event.anomaly).length} anomalous`);
    }
  }
  const clean = {
    results: recorder.probes.length,
    anomalous: recorder.probes.filter((p) => p.event.anomaly).length,
    signals: recorder.probes.filter((p) => p.event.anomaly).flatMap((p) => p.event.anomaly_signals),
    reports: recorder.reports.length,
    incidents: new Set(recorder.reports.map((r) => r.event.incident_id)).size,
    actions: recorder.actions.length,
    minutes: (Date.now() - cleanStarted) / 60_000,
  };
  say(`clean phase: ${JSON.stringify(clean)}`);
  const capabilities = await sentinelCapabilities(system);
  spans = await recordProductSpans(
    recorder.probes.map((p) => p.event.online.traceparent),
    false,
  );
  say(`${product.name}'s spans in the intake: ${JSON.stringify(spans)}`);

  // --- faults from outside, one at a time; the collection and prompt restored between them ---
  const ctx: TrialContext = {
    onlineUrl,
    recorder,
    probes,
    probeIntervalMs: interval * 1000,
    onlineIndex: {
      qdrantUrl: endpoints.qdrantUrl,
      qdrantApiKey: endpoints.qdrantApiKey,
      collection,
      metadataPayloadKey: 'metadata',
      contentPayloadKey: 'content',
    },
    // A prompt change is made where the product's users make it (Flowise: the chatflow saved; LangServe: a redeploy).
    redeployOnline: async (env) => {
      const version = env.LLM_PROMPT_VERSION as PromptVersion | undefined;
      if (version === undefined || !(version in PROMPTS)) throw new Error(`no prompt version in ${JSON.stringify(env)}`);
      await running!.setOnlinePrompt(version);
    },
    faultEffectCheck: 'off',
  };
  const trials: TrialResult[] = [];
  const write = () =>
    writeResults({
      clean,
      trials,
      capabilities,
      points,
      running: running!,
      firstAnswerSeconds,
      recordedBody,
      probeCount: probes.probes.length,
      spans,
    });
  // Written after the clean phase and after every fault: a run cut short still leaves its figures.
  write();
  for (const fault of faults) {
    if (Date.now() + Math.min(trialBudgetMs, 5 * 60_000) > deadline) {
      say(`out of time before ${fault}`);
      break;
    }
    const [kind, mode] = fault.split(':') as [string, string | undefined];
    const fraction = Number(values.fraction);
    if (!(fraction > 0 && fraction <= 1)) throw new Error(`--fraction ${values.fraction}: a share in (0, 1]`);
    const plan: FaultPlan = { kind, ...(mode ? { mode } : {}), fraction, seed: 'rp' };
    say(`fault ${fault}...`);
    const trial = await runTrial(ctx, plan, {
      timeoutMs: Math.min(trialBudgetMs, deadline - Date.now() - 30_000),
      onStep: (step) => say(`  ${step.worker}: ${step.what}`),
    });
    trials.push(trial);
    write();
    say(`fault ${fault}: ${trial.outcome}, report ${trial.finalReport?.root_cause ?? '-'}`);
    // Put the RAG back as the platform team would (fresh collection from the corpus, original prompt),
    // so that the next fault starts from a healthy RAG whatever this one's outcome.
    await running.setOnlinePrompt('few-shot-v1');
    await reloadKnowledge(qdrant, collection, documents, embedder);
    // The next fault starts once every incident so far is closed (an escalated one stays open until
    // clean rounds): else its anomalies join the previous incident and it gets no report of its own.
    await incidentsClosed(recorder, Math.min(5 * 60_000, Math.max(0, deadline - Date.now() - 60_000)));
  }

  write();
  say(`results in ${resultsFile}`);
} catch (error) {
  if (error instanceof RecordOnly) say('--record-only: stopping after the recorded answer');
  else say(`failed: ${(error as Error).stack ?? String(error)}`);
  if (!(error instanceof RecordOnly)) process.exitCode = 1;
} finally {
  await cleanUp();
}

interface SpansSeen {
  /** Clean probe calls (online side) whose trace the intake holds spans of. */
  tracesWithSpans: number;
  tracesLookedAt: number;
  spansPerTrace: number[];
  /** What the intake's mappers made of the first such trace: a contract Trace, or the gaps that kept it from one. */
  mapped: { trace: boolean; gaps: string[]; observedDocuments: number } | null;
}

/**
 * Looks the clean probes' online calls up in the intake (by the traceparent the sentinel sent) and
 * (`fixture`: the recorded answer's call) writes that trace's spans to results/<product>-spans.json,
 * beside its answer in results/<product>-prediction.json: packages/traces/test/unit/<product>-spans.test.ts's fixture.
 */
async function recordProductSpans(traceparents: (string | null)[], fixture: boolean): Promise<SpansSeen> {
  const store = new ElasticsearchSpanStore(createElasticsearchClient({ url: endpoints.elasticsearchUrl }), namespace);
  const ids = traceparents.flatMap((t) => {
    const parsed = parseTraceparent(t);
    return parsed === null ? [] : [parsed.trace_id];
  });
  const seen: SpansSeen = { tracesWithSpans: 0, tracesLookedAt: ids.length, spansPerTrace: [], mapped: null };
  for (const id of ids) {
    const found = await store.spansOf(id).catch(() => []);
    if (found.length === 0) continue;
    seen.tracesWithSpans += 1;
    seen.spansPerTrace.push(found.length);
    if (seen.mapped === null) {
      if (fixture) writeFileSync(join(here, 'results', `${product.name}-spans.json`), JSON.stringify(found, null, 2) + '\n');
      const mapped = mapSpans(id, found);
      seen.mapped = {
        trace: mapped?.trace != null,
        gaps: mapped?.gaps.map((g) => g.piece) ?? ['no mapper claimed the spans'],
        observedDocuments: mapped?.observed?.retrieved.length ?? 0,
      };
    }
  }
  return seen;
}

/** Waits for the identifier's "closed" [HEALING] line of every incident seen so far; false on timeout. */
async function incidentsClosed(rec: LoopRecorder, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    rec.pollLogs();
    const closed = new Set(
      rec.healing.filter((h) => h.worker.startsWith('identifier') && /closed/.test(h.message)).map((h) => h.incidentId),
    );
    if (rec.reports.every((r) => closed.has(r.event.incident_id))) return true;
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

async function sentinelCapabilities(immune: ImmuneSystem): Promise<unknown> {
  const sentinel = immune.instances.find((w) => w.kind === 'sentinel');
  if (sentinel === undefined) return null;
  const token = sentinel.process.spec.env.SENTINEL_API_TOKEN;
  const response = await fetch(`${sentinel.url}/capabilities`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  }).catch(() => undefined);
  return response?.ok ? ((await response.json()) as unknown) : `GET /capabilities: ${response?.status ?? 'unreachable'}`;
}

interface Summary {
  clean: { results: number; anomalous: number; signals: string[]; reports: number; incidents: number; actions: number; minutes: number };
  trials: TrialResult[];
  capabilities: unknown;
  points: number;
  running: RunningProduct;
  firstAnswerSeconds: number;
  recordedBody: string;
  probeCount: number;
  spans: SpansSeen | null;
}

function writeResults(s: Summary): void {
  const seconds = (trial: TrialResult, at?: number) => (at === undefined ? '—' : `${((at - trial.injectedAt) / 1000).toFixed(0)} s`);
  const adapterLines = readFileSync(adapterFile, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.trim().startsWith('#')).length;
  const rows = s.trials.map((t) => {
    const expected = expectationOf(t.plan.kind);
    const actions = t.actions.map((a) => `${a.tool} (${a.statuses.join('→')})`).join('; ') || '—';
    // The effector's "waits for a human grant" lines: the RepairAction topic has no waiting status.
    const recommended = t.awaitingGrant.map((a) => `${a.tool} (a grant asked at ${seconds(t, a.at)})`);
    return (
      `| ${t.plan.kind}${t.plan.mode ? `:${t.plan.mode}` : ''} | ${t.affectedKnowledgeIds?.join(', ') ?? 'global'} | ${seconds(t, t.detectedAt)} ` +
      `| ${t.finalReport ? `${t.finalReport.root_cause} / ${t.finalReport.affected_component} (${t.finalReport.confidence.toFixed(2)})` : '—'} ` +
      `| ${expected.cause ?? 'unknown'} | ${actions} | ${t.verifiedIntent ?? '—'} | ${seconds(t, t.sentinelRecoveredAt ?? t.verifiedAt)} ` +
      `| ${recommended.join(', ') || (t.escalated ? 'escalated to a human' : '—')} | ${t.outcome} |`
    );
  });
  const md = [
    `# bench/rag-products — the loop on ${product.name === 'flowise' ? 'Flowise' : 'a LangServe route'}, a RAG nobody here wrote`,
    '',
    `Written by the run (${new Date().toISOString()}). Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ` +
      `${(totalmem() / 2 ** 30).toFixed(0)} GiB, load average at the end ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' / ')} (shared with other sessions).`,
    '',
    `Command: \`${command}\` (under flock -s /tmp/bench.lock)`,
    '',
    '## The RAG',
    '',
    ...product.describe(s.running),
    `- Knowledge: ${s.points} points of the fixed Debian corpus (${values.packages} packages) in its collection, LangChain's \`content\`/\`metadata\` layout.`,
    '- Models: Gemma 3 270M Q4_K_M behind an OpenAI-compatible chat endpoint (bench/rag-products/llm-server.ts, temperature 0),',
    '  all-MiniLM-L6-v2 behind an OpenAI-compatible embeddings endpoint (base64 answers).',
    `- First answer through ${product.name}: ${s.firstAnswerSeconds.toFixed(1)} s. Recorded response: results/${product.name}-prediction.json.`,
    `- Adapter: packages/rag-adapter/examples/${basename(adapterFile)}, ${adapterLines} lines without comments.`,
    '',
    '## Signals the sentinel can compute for it (GET /capabilities)',
    '',
    '```json',
    JSON.stringify(s.capabilities, null, 2),
    '```',
    '',
    `## ${product.name}'s traces in the intake`,
    '',
    s.spans === null
      ? 'Not looked up (the run ended before the clean phase did).'
      : `Clean probe calls (online side) whose trace the intake holds: ${s.spans.tracesWithSpans} of ${s.spans.tracesLookedAt}; ` +
        `spans per trace: ${s.spans.spansPerTrace.join(', ') || '—'}. ` +
        (s.spans.mapped === null
          ? 'No trace to map.'
          : `The first mapped (results/${product.name}-spans.json): contract trace ${s.spans.mapped.trace ? 'made' : 'not made'}, ` +
            `${s.spans.mapped.observedDocuments} documents observed, gaps: ${s.spans.mapped.gaps.join(', ') || 'none'}.`),
    '',
    '## Clean phase',
    '',
    `| probe results | anomalous | share | signals | incidents | repair actions | minutes |`,
    `| --- | --- | --- | --- | --- | --- | --- |`,
    `| ${s.clean.results} | ${s.clean.anomalous} | ${s.clean.results === 0 ? '—' : ((100 * s.clean.anomalous) / s.clean.results).toFixed(1) + ' %'} ` +
      `| ${[...new Set(s.clean.signals)].join(', ') || '—'} | ${s.clean.incidents} | ${s.clean.actions} | ${s.clean.minutes.toFixed(1)} |`,
    '',
    `Probes: ${s.probeCount}, each every ${values.interval} s (one probe at a time: both instances generate on one CPU thread).`,
    '',
    '## Faults from outside',
    '',
    "| fault | knowledge hit | detected | report (cause / component, confidence) | expected cause | repair actions | verified repair | MTTR (to the sentinel's clean round, else verification) | only recommended | outcome |",
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    `Faults asked for: ${values.faults}; not run (out of time): ${
      values.faults
        .split(',')
        .filter((f) => f !== '')
        .slice(s.trials.length)
        .join(', ') || 'none'
    }.`,
    '',
    'Times count from the moment the fault was in place. Between faults the collection was reloaded from the corpus and the',
    'online instance given its original prompt back.',
    '',
  ].join('\n');
  writeFileSync(resultsFile, md);
  writeFileSync(
    join(here, 'results', `latest-${product.name}.json`),
    JSON.stringify({ clean: s.clean, capabilities: s.capabilities, trials: s.trials, command }, null, 2),
  );
}
