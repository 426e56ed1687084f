/**
 * Issue 15, item 4: two workers starting together on a fresh registry. Both find no compatibility
 * rule for the subject, both register, both try to create the rule; the registry answers the
 * second with 409 "A rule named 'COMPATIBILITY' already exists", which used to stop that worker.
 * Each round registers two catalogs (two registry clients, as two processes have) at once under a
 * subject nobody else uses; both must come back with the same schema id.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { loadTopicSchema } from '@rag-immune/contracts';
import { loadStackConfig, stackEndpoints } from '@rag-immune/stack';
import { SchemaCatalog } from '../../src/index.ts';

const registryUrl = stackEndpoints(loadStackConfig()).schemaRegistryUrl;
const schema = loadTopicSchema('probes');

async function deleteSubject(subject: string): Promise<void> {
  // Soft then hard delete, so the run leaves nothing behind; a registry without the subject is fine.
  for (const suffix of ['', '?permanent=true'])
    await fetch(`${registryUrl}/subjects/${encodeURIComponent(subject)}${suffix}`, { method: 'DELETE' }).catch(() => undefined);
}

test('two registrants starting at once on a fresh subject both succeed with one schema id', async () => {
  // The window is a few ms wide, so one round does not always hit it; twelve almost always do.
  const rounds = 12;
  const failures: string[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const subject = `it-race-${randomUUID()}-value`;
    try {
      const [a, b] = await Promise.allSettled([
        SchemaCatalog.forUrl(registryUrl).registerSubject(subject, schema),
        SchemaCatalog.forUrl(registryUrl).registerSubject(subject, schema),
      ]);
      if (a.status === 'rejected') failures.push(`round ${round} A: ${(a.reason as Error).message}`);
      if (b.status === 'rejected') failures.push(`round ${round} B: ${(b.reason as Error).message}`);
      if (a.status === 'fulfilled' && b.status === 'fulfilled') assert.equal(a.value, b.value, 'both registrants see the same schema id');
      const config = (await (await fetch(`${registryUrl}/config/${encodeURIComponent(subject)}`)).json()) as {
        compatibilityLevel?: string;
      };
      assert.equal(config.compatibilityLevel, 'BACKWARD', 'the compatibility rule is in place after the race');
    } finally {
      await deleteSubject(subject);
    }
  }
  assert.deepEqual(failures, []);
});

test('a subject whose rule differs is still refused (tolerance is only for the same rule)', async () => {
  const subject = `it-race-${randomUUID()}-value`;
  try {
    await SchemaCatalog.forUrl(registryUrl).registerSubject(subject, schema);
    const put = await fetch(`${registryUrl}/config/${encodeURIComponent(subject)}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ compatibility: 'NONE' }),
    });
    assert.ok(put.ok, `PUT config: ${put.status}`);
    await assert.rejects(SchemaCatalog.forUrl(registryUrl).registerSubject(subject, schema), /Compatibility does not match/);
  } finally {
    await deleteSubject(subject);
  }
});
