/**
 * The effector against the real stack for a parser bug, a generator inconsistency (in approve mode:
 * nothing runs until a human grant) and a tokenizer anomaly (repaired by the effector running as its
 * own process, `npx tsx services/effector/src/main.ts`), each verified with the real probes against the
 * baseline; `immune rollback` of the tokenizer repair restores the pre-repair answers exactly.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { touchedByTokenizerAnomaly } from '@rag-immune/reference-rag/testing';
import type { EffectorWorker } from '../../src/index.ts';
import { sleep } from '@rag-immune/test-kit';
import {
  API_TOKEN,
  answers,
  degradedQuestions,
  fault,
  lifecycle,
  questionsAbout,
  reportFor,
  startHarness,
  type Harness,
} from './harness.ts';
import { immune, processEnv, spawnEffector } from './process.ts';

let h: Harness;
let worker: EffectorWorker | undefined;

before(async () => {
  h = await startHarness('b');
  worker = await h.startWorkerReady({ EFFECTOR_GROUP_ID: h.env.EFFECTOR_GROUP_ID as string });
});

after(async () => {
  await worker?.stop();
  await h?.close();
});

const someIds = () => [...h.rags.knowledgeIds].filter((id) => id.startsWith('changelog/')).slice(0, 3);

test('parser bug: snapshot, parser pinned to the baseline build and the named knowledge re-parsed, verified; rollback restores the pre-repair answers exactly', async () => {
  const incident = `inc-parser-${h.run}`;
  const injected = await fault(h, 'POST', 'parser-bug', { mode: 'merge-sections', scope: { knowledge_ids: someIds() } });
  try {
    const caps = await h.online.capabilities();
    assert.match(caps.active_versions?.parser ?? '', /\+merge-sections$/, 'the fault shows as a parser build change');
    const affected = injected.fault?.affected_knowledge_ids ?? [];
    const probes = await degradedQuestions(h, questionsAbout(affected), 3);
    assert.ok(probes.length > 0, 'the parser bug degrades some answers');
    const broken = await answers(
      h.online,
      probes.map((p) => p.query),
    );
    await h.publishReport(reportFor(incident, 'parser_bug', 'parser', probes, affected));
    await h.waitFor(
      (ev) => ev.some((e) => e.incident_id === incident && ['succeeded', 'escalated'].includes(e.status)),
      120_000,
      'parser repair',
    );
    assert.deepEqual(lifecycle(h.events, incident), [
      'reparse_documents:planned',
      'reparse_documents:started',
      'reparse_documents:succeeded',
    ]);
    const done = h.events.find((e) => e.incident_id === incident && e.status === 'succeeded')!;
    assert.ok(done.snapshot_id);
    assert.equal(done.verification?.recovered, true);
    assert.equal(done.arguments.parser_version, (await h.baseline.capabilities()).active_versions?.parser);
    assert.equal((await h.online.capabilities()).active_versions?.parser, done.arguments.parser_version);
    const queries = probes.map((p) => p.query);
    assert.deepEqual(await answers(h.online, queries), await answers(h.baseline, queries));
    // On the real server: the defective build pinned again and the collection from its snapshot.
    const rolled = await h.api(worker!, 'POST', '/rollback', { target: done.action_id });
    assert.equal(rolled.status, 200, JSON.stringify(rolled.json));
    assert.deepEqual(await answers(h.online, queries), broken, 'rollback restores the pre-repair answers exactly');
  } finally {
    await fault(h, 'DELETE', 'parser-bug').catch(() => undefined);
  }
});

test('generator inconsistency in approve mode: planned, waits for a grant; approved, the generator pin runs and is verified', async () => {
  assert.ok(worker);
  const incident = `inc-generator-${h.run}`;
  const setMode = await h.api(worker, 'PUT', '/mode', { mode: 'approve' });
  assert.equal(setMode.json.mode, 'approve');
  const injected = await fault(h, 'POST', 'generator-inconsistency', { scope: { knowledge_ids: someIds() } });
  try {
    const affected = injected.fault?.affected_knowledge_ids ?? [];
    const probes = await degradedQuestions(h, questionsAbout(affected), 3);
    assert.ok(probes.length > 0, 'the inconsistency degrades some answers');
    await h.publishReport(reportFor(incident, 'generator_inconsistency', 'generator', probes, affected));
    let pending: { key: string; tool: string }[] = [];
    for (let i = 0; i < 150 && pending.length === 0; i += 1) {
      pending = (
        (await h.api(worker, 'GET', '/grants?status=pending')).json.grants as { key: string; tool: string; incident_id: string }[]
      ).filter((g) => g.incident_id === incident);
      if (pending.length === 0) await sleep(200);
    }
    assert.equal(pending.length, 1, 'one grant request');
    assert.equal(pending[0]?.tool, 'pin_generator_version');
    await sleep(1500);
    assert.deepEqual(lifecycle(h.events, incident), ['pin_generator_version:planned'], 'nothing runs without the grant');
    assert.notEqual(
      (await h.online.capabilities()).active_versions?.generator,
      (await h.baseline.capabilities()).active_versions?.generator,
    );

    const approved = await h.api(worker, 'POST', `/grants/${encodeURIComponent(pending[0]!.key)}/approve`, { note: 'seen the probes' });
    assert.equal(approved.status, 200, JSON.stringify(approved.json));
    await h.waitFor(
      (ev) => ev.some((e) => e.incident_id === incident && ['succeeded', 'escalated'].includes(e.status)),
      120_000,
      'generator repair',
    );
    const done = h.events.find((e) => e.incident_id === incident && e.status === 'succeeded');
    assert.ok(done, lifecycle(h.events, incident).join(', '));
    assert.equal(done.tool, 'pin_generator_version');
    assert.equal(done.grant?.kind, 'human');
    assert.equal(done.grant?.granted_by, 'it-oncall');
    assert.equal(done.verification?.recovered, true);
    const queries = probes.map((p) => p.query);
    assert.deepEqual(await answers(h.online, queries), await answers(h.baseline, queries));
    const twice = await h.api(worker, 'POST', `/grants/${encodeURIComponent(pending[0]!.key)}/approve`, {});
    assert.equal(twice.status, 409, 'a decided grant cannot be decided again');
  } finally {
    await h.api(worker, 'PUT', '/mode', { mode: 'auto' });
    await fault(h, 'DELETE', 'generator-inconsistency').catch(() => undefined);
  }
});

test('tokenizer anomaly, repaired by the effector as its own process; `immune rollback` restores the pre-repair answers exactly', async () => {
  // Hand the consumer group to the separate process.
  await worker?.stop();
  worker = undefined;
  const env = processEnv(h, { EFFECTOR_INSTANCE_ID: `it-eff-${h.run}-proc` });
  const proc = await spawnEffector(env);
  const incident = `inc-tokenizer-${h.run}`;
  await fault(h, 'POST', 'tokenizer-anomaly');
  try {
    const candidates = questionsAbout(h.rags.knowledgeIds).filter((q) => touchedByTokenizerAnomaly(q.query));
    const probes = await degradedQuestions(h, candidates, 3);
    assert.ok(probes.length > 0, 'the anomaly degrades some answers');
    const queries = probes.map((p) => p.query);
    const broken = await answers(h.online, queries);
    await h.publishReport(reportFor(incident, 'tokenizer_anomaly', 'tokenizer', probes, []));
    await h.waitFor(
      (ev) => ev.some((e) => e.incident_id === incident && ['succeeded', 'escalated'].includes(e.status)),
      150_000,
      'tokenizer repair',
    );
    const done = h.events.find((e) => e.incident_id === incident && e.status === 'succeeded');
    assert.ok(done, lifecycle(h.events, incident).join(', '));
    assert.equal(done.tool, 'set_query_rewrite_rules');
    assert.equal(done.arguments.rule_set, 'unicode-confusables-v1');
    assert.equal(done.verification?.recovered, true);
    assert.deepEqual(await answers(h.online, queries), await answers(h.baseline, queries));
    assert.match(proc.output(), /\[HEALING\] repair set_query_rewrite_rules verified/);

    const cliEnv = { ...process.env, IMMUNE_API_TOKEN: API_TOKEN, IMMUNE_EFFECTOR_URL: proc.url, USER: 'it-oncall' };
    const listed = await immune(['actions', 'list', '--incident', incident, '--json'], cliEnv);
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(
      (JSON.parse(listed.stdout) as { status: string }[]).map((a) => a.status),
      ['succeeded'],
    );
    const unauth = await immune(['actions', 'list', '--token', 'wrong-token-wrong-token'], cliEnv);
    assert.equal(unauth.code, 77, unauth.stderr);
    const dry = await immune(['rollback', done.action_id, '--dry-run'], cliEnv);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /query-rewrite rules set back to the 0 in force before/);
    assert.match(dry.stdout, /dry run: nothing changed/);
    const refused = await immune(['rollback', done.action_id], cliEnv);
    assert.equal(refused.code, 64, 'no --yes without a terminal');
    const rolled = await immune(['rollback', done.action_id, '--yes', '--json'], cliEnv);
    assert.equal(rolled.code, 0, rolled.stderr);
    assert.equal(JSON.parse(rolled.stdout).done, true);
    assert.deepEqual(await answers(h.online, queries), broken, 'the pre-repair answers exactly');
    const again = await immune(['rollback', done.action_id, '--yes'], cliEnv);
    assert.equal(again.code, 65, 'nothing left to roll back');
    assert.doesNotMatch(proc.output(), new RegExp(API_TOKEN), 'the token never reaches the log');
  } finally {
    await fault(h, 'DELETE', 'tokenizer-anomaly').catch(() => undefined);
    assert.equal(await proc.stop(), true, 'graceful shutdown');
  }
});
