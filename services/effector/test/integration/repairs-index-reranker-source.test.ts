/**
 * The effector against the real stack: for a vector-index corruption, a reranker drift and a
 * knowledge-source failure injected into the reference RAG, a RootCauseReport naming the fault makes
 * the effector snapshot (when it writes to Qdrant), repair, verify with the real probes against the
 * baseline and publish the lifecycle; a manual rollback restores the pre-repair answers exactly; a
 * redelivered report and a second replica never execute an action twice.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { EffectorWorker } from '../../src/index.ts';
import { sleep } from '@rag-immune/test-kit';
import {
  answers,
  changedSinceBaseline,
  degradedQuestions,
  fault,
  injectVectorCorruption,
  lifecycle,
  questionsAbout,
  reportFor,
  startHarness,
  type Harness,
} from './harness.ts';

let h: Harness;
let worker: EffectorWorker;

before(async () => {
  // A RAG that queries a plain collection (no alias): the index repair is the in-place reindex, snapshot first.
  h = await startHarness('a', 12, { qdrantAlias: false });
  worker = await h.startWorkerReady({ EFFECTOR_GROUP_ID: h.env.EFFECTOR_GROUP_ID as string });
});

after(async () => {
  await h?.close();
});

test('reranker drift: two replicas, one execution of pin_reranker_version, verified', async () => {
  const second = await h.startWorkerReady();
  const incident = `inc-reranker-${h.run}`;
  try {
    await fault(h, 'POST', 'reranker-drift');
    const probes = await degradedQuestions(
      h,
      questionsAbout(h.rags.knowledgeIds).filter((_, i) => i % 3 === 0),
      3,
    );
    assert.ok(probes.length > 0, 'the drift degrades some answers');
    await h.publishReport(reportFor(incident, 'reranker_drift', 'reranker', probes, []));
    await h.waitFor(
      (ev) => ev.some((e) => e.incident_id === incident && ['succeeded', 'escalated'].includes(e.status)),
      120_000,
      'reranker repair',
    );
    await sleep(3000); // the other replica had every chance to act twice
    assert.deepEqual(lifecycle(h.events, incident), [
      'pin_reranker_version:planned',
      'pin_reranker_version:started',
      'pin_reranker_version:succeeded',
    ]);
    const done = h.events.find((e) => e.incident_id === incident && e.status === 'succeeded')!;
    assert.equal(done.arguments.version, 'v2.1');
    assert.equal(done.arguments.chosen_by, 'policy');
    assert.match(done.arguments.reason ?? '', /pin the baseline/);
    assert.equal(done.snapshot_id, null, 'a reranker pin does not touch Qdrant');
    assert.equal(done.verification?.recovered, true);
    assert.deepEqual(
      done.verification?.probe_ids,
      probes.map((p) => p.id),
    );
    const docs = (await h.api(worker, 'GET', `/actions?incident=${incident}`)).json.actions as { executions: number; status: string }[];
    assert.deepEqual(
      docs.map((d) => [d.status, d.executions]),
      [['succeeded', 1]],
    );
    assert.deepEqual(
      await answers(
        h.online,
        probes.map((p) => p.query),
      ),
      await answers(
        h.baseline,
        probes.map((p) => p.query),
      ),
    );
  } finally {
    await fault(h, 'DELETE', 'reranker-drift').catch(() => undefined);
    await second.stop();
  }
});

test('vector-index corruption: snapshot, reindex, verified; rollback (dry run, then real) restores the pre-repair answers exactly; a redelivered report runs nothing', async () => {
  const incident = `inc-vector-${h.run}`;
  try {
    const { affected, probes } = await injectVectorCorruption(h);
    const queries = probes.map((p) => p.query);
    const broken = await answers(h.online, queries);
    const report = reportFor(incident, 'vector_index_corruption', 'vector_index', probes, affected);
    await h.publishReport(report);
    await h.waitFor(
      (ev) => ev.some((e) => e.incident_id === incident && ['succeeded', 'escalated'].includes(e.status)),
      120_000,
      'index repair',
    );
    assert.deepEqual(lifecycle(h.events, incident), [
      // No alias to switch: the blue/green reindex steps aside before any change, the in-place one runs.
      'reindex_into_new_collection:failed',
      'reindex_knowledge:planned',
      'reindex_knowledge:started',
      'reindex_knowledge:succeeded',
    ]);
    const done = h.events.find((e) => e.incident_id === incident && e.status === 'succeeded')!;
    assert.ok(done.snapshot_id, 'snapshot id on the event');
    assert.equal(done.verification?.recovered, true);
    assert.deepEqual(await answers(h.online, queries), await answers(h.baseline, queries));
    assert.ok(
      (done.verification?.fcs_after ?? 0) >= (done.verification?.fcs_before ?? 1) ||
        (done.verification?.ic_after ?? 0) > (done.verification?.ic_before ?? 1),
      JSON.stringify(done.verification),
    );

    const snapshots = (await h.api(worker, 'GET', `/snapshots?incident=${incident}`)).json.snapshots as {
      snapshot_id: string;
      points_count: number;
      checksum: string;
      action_id: string;
      collection: string;
    }[];
    assert.equal(snapshots.length, 1);
    assert.equal(snapshots[0]?.snapshot_id, done.snapshot_id);
    assert.equal(snapshots[0]?.action_id, done.action_id);
    assert.equal(snapshots[0]?.collection, h.collection);
    assert.ok((snapshots[0]?.points_count ?? 0) > 0 && /^[0-9a-f]{64}$/.test(snapshots[0]?.checksum ?? ''));

    // A redelivered report (same incident and revision, new event id) executes nothing again.
    const eventsBefore = h.events.length;
    await h.publishReport({ ...report, event_id: crypto.randomUUID() });
    await h.waitFor(() => h.outcomes.filter((o) => o.report.incident_id === incident).length >= 2, 30_000, 'redelivery handled');
    await sleep(1000);
    assert.equal(h.events.length, eventsBefore, 'no event for the redelivery');

    const dry = await h.api(worker, 'POST', '/rollback', { target: done.action_id, dry_run: true });
    assert.equal(dry.status, 200);
    assert.equal(dry.json.done, false);
    assert.match(JSON.stringify(dry.json.steps), new RegExp(`restored from snapshot ${done.snapshot_id}`));
    assert.deepEqual(await answers(h.online, queries), await answers(h.baseline, queries), 'a dry run changes nothing');

    const real = await h.api(worker, 'POST', '/rollback', { target: done.action_id });
    assert.equal(real.status, 200, JSON.stringify(real.json));
    assert.equal(real.json.done, true);
    assert.deepEqual(await answers(h.online, queries), broken, 'rollback restores the pre-repair answers exactly');
    await h.waitFor(
      (ev) => ev.some((e) => e.incident_id === incident && e.status === 'rolled_back' && e.rollback_of_action_id === done.action_id),
      30_000,
      'rolled_back event',
    );
    const again = await h.api(worker, 'POST', '/rollback', { target: done.action_id });
    assert.equal(again.status, 409, 'nothing left to roll back');
    const audit = (await h.api(worker, 'GET', '/audit')).json.entries as { command: string; actor: string; outcome: string }[];
    assert.ok(audit.some((a) => a.command === 'rollback' && a.outcome === 'ok' && a.actor === 'it-oncall'));
    assert.ok(audit.some((a) => a.command === 'rollback' && a.outcome === 'dry_run'));
  } finally {
    await fault(h, 'DELETE', 'vector-index-corruption').catch(() => undefined);
  }
});

test('knowledge-source failure: snapshot, switch to the backup source, verified; rollback restores the pre-repair answers exactly', async () => {
  const incident = `inc-source-${h.run}`;
  const injected = await fault(h, 'POST', 'knowledge-source-failure', {
    mode: 'stale',
    stale_as_of: '2024-06-01T00:00:00Z',
    scope: { knowledge_ids: changedSinceBaseline(h) },
  });
  try {
    const affected = injected.fault?.affected_knowledge_ids ?? [];
    const probes = await degradedQuestions(h, questionsAbout(affected), 3);
    assert.ok(probes.length > 0, 'the stale feed degrades some answers');
    const broken = await answers(
      h.online,
      probes.map((p) => p.query),
    );
    await h.publishReport(reportFor(incident, 'knowledge_source_failure', 'knowledge_source', probes, affected));
    await h.waitFor(
      (ev) => ev.some((e) => e.incident_id === incident && ['succeeded', 'escalated'].includes(e.status)),
      120_000,
      'source repair',
    );
    const done = h.events.find((e) => e.incident_id === incident && e.status === 'succeeded');
    assert.ok(done, lifecycle(h.events, incident).join(', '));
    assert.equal(done.tool, 'switch_to_backup_source');
    assert.equal(done.arguments.sources, JSON.stringify(['debian-changelog']));
    assert.ok(done.snapshot_id);
    assert.equal(done.verification?.recovered, true);
    const queries = probes.map((p) => p.query);
    assert.deepEqual(await answers(h.online, queries), await answers(h.baseline, queries));
    // On the real server: the source back on its primary and the collection from its snapshot.
    const rolled = await h.api(worker, 'POST', '/rollback', { target: done.action_id });
    assert.equal(rolled.status, 200, JSON.stringify(rolled.json));
    assert.deepEqual(await answers(h.online, queries), broken, 'rollback restores the pre-repair answers exactly');
  } finally {
    await fault(h, 'DELETE', 'knowledge-source-failure').catch(() => undefined);
  }
});
