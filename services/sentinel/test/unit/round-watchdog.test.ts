import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { Writable } from 'node:stream';
import type { ProbeResult } from '@rag-immune/contracts';
import type { GoldenProbe, ProbeRunner } from '@rag-immune/probing';
import { Sentinel, SentinelMetrics } from '../../src/index.ts';

const probe = (id: string): GoldenProbe => ({
  id,
  version: 1,
  query: `What is the latest version of ${id}?`,
  expected_sources: [`changelog/${id}`],
  business_value: 1,
  cluster: 'head',
  created_at: '2026-11-01T00:00:00Z',
  retired_at: null,
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('a round that cannot complete is reported: error log naming the overdue probes, metric, status; cleared when results return', async () => {
  const lines: { level: number; msg: string; overdue?: string[] }[] = [];
  const logger = pino(
    { level: 'info' },
    new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    }),
  );
  let hung = true;
  const release: (() => void)[] = [];
  // Runs that never end while `hung`, as with a RAG that stopped answering and no deadline.
  const runner = {
    run: (p: GoldenProbe) =>
      hung
        ? new Promise<ProbeResult>((_resolve, reject) => release.push(() => reject(new Error(`released ${p.id}`))))
        : Promise.reject(new Error('still failing, but finishing')),
  } as unknown as ProbeRunner;
  const metrics = new SentinelMetrics();
  const probes = ['aa-1', 'bb-2', 'cc-3'].map(probe);
  const sentinel = new Sentinel(
    probes,
    runner,
    { publish: async () => undefined },
    metrics,
    {
      intervalMs: 200,
      jitter: 0,
      maxConcurrent: 1,
      roundGraceMs: 100,
    },
    logger,
  );
  sentinel.start();
  try {
    await sleep(900);
    const report = lines.find((l) => l.level === 50 && l.msg.startsWith('round incomplete'));
    assert.ok(report, `an error-level report: ${JSON.stringify(lines)}`);
    assert.deepEqual(report.overdue?.sort(), ['aa-1', 'bb-2', 'cc-3']);
    assert.equal((await metrics.overdueProbes.get()).values[0]?.value, 3);
    assert.equal((await metrics.incompleteRounds.get()).values[0]?.value, 1, 'reported once, not on every check');
    assert.ok(sentinel.probeStatus().every((s) => s.overdue === true));
    hung = false;
    for (const r of release.splice(0)) r();
    await sleep(900);
    assert.equal((await metrics.overdueProbes.get()).values[0]?.value, 0);
    assert.ok(lines.some((l) => l.msg === 'overdue probes produced results again'));
  } finally {
    for (const r of release.splice(0)) r();
    await sentinel.stop();
  }
});
