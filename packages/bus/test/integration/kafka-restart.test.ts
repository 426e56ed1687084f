import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { randomUUID } from 'node:crypto';
import { repoRoot } from '@rag-immune/stack';
import { exampleProbeResult } from '@rag-immune/contracts';
import { EventBus } from '../../src/index.ts';
import { sleep } from '@rag-immune/test-kit';
import { stackBusConfig, uniqueGroup } from '@rag-immune/test-kit/bus';

const run = promisify(execFile);
const bus = new EventBus(stackBusConfig());

before(async () => {
  await bus.start(['probes']);
});
after(async () => {
  await bus.stop();
});

async function stack(...args: string[]): Promise<void> {
  await run(process.execPath, ['--import', 'tsx', 'tools/stack/src/main.ts', ...args], { cwd: repoRoot(), timeout: 180_000 });
}

test('Kafka restarted mid-stream loses no acknowledged event and the consumer resumes', async () => {
  const runId = `restart-${randomUUID()}`;
  const received = new Set<string>();
  await bus.subscribe({
    topic: 'probes',
    groupId: uniqueGroup('restart'),
    fromBeginning: true,
    handle: async (event) => {
      if (event.probe_id.startsWith(runId)) received.add(event.event_id);
    },
  });

  const publisher = await bus.publisher();
  const acknowledged: string[] = [];
  let restarted = false;
  let restart: Promise<void> | undefined;
  let afterRestart = 0;
  // Publish before, during and after the restart: keep going until 40 events went out after it.
  for (let i = 0; afterRestart < 40; i += 1) {
    if (i === 60)
      restart = stack('down', 'kafka')
        .then(() => stack('up', 'kafka'))
        .then(() => void (restarted = true));
    if (restarted) afterRestart += 1;
    const event = exampleProbeResult(`${runId}-${i % 16}`);
    const deadline = Date.now() + 180_000;
    // Application-level retry: a send that fails while the broker is down is sent again.
    for (;;) {
      try {
        await publisher.publish('probes', event);
        acknowledged.push(event.event_id);
        break;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await sleep(500);
      }
    }
    await sleep(20);
  }
  await restart;

  const deadline = Date.now() + 120_000;
  while (received.size < acknowledged.length && Date.now() < deadline) await sleep(250);
  const missing = acknowledged.filter((id) => !received.has(id));
  assert.ok(acknowledged.length >= 100);
  assert.deepEqual(missing, [], `${missing.length} acknowledged events never reached the consumer`);
});
