import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RULE_SETS, toolNamed } from '../../../src/index.ts';
import { fakeContext } from '../support/fake-rag-client.ts';

test('the Unicode confusables rule set folds look-alike punctuation and drops invisible characters', () => {
  const rules = RULE_SETS['unicode-confusables-v1'] ?? [];
  const apply = (text: string) => rules.reduce((t, r) => t.replace(new RegExp(r.pattern, 'gu'), r.replacement), text);
  assert.equal(apply('What is the latest version of libc\u2010\u200Dbin?'), 'What is the latest version of libc-bin?');
  assert.equal(apply('python3\u2024\u200D11 and g\u2795\u2795'), 'python3.11 and g++');
  assert.equal(apply('plain ascii - . +'), 'plain ascii - . +');
  assert.ok(toolNamed('set_query_rewrite_rules'));
});

test('set_query_rewrite_rules adds the rule set to the rules in force, verifies them, and undo restores the rules before', async () => {
  const tool = toolNamed('set_query_rewrite_rules')!;
  const { ctx, rag } = fakeContext();
  await assert.rejects(tool.plan(ctx, { rule_set: 'no-such-set' }), /unknown rule set no-such-set/);
  const existing = { pattern: 'colour', replacement: 'color' };
  rag.rules = [existing, RULE_SETS['unicode-confusables-v1']![0]!];
  const args = await tool.plan(ctx, {});
  await tool.preconditions(ctx, args);
  const prior = await tool.capture(ctx, args);
  await tool.execute(ctx, args);
  assert.deepEqual(rag.rules, [existing, ...RULE_SETS['unicode-confusables-v1']!], 'kept, and each pattern once');
  assert.equal(await tool.verify(ctx, args), null);
  await tool.undo(ctx, args, prior);
  assert.deepEqual(rag.rules, [existing, RULE_SETS['unicode-confusables-v1']![0]!]);
  // A RAG that accepted the rules but does not apply them fails verification.
  rag.ignoreRepairs = true;
  await tool.execute(ctx, args);
  assert.equal(await tool.verify(ctx, args), '3 rules are not in force');
  rag.capabilitiesNow.repair_hooks = ['reindex'];
  await assert.rejects(tool.preconditions(ctx, args), /no query_rewrite_rules hook/);
});
