import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { DEFAULT_MODEL_PATH, DEFAULT_TOKENIZER_PATH, FcsModel } from '../../src/fcs-model.ts';
import { FactConsistencyScorer } from '../../src/fcs-scorer.ts';
import { PairTokenizer } from '../../src/pair-tokenizer.ts';

// Model-backed tests: they run whenever the exported model exists (FCS_MODEL_PATH overrides the
// committed models/fcs/model.int8.onnx) and are skipped, saying why, before the model is exported.
const modelPath = process.env.FCS_MODEL_PATH ?? DEFAULT_MODEL_PATH;
const skip = existsSync(modelPath) ? false : `no FCS model at ${modelPath} (export it with models/fcs/recipe/export.py)`;

interface Row {
  question: string;
  evidence: string[];
  answer: string;
  label: number;
  kind: string;
}
const testRows = (): Row[] =>
  readFileSync(new URL('../../../../models/fcs/data/test.jsonl', import.meta.url), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Row);

test(
  'the INT8 model loads, reports its execution provider and gives probabilities independent of batching',
  { skip, timeout: 60_000 },
  async () => {
    const model = await FcsModel.load({ modelPath });
    const tokenizer = await PairTokenizer.fromFile(DEFAULT_TOKENIZER_PATH);
    assert.ok(['cpu', 'cuda'].includes(model.executionProvider));
    const pairs = testRows()
      .slice(0, 4)
      .map((r) => tokenizer.encodePair(`${r.question} ${r.answer}`, r.evidence.join(' '), 256));
    const batched = await model.predict(pairs);
    for (const [i, pair] of pairs.entries()) {
      const [alone] = await model.predict([pair]);
      assert.ok(alone! >= 0 && alone! <= 1);
      // Padding in a batch must not change a row's result (INT8 quantises activations per batch, hence the tolerance).
      assert.ok(Math.abs(alone! - batched[i]!) < 1e-2, `row ${i}: ${alone} vs ${batched[i]}`);
    }
    await model.close();
  },
);

test('the model ranks copied answers above answers from the wrong passage', { skip, timeout: 120_000 }, async () => {
  const model = await FcsModel.load({ modelPath });
  const tokenizer = await PairTokenizer.fromFile(DEFAULT_TOKENIZER_PATH);
  const rows = testRows();
  const pick = (kind: string): Row[] => rows.filter((r) => r.kind === kind).slice(0, 12);
  const probabilities = async (rs: Row[]): Promise<number[]> =>
    model.predict(rs.map((r) => tokenizer.encodePair(`${r.question} ${r.answer}`, r.evidence.join(' '), 256)));
  const good = await probabilities(pick('copy'));
  const bad = await probabilities(pick('wrong_passage'));
  let ordered = 0;
  for (const g of good) for (const b of bad) ordered += g > b ? 1 : 0;
  const auc = ordered / (good.length * bad.length);
  assert.ok(auc >= 0.8, `AUC copy vs wrong_passage ${auc.toFixed(3)}`);
  await model.close();
});

test('the combined scorer labels known consistent and inconsistent triples correctly', { skip, timeout: 120_000 }, async () => {
  const scorer = await FactConsistencyScorer.load({ modelPath, cache: false, scorerVersion: 'v1' });
  const evidence = [
    'xcb-util (0.3.3-2) was uploaded to unstable with low urgency by Julien Danjou on 15 February 2009. Changes: Add versioned link to GPL.',
    'Palapeli is a single-player jigsaw puzzle game. Unlike other games in that genre, you are not limited to aligning pieces on imaginary grids.',
  ];
  const cases: [string, string, 'consistent' | 'inconsistent'][] = [
    ['Who uploaded xcb-util 0.3.3-2?', 'Julien Danjou uploaded xcb-util 0.3.3-2.', 'consistent'],
    ['When was xcb-util 0.3.3-2 uploaded?', 'Version 0.3.3-2 of xcb-util was uploaded to unstable on 15 February 2009.', 'consistent'],
    ['When was xcb-util 0.3.3-2 uploaded?', 'Version 0.3.3-2 of xcb-util was uploaded to unstable on 15 February 2019.', 'inconsistent'],
    ['Which version of xcb-util was uploaded?', 'Version 0.3.4-2 of xcb-util was uploaded to unstable.', 'inconsistent'],
    ['What does Palapeli do?', 'Unlike other games in that genre, you are limited to aligning pieces on imaginary grids.', 'inconsistent'],
  ];
  const results = await scorer.scoreMany(cases.map(([question, answer]) => ({ question, evidence, answer })));
  assert.deepEqual(
    results.map((r) => r.label),
    cases.map(([, , label]) => label),
    JSON.stringify(results.map((r) => [r.score, r.model_probability])),
  );
  assert.ok(results[0]!.evidence_snippets.some((s) => s.stance === 'supports' && s.text.includes('Julien Danjou')));
});

test(
  'v2 with the fitted combination: a bare answer judged with its question, an unsupported sentence found',
  { skip, timeout: 120_000 },
  async () => {
    const scorer = await FactConsistencyScorer.load({ modelPath, cache: false, scorerVersion: 'v2', logger: false });
    const evidence = 'John Smith was born in Ljubljana, Slovenia, in 1950. He later moved to Vienna.';
    const [bare, added] = await scorer.scoreMany([
      { question: 'Where was John Smith born?', evidence, answer: 'Slovenia.' },
      { question: '', evidence, answer: 'John Smith was born in Slovenia. He moved to Paris in 1980.' },
    ]);
    assert.equal(bare!.label, 'consistent', JSON.stringify(bare));
    assert.equal(bare!.question_missing, false);
    assert.equal(added!.label, 'inconsistent', JSON.stringify(added));
    assert.equal(added!.question_missing, true);
    // The weakest claim is the added one, and its snippet says so.
    assert.equal(added!.evidence_snippets[0]!.claim_index, 1);
    assert.equal(added!.evidence_snippets[0]!.stance, 'contradicts');
  },
);
