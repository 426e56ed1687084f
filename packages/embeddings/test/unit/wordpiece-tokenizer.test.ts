import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { DEFAULT_TOKENIZER_PATH, MAX_SEQUENCE_LENGTH, TokenizerInputError, WordPieceTokenizer } from '../../src/index.ts';
import type { TruncationStrategy } from '../../src/index.ts';

interface PairCase {
  first: string;
  second: string;
  maxLength: number;
  truncation: TruncationStrategy;
  inputIds?: number[];
  tokenTypeIds?: number[];
  error?: string;
}
interface ReferenceItem {
  text: string;
  input_ids: number[];
}

const readJson = async <T>(url: URL): Promise<T> => JSON.parse(await readFile(url, 'utf8')) as T;
const tokenizer = await WordPieceTokenizer.fromFile(DEFAULT_TOKENIZER_PATH, { maxLength: MAX_SEQUENCE_LENGTH });

test('single texts tokenise exactly as sentence-transformers (accents, CJK, emoji, literal [SEP], 256-token cut)', async () => {
  const reference = await readJson<{ items: ReferenceItem[] }>(
    new URL('../../../../models/embedder/reference-embeddings.json', import.meta.url),
  );
  for (const item of reference.items) {
    assert.deepEqual(tokenizer.encode(item.text).inputIds, item.input_ids, item.text.slice(0, 60));
  }
  const long = reference.items.find((item) => item.input_ids.length === MAX_SEQUENCE_LENGTH);
  assert.ok(long, 'the reference set includes a text cut at 256 tokens');
  assert.equal(tokenizer.encode(long.text).truncated, true);
});

test('pairs: ids, token types and truncation match HF tokenizers (Rust) for longest_first, only_first, only_second', async () => {
  const { cases } = await readJson<{ cases: PairCase[] }>(new URL('../fixtures/pair-tokenization.json', import.meta.url));
  assert.ok(cases.length > 100);
  for (const c of cases) {
    const label = `${c.truncation} max ${c.maxLength}: ${c.first.slice(0, 30)} | ${c.second.slice(0, 30)}`;
    const run = () => tokenizer.encode([c.first, c.second], { maxLength: c.maxLength, truncation: c.truncation });
    if (c.error !== undefined) {
      assert.throws(run, TokenizerInputError, label);
      continue;
    }
    const encoding = run();
    assert.deepEqual(encoding.inputIds, c.inputIds, label);
    assert.deepEqual(encoding.tokenTypeIds, c.tokenTypeIds, label);
  }
});

test('a pair is [CLS] A [SEP] B [SEP] with token types 0 then 1, and padding is [PAD] with mask 0', () => {
  const batch = tokenizer.encodeBatch([['is it hot?', 'the coffee is hot.'], 'short'], { maxLength: 64 });
  const [pair, single] = batch.encodings;
  assert.ok(pair && single);
  assert.equal(pair.inputIds[0], tokenizer.clsId);
  assert.equal(pair.inputIds.filter((id) => id === tokenizer.sepId).length, 2);
  const firstSep = pair.inputIds.indexOf(tokenizer.sepId);
  assert.ok(pair.tokenTypeIds.slice(0, firstSep + 1).every((t) => t === 0));
  assert.ok(pair.tokenTypeIds.slice(firstSep + 1).every((t) => t === 1));
  assert.equal(batch.sequenceLength, pair.inputIds.length);
  const row = batch.sequenceLength; // second row starts here
  assert.equal(batch.inputIds[row + single.inputIds.length], BigInt(tokenizer.padId));
  assert.equal(batch.attentionMask[row + single.inputIds.length], 0n);
  assert.equal(batch.attentionMask[row + single.inputIds.length - 1], 1n);
});

test('truncation to maxLength keeps [CLS] and [SEP] and flags the cut', () => {
  const encoding = tokenizer.encode('word '.repeat(50), { maxLength: 10 });
  assert.equal(encoding.inputIds.length, 10);
  assert.equal(encoding.inputIds[0], tokenizer.clsId);
  assert.equal(encoding.inputIds[9], tokenizer.sepId);
  assert.equal(encoding.truncated, true);
  assert.equal(tokenizer.encode('word', { maxLength: 10 }).truncated, false);
});

test('an empty batch or a non-WordPiece tokenizer.json is refused with a clear error', () => {
  assert.throws(() => tokenizer.encodeBatch([]), /at least one input/);
  assert.throws(() => WordPieceTokenizer.fromJSON({ model: { type: 'BPE' } }), /expected a WordPiece tokenizer\.json/);
});
