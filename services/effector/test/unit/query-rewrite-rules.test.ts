import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RULE_SETS, toolNamed } from '../../src/index.ts';

test('the Unicode confusables rule set folds look-alike punctuation and drops invisible characters', () => {
  const rules = RULE_SETS['unicode-confusables-v1'] ?? [];
  const apply = (text: string) => rules.reduce((t, r) => t.replace(new RegExp(r.pattern, 'gu'), r.replacement), text);
  assert.equal(apply('What is the latest version of libc\u2010\u200Dbin?'), 'What is the latest version of libc-bin?');
  assert.equal(apply('python3\u2024\u200D11 and g\u2795\u2795'), 'python3.11 and g++');
  assert.equal(apply('plain ascii - . +'), 'plain ascii - . +');
  assert.ok(toolNamed('set_query_rewrite_rules'));
});
