import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Document } from '@langchain/core/documents';
import { PROMPTS, STOP_SEQUENCES, cutAtStop, formatContext } from '../../src/prompt.ts';

test('the answer is cut at the first stop sequence, whichever it is', () => {
  assert.equal(cutAtStop(' The latest version of acl is 2.3.1-3.\nQuestion: Who uploaded it?'), 'The latest version of acl is 2.3.1-3.');
  assert.equal(cutAtStop('acl 2.3.1-3. Question: what else?'), 'acl 2.3.1-3.');
  assert.equal(cutAtStop('acl 2.3.1-3.\n\nContext: Package: acl'), 'acl 2.3.1-3.');
  assert.equal(cutAtStop('acl 2.3.1-3<end_of_turn>'), 'acl 2.3.1-3');
});

test('leading blank lines do not cut the answer to nothing', () => {
  assert.equal(cutAtStop('\n\n  The latest version of acl is 2.3.1-3.\n'), 'The latest version of acl is 2.3.1-3.');
  assert.equal(cutAtStop('\n\n'), '');
});

test('an answer without a stop sequence is kept whole (trimmed)', () => {
  assert.equal(cutAtStop('The latest version of acl is 2.3.1-3. '), 'The latest version of acl is 2.3.1-3.');
});

test('extra stop sequences given by the caller count too', () => {
  assert.equal(cutAtStop('acl 2.3.1-3 ### more', [...STOP_SEQUENCES, '###']), 'acl 2.3.1-3');
});

test('the prompt ends where the answer starts, with the context one chunk per line', async () => {
  const context = formatContext([
    new Document({ pageContent: 'Package: acl | Version: 2.3.1-3' }),
    new Document({ pageContent: 'Package: acl |\n Version: 2.3.1-2' }),
  ]);
  assert.equal(context, 'Package: acl | Version: 2.3.1-3\nPackage: acl | Version: 2.3.1-2');
  const prompt = await PROMPTS['few-shot-v1'].format({ context, question: 'What is the latest version of acl?' });
  assert.ok(prompt.startsWith('Answer the question using only the context.'));
  assert.ok(prompt.endsWith(`Context: ${context}\nQuestion: What is the latest version of acl?\nAnswer:`));
});

test('the regressed prompts have the context and the question but none of the worked examples', async () => {
  const values = { context: 'Package: acl | Version: 2.3.1-3', question: 'What is the latest version of acl?' };
  assert.ok((await PROMPTS['few-shot-v1'].format(values)).includes('curl'));
  const instruct = await PROMPTS['instruct-v2'].format(values);
  assert.ok(instruct.includes('### Context\nPackage: acl | Version: 2.3.1-3\n'));
  // The answer cue is a heading line of its own: the model's first token is the newline a stop sequence cuts.
  assert.ok(instruct.endsWith('### Question\nWhat is the latest version of acl?\n\n### Answer'));
  const zeroShot = await PROMPTS['zero-shot-v2'].format(values);
  assert.ok(zeroShot.endsWith('Context: Package: acl | Version: 2.3.1-3\nQuestion: What is the latest version of acl?\nAnswer:'));
  for (const prompt of [instruct, zeroShot]) assert.ok(!prompt.includes('curl'), 'no worked example');
});
