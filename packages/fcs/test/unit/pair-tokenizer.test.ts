import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { DEFAULT_TOKENIZER_PATH } from '../../src/fcs-model.ts';
import { PairTokenizer } from '../../src/pair-tokenizer.ts';

interface Fixture {
  text_a: string;
  text_b: string;
  ids: number[];
  type_ids: number[];
}

// Written by the Python recipe's own tokenizer (recipe/common.py get_tokenizer + pair_text): dev
// triples of every length, unicode, and over-long pairs that exercise longest-first truncation.
const fixtures = JSON.parse(readFileSync(new URL('../fixtures/tokenizer-parity.json', import.meta.url), 'utf8')) as Fixture[];

test('pairs encode to exactly the ids and token types the model was trained on', async () => {
  const tokenizer = await PairTokenizer.fromFile(DEFAULT_TOKENIZER_PATH);
  assert.ok(fixtures.length >= 30);
  for (const [i, f] of fixtures.entries()) {
    const encoded = tokenizer.encodePair(f.text_a, f.text_b, 256);
    assert.deepEqual(encoded.inputIds, f.ids, `fixture ${i}`);
    assert.deepEqual(encoded.tokenTypeIds, f.type_ids, `fixture ${i}`);
    assert.equal(encoded.truncated, f.ids.length === 256 && encoded.truncated, `fixture ${i}`);
  }
  assert.ok(
    fixtures.some((f) => f.ids.length === 256),
    'fixtures include truncated pairs',
  );
});
