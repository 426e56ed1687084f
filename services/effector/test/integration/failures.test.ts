/**
 * Bad input and faults on the real stack, each a typed failure event with nothing half-applied:
 * an unknown cause (escalated), no matching policy branch, a RAG refusing a repair hook (409),
 * Qdrant unreachable during the snapshot, verification probes timing out (undone, then the circuit
 * breaker escalates); and start-up refusals of the process for a bad policy or a missing token.
 */
import { createServer, type AddressInfo } from 'node:net';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import type { EffectorWorker } from '../../src/index.ts';
import { sleep } from '@rag-immune/test-kit';
import {
  degradedQuestions,
  fault,
  injectVectorCorruption,
  lifecycle,
  questionsAbout,
  reportFor,
  startHarness,
  type Harness,
} from './harness.ts';
import { REPO_ROOT, processEnv } from './process.ts';

let h: Harness;

before(async () => {
  // A plain collection (no alias): the index repairs write in place, so they snapshot first.
  h = await startHarness('c', 12, { qdrantAlias: false });
});

after(async () => {
  await h?.close();
});

async function withWorker<T>(env: Record<string, string>, body: (worker: EffectorWorker) => Promise<T>): Promise<T> {
  const worker = await h.startWorkerReady(env);
  try {
    return await body(worker);
  } finally {
    await worker.stop();
  }
}

const settled = (incident: string) => (ev: typeof h.events) =>
  ev.some((e) => e.incident_id === incident && ['succeeded', 'escalated'].includes(e.status));
const someQuestions = () => questionsAbout(h.rags.knowledgeIds).slice(0, 2);

test('unknown cause: escalated to a human, nothing executed; no matching branch: a typed policy_denied failure', async () => {
  await withWorker({}, async (worker) => {
    const incident = `inc-unknown-${h.run}`;
    await h.publishReport(reportFor(incident, 'unknown', 'unknown', someQuestions(), []));
    await h.waitFor(settled(incident), 60_000, 'escalation');
    assert.deepEqual(lifecycle(h.events, incident), ['escalate_to_human:planned', 'escalate_to_human:escalated']);
    const docs = (await h.api(worker, 'GET', `/actions?incident=${incident}`)).json.actions as { executions: number }[];
    assert.ok(docs.every((d) => d.executions === 0));
  });
  const dir = mkdtempSync(join(tmpdir(), 'effector-policy-'));
  const narrow = join(dir, 'policy.yaml');
  writeFileSync(
    narrow,
    "policy_version: '9.0.0'\nbranches:\n  - id: reranker-only\n    when: { cause: [reranker_drift] }\n    actions: [{ tool: pin_reranker_version, reason: only this }]\n",
  );
  await withWorker({ EFFECTOR_POLICY_FILE: narrow }, async () => {
    const incident = `inc-nobranch-${h.run}`;
    await h.publishReport(reportFor(incident, 'tokenizer_anomaly', 'tokenizer', someQuestions(), []));
    await h.waitFor((ev) => ev.some((e) => e.incident_id === incident), 60_000, 'no-branch failure');
    await sleep(1000);
    const events = h.events.filter((e) => e.incident_id === incident);
    assert.deepEqual(
      events.map((e) => `${e.tool}:${e.status}:${e.failure?.reason}`),
      ['no_policy_branch:failed:policy_denied'],
    );
    assert.match(events[0]?.failure?.message ?? '', /no policy branch matches cause tokenizer_anomaly/);
    assert.equal(events[0]?.arguments.policy_version, '9.0.0');
  });
});

test('an abstention pages no one when a later revision arrives within the grace period; the last one is escalated once', async () => {
  await withWorker({ EFFECTOR_ABSTENTION_GRACE_SECONDS: '4' }, async () => {
    const incident = `inc-grace-${h.run}`;
    const first = reportFor(incident, 'unknown', 'unknown', someQuestions(), [], 1);
    const second = reportFor(incident, 'unknown', 'generator', someQuestions(), [], 2);
    await h.publishReport(first);
    await sleep(1000);
    await h.publishReport(second);
    await h.waitFor(settled(incident), 60_000, 'escalation');
    await sleep(1000);
    const events = h.events.filter((e) => e.incident_id === incident);
    assert.deepEqual(lifecycle(h.events, incident), ['escalate_to_human:planned', 'escalate_to_human:escalated']);
    assert.ok(
      events.every((e) => e.report_event_id === second.event_id),
      'only the later revision was acted on',
    );
  });
});

test('a RAG refusing the repair hook (409): typed tool_error, the snapshot restored, the irreversible fallback waits for a grant', async () => {
  // The baseline has frozen knowledge: it refuses knowledge-source mutation with 409.
  const collection = h.rags.baseline.config.QDRANT_COLLECTION as string;
  const pointsBefore = (await h.qdrant.count(collection, { exact: true })).count;
  // The knowledge-source steps alone (the shipped policy re-ingests in between, which the baseline allows).
  const dir = mkdtempSync(join(tmpdir(), 'effector-policy-'));
  const sourceOnly = join(dir, 'policy.yaml');
  writeFileSync(
    sourceOnly,
    "policy_version: '9.1.0'\nbranches:\n  - id: source\n    when: { cause: [knowledge_source_failure] }\n    actions:\n" +
      '      - { tool: switch_to_backup_source, reason: backup }\n      - { tool: refresh_knowledge_source, reason: refresh }\n',
  );
  // A repair of healthy probes is not run; an inconclusive before-measurement (the baseline does not
  // answer: a closed port here) lets it run, and the RAG's own refusal is what this test is about.
  const env = {
    EFFECTOR_ONLINE_RAG_URL: h.rags.baselineUrl,
    EFFECTOR_BASELINE_RAG_URL: `http://127.0.0.1:${await closedPort()}`,
    EFFECTOR_QDRANT_COLLECTION: collection,
    EFFECTOR_POLICY_FILE: sourceOnly,
  };
  {
    await withWorker(env, async (worker) => {
      const incident = `inc-refused-${h.run}`;
      const ids = [...h.rags.knowledgeIds].filter((id) => id.startsWith('changelog/')).slice(0, 2);
      const probes = questionsAbout(ids).slice(0, 2);
      await h.publishReport(reportFor(incident, 'knowledge_source_failure', 'knowledge_source', probes, ids));
      await h.waitFor(
        (ev) => ev.some((e) => e.incident_id === incident && e.tool === 'refresh_knowledge_source'),
        90_000,
        'fallback planned',
      );
      const events = h.events.filter((e) => e.incident_id === incident);
      assert.deepEqual(
        events.map((e) => `${e.tool}:${e.status}`),
        [
          'switch_to_backup_source:planned',
          'switch_to_backup_source:started',
          'switch_to_backup_source:failed',
          'switch_to_backup_source:rolled_back',
          'refresh_knowledge_source:planned',
        ],
      );
      const failed = events.find((e) => e.status === 'failed')!;
      assert.equal(failed.failure?.reason, 'tool_error');
      assert.match(failed.failure?.message ?? '', /409/);
      assert.ok(failed.snapshot_id);
      const snapshot = (
        (await h.api(worker, 'GET', `/snapshots?incident=${incident}`)).json.snapshots as { status: string; points_count: number }[]
      )[0];
      assert.equal(snapshot?.status, 'restored');
      assert.equal(snapshot?.points_count, pointsBefore);
      assert.equal((await h.qdrant.count(collection, { exact: true })).count, pointsBefore);
      let grants: { incident_id: string; tool: string }[] = [];
      for (let i = 0; i < 100 && !grants.some((g) => g.incident_id === incident); i += 1) {
        grants = (await h.api(worker, 'GET', '/grants?status=pending')).json.grants as { incident_id: string; tool: string }[];
        await sleep(200);
      }
      assert.deepEqual(
        grants.filter((g) => g.incident_id === incident).map((g) => g.tool),
        ['refresh_knowledge_source'],
        'irreversible: needs a grant even in auto mode',
      );
    });
  }
});

/** A loopback port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

test('Qdrant unreachable during the snapshot: snapshot_failed, the repair never runs, escalated', async () => {
  // Anomalous probes: a repair of healthy ones would not reach its snapshot.
  const { affected, probes } = await injectVectorCorruption(h);
  try {
    await withWorker({ EFFECTOR_QDRANT_URL: 'http://127.0.0.1:9' }, async (worker) => {
      const incident = `inc-noqdrant-${h.run}`;
      await h.publishReport(reportFor(incident, 'vector_index_corruption', 'vector_index', probes, affected));
      await h.waitFor(settled(incident), 90_000, 'escalation');
      const events = h.events.filter((e) => e.incident_id === incident);
      assert.deepEqual(
        events.map((e) => `${e.tool}:${e.status}:${e.failure?.reason ?? ''}`),
        [
          // No alias to switch: the blue/green reindex steps aside before any change (not a failed repair).
          'reindex_into_new_collection:failed:policy_denied',
          'reindex_knowledge:planned:',
          'reindex_knowledge:failed:snapshot_failed',
          'restore_collection_snapshot:failed:policy_denied',
          'escalate_to_human:planned:',
          'escalate_to_human:escalated:',
        ],
      );
      assert.match(events[2]?.failure?.message ?? '', /snapshot of .* failed/);
      const docs = (await h.api(worker, 'GET', `/actions?incident=${incident}`)).json.actions as { executions: number }[];
      assert.ok(
        docs.every((d) => d.executions === 0),
        'nothing executed',
      );
    });
  } finally {
    await fault(h, 'DELETE', 'vector-index-corruption').catch(() => undefined);
  }
});

test('verification probes timing out: typed timeout, the pin undone; after the failure limit the breaker escalates and alerts', async () => {
  const injected = await fault(h, 'POST', 'generator-inconsistency', {
    scope: { knowledge_ids: [...h.rags.knowledgeIds].filter((id) => id.startsWith('changelog/')).slice(0, 3) },
  });
  try {
    const faulty = (await h.online.capabilities()).active_versions?.generator;
    const probes = await degradedQuestions(h, questionsAbout(injected.fault?.affected_knowledge_ids ?? []), 2);
    assert.ok(probes.length > 0);
    await withWorker({ EFFECTOR_VERIFY_TIMEOUT_MS: '1', EFFECTOR_MAX_FAILED_REPAIRS: '1' }, async (worker) => {
      const incident = `inc-timeout-${h.run}`;
      await h.publishReport(
        reportFor(incident, 'generator_inconsistency', 'generator', probes, injected.fault?.affected_knowledge_ids ?? []),
      );
      await h.waitFor(settled(incident), 120_000, 'escalation');
      const events = h.events.filter((e) => e.incident_id === incident);
      assert.deepEqual(
        events.map((e) => `${e.tool}:${e.status}:${e.failure?.reason ?? ''}`),
        [
          'pin_generator_version:planned:',
          'pin_generator_version:started:',
          'pin_generator_version:failed:timeout',
          'pin_generator_version:rolled_back:',
          'enable_answer_validation:planned:',
          'escalate_to_human:escalated:',
        ],
      );
      assert.equal(events.at(-1)?.arguments.escalation, 'failed_repairs');
      assert.equal((await h.online.capabilities()).active_versions?.generator, faulty, 'the pin was undone: nothing half-applied');
      // The escalation event is published before the counters move: read them until they have.
      let metrics = '';
      for (let i = 0; i < 50 && !/effector_escalations_total\{reason="failed_repairs"\} [1-9]/.test(metrics); i += 1) {
        if (i > 0) await sleep(200);
        metrics = await (await fetch(`${worker.url}/metrics`)).text();
      }
      assert.match(metrics, /effector_breaker_open\{component="generator"\} 1/);
      // (This worker also re-ran the still-open incident of the 409 test at start-up: the breaker escalated it too.)
      assert.match(metrics, /effector_escalations_total\{reason="failed_repairs"\} [1-9]/);
    });
  } finally {
    await fault(h, 'DELETE', 'generator-inconsistency').catch(() => undefined);
  }
});

test('the process refuses to start on a bad policy (exit 78 naming the line) or without its API token (naming the key)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'effector-policy-'));
  const bad = join(dir, 'policy.yaml');
  writeFileSync(
    bad,
    "policy_version: '1.0.0'\nbranches:\n  - id: x\n    when: {}\n    actions:\n      - { tool: reboot_everything, reason: no }\n",
  );
  const refused = spawnSync(process.execPath, ['--import', 'tsx', 'services/effector/src/main.ts'], {
    cwd: REPO_ROOT,
    env: processEnv(h, { EFFECTOR_POLICY_FILE: bad }),
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(refused.status, 78, refused.stdout + refused.stderr);
  assert.match(refused.stdout, /line 6 \(branches\.0\.actions\.0\.tool\): unknown tool/);
  const env = processEnv(h);
  delete env.EFFECTOR_API_TOKEN;
  const noToken = spawnSync(process.execPath, ['--import', 'tsx', 'services/effector/src/main.ts'], {
    cwd: REPO_ROOT,
    env,
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(noToken.status, 78);
  assert.match(noToken.stdout, /EFFECTOR_API_TOKEN/);
});
