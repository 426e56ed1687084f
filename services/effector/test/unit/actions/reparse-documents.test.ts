import { test } from 'node:test';
import assert from 'node:assert/strict';
import { reparseDocuments } from '../../../src/actions/reparse-documents.ts';
import { PreconditionError } from '../../../src/actions/repair-tool.ts';
import { fakeContext } from '../support/fake-rag-client.ts';

test('reparse_documents plans the baseline’s parser build for the report’s knowledge ids', async () => {
  const { ctx, baseline } = fakeContext();
  assert.deepEqual(await reparseDocuments.plan(ctx, {}), {
    parser_version: 'deb822-chunker-1.0',
    knowledge_ids: ['changelog/curl', 'apt/curl'],
  });
  assert.equal((await reparseDocuments.plan(ctx, { parser_version: 'x-1' })).parser_version, 'x-1');
  baseline.capabilitiesNow.active_versions = {};
  await assert.rejects(reparseDocuments.plan(ctx, {}), /baseline does not say which parser/);
  const unscoped = fakeContext({ report: { affected_knowledge_ids: [] } });
  await assert.rejects(reparseDocuments.plan(unscoped.ctx, {}), PreconditionError);
});

test('reparse_documents refuses a RAG without the parser hook or without the planned build', async () => {
  const { ctx, rag } = fakeContext();
  const args = { parser_version: 'deb822-chunker-9.9', knowledge_ids: ['apt/curl'] };
  await assert.rejects(reparseDocuments.preconditions(ctx, args), /no parser build deb822-chunker-9\.9/);
  rag.capabilitiesNow.repair_hooks = ['reindex'];
  await assert.rejects(reparseDocuments.preconditions(ctx, { ...args, parser_version: 'deb822-chunker-1.0' }), /no parser hook/);
});

test('reparse_documents pins and re-parses the scoped knowledge; verify reads the pin; undo pins the build before back', async () => {
  const { ctx, rag } = fakeContext({ ctx: { idempotencyKey: 'act-3' } });
  const args = await reparseDocuments.plan(ctx, {});
  await reparseDocuments.preconditions(ctx, args);
  const prior = await reparseDocuments.capture(ctx, args);
  assert.deepEqual(prior, { parser_version: 'deb822-chunker-1.0+merge-sections' });
  await reparseDocuments.execute(ctx, args);
  assert.equal(await reparseDocuments.verify(ctx, args), null);
  await reparseDocuments.undo(ctx, args, prior);
  assert.deepEqual(
    rag.repairs.map((c) => c.request),
    [
      { version: 'deb822-chunker-1.0', knowledge_ids: ['changelog/curl', 'apt/curl'] },
      // Only the pin: the re-parsed chunks come back with the snapshot.
      { version: 'deb822-chunker-1.0+merge-sections' },
    ],
  );
  assert.deepEqual(rag.repairs[0]!.options?.headers, { 'idempotency-key': 'act-3' });
  assert.equal(reparseDocuments.touchesQdrant, true);
});

test('reparse_documents: a RAG still on another parser build after the repair fails verification', async () => {
  const { ctx, rag } = fakeContext();
  rag.ignoreRepairs = true;
  const args = await reparseDocuments.plan(ctx, {});
  await reparseDocuments.execute(ctx, args);
  assert.equal(await reparseDocuments.verify(ctx, args), 'parser is deb822-chunker-1.0+merge-sections, not deb822-chunker-1.0');
});
