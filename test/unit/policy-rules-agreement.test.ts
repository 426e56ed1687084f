/**
 * Cause → repair has one home, the effector's repair policy (services/effector/policy/policy.v1.yaml).
 * Memory's expert rules (services/memory/rules/rules.v1.json) answer in repair intents when no past
 * case is similar, and must say what the policy does: this test fails when they disagree. Each
 * cause's unconditional rule is derived from the policy by `npm run codegen` (scripts/codegen-catalogues.ts,
 * a root script: memory may not read the effector, and the tool → intent map lives in the effector's
 * code); the rules refined by claims or scope, and each rule's confidence, stay the file's own.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ROOT_CAUSES, type CatalogueCause, type RepairIntent } from '@rag-immune/contracts';
import { CATALOGUE, DEFAULT_POLICY_FILE, loadPolicy } from '@rag-immune/effector';
import { DEFAULT_RULES_FILE, ExpertRules } from '@rag-immune/memory';

const policy = loadPolicy(DEFAULT_POLICY_FILE);
const rules = ExpertRules.load(DEFAULT_RULES_FILE);
const causes = ROOT_CAUSES.filter((c): c is CatalogueCause => c !== 'unknown');

/** The intents a policy branch plans, in the order it first tries each. */
function branchIntents(branch: (typeof policy.branches)[number]): RepairIntent[] {
  return [...new Set(branch.actions.map((action) => CATALOGUE.named(action.tool)!.intent))];
}

for (const cause of causes) {
  test(`${cause}: memory's expert rule answers with the intents the policy plans, in its order`, () => {
    // The first branch naming the cause is the one a report that names knowledge meets first.
    const branch = policy.branches.find((b) => b.when.cause?.includes(cause));
    assert.ok(branch, `no branch of ${DEFAULT_POLICY_FILE} names ${cause}`);
    const general = rules.file.rules.find(
      (r) =>
        r.when.root_cause?.includes(cause) &&
        r.when.claims.length === 0 &&
        r.when.min_knowledge_ids === undefined &&
        r.when.max_knowledge_ids === undefined,
    );
    assert.ok(general, `no unconditional rule of ${DEFAULT_RULES_FILE} names ${cause}`);
    assert.deepEqual(
      general.strategy.map((step) => step.intent),
      branchIntents(branch),
      `rule ${general.id} vs policy branch ${branch.id}`,
    );
  });
}

test('a rule refined by claims or scope recommends only intents some policy branch of its causes plans', () => {
  for (const rule of rules.file.rules) {
    const planned = new Set(
      policy.branches.filter((b) => b.when.cause?.some((c) => rule.when.root_cause?.includes(c))).flatMap(branchIntents),
    );
    for (const step of rule.strategy)
      assert.ok(planned.has(step.intent), `rule ${rule.id} recommends ${step.intent}, which no branch plans`);
  }
});
