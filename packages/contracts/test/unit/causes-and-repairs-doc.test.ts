/**
 * scripts/causes-and-repairs-doc.ts: the cause × repair page of the docs, rendered by codegen from the
 * contract's catalogue and the effector's policy.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { causesAndRepairsDoc } from '../../scripts/causes-and-repairs-doc.ts';
import { CAUSES, REPAIR_INTENTS, ROOT_CAUSES, avroDir } from '../../src/index.ts';

const policy = `
policy_version: '2.0.1'
branches:
  - id: drift
    when: { cause: [reranker_drift], min_confidence: 0.6 }
    actions:
      - { tool: pin_reranker_version, reason: 'pin the | baseline' }
      - { tool: set_query_rewrite_rules, params: { rule_set: fold-v1 }, reason: 'fold' }
  - id: catch-all
    when: {}
    actions:
      - { tool: escalate_to_human, reason: 'nothing else' }
`;
const inputs = {
  causes: ['reranker_drift', 'parser_bug', 'unknown'],
  catalogue: {
    reranker_drift: { component: 'reranker', intents: ['rollback_reranker'] },
    parser_bug: { component: 'parser', intents: ['reparse_documents'] },
  },
  intents: ['rollback_reranker', 'reparse_documents', 'escalate_to_human'],
  policyText: policy,
  policySource: 'policy.yaml',
};

test('each cause gets its component, catalogued intents and the policy tools in order', () => {
  const doc = causesAndRepairsDoc(inputs);
  assert.match(
    doc,
    /\| `reranker_drift` \| `reranker` \| `rollback_reranker` \| `drift` \| confidence ≥ 0.6 \| `pin_reranker_version` → `set_query_rewrite_rules` \|/,
  );
  assert.match(doc, /\| `parser_bug` \| `parser` \| `reparse_documents` \| — \| no branch names it/);
  assert.match(doc, /falls to\n`catch-all` \(any report: `escalate_to_human`\)/);
  assert.match(doc, /version 2\.0\.1/);
  // Steps keep their reasons and parameters; a pipe in a reason cannot break a table.
  assert.match(doc, /2\. `set_query_rewrite_rules` \(rule_set=fold-v1\): fold/);
  assert.match(doc, /1\. `pin_reranker_version`: pin the \| baseline/);
});

test('a policy branch naming a cause the catalogue lacks refuses to render, naming the branch', () => {
  assert.throws(
    () => causesAndRepairsDoc({ ...inputs, policyText: policy.replace('[reranker_drift]', '[reranker_drfit]') }),
    /branch drift names reranker_drfit, which is no RootCause symbol/,
  );
});

test('a catalogued intent the contract does not define refuses to render', () => {
  const catalogue = { ...inputs.catalogue, parser_bug: { component: 'parser', intents: ['reparse_everything'] } };
  assert.throws(() => causesAndRepairsDoc({ ...inputs, catalogue }), /parser_bug: unknown intent reparse_everything/);
});

test('a policy file without branches is refused', () => {
  assert.throws(() => causesAndRepairsDoc({ ...inputs, policyText: "policy_version: '1.0.0'\n" }), /policy\.yaml: expected policy_version/);
});

test('docs/causes-and-repairs.md is what codegen renders from avro/ and the effector policy today', () => {
  const root = join(avroDir, '..');
  const policySource = 'services/effector/policy/policy.v1.yaml';
  const expected = causesAndRepairsDoc({
    causes: ROOT_CAUSES,
    catalogue: CAUSES as unknown as Record<string, { component: string; intents: string[] }>,
    intents: REPAIR_INTENTS,
    policyText: readFileSync(join(root, policySource), 'utf8'),
    policySource,
  });
  assert.equal(readFileSync(join(root, 'docs', 'causes-and-repairs.md'), 'utf8'), expected, 'stale: run npm run codegen');
});
