/**
 * The catalogue of causes and repair intents (generated from avro/common/, npm run codegen) is
 * covered end to end: every cause has a detector that names its catalogued component and intents,
 * a branch of the shipped repair policy and an expert rule of memory's shipped rules; every intent
 * has a tool that carries it out. Adding a cause or an intent to the contract fails here until every
 * worker knows it (CONTRIBUTING.md has the checklist).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CAUSES, REPAIR_INTENTS, ROOT_CAUSES, type CatalogueCause } from '@rag-immune/contracts';
import { CATALOGUE, DEFAULT_POLICY_FILE, INTENT_TOOLS, TOOLS, loadPolicy } from '@rag-immune/effector';
import { DETECTORS } from '@rag-immune/identifier';
import { DEFAULT_RULES_FILE, ExpertRules } from '@rag-immune/memory';

const causes = ROOT_CAUSES.filter((c): c is CatalogueCause => c !== 'unknown');
const policy = loadPolicy(DEFAULT_POLICY_FILE);
const rules = ExpertRules.load(DEFAULT_RULES_FILE);

test('the catalogue has an entry for every named cause of the contract', () => {
  assert.deepEqual(Object.keys(CAUSES).sort(), [...causes].sort());
});

for (const cause of causes) {
  test(`${cause}: one detector, with the catalogue's component and intents`, () => {
    const detectors = DETECTORS.filter((d) => d.cause === cause);
    assert.equal(detectors.length, 1, `detectors for ${cause}`);
    assert.equal(detectors[0]!.component, CAUSES[cause].component);
    assert.deepEqual(detectors[0]!.intents, [...CAUSES[cause].intents]);
  });

  test(`${cause}: a policy branch that names it and plans a catalogued tool for one of its intents`, () => {
    const branches = policy.branches.filter((b) => b.when.cause?.includes(cause));
    assert.ok(branches.length > 0, `no branch of ${DEFAULT_POLICY_FILE} names ${cause}`);
    const planned = branches.flatMap((b) => b.actions.map((a) => CATALOGUE.named(a.tool)!));
    assert.ok(
      planned.some((tool) => CAUSES[cause].intents.includes(tool.intent)),
      `${cause}'s branches plan no tool for ${CAUSES[cause].intents.join(' or ')}`,
    );
  });

  test(`${cause}: an expert rule that answers it with one of its intents first`, () => {
    const rule = rules.file.rules.find((r) => r.when.root_cause?.includes(cause));
    assert.ok(rule, `no rule of ${DEFAULT_RULES_FILE} names ${cause}`);
    assert.ok(CAUSES[cause].intents.includes(rule.strategy[0]!.intent as never), `${rule.id} starts with ${rule.strategy[0]?.intent}`);
  });
}

test('every repair intent has a tool that carries it out; unknown goes to the terminal (escalation) tool', () => {
  for (const intent of REPAIR_INTENTS) {
    const tools = INTENT_TOOLS[intent];
    assert.ok(tools.length > 0, `no tool for ${intent}`);
    for (const name of tools) {
      const tool = CATALOGUE.named(name);
      assert.ok(tool, `${intent} → ${name}, which is not catalogued`);
      assert.equal(intent === 'unknown' ? tool.terminal : tool.intent, intent === 'unknown' ? true : intent);
    }
  }
  assert.deepEqual([...new Set(TOOLS.map((t) => t.intent))].sort(), REPAIR_INTENTS.filter((i) => i !== 'unknown').sort());
});
