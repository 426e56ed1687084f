/**
 * The processed-event store shared in Elasticsearch: claims are exclusive across replicas, expire
 * with their lease, and retention purges old entries; two replicas of one consumer group, with a
 * replica joining mid-stream (rebalance) and one dying after handling but before committing
 * (its partitions re-read by the other), handle every event exactly once.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@elastic/elasticsearch';
import { pino } from 'pino';
import { exampleProbeResult } from '@rag-immune/contracts';
import { loadStackConfig, stackEndpoints } from '@rag-immune/stack';
import { ElasticsearchProcessedEventStore, EventBus, EventClaimedElsewhereError, parseBusConfig } from '../../src/index.ts';
import { sleep } from '@rag-immune/test-kit';
import { stackBusConfig, uniqueGroup } from '@rag-immune/test-kit/bus';

const fixture = fileURLToPath(new URL('./fixtures/replica-consumer.ts', import.meta.url));
const run = randomUUID().slice(0, 8);
const indexPrefix = `it-processed-${run}`;
const topicPrefix = `it-processed-${run}.`;
const es = new Client({ node: stackEndpoints(loadStackConfig()).elasticsearchUrl });
const children: ChildProcess[] = [];
const stores: ElasticsearchProcessedEventStore[] = [];

after(async () => {
  for (const child of children) child.kill('SIGKILL');
  for (const store of stores) store.close();
  await es.indices.delete({ index: `${indexPrefix}-*`, allow_no_indices: true }).catch(() => undefined);
  const bus = new EventBus(stackBusConfig());
  const admin = bus.kafka.admin();
  await admin.connect();
  const topics = (await admin.listTopics()).filter((topic) => topic.startsWith(topicPrefix));
  if (topics.length > 0) await admin.deleteTopics({ topics });
  await admin.disconnect();
  await es.close();
});

const open = async (group: string, options: { leaseMs?: number; retentionMs?: number } = {}) => {
  const store = await ElasticsearchProcessedEventStore.open({
    client: es,
    consumerGroup: group,
    indexPrefix,
    purgeIntervalMs: 0,
    ...options,
  });
  stores.push(store);
  return store;
};

test('a claim is exclusive across replicas until marked or expired; groups are separate; retention purges', async () => {
  const group = uniqueGroup('claims');
  const [a, b, otherGroup] = [await open(group), await open(group, { leaseMs: 60_000 }), await open(`${group}-other`)];
  const id = randomUUID();
  assert.equal(await a.claim(id), 'claimed');
  await assert.rejects(b.claim(id), EventClaimedElsewhereError);
  await assert.rejects(
    a.claim(id),
    EventClaimedElsewhereError,
    'a live claim holds against its own replica too (one event on two partitions)',
  );
  assert.equal(await otherGroup.claim(id), 'claimed', 'another group handles the event independently');
  assert.equal(await b.has(id), false);
  await a.markProcessed(id);
  assert.equal(await b.has(id), true);
  assert.equal(await b.claim(id), 'processed');

  // A dead replica's claim expires with its lease and is taken over.
  const short = await open(group, { leaseMs: 1500 });
  const orphan = randomUUID();
  assert.equal(await short.claim(orphan), 'claimed');
  await assert.rejects(b.claim(orphan), EventClaimedElsewhereError);
  await sleep(1600);
  assert.equal(await b.claim(orphan), 'claimed');
  // A failed handler gives its claim back at once.
  await b.release(orphan);
  assert.equal(await a.claim(orphan), 'claimed');

  await otherGroup.markProcessed(id);
  const purging = await open(group, { retentionMs: 60_000 });
  assert.ok((await purging.purgeExpired(Date.now() + 120_000)) >= 2, 'entries past retention are purged');
  assert.equal(await b.has(id), false);
  assert.equal(await otherGroup.has(id), true, "another group's entries are not purged by this group");
});

test(
  'two replicas, one joining mid-stream and one dying before its commit: every event handled exactly once',
  { timeout: 180_000 },
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'replicas-'));
    const group = uniqueGroup('replicas');
    const runId = `replicas-${run}`;
    const start = (name: string, crashAfter: number) => {
      const logPath = join(dir, `${name}.log`);
      const child = spawn(process.execPath, ['--import', 'tsx', fixture, group, logPath, runId, indexPrefix, topicPrefix], {
        env: { ...process.env, CRASH_AFTER: String(crashAfter) },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      children.push(child);
      return { child, logPath };
    };
    const lines = async (path: string) => (await readFile(path, 'utf8').catch(() => '')).split('\n').filter(Boolean);
    const waitFor = async (what: () => Promise<boolean>, label: string, timeoutMs = 90_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!(await what())) {
        assert.ok(Date.now() < deadline, `timed out waiting for ${label}`);
        await sleep(200);
      }
    };

    const TOTAL = 400;
    const CRASH_AFTER = 150;
    const a = start('a', CRASH_AFTER);
    await waitFor(async () => (await lines(a.logPath)).includes('ready'), 'replica a');
    const base = stackBusConfig();
    const bus = new EventBus(
      parseBusConfig({ ...base, topicPrefix, topics: { ...base.topics, probes: { ...base.topics.probes, partitions: 4 } } }),
    );
    await bus.start(['probes']);
    const publisher = await bus.publisher();
    const events = Array.from({ length: TOTAL }, (_, i) => exampleProbeResult(`${runId}-${i}`));
    let b: ReturnType<typeof start> | undefined;
    for (const [i, event] of events.entries()) {
      await publisher.publish('probes', event);
      // The second replica joins mid-stream: a rebalance while the first is handling.
      if (i === 60) b = start('b', 0);
      await sleep(8);
    }
    await bus.stop();

    const handled = async () => [...(await lines(a.logPath)), ...(await lines(b!.logPath))].filter((l) => l.startsWith('handled '));
    await waitFor(async () => new Set(await handled()).size >= TOTAL, `all ${TOTAL} events handled`, 120_000);
    await sleep(2000); // let any stray second handling surface
    const counts = new Map<string, number>();
    for (const line of await handled()) counts.set(line.slice(8), (counts.get(line.slice(8)) ?? 0) + 1);
    const twice = [...counts].filter(([, n]) => n > 1);
    assert.deepEqual(twice, [], 'no event handled twice');
    assert.deepEqual(new Set(counts.keys()), new Set(events.map((e) => e.event_id)));
    const aLines = await lines(a.logPath);
    const bLines = await lines(b!.logPath);
    assert.ok(aLines.includes('crash'), 'replica a died after handling, before committing');
    assert.ok(
      bLines.some((l) => l.startsWith('duplicate ')),
      'replica b re-read what a had handled but not committed, and skipped it through the shared store',
    );
    assert.ok(bLines.filter((l) => l.startsWith('handled ')).length > 0 && aLines.filter((l) => l.startsWith('handled ')).length > 0);
  },
);

// A redelivered event whose holder died waits for the holder's lease, heartbeating, and is then taken
// over: before, each claim refusal failed the message into kafkajs' retry-and-restart loop
// ('handler retries exhausted'), which held the partition far past the lease.
test("an event a dead replica claimed is taken over when the claim's lease ends, without failing the message", async () => {
  const group = uniqueGroup('takeover');
  const event = exampleProbeResult(`takeover-${run}`);
  const dead = await open(group, { leaseMs: 4000 });
  assert.equal(await dead.claim(event.event_id), 'claimed');
  const claimedAt = Date.now();

  const lines: string[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
  const base = stackBusConfig();
  const bus = new EventBus(parseBusConfig({ ...base, topicPrefix }), logger);
  await bus.start(['probes']);
  let handledAt: number | undefined;
  try {
    await bus.subscribe({
      topic: 'probes',
      groupId: group,
      fromBeginning: true,
      processedEvents: await open(group),
      handle: async (received) => {
        if (received.event_id === event.event_id) handledAt = Date.now();
      },
    });
    await (await bus.publisher()).publish('probes', event);
    for (const deadline = Date.now() + 60_000; handledAt === undefined && Date.now() < deadline;) await sleep(200);
  } finally {
    await bus.stop();
  }
  assert.ok(handledAt !== undefined, 'the event was handled');
  assert.ok(handledAt - claimedAt >= 4000, 'not before the dead claim expired');
  assert.ok(lines.some((l) => l.includes('event claimed by another replica; waiting')));
  assert.deepEqual(
    lines.filter((l) => l.includes('handler retries exhausted')),
    [],
    'the message was not failed into a consumer restart',
  );
});
