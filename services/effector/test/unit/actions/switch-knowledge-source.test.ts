import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toolNamed } from '../../../src/index.ts';
import { fakeContext } from '../support/fake-rag-client.ts';

test('undoing a backup switch leaves a source on the backup it was on before the switch', async () => {
  const tool = toolNamed('switch_to_backup_source')!;
  const calls: string[] = [];
  const ctx = {
    online: {
      knowledgeSource: async (request: { action: string; source: string }) => {
        calls.push(`${request.action} ${request.source}`);
        return { hook: 'knowledge_source', applied_at: new Date().toISOString(), changed: 0 };
      },
    },
    timeoutMs: 1000,
  } as never;
  const args = { sources: ['debian-changelog', 'apt-metadata'] };
  // debian-changelog was already on its backup (an earlier incident's repair); apt-metadata was on primary.
  const prior = { feeds: { 'debian-changelog': 'backup', 'apt-metadata': 'primary' } };
  await tool.undo(ctx, args, prior);
  assert.deepEqual(calls, ['switch_to_primary apt-metadata']);
  assert.match(tool.describeUndo(args, prior).join('; '), /debian-changelog left on the backup feed/);
  // A RAG that does not report its feeds: every source goes back to primary, as before.
  calls.length = 0;
  await tool.undo(ctx, args, { feeds: {} });
  assert.deepEqual(calls, ['switch_to_primary debian-changelog', 'switch_to_primary apt-metadata']);
});

test('switching to backup: each owning source is switched, the feeds before are captured, and undo after it puts them back', async () => {
  const { ctx, rag } = fakeContext({ report: { affected_knowledge_ids: ['changelog/curl'] } });
  const tool = toolNamed('switch_to_backup_source')!;
  const args = await tool.plan(ctx, {});
  assert.deepEqual(args, { sources: ['debian-changelog'] });
  await tool.preconditions(ctx, args);
  const prior = await tool.capture(ctx, args);
  await tool.execute(ctx, args);
  assert.equal(rag.capabilitiesNow.active_versions?.knowledge_sources?.['debian-changelog'], 'backup');
  assert.equal(rag.capabilitiesNow.active_versions?.knowledge_sources?.['apt-metadata'], 'primary', 'a source not in scope is left alone');
  await tool.undo(ctx, args, prior);
  assert.equal(rag.capabilitiesNow.active_versions?.knowledge_sources?.['debian-changelog'], 'primary');
  assert.deepEqual(
    rag.repairs.map((c) => c.request),
    [
      { action: 'switch_to_backup', source: 'debian-changelog' },
      { action: 'switch_to_primary', source: 'debian-changelog' },
    ],
  );
});
