/**
 * The stack's Prometheus: ready, scraping itself, and picking up a worker target dropped into
 * .stack/prometheus/targets/ without a restart (file_sd). Assumes `npm run stack -- up prometheus`.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { loadStackConfig, repoRoot, stackEndpoints } from '../../src/index.ts';

const { prometheusUrl } = stackEndpoints(loadStackConfig());

interface Target {
  labels: Record<string, string>;
  scrapeUrl: string;
}

async function activeTargets(): Promise<Target[]> {
  const body = (await (await fetch(`${prometheusUrl}/api/v1/targets`)).json()) as { data: { activeTargets: Target[] } };
  return body.data.activeTargets;
}

test('prometheus is ready and scrapes itself', async () => {
  assert.equal((await fetch(`${prometheusUrl}/-/ready`)).status, 200);
  assert.ok((await activeTargets()).some((t) => t.labels['job'] === 'prometheus'));
});

test('a file_sd target file is picked up without a restart', { timeout: 30_000 }, async (t) => {
  const id = randomUUID();
  const file = join(repoRoot(), '.stack', 'prometheus', 'targets', `test-${id}.json`);
  t.after(() => rm(file, { force: true }));
  // Write then rename: Prometheus may read a half-written file otherwise.
  await writeFile(`${file}.tmp`, JSON.stringify([{ targets: ['127.0.0.1:1'], labels: { test_id: id } }]));
  await rename(`${file}.tmp`, file);
  for (let i = 0; i < 40; i++) {
    const found = (await activeTargets()).find((target) => target.labels['test_id'] === id);
    if (found) {
      assert.equal(found.labels['job'], 'rag-immune-workers');
      return;
    }
    await sleep(500);
  }
  assert.fail('target from file_sd never appeared');
});
