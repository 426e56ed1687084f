import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FALLBACK_V2_COMBINATION } from '../../src/claim-scoring.ts';
import type { V2Combination } from '../../src/claim-scoring.ts';
import type { ClaimEmbedder } from '../../src/embedding-support.ts';
import { embeddingSupport } from '../../src/embedding-support.ts';
import type { ConsistencyModel } from '../../src/fcs-model.ts';
import { DEFAULT_TOKENIZER_PATH } from '../../src/fcs-model.ts';
import { FactConsistencyScorer, FcsInputError } from '../../src/fcs-scorer.ts';
import { PairTokenizer } from '../../src/pair-tokenizer.ts';

/** Unit vectors by topic word: texts sharing a topic are parallel (cosine 1), others orthogonal (0). */
class TopicEmbedder implements ClaimEmbedder {
  calls: string[][] = [];
  constructor(private readonly topics: string[]) {}
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.calls.push([...texts]);
    return texts.map((text) => {
      const v = new Float32Array(this.topics.length + 1);
      const at = this.topics.findIndex((t) => text.toLowerCase().includes(t));
      v[at === -1 ? this.topics.length : at] = 1;
      return v;
    });
  }
}

const constantModel: ConsistencyModel = { executionProvider: 'fake', predict: async (pairs) => pairs.map(() => 0.5) };
const tokenizer = await PairTokenizer.fromFile(DEFAULT_TOKENIZER_PATH);
const WITH_EMB: V2Combination = { features: ['model_min', 'emb_min'], weights: [1, 4], bias: -2, threshold: 0.5 };

test('embeddingSupport: the worst claim counts, each claim by its nearest chunk; one embedder call for the batch', async () => {
  const embedder = new TopicEmbedder(['kicad', 'palapeli', 'gimp']);
  const [both, oneUnsupported, noChunks] = await embeddingSupport(embedder, [
    { claims: ['KiCad designs boards.', 'Palapeli is a puzzle.'], chunks: ['About KiCad.', 'About Palapeli.'] },
    { claims: ['KiCad designs boards.', 'GIMP edits images.'], chunks: ['About KiCad.', 'About Palapeli.'] },
    { claims: ['KiCad designs boards.'], chunks: [] },
  ]);
  assert.deepEqual(both, { emb_min: 1, emb_mean: 1 });
  assert.deepEqual(oneUnsupported, { emb_min: 0, emb_mean: 0.5 });
  assert.deepEqual(noChunks, { emb_min: 0, emb_mean: 0 });
  // Repeated texts are embedded once, blank ones never (the embedder refuses them).
  assert.equal(embedder.calls.length, 1);
  assert.equal(embedder.calls[0]!.length, 5);
  const [blank] = await embeddingSupport(embedder, [{ claims: ['  '], chunks: ['About KiCad.'] }]);
  assert.deepEqual(blank, { emb_min: 0, emb_mean: 0 });
});

test('a v2 combination that reads emb_min gets it from the embedder, over the chunks the model reads', async () => {
  const embedder = new TopicEmbedder(['kicad', 'palapeli']);
  const scorer = new FactConsistencyScorer({ model: constantModel, tokenizer, cache: false, combination: WITH_EMB, embedder });
  const evidence = [{ id: 'k', text: 'KiCad is a suite of programs for the creation of printed circuit boards.' }];
  const supported = await scorer.score({ question: '', evidence, answer: 'KiCad creates printed circuit boards.' });
  const unsupported = await scorer.score({ question: '', evidence, answer: 'Palapeli is a jigsaw puzzle game.' });
  assert.equal(supported.features?.emb_min, 1);
  assert.equal(unsupported.features?.emb_min, 0);
  assert.ok(supported.score! > 0.5 && unsupported.score! < 0.5, `${supported.score} / ${unsupported.score}`);
  // The same features without running the consistency model (real-augment.ts).
  assert.deepEqual(await scorer.embeddingFeatures([{ evidence, answer: 'KiCad creates printed circuit boards.' }]), [
    { emb_min: 1, emb_mean: 1 },
  ]);
});

test('a scorer whose combination reads emb_* refuses to be built without an embedder, naming the features', () => {
  assert.throws(
    () => new FactConsistencyScorer({ model: constantModel, tokenizer, cache: false, combination: WITH_EMB }),
    (error: unknown) => error instanceof FcsInputError && /model_min, emb_min: an embedder is required/.test(error.message),
  );
  // A combination without them needs none.
  new FactConsistencyScorer({ model: constantModel, tokenizer, cache: false, combination: FALLBACK_V2_COMBINATION });
});
