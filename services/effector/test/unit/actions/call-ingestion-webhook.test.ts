import { test } from 'node:test';
import assert from 'node:assert/strict';
import { callIngestionWebhook } from '../../../src/actions/call-ingestion-webhook.ts';
import { PreconditionError } from '../../../src/actions/repair-tool.ts';
import type { IngestionPort } from '../../../src/actions/rag-repair-access.ts';
import type { IngestionCallOptions, IngestionRequest } from '@rag-immune/rag-adapter';
import { fakeContext } from '../support/fake-rag-client.ts';

const VECTORS = { size: 384, distance: 'Cosine' };

/** The user's ingestion job, recording what it was asked; `moveAlias` makes it switch the alias to a new build. */
function fakeJob(options: { status?: number; settleMs?: number } = {}) {
  const calls: { request: IngestionRequest; options: IngestionCallOptions | undefined }[] = [];
  const port: IngestionPort = {
    settleMs: options.settleMs ?? 0,
    describe: () => ({ method: 'POST', url: 'http://ingest.local/jobs', headers: [] }),
    call: async (request, callOptions) => {
      calls.push({ request, options: callOptions });
      if ((options.status ?? 202) >= 400) throw new Error(`ingestion webhook POST http://ingest.local/jobs: HTTP ${options.status}`);
      return { status: options.status ?? 202, body: '{"job":"j-1"}' };
    },
  };
  return { port, calls };
}

test('call_ingestion_webhook applies only when the adapter declares a webhook, and is snapshotted first', async () => {
  const { ctx } = fakeContext({
    ctx: { ragRepair: { hooks: 'none', rebuildFrom: null, ingestion: null, operatorStep: null, operatorWaitMs: 0 } },
  });
  await assert.rejects(callIngestionWebhook.plan(ctx, {}), PreconditionError);
  const job = fakeJob();
  ctx.ragRepair = { hooks: 'none', rebuildFrom: null, ingestion: job.port, operatorStep: null, operatorWaitMs: 0 };
  assert.deepEqual(await callIngestionWebhook.plan(ctx, {}), {
    knowledge_ids: ['changelog/curl', 'apt/curl'],
    sources: ['apt-metadata', 'debian-changelog'],
  });
  assert.equal(callIngestionWebhook.touchesQdrant, true, 'the pre-action snapshot is the way back of what the job writes');
  assert.equal(callIngestionWebhook.reversible, true);
});

test('call_ingestion_webhook sends the scope, incident and action id (as the idempotency key) and records the answer', async () => {
  const job = fakeJob();
  const { ctx, rag } = fakeContext({
    ctx: {
      idempotencyKey: 'act-9',
      ragRepair: { hooks: 'none', rebuildFrom: null, ingestion: job.port, operatorStep: null, operatorWaitMs: 0 },
    },
  });
  const args = await callIngestionWebhook.plan(ctx, {});
  const { detail } = (await callIngestionWebhook.execute(ctx, args)) as { detail: Record<string, unknown> };
  assert.equal(job.calls.length, 1);
  assert.deepEqual(job.calls[0]!.request, {
    knowledge_ids: ['changelog/curl', 'apt/curl'],
    sources: ['apt-metadata', 'debian-changelog'],
    incident_id: ctx.report.incident_id,
    action_id: 'act-9',
    root_cause: ctx.report.root_cause,
  });
  assert.equal(job.calls[0]!.options?.idempotencyKey, 'act-9');
  assert.deepEqual(detail, { webhook: 'http://ingest.local/jobs', status: 202, answer: '{"job":"j-1"}', settled_ms: 0 });
  assert.deepEqual(rag.calls, [], 'no repair hook of the RAG is called');
});

test('call_ingestion_webhook fails on a refused job, and waits settle_seconds (abortably) after an accepted one', async () => {
  const refused = fakeJob({ status: 500 });
  const one = fakeContext({
    ctx: { ragRepair: { hooks: 'none', rebuildFrom: null, ingestion: refused.port, operatorStep: null, operatorWaitMs: 0 } },
  });
  await assert.rejects(callIngestionWebhook.execute(one.ctx, await callIngestionWebhook.plan(one.ctx, {})), /HTTP 500/);

  const slow = fakeJob({ settleMs: 60_000 });
  const controller = new AbortController();
  const two = fakeContext({
    ctx: {
      signal: controller.signal,
      ragRepair: { hooks: 'none', rebuildFrom: null, ingestion: slow.port, operatorStep: null, operatorWaitMs: 0 },
    },
  });
  const running = callIngestionWebhook.execute(two.ctx, await callIngestionWebhook.plan(two.ctx, {}));
  setTimeout(() => controller.abort(), 20);
  await assert.rejects(running, /aborted/i);
  assert.equal(slow.calls.length, 1);
});

test('call_ingestion_webhook records the alias target first and its undo switches back an alias the job moved', async () => {
  const job = fakeJob();
  const { ctx, aliases } = fakeContext({
    ctx: { ragRepair: { hooks: 'none', rebuildFrom: null, ingestion: job.port, operatorStep: null, operatorWaitMs: 0 } },
  });
  aliases.aliases.set('kb', 'kb-v1');
  aliases.collections.set('kb-v1', { points: 100, vectors: VECTORS });
  const args = await callIngestionWebhook.plan(ctx, {});
  const prior = await callIngestionWebhook.capture(ctx, args);
  assert.deepEqual(prior, { alias_target: 'kb-v1' });
  await callIngestionWebhook.execute(ctx, args);
  aliases.aliases.set('kb', 'kb-v2'); // the job built kb-v2 and switched to it
  assert.equal(await callIngestionWebhook.undoBlocker!(ctx, args, prior), null);
  await callIngestionWebhook.undo(ctx, args, prior);
  assert.equal(aliases.aliases.get('kb'), 'kb-v1');
  aliases.collections.delete('kb-v1');
  assert.match((await callIngestionWebhook.undoBlocker!(ctx, args, prior))!, /no longer exists/);
});
