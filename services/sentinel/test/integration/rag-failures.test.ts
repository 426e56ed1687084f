import { ragClientWithHeaders } from '@rag-immune/rag-contract';
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import express from 'express';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { EventBus, busDefaults, parseBusConfig } from '@rag-immune/bus';
import { endpoints } from '@rag-immune/test-kit/stack';
import type { ProbeResult } from '@rag-immune/contracts';
import { Sentinel, SentinelMetrics } from '../../src/index.ts';
import { ProbeRunner, defaultThresholds, type GoldenProbe } from '@rag-immune/probing';

/**
 * A RAG that misbehaves on purpose: /query hangs past the sentinel's timeout on one port and
 * answers 500 on another. This is a deliberately broken HTTP server, not a stand-in for any of the
 * real servers of the stack; the published results go through the real Kafka and registry.
 */
function brokenRag(mode: 'hang' | 'error'): express.Express {
  const app = express();
  app.post('/query', (_req, res) => {
    if (mode === 'error') res.status(500).json({ error: 'generator crashed' });
    // 'hang': never answers; the sentinel's timeout must fire.
  });
  return app;
}

const bus = new EventBus(
  parseBusConfig({
    ...busDefaults('development'),
    clientId: 'sentinel-it',
    brokers: endpoints.kafkaBrokers,
    schemaRegistryUrl: endpoints.schemaRegistryUrl,
  }),
);
const servers: Server[] = [];
const exporter = new InMemorySpanExporter();
const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('test');

async function listen(app: express.Express): Promise<string> {
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

before(async () => {
  await bus.start(['probes']);
});
after(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
  await bus.stop();
});

test('a RAG that times out or answers 500 yields error-typed results with no scores, and the sentinel keeps running', async () => {
  const [hanging, failing] = await Promise.all([listen(brokenRag('hang')), listen(brokenRag('error'))]);
  const probe: GoldenProbe = {
    id: `failure-probe-${randomUUID().slice(0, 8)}`,
    version: 1,
    query: 'When was openssl 3.0.11-1 uploaded?',
    expected_sources: ['pkg/openssl'],
    business_value: 1,
    cluster: 'head',
    created_at: '2026-11-01T00:00:00Z',
    retired_at: null,
  };
  const published: ProbeResult[] = [];
  const publisher = await bus.publisher();
  const runner = new ProbeRunner({
    online: ragClientWithHeaders(hanging, {}, 300),
    baseline: ragClientWithHeaders(failing, {}, 300),
    fcs: {
      score: async () => {
        throw new Error('FCS must not be asked to score a failed call');
      },
    },
    tracer,
    thresholds: defaultThresholds,
    sourceTrust: {},
    callTimeoutMs: 300,
    callAttempts: 2,
    version: 'test',
  });
  const metrics = new SentinelMetrics();
  const sentinel = new Sentinel(
    [probe],
    runner,
    {
      publish: async (result) => {
        await publisher.publish('probes', result);
        published.push(result);
      },
    },
    metrics,
    { intervalMs: 200, jitter: 0, maxConcurrent: 2 },
  );
  sentinel.start();
  const deadline = Date.now() + 30_000;
  while (published.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  await sentinel.stop();

  assert.ok(published.length >= 3, `the sentinel kept running: ${published.length} results`);
  // The first calls time out; after two timeouts in a row the online side's circuit opens and the
  // rest of the round fails fast (issue 15: a hang must not starve the other probes).
  assert.equal(published[0]?.online.call_status, 'timeout');
  for (const result of published) {
    assert.ok(['timeout', 'circuit_open'].includes(result.online.call_status), result.online.call_status);
    assert.equal(result.online.signals, null);
    assert.equal(result.baseline.call_status, 'http_error');
    assert.equal(result.baseline.http_status, 500);
    assert.match(result.baseline.error_message ?? '', /generator crashed/);
    assert.equal(result.baseline.signals, null);
    // Both sides failing is the anomaly; once the online side's timeouts fill its window the
    // timeout-rate signal (online vs baseline) joins them. Nothing else may.
    assert.deepEqual(
      result.anomaly_signals.filter((signal) => signal !== 'timeout_rate'),
      ['online_error', 'baseline_error'],
    );
    assert.equal(result.severity, 'high');
  }
  const errors = await metrics.registry.getSingleMetricAsString('rag_immune_sentinel_probe_errors_total');
  assert.match(errors, /status="timeout"/);
  assert.match(errors, /status="http_error"/);
  const spans = exporter.getFinishedSpans().filter((s) => s.name === 'sentinel.probe.start');
  assert.ok(spans.length >= 3);
  assert.equal(spans[0]?.attributes.probe_id, probe.id);
  assert.equal(typeof spans[0]?.attributes.query_hash, 'string');
});
