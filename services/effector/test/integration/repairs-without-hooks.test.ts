/**
 * Issue 42, repairs without hooks, on the real stack (Qdrant, Elasticsearch, Kafka): the reference
 * RAG reads its collection through a Qdrant alias, and the effector is told through its adapter file
 * (`repair: { hooks: none, rebuild_from: <alias>-baseline }`) that it serves no /repair/*. A pinned
 * baseline copy is made by the baseline package (`immune baseline create`'s code), then the live
 * collection's vectors are overwritten in Qdrant from outside the RAG. The effector plans only the
 * tools a hookless RAG has: switch_alias_back has no earlier target to go to (the alias never moved),
 * so rebuild_from_collection copies the baseline into a new generation, checks it and switches the
 * alias; the probes verify it. A rollback switches the alias back (the broken answers return) and
 * deletes the build. Nothing calls the RAG's repair hooks.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createBaseline } from '@rag-immune/baseline';
import type { EffectorWorker } from '../../src/index.ts';
import {
  answers,
  changedSinceBaseline,
  degradedQuestions,
  lifecycle,
  questionsAbout,
  reportFor,
  startHarness,
  type Harness,
} from './harness.ts';

const HEALTH_CONTRACT_ADAPTER = fileURLToPath(
  import.meta.resolve('@rag-immune/rag-adapter').replace(/src\/index\.ts$/, 'examples/health-contract.yaml'),
);

let h: Harness;
let worker: EffectorWorker;
let dir: string;
let baselineAlias: string;
let baselineCopy: string;

before(async () => {
  h = await startHarness('hookless', 12, { qdrantAlias: true });
  baselineAlias = `${h.collection}-baseline`;
  baselineCopy = (await createBaseline({ qdrant: h.qdrant, source: h.collection, actor: 'it', reason: 'issue 42 test' })).collection;
  dir = mkdtempSync(join(tmpdir(), 'hookless-'));
  const adapter = join(dir, 'adapter.yaml');
  writeFileSync(adapter, `${readFileSync(HEALTH_CONTRACT_ADAPTER, 'utf8')}\nrepair:\n  hooks: none\n  rebuild_from: ${baselineAlias}\n`);
  worker = await h.startWorkerReady({ EFFECTOR_RAG_ADAPTER_FILE: adapter });
});

after(async () => {
  await h?.close();
  if (h) {
    await h.qdrant.updateCollectionAliases({ actions: [{ delete_alias: { alias_name: baselineAlias } }] }).catch(() => undefined);
    if (baselineCopy) await h.qdrant.deleteCollection(baselineCopy).catch(() => undefined);
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function aliasTarget(): Promise<string | null> {
  const { aliases } = await h.qdrant.getAliases();
  return aliases.find((a) => a.alias_name === h.collection)?.collection_name ?? null;
}

/** Overwrites the vectors of the knowledge's points with pseudo-random ones, in Qdrant, bypassing the RAG. */
async function overwriteVectors(collection: string, knowledgeIds: string[]): Promise<number> {
  const { points } = await h.qdrant.scroll(collection, {
    filter: { must: [{ key: 'knowledge_id', match: { any: knowledgeIds } }] },
    with_vector: true,
    with_payload: false,
    limit: 1_000,
  });
  let seed = 0x2545f491;
  const random = () => {
    seed = (Math.imul(seed ^ (seed >>> 13), 0x5bd1e995) + 0x6d2b79f5) >>> 0;
    return seed / 0x100000000 - 0.5;
  };
  await h.qdrant.updateVectors(collection, {
    wait: true,
    points: points.map((p) => ({ id: p.id, vector: (p.vector as number[]).map(() => random()) })),
  });
  return points.length;
}

test('a RAG without repair hooks: its collection is rebuilt from the pinned baseline copy and its alias switched; rollback switches back', async () => {
  const live = await aliasTarget();
  assert.ok(live !== null, 'the RAG reads its collection through an alias');
  const affected = changedSinceBaseline(h);
  assert.ok((await overwriteVectors(live, affected)) > 0, 'vectors of the affected knowledge overwritten');
  const probes = await degradedQuestions(h, questionsAbout(affected), 3);
  assert.ok(probes.length > 0, 'the overwritten vectors degrade some answers');
  const queries = probes.map((p) => p.query);
  const broken = await answers(h.online, queries);

  const incident = `inc-hookless-${h.run}`;
  await h.publishReport(reportFor(incident, 'vector_index_corruption', 'vector_index', probes, affected));
  await h.waitFor(
    (ev) => ev.some((e) => e.incident_id === incident && ['succeeded', 'escalated'].includes(e.status)),
    120_000,
    'the hookless repair',
  );
  // No hook tool is planned; the alias never moved, so there is nothing to switch back to.
  assert.deepEqual(lifecycle(h.events, incident), [
    'switch_alias_back:failed',
    'rebuild_from_collection:planned',
    'rebuild_from_collection:started',
    'rebuild_from_collection:succeeded',
  ]);
  const done = h.events.find((e) => e.incident_id === incident && e.status === 'succeeded')!;
  assert.equal(done.verification?.recovered, true);
  assert.equal(done.snapshot_id, null, 'blue/green: nothing written in place, the live generation is the way back');
  assert.equal(done.arguments.source_collection, baselineCopy);
  const rebuilt = await aliasTarget();
  assert.equal(rebuilt, done.arguments.target_collection);
  assert.deepEqual(await answers(h.online, queries), await answers(h.baseline, queries), 'the answers are the baseline’s again');
  const copied = await h.qdrant.count(rebuilt!, { exact: true });
  assert.equal(copied.count, (await h.qdrant.count(baselineCopy, { exact: true })).count);

  const rollback = await h.api(worker, 'POST', '/rollback', { target: done.action_id });
  assert.equal(rollback.status, 200, JSON.stringify(rollback.json));
  assert.equal(await aliasTarget(), live, 'the alias points at the generation before the repair');
  assert.deepEqual(await answers(h.online, queries), broken, 'the rollback brings back exactly what was served before');
  assert.equal((await h.qdrant.collectionExists(rebuilt!)).exists, false, 'the build is deleted');
  assert.equal((await h.qdrant.collectionExists(baselineCopy)).exists, true, 'the baseline copy is left as it is');

  // The alias history the hookless effector keeps (switch_alias_back's way back) saw both targets.
  await h.es.indices.refresh({ index: `${h.esPrefix}-alias-history` });
  const seen = await h.es.search<{ collection: string }>({ index: `${h.esPrefix}-alias-history`, size: 10 });
  assert.deepEqual(seen.hits.hits.map((hit) => hit._source!.collection).sort(), [live, rebuilt].sort());
});
