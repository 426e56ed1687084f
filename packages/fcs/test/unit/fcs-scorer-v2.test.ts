import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  combineV2,
  DEFAULT_CHUNKS_PER_CLAIM,
  FALLBACK_V2_COMBINATION,
  lexicalFeatures,
  loadV2Combination,
  splitClaims,
  unreadKeyFacts,
} from '../../src/claim-scoring.ts';
import type { V2Combination } from '../../src/claim-scoring.ts';
import type { ConsistencyModel } from '../../src/fcs-model.ts';
import { DEFAULT_TOKENIZER_PATH } from '../../src/fcs-model.ts';
import { FactConsistencyScorer } from '../../src/fcs-scorer.ts';
import type { EncodedPair } from '../../src/pair-tokenizer.ts';
import { PairTokenizer } from '../../src/pair-tokenizer.ts';

const tokenizer = await PairTokenizer.fromFile(DEFAULT_TOKENIZER_PATH);
const SEP = tokenizer.ids('[SEP]')[0]!;

/**
 * Stand-in model: a pair is "consistent" (0.95) when a marker word of the claim side also occurs on
 * the evidence side, else 0.05; records how many pairs it saw and whether the question was in them.
 */
class MarkerModel implements ConsistencyModel {
  readonly executionProvider = 'fake';
  pairs: EncodedPair[] = [];
  constructor(private readonly markers: string[]) {}
  async predict(pairs: readonly EncodedPair[]): Promise<number[]> {
    this.pairs.push(...pairs);
    return pairs.map((pair) => {
      const sep = pair.inputIds.indexOf(SEP);
      const a = pair.inputIds.slice(1, sep);
      const b = new Set(pair.inputIds.slice(sep + 1));
      const hit = this.markers.some((m) => {
        const ids = tokenizer.ids(m);
        return ids.every((id) => a.includes(id)) && ids.every((id) => b.has(id));
      });
      return hit ? 0.95 : 0.05;
    });
  }
}

const scorer = (
  model: ConsistencyModel,
  extra: Partial<ConstructorParameters<typeof FactConsistencyScorer>[0]> = {},
): FactConsistencyScorer =>
  new FactConsistencyScorer({ model, tokenizer, cache: false, scorerVersion: 'v2', combination: FALLBACK_V2_COMBINATION, ...extra });

const PALAPELI = 'Palapeli is a single-player jigsaw puzzle game. The pieces are freely moveable.';
const KICAD = 'KiCad is a suite of programs for the creation of printed circuit boards. It includes a schematic editor.';

test('splitClaims: sentences become claims; short fragments join their neighbour; the cap is reported', () => {
  assert.deepEqual(splitClaims('Yes. Palapeli is a jigsaw puzzle game. It runs on KDE.', 8).claims, [
    'Yes. Palapeli is a jigsaw puzzle game.',
    'It runs on KDE.',
  ]);
  assert.deepEqual(splitClaims('Slovenia', 8), { claims: ['Slovenia'], truncated: false });
  const many = Array.from({ length: 5 }, (_, i) => `Sentence number ${i} says something.`).join(' ');
  assert.deepEqual(splitClaims(many, 3).truncated, true);
  assert.equal(splitClaims(many, 3).claims.length, 3);
});

test('an answer is supported only when every sentence is supported by some chunk', async () => {
  const model = new MarkerModel(['palapeli', 'kicad']);
  const s = scorer(model);
  const both = await s.score({
    question: 'What are Palapeli and KiCad?',
    evidence: [
      { id: 'p', text: PALAPELI },
      { id: 'k', text: KICAD },
    ],
    answer: 'Palapeli is a jigsaw puzzle game. KiCad is used to design circuit boards.',
  });
  assert.equal(both.scorer_version, 'v2');
  assert.equal(both.claims?.length, 2);
  assert.ok(both.score! > 0.9, `both claims supported: ${both.score}`);
  assert.equal(both.label, 'consistent');
  // Each claim names the passage that supports it.
  assert.deepEqual(
    both.claims!.map((c) => [c.passage_id, c.stance]),
    [
      ['p', 'supports'],
      ['k', 'supports'],
    ],
  );

  const oneUnsupported = await s.score({
    question: 'What are these two programs?',
    evidence: [{ id: 'p', text: PALAPELI }],
    answer: 'Palapeli is a jigsaw puzzle game. Gimp is an image editor with many plug-ins.',
  });
  assert.ok(oneUnsupported.score! < 0.1, `one claim unsupported: ${oneUnsupported.score}`);
  assert.equal(oneUnsupported.label, 'inconsistent');
  // The snippet an engineer reads first is the unsupported claim's, with its claim and chunk named.
  const first = oneUnsupported.evidence_snippets[0]!;
  assert.equal(first.stance, 'contradicts');
  assert.equal(first.claim_index, 1);
  assert.match(first.claim!, /Gimp/);
  assert.equal(first.chunk_index, 0);
});

test('the question is scored with the claim and a missing question is flagged', async () => {
  const model = new MarkerModel(['palapeli']);
  const s = scorer(model);
  // The bare answer names nothing; only the question makes it checkable.
  const withQuestion = await s.score({ question: 'Is Palapeli a puzzle game?', evidence: [PALAPELI], answer: 'Yes, a jigsaw one.' });
  assert.equal(withQuestion.question_missing, false);
  assert.ok(withQuestion.score! > 0.9);
  const without = await s.score({ question: '', evidence: [PALAPELI], answer: 'Yes, a jigsaw one.' });
  assert.equal(without.question_missing, true);
  assert.ok(without.score! < 0.1);
});

test('long evidence is chunked; each claim is scored against at most maxChunksPerClaim chunks, best overlap first', async () => {
  const filler = Array.from({ length: 60 }, (_, i) => `Filler sentence ${i} talks about weather and rivers in general terms.`).join(' ');
  const evidence = `${filler} ${PALAPELI} ${filler}`;
  const model = new MarkerModel(['palapeli']);
  const s = scorer(model, { maxChunksPerClaim: 2 });
  const result = await s.score({ question: '', evidence: [evidence], answer: 'Palapeli is a single-player jigsaw puzzle game.' });
  assert.ok(result.windows > 4, `windows ${result.windows}`);
  assert.equal(model.pairs.length, 2);
  assert.ok(model.pairs.every((p) => p.inputIds.length <= 256));
  assert.ok(result.score! > 0.9, 'the chunk holding the fact was among the two scored');
  assert.match(result.evidence_snippets[0]!.text, /Palapeli/);
});

test('unread key facts: names and numbers absent from the evidence count only where the model did not read all of it', async () => {
  assert.equal(unreadKeyFacts({ kf_unsupported_entity: 2, kf_unsupported_number: 1 }, 6, 6), 0);
  assert.equal(unreadKeyFacts({ kf_unsupported_entity: 2, kf_unsupported_number: 2 }, 7, 6), 3, 'capped like the other counts');
  assert.equal(unreadKeyFacts({ kf_unsupported_entity: 0, kf_unsupported_number: 1 }, 30, 6), 1);
  assert.equal(unreadKeyFacts({}, 30, 6), 0);

  const answer = 'Palapeli was written by Margaret Hamilton in 1987.';
  const filler = Array.from({ length: 80 }, (_, i) => `Filler sentence ${i} talks about weather and rivers in general terms.`).join(' ');
  const s = scorer(new MarkerModel(['palapeli']));
  const long = await s.score({ question: '', evidence: [`${filler} ${PALAPELI} ${filler}`], answer });
  assert.ok(long.windows > DEFAULT_CHUNKS_PER_CLAIM, `windows ${long.windows}`);
  const missing = long.features!.kf_unsupported_entity! + long.features!.kf_unsupported_number!;
  assert.ok(missing > 0, 'the name and the year are in no chunk');
  assert.equal(long.features!.kf_unsupported_unread, Math.min(3, missing));
  // The same answer against evidence the model reads whole: the key-fact counts stay, the feature is 0.
  const short = await s.score({ question: '', evidence: [PALAPELI], answer });
  assert.ok(short.windows <= DEFAULT_CHUNKS_PER_CLAIM);
  assert.ok(short.features!.kf_unsupported_entity! + short.features!.kf_unsupported_number! > 0);
  assert.equal(short.features!.kf_unsupported_unread, 0);
});

test('contradicted numbers, dates and versions are counted apart from contradicted names and negations', async () => {
  const s = scorer(new MarkerModel(['xcb']));
  const evidence = ['xcb-util (0.3.3-2) was uploaded to unstable by Julien Danjou on 15 February 2009. It is not a daemon.'];
  const read = async (answer: string) => (await s.score({ question: '', evidence, answer })).features!;
  const faithful = await read('Julien Danjou uploaded xcb-util 0.3.3-2 on 15 February 2009.');
  assert.equal(faithful.kf_contradicted_number, 0);
  const date = await read('Julien Danjou uploaded xcb-util 0.3.3-2 on 15 February 2019.');
  assert.equal(date.kf_contradicted_number, 1);
  assert.equal(date.kf_contradicted, 1);
  const negation = await read('xcb-util was not uploaded to unstable by Julien Danjou.');
  assert.equal(negation.kf_contradicted, 1, 'a contradicted negation');
  assert.equal(negation.kf_contradicted_number, 0);
});

test('the fitted combination is applied to the features; lexical features see only content words', async () => {
  const combination: V2Combination = { features: ['model_min', 'lex_cov'], weights: [1, 4], bias: -2, threshold: 0.4 };
  const s = scorer(new MarkerModel(['palapeli']), { combination });
  const r = await s.score({ question: 'What is Palapeli?', evidence: [PALAPELI], answer: 'Palapeli is a jigsaw puzzle game.' });
  assert.equal(r.threshold, 0.4);
  assert.ok(Math.abs(r.score! - combineV2(r.features!, combination)) < 1e-12);
  const lex = lexicalFeatures('What is Palapeli?', ['Palapeli is a jigsaw puzzle game for KDE.'], PALAPELI);
  assert.ok(lex.lex_cov! > 0.6 && lex.lex_cov! < 1, `lex_cov ${lex.lex_cov}`);
  // "palapeli" came from the question, so it does not count as support in lex_novel.
  assert.ok(lex.lex_novel! < lex.lex_cov!);
});

test('loadV2Combination: falls back without a file, rejects unknown features', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fcs-v2-'));
  assert.deepEqual(loadV2Combination(join(dir, 'missing.json')), FALLBACK_V2_COMBINATION);
  const bad = join(dir, 'bad.json');
  writeFileSync(bad, JSON.stringify({ features: ['nope'], weights: [1], bias: 0, threshold: 0.5 }));
  assert.throws(() => loadV2Combination(bad), /unknown feature nope/);
  const wide = join(dir, 'wide.json');
  writeFileSync(wide, JSON.stringify({ ...FALLBACK_V2_COMBINATION, windowing: { max_tokens: 512, chunks_per_claim: 6 } }));
  assert.throws(() => loadV2Combination(wide), /windowing\.max_tokens must be an integer from 96 to 256, got 512/);
  const none = join(dir, 'none.json');
  writeFileSync(none, JSON.stringify({ ...FALLBACK_V2_COMBINATION, windowing: { max_tokens: 128, chunks_per_claim: 0 } }));
  assert.throws(() => loadV2Combination(none), /windowing\.chunks_per_claim must be a positive integer, got 0/);
  const on = join(dir, 'on.json');
  writeFileSync(on, JSON.stringify({ ...FALLBACK_V2_COMBINATION, contradiction_penalty: 4.5, contradiction_penalty_on: 'names' }));
  assert.throws(() => loadV2Combination(on), /contradiction_penalty_on must be "all" or "numbers", got names/);
});

test('a numbers-only contradiction penalty ignores contradicted names and negations', () => {
  const base: V2Combination = { features: ['model_min'], weights: [1], bias: 0, threshold: 0.5, contradiction_penalty: 4.5 };
  const numbers: V2Combination = { ...base, contradiction_penalty_on: 'numbers' };
  const negationOnly = { model_min: 0.9, kf_contradicted: 1, kf_contradicted_number: 0 };
  const dateSwap = { model_min: 0.9, kf_contradicted: 1, kf_contradicted_number: 1 };
  assert.ok(combineV2(negationOnly, base) < 0.1, 'the default penalty counts every contradiction');
  assert.ok(Math.abs(combineV2(negationOnly, numbers) - 0.9) < 1e-9);
  assert.ok(combineV2(dateSwap, numbers) < 0.1);
});

test('the scorer reads windows as its combination was fitted (windowing), unless told otherwise', async () => {
  // A long page: many chunks at any window size, so the budget and the per-claim cap both show.
  const evidence = Array.from({ length: 40 }, (_, i) => `Sentence ${i} says that the jigsaw game number ${i} has ${i + 3} pieces.`).join(
    ' ',
  );
  const input = { question: '', evidence: [evidence], answer: 'The jigsaw game number 7 has 10 pieces.' };
  const read = async (combination: V2Combination, extra = {}) => {
    const model = new MarkerModel(['jigsaw']);
    const s = scorer(model, { combination, ...extra });
    await s.score(input);
    return { windowing: s.windowing, longest: Math.max(...model.pairs.map((p) => p.inputIds.length)), pairs: model.pairs.length };
  };
  const fitted128 = { ...FALLBACK_V2_COMBINATION, windowing: { max_tokens: 128, chunks_per_claim: 4 } };
  const narrow = await read(fitted128);
  assert.deepEqual(narrow.windowing, { max_tokens: 128, chunks_per_claim: 4 });
  assert.ok(narrow.longest <= 128, `longest window ${narrow.longest}`);
  assert.equal(narrow.pairs, 4);
  const unset = await read(FALLBACK_V2_COMBINATION);
  assert.deepEqual(unset.windowing, { max_tokens: 256, chunks_per_claim: DEFAULT_CHUNKS_PER_CLAIM });
  assert.ok(unset.longest > 128 && unset.longest <= 256, `longest window ${unset.longest}`);
  const overridden = await read(fitted128, { maxTokens: 200, maxChunksPerClaim: 2 });
  assert.deepEqual(overridden.windowing, { max_tokens: 200, chunks_per_claim: 2 });
  assert.equal(overridden.pairs, 2);
});

test('claimChunkPairs: the training pairs are exactly the pairs the score reads, per claim', async () => {
  const model = new MarkerModel(['jigsaw']);
  const s = scorer(model);
  const input = {
    question: 'What is Palapeli?',
    evidence: [PALAPELI, KICAD],
    answer: 'Palapeli is a jigsaw puzzle game. It includes a schematic editor.',
  };
  const { claims, pairs } = s.claimChunkPairs(input);
  assert.equal(claims.length, 2);
  assert.equal(pairs.length, 2);
  await s.score(input);
  const scored = new Set(model.pairs.map((p) => p.inputIds.join(',')));
  const planned = pairs.flat();
  assert.ok(planned.length > 0);
  assert.equal(planned.length, scored.size);
  for (const pair of planned) assert.ok(scored.has(pair.inputIds.join(',')), 'a training pair the runtime never scores');
  assert.deepEqual(s.claimChunkPairs({ question: '', evidence: [], answer: 'x' }), { claims: [], pairs: [] });
});
