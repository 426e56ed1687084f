import { test } from 'node:test';
import assert from 'node:assert/strict';
import { breakerVerdict, effectiveStatus, RULE_SETS, TOOLS, toolNamed, type GrantDoc } from '../../src/index.ts';

const limits = { maxFailedRepairs: 3, componentRateLimit: 5, componentRateWindowMs: 600_000 };

test('breaker: closed below the limits, open at 3 failed repairs, open at the component rate limit', () => {
  assert.deepEqual(breakerVerdict({ failedRepairs: 2, componentStartsInWindow: 4 }, limits, 'reranker'), { open: false });
  const failed = breakerVerdict({ failedRepairs: 3, componentStartsInWindow: 0 }, limits, 'reranker');
  assert.equal(failed.open && failed.reason, 'failed_repairs');
  const rate = breakerVerdict({ failedRepairs: 0, componentStartsInWindow: 5 }, limits, 'reranker');
  assert.equal(rate.open && rate.reason, 'component_rate_limit');
  assert.match(rate.open ? rate.message : '', /5 repairs of reranker in the last 600 s/);
});

const grant = (patch: Partial<GrantDoc>): GrantDoc => ({
  key: 'inc:r1:refresh_knowledge_source',
  action_id: 'a',
  incident_id: 'inc',
  tool: 'refresh_knowledge_source',
  reversible: false,
  status: 'pending',
  requested_at: '2026-11-30T10:00:00.000Z',
  expires_at: '2026-11-30T10:15:00.000Z',
  decided_by: null,
  decided_at: null,
  note: null,
  ...patch,
});

test('grants expire: a pending request or an approval past its expiry reads as expired; a denial stays denied', () => {
  const before = new Date('2026-11-30T10:14:59.000Z');
  const after = new Date('2026-11-30T10:15:00.000Z');
  assert.equal(effectiveStatus(grant({}), before), 'pending');
  assert.equal(effectiveStatus(grant({}), after), 'expired');
  assert.equal(effectiveStatus(grant({ status: 'approved' }), before), 'approved');
  assert.equal(effectiveStatus(grant({ status: 'approved' }), after), 'expired');
  assert.equal(effectiveStatus(grant({ status: 'denied' }), after), 'denied');
});

test('tool input schemas accept what the tools plan and refuse malformed arguments', () => {
  const cases: Record<string, { good: unknown; bad: unknown }> = {
    reindex_knowledge: { good: { knowledge_ids: ['apt/curl'] }, bad: { knowledge_ids: [] } },
    reindex_into_new_collection: {
      good: { alias: 'rag', target_collection: 'rag--20261202t061111123z-ab12', knowledge_ids: ['apt/curl'] },
      bad: { alias: 'rag', target_collection: '../etc', knowledge_ids: ['apt/curl'] },
    },
    pin_reranker_version: { good: { version: 'v2.1' }, bad: { version: '' } },
    pin_generator_version: { good: { version: 'extractive-template-1.0' }, bad: { version: 1 } },
    reparse_documents: { good: { parser_version: 'deb822-chunker-1.0', knowledge_ids: ['apt/curl'] }, bad: { parser_version: 'x' } },
    switch_to_backup_source: { good: { sources: ['debian-changelog'] }, bad: { sources: [], extra: 1 } },
    refresh_knowledge_source: { good: { sources: ['apt-metadata'] }, bad: {} },
    enable_answer_validation: { good: { enabled: true }, bad: { enabled: false } },
    set_query_rewrite_rules: {
      good: { rule_set: 'unicode-confusables-v1', rules: RULE_SETS['unicode-confusables-v1'] },
      bad: { rule_set: 'x', rules: [{ pattern: '' }] },
    },
    restore_collection_snapshot: { good: { collection: 'c', snapshot_id: 's.snapshot' }, bad: { collection: 'c' } },
    escalate_to_human: { good: { reason: 'r' }, bad: { reason: '' } },
  };
  for (const tool of TOOLS) {
    const c = cases[tool.name];
    assert.ok(c, `test case for ${tool.name}`);
    assert.equal(tool.input.safeParse(c.good).success, true, `${tool.name} accepts ${JSON.stringify(c.good)}`);
    assert.equal(tool.input.safeParse(c.bad).success, false, `${tool.name} refuses ${JSON.stringify(c.bad)}`);
  }
});

test('tools that write to Qdrant are snapshotted first; refresh is the irreversible one', () => {
  const qdrant = TOOLS.filter((t) => t.touchesQdrant)
    .map((t) => t.name)
    .sort();
  assert.deepEqual(qdrant, [
    'refresh_knowledge_source',
    'reindex_knowledge',
    'reparse_documents',
    'restore_collection_snapshot',
    'switch_to_backup_source',
  ]);
  assert.deepEqual(
    TOOLS.filter((t) => !t.reversible).map((t) => t.name),
    ['refresh_knowledge_source'],
  );
});

test('the Unicode confusables rule set folds look-alike punctuation and drops invisible characters', () => {
  const rules = RULE_SETS['unicode-confusables-v1'] ?? [];
  const apply = (text: string) => rules.reduce((t, r) => t.replace(new RegExp(r.pattern, 'gu'), r.replacement), text);
  assert.equal(apply('What is the latest version of libc\u2010\u200Dbin?'), 'What is the latest version of libc-bin?');
  assert.equal(apply('python3\u2024\u200D11 and g\u2795\u2795'), 'python3.11 and g++');
  assert.equal(apply('plain ascii - . +'), 'plain ascii - . +');
  assert.ok(toolNamed('set_query_rewrite_rules'));
});

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
