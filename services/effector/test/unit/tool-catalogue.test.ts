import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RULE_SETS, TOOLS } from '../../src/index.ts';

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
    switch_alias_back: {
      good: { alias: 'kb', from_collection: 'kb-v2', to_collection: 'kb-v1' },
      bad: { alias: 'kb', from_collection: 'kb-v2' },
    },
    rebuild_from_collection: {
      good: { alias: 'kb', rebuild_from: 'kb-baseline', source_collection: 'kb-baseline--1', target_collection: 'kb--1' },
      bad: { alias: 'kb', rebuild_from: 'kb-baseline', source_collection: '../x', target_collection: 'kb--1' },
    },
    restore_knowledge_from_collection: {
      good: {
        collection: 'kb',
        rebuild_from: 'kb-baseline',
        source_collection: 'kb-baseline--1',
        knowledge_ids: ['apt/curl'],
        source_points: 3,
        max_points: 2000,
      },
      bad: {
        collection: 'kb',
        rebuild_from: 'kb-baseline',
        source_collection: 'kb-baseline--1',
        knowledge_ids: [],
        source_points: 3,
        max_points: 2000,
      },
    },
    call_ingestion_webhook: { good: { knowledge_ids: ['apt/curl'], sources: [] }, bad: { knowledge_ids: [], sources: [] } },
    recommend_operator_step: {
      good: { operator_step: 're-ingest apt/curl', knowledge_ids: ['apt/curl'], wait_seconds: 240 },
      bad: { operator_step: '', knowledge_ids: [], wait_seconds: 240 },
    },
    recommend_generation_rollback: {
      good: { generation_step: 'redeploy the route with its previous RAG_PROMPT', wait_seconds: 240 },
      bad: { generation_step: 'redeploy', wait_seconds: 240, knowledge_ids: [] },
    },
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
    'call_ingestion_webhook',
    'recommend_operator_step',
    'refresh_knowledge_source',
    'reindex_knowledge',
    'reparse_documents',
    'restore_collection_snapshot',
    'restore_knowledge_from_collection',
    'switch_to_backup_source',
  ]);
  assert.deepEqual(
    TOOLS.filter((t) => !t.reversible).map((t) => t.name),
    ['refresh_knowledge_source'],
  );
});
