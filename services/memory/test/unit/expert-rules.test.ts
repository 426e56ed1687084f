import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT_CAUSES } from '@rag-immune/contracts';
import { RecommendRequest } from '@rag-immune/memory-client';
import { DEFAULT_RULES_FILE } from '../../src/config.ts';
import { ExpertRules, RulesFileError } from '../../src/recommend/expert-rules.ts';

const dir = mkdtempSync(join(tmpdir(), 'memory-rules-'));
const write = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const request = (fields: Partial<RecommendRequest>) =>
  RecommendRequest.parse({ incident_id: 'inc', root_cause: 'reranker_drift', affected_component: 'reranker', ...fields });

test('the shipped rules file is valid and covers every known cause', () => {
  const rules = ExpertRules.load(DEFAULT_RULES_FILE);
  assert.equal(rules.version, 'rules.v1.1');
  for (const cause of ROOT_CAUSES.filter((c) => c !== 'unknown')) {
    const decision = rules.decide(request({ root_cause: cause }));
    assert.notEqual(decision.rule_id, 'fallback', cause);
    assert.notEqual(decision.strategy[0]?.intent, 'escalate_to_human', cause);
  }
  assert.equal(rules.decide(request({ root_cause: 'unknown', affected_component: 'unknown' })).strategy[0]?.intent, 'escalate_to_human');
});

test('a missing, non-JSON or off-schema file is refused naming the path and the problem', () => {
  const missing = join(dir, 'absent.json');
  assert.throws(
    () => ExpertRules.load(missing),
    (e: unknown) => e instanceof RulesFileError && e.message.includes(missing) && /cannot read/.test(e.message),
  );
  const notJson = write('bad.json', '{ "version": ');
  assert.throws(
    () => ExpertRules.load(notJson),
    (e: unknown) => e instanceof RulesFileError && e.path === notJson && /not JSON/.test(e.message),
  );
  const badIntent = write(
    'intent.json',
    JSON.stringify({
      version: 'rules.v2',
      description: 'x',
      rules: [{ id: 'r', why: 'w', when: {}, strategy: [{ intent: 'reboot_everything', tool: null }], confidence: 0.5 }],
      fallback: { strategy: [{ intent: 'escalate_to_human', tool: null }], confidence: 0.1, why: 'w' },
    }),
  );
  assert.throws(
    () => ExpertRules.load(badIntent),
    (e: unknown) => e instanceof RulesFileError && /rules\.0\.strategy\.0\.intent/.test(e.message),
  );
  const badVersion = write('version.json', JSON.stringify({ version: '1', description: 'x', rules: [], fallback: {} }));
  assert.throws(
    () => ExpertRules.load(badVersion),
    (e: unknown) => e instanceof RulesFileError && /version/.test(e.message) && /rules/.test(e.message),
  );
});

test('duplicate rule ids are refused', () => {
  const rule = { id: 'same', why: 'w', when: {}, strategy: [{ intent: 'rollback_reranker', tool: null }], confidence: 0.5 };
  const file = {
    version: 'rules.v3',
    description: 'x',
    rules: [rule, rule],
    fallback: { strategy: [{ intent: 'escalate_to_human' }], confidence: 0.1, why: 'w' },
  };
  assert.throws(() => ExpertRules.fromJson('mem.json', file), /duplicate rule id same/);
});

test('first match wins; claim and scope conditions; excluded intents skip to the next rule', () => {
  const rules = ExpertRules.fromJson('inline.json', {
    version: 'rules.v9',
    description: 'test',
    rules: [
      {
        id: 'stale-wide',
        why: 'w',
        when: { root_cause: ['knowledge_source_failure'], claims: [{ metric: 'kf_age_days', min_observed: 30 }], min_knowledge_ids: 5 },
        strategy: [{ intent: 'refresh_knowledge_source', tool: 'refresh' }],
        confidence: 0.7,
      },
      {
        id: 'source',
        why: 'w',
        when: { root_cause: ['knowledge_source_failure'] },
        strategy: [{ intent: 'switch_backup_source', tool: null }],
        confidence: 0.5,
      },
    ],
    fallback: { strategy: [{ intent: 'escalate_to_human', tool: null }], confidence: 0.1, why: 'w' },
  });
  const ids = ['a', 'b', 'c', 'd', 'e'];
  const stale = [{ kind: 'knowledge_staleness', metric: 'kf_age_days', observed: 45, baseline: 2 }];
  assert.equal(
    rules.decide(request({ root_cause: 'knowledge_source_failure', claims: stale, affected_knowledge_ids: ids })).rule_id,
    'stale-wide',
  );
  assert.equal(
    rules.decide(request({ root_cause: 'knowledge_source_failure', claims: stale, affected_knowledge_ids: ['a'] })).rule_id,
    'source',
  );
  assert.equal(
    rules.decide(
      request({
        root_cause: 'knowledge_source_failure',
        claims: stale,
        affected_knowledge_ids: ids,
        exclude_intents: ['refresh_knowledge_source'],
      }),
    ).rule_id,
    'source',
  );
  const exhausted = rules.decide(
    request({ root_cause: 'knowledge_source_failure', exclude_intents: ['switch_backup_source', 'escalate_to_human'] }),
  );
  assert.equal(exhausted.rule_id, 'fallback');
  assert.deepEqual(exhausted.strategy, [{ intent: 'escalate_to_human', tool: null }]);
});
