/**
 * Issue 15, item 2: a hang. The online reference RAG runs in its own process and is stopped with
 * SIGSTOP: its socket still accepts connections, nothing answers. Before, every probe that timed out
 * held a concurrency slot for attempts x timeout, the rest of the round produced no result at all,
 * and latency was not a signal. Now each probe has a deadline, the online side's circuit opens after
 * repeated timeouts so the rest of the round fails fast, every probe reports within one interval
 * plus one deadline (online_error with timeout_rate), and the round is clean again after SIGCONT.
 */
import { ragClientWithHeaders } from '@rag-immune/rag-contract';
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { trace } from '@opentelemetry/api';
import { EventBus, busDefaults, parseBusConfig } from '@rag-immune/bus';
import { FactConsistencyScorer } from '@rag-immune/fcs';
import { qdrantEnv } from '@rag-immune/stack';
import { sleep } from '@rag-immune/test-kit';
import { endpoints } from '@rag-immune/test-kit/stack';
import type { ProbeResult } from '@rag-immune/contracts';
import { loadQuestions } from '@rag-immune/reference-rag/testing';
import { Sentinel, SentinelMetrics } from '../../src/index.ts';
import { ProbeRunner, defaultThresholds, probesFromQuestions } from '@rag-immune/probing';

const PACKAGES = 12;
const INTERVAL_MS = 4000;
const JITTER = 0.1;
const CALL_TIMEOUT_MS = 3000;
/** One side of a probe, retries included. */
const DEADLINE_MS = 4500;
const MAX_CONCURRENT = 4;
const run = randomUUID().slice(0, 8);
const logger = pino({ level: 'warn' });
const ragMain = fileURLToPath(new URL('../../../reference-rag/src/main.ts', import.meta.url));
const children: ChildProcess[] = [];
const collections: string[] = [];
const results: { at: number; result: ProbeResult }[] = [];
let bus: EventBus;
let sentinel: Sentinel;
let online: ChildProcess;

/** Starts one reference RAG in a child process and resolves with its URL once it listens. */
async function startRag(instance: 'online' | 'baseline'): Promise<{ child: ChildProcess; url: string }> {
  const collection = `it-hang-${instance}-${run}`;
  collections.push(collection);
  const child = spawn(process.execPath, ['--import', 'tsx', ragMain], {
    env: {
      ...process.env,
      INSTANCE: instance,
      ...qdrantEnv(endpoints),
      QDRANT_COLLECTION: collection,
      PORT: '0',
      KNOWLEDGE_PACKAGES: String(PACKAGES),
      LOG_LEVEL: 'info',
      ...(instance === 'baseline' ? { PINNED_AS_OF: new Date().toISOString() } : {}),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${instance} RAG did not start in 180 s`)), 180_000);
    child.once('exit', (code) => reject(new Error(`${instance} RAG exited with ${code}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      try {
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === 'reference RAG listening' && entry.url) {
          clearTimeout(timer);
          resolve(entry.url);
        }
      } catch {
        // not a log line
      }
    });
  });
  return { child, url };
}

/** The last result of every probe finished in (from, to]; null when some probe has none. */
function roundBetween(from: number, to: number, count: number): ProbeResult[] | null {
  const latest = new Map<string, ProbeResult>();
  for (const { at, result } of results) if (at > from && at <= to) latest.set(result.probe_id, result);
  return latest.size === count ? [...latest.values()] : null;
}

async function waitForRound(from: number, count: number, timeoutMs: number): Promise<ProbeResult[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const round = roundBetween(from, Date.now(), count);
    if (round) return round;
    if (Date.now() > deadline) throw new Error(`no full round after ${new Date(from).toISOString()} within ${timeoutMs} ms`);
    await sleep(100);
  }
}

const describe = (r: ProbeResult) =>
  `${r.probe_id}: ${r.anomaly_signals.join(',')} ${r.online.call_status} ${Math.round(r.online.latency_ms)} ms`;

let probeCount = 0;

before(async () => {
  const [onlineRag, baselineRag] = await Promise.all([startRag('online'), startRag('baseline')]);
  online = onlineRag.child;
  const ids = new Set(loadQuestions().map((q) => q.knowledge_id));
  const questions = loadQuestions()
    .filter((q) => ids.has(q.knowledge_id) && q.expected !== null)
    .filter((_, i) => i % 3 === 0)
    .slice(0, 10);
  const probes = probesFromQuestions(questions, 'hang');
  probeCount = probes.length;
  bus = new EventBus(
    parseBusConfig({
      ...busDefaults('development'),
      clientId: `sentinel-hang-${run}`,
      brokers: endpoints.kafkaBrokers,
      schemaRegistryUrl: endpoints.schemaRegistryUrl,
      topicPrefix: `it-hang-${run}.`,
    }),
  );
  await bus.start(['probes']);
  const publisher = await bus.publisher();
  const runner = new ProbeRunner({
    online: ragClientWithHeaders(onlineRag.url, {}, CALL_TIMEOUT_MS),
    baseline: ragClientWithHeaders(baselineRag.url, {}, CALL_TIMEOUT_MS),
    fcs: await FactConsistencyScorer.load({ intraOpNumThreads: 1 }),
    tracer: trace.getTracer('online-hang'),
    thresholds: defaultThresholds,
    sourceTrust: {},
    callTimeoutMs: CALL_TIMEOUT_MS,
    callAttempts: 2,
    probeDeadlineMs: DEADLINE_MS,
    version: 'test',
  });
  sentinel = new Sentinel(
    probes,
    runner,
    {
      publish: async (result) => {
        await publisher.publish('probes', result);
        results.push({ at: Date.now(), result });
      },
    },
    new SentinelMetrics(),
    { intervalMs: INTERVAL_MS, jitter: JITTER, maxConcurrent: MAX_CONCURRENT, roundGraceMs: 2 * DEADLINE_MS },
    logger,
  );
  sentinel.start();
});

after(async () => {
  await sentinel?.stop();
  await bus?.stop();
  for (const child of children) {
    child.kill('SIGCONT');
    child.kill('SIGKILL');
  }
  for (const collection of collections)
    await fetch(`${endpoints.qdrantUrl}/collections/${collection}`, {
      method: 'DELETE',
      headers: endpoints.qdrantApiKey ? { 'api-key': endpoints.qdrantApiKey } : {},
    }).catch(() => undefined);
});

test('SIGSTOP on the online RAG: every probe reports within one interval plus a deadline, with timeout signals; SIGCONT clears it', async () => {
  const clean = await waitForRound(Date.now(), probeCount, INTERVAL_MS * 3 + 60_000);
  assert.deepEqual(clean.filter((r) => r.anomaly).map(describe), [], 'a clean round first');

  online.kill('SIGSTOP');
  const stoppedAt = Date.now();
  let hung: ProbeResult[];
  try {
    // A probe in flight at the stop ends by its deadline, waits at most one interval, and its next
    // run ends by another deadline at the latest (its circuit may already be open).
    const bound = DEADLINE_MS + INTERVAL_MS * (1 + JITTER) + DEADLINE_MS + 1500;
    await sleep(bound);
    const within = roundBetween(stoppedAt + DEADLINE_MS, stoppedAt + bound, probeCount);
    const reported = new Set(results.filter(({ at }) => at > stoppedAt && at <= stoppedAt + bound).map(({ result }) => result.probe_id));
    assert.ok(within, `every probe reported within ${bound} ms of the stop: ${reported.size}/${probeCount}`);
    hung = within;
    for (const r of hung) {
      assert.ok(['timeout', 'circuit_open'].includes(r.online.call_status), `online call timed out or was cut: ${describe(r)}`);
      assert.ok(r.anomaly_signals.includes('online_error'), describe(r));
      assert.equal(r.baseline.call_status, 'ok', `the baseline still answers: ${describe(r)}`);
      assert.ok(r.online.latency_ms <= DEADLINE_MS + 1000, `the deadline held: ${describe(r)}`);
    }
    assert.ok(
      hung.some((r) => r.anomaly_signals.includes('timeout_rate')),
      `timeout_rate raised: ${hung.map(describe).join('; ')}`,
    );
    assert.ok(
      hung.some((r) => r.online.call_status === 'circuit_open'),
      'the open circuit let the rest of the round fail fast',
    );
  } finally {
    online.kill('SIGCONT');
  }
  const resumedAt = Date.now();
  // After the circuit half-opens (one call timeout) a whole round is clean again.
  const recovered = await waitForRound(resumedAt + CALL_TIMEOUT_MS + DEADLINE_MS, probeCount, INTERVAL_MS * 4 + 30_000);
  assert.deepEqual(recovered.filter((r) => r.anomaly).map(describe), [], 'clean again after SIGCONT');
});
