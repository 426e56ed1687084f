import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exampleProbeResult } from '@rag-immune/contracts';
import { EventBus } from '../../src/index.ts';
import { sleep } from '@rag-immune/test-kit';
import { stackBusConfig, uniqueGroup } from '@rag-immune/test-kit/bus';

const fixture = fileURLToPath(new URL('./fixtures/crashing-consumer.ts', import.meta.url));
const bus = new EventBus(stackBusConfig());
const children: ChildProcess[] = [];

before(async () => {
  await bus.start(['probes']);
});
after(async () => {
  for (const child of children) child.kill('SIGKILL');
  await bus.stop();
});

function startConsumer(
  mode: string,
  groupId: string,
  processedPath: string,
  logPath: string,
  runId: string,
  fromBeginning = true,
): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', fixture, groupId, processedPath, logPath, runId], {
    env: { ...process.env, MODE: mode, FROM_BEGINNING: String(fromBeginning) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  return child;
}

async function logLines(path: string): Promise<string[]> {
  const text = await readFile(path, 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean);
}

async function waitForLine(path: string, line: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if ((await logLines(path)).includes(line)) return;
    await sleep(200);
  }
  throw new Error(`"${line}" not logged within ${timeoutMs} ms; log: ${(await logLines(path)).join(' | ')}`);
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));
}

test('a consumer killed mid-handling loses nothing: the event is handled by its successor, once', async () => {
  const run = `crash-mid-${randomUUID()}`;
  const dir = await mkdtemp(join(tmpdir(), 'bus-crash-'));
  const [logPath, processedPath, group] = [join(dir, 'log'), join(dir, 'processed'), uniqueGroup('crash-mid')];
  await (await bus.publisher()).publish('probes', exampleProbeResult(`${run}-a`));

  const doomed = startConsumer('hang', group, processedPath, logPath, run);
  await waitForLine(logPath, `start ${run}-a`);
  doomed.kill('SIGKILL');
  await exited(doomed);

  const successor = startConsumer('normal', group, processedPath, logPath, run);
  await waitForLine(logPath, `done ${run}-a`, 90_000);
  successor.kill('SIGTERM');
  await exited(successor);
  const lines = await logLines(logPath);
  assert.equal(lines.filter((l) => l === `done ${run}-a`).length, 1);
  assert.equal(lines.filter((l) => l === `start ${run}-a`).length, 2, 'the killed handler started once, the successor once');
});

test('a consumer killed after handling but before committing: the redelivery is recognised and not handled twice', async () => {
  const run = `crash-commit-${randomUUID()}`;
  const dir = await mkdtemp(join(tmpdir(), 'bus-crash-'));
  const [logPath, processedPath, group] = [join(dir, 'log'), join(dir, 'processed'), uniqueGroup('crash-commit')];
  const first = exampleProbeResult(`${run}-p`);
  const marker = exampleProbeResult(`${run}-p`); // same key, so same partition, after `first`
  const publisher = await bus.publisher();
  await publisher.publish('probes', first);

  const doomed = startConsumer('crash-after-handled', group, processedPath, logPath, run);
  await waitForLine(logPath, `crash-after ${first.event_id}`);
  await exited(doomed);
  await publisher.publish('probes', marker);

  const successor = startConsumer('normal', group, processedPath, logPath, run);
  await waitForLine(logPath, `duplicate ${first.event_id}`, 90_000);
  await waitForLine(logPath, `handled ${marker.event_id}`, 30_000);
  successor.kill('SIGTERM');
  await exited(successor);
  const lines = await logLines(logPath);
  assert.equal(lines.filter((l) => l === `handled ${first.event_id}`).length, 1, 'first was handled by the doomed consumer only');
  assert.equal(lines.filter((l) => l === `handled ${marker.event_id}`).length, 1);
  assert.equal(lines.filter((l) => l === `duplicate ${first.event_id}`).length, 1);
});

// The workers' groups start at the topic's end. A partition such a group never committed was resolved
// to its end again by the next owner, so the first event a replica died handling there was skipped: the
// scale-out trial's report, lost when the effector replica holding it was SIGKILLed (issue 29).
test("a new group's first event on a partition, its consumer killed mid-handling: the successor handles it", async () => {
  const run = `crash-first-${randomUUID()}`;
  const dir = await mkdtemp(join(tmpdir(), 'bus-crash-'));
  const [logPath, processedPath, group] = [join(dir, 'log'), join(dir, 'processed'), uniqueGroup('crash-first')];
  const doomed = startConsumer('hang', group, processedPath, logPath, run, false);
  await waitForLine(logPath, 'ready');
  // Positioned at the end of every partition before the event exists (kafkajs resolves it on its first fetch).
  const admin = bus.kafka.admin();
  await admin.connect();
  try {
    for (let stable = false; !stable; await sleep(200)) stable = (await admin.describeGroups([group])).groups[0]?.state === 'Stable';
  } finally {
    await admin.disconnect();
  }
  await sleep(3000);
  await (await bus.publisher()).publish('probes', exampleProbeResult(`${run}-a`));
  await waitForLine(logPath, `start ${run}-a`);
  doomed.kill('SIGKILL');
  await exited(doomed);

  const successor = startConsumer('normal', group, processedPath, logPath, run, false);
  await waitForLine(logPath, `done ${run}-a`, 60_000);
  successor.kill('SIGTERM');
  await exited(successor);
  assert.equal((await logLines(logPath)).filter((l) => l === `done ${run}-a`).length, 1);
});
