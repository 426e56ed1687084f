import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import type { ConsistencyModel } from '../../src/fcs-model.ts';
import { DEFAULT_TOKENIZER_PATH } from '../../src/fcs-model.ts';
import { FactConsistencyScorer, FcsInputError } from '../../src/fcs-scorer.ts';
import type { EncodedPair } from '../../src/pair-tokenizer.ts';
import { PairTokenizer } from '../../src/pair-tokenizer.ts';

/** A deterministic stand-in for the ONNX model: P(consistent) is fixed per call, every call recorded. */
class FakeModel implements ConsistencyModel {
  readonly executionProvider = 'fake';
  readonly calls: EncodedPair[][] = [];
  constructor(private readonly probability: (pair: EncodedPair, index: number) => number = () => 0.9) {}
  async predict(pairs: readonly EncodedPair[]): Promise<number[]> {
    this.calls.push([...pairs]);
    return pairs.map((pair, i) => this.probability(pair, i));
  }
}

const tokenizer = await PairTokenizer.fromFile(DEFAULT_TOKENIZER_PATH);
const scorer = (model: ConsistencyModel, registry = new Registry()): FactConsistencyScorer =>
  new FactConsistencyScorer({ model, tokenizer, registry, scorerVersion: 'v1' });

const APT =
  'kicad-doc-de 6.0.11+dfsg-1: Kicad help files (German). It is maintained by Debian Electronics Team. ' +
  'Once installed it occupies 22687 kB. The download is 19604184 bytes. It belongs to the electronics section with optional priority.';
const DISTRACTOR = 'Palapeli is a single-player jigsaw puzzle game. The pieces are freely moveable.';

test('no evidence gives an explicit no_evidence result with no score, and no model call', async () => {
  const model = new FakeModel();
  const s = scorer(model);
  for (const evidence of [[], [''], '   ', [{ id: 'a', text: ' ' }]]) {
    const result = await s.score({ question: 'q?', evidence, answer: 'An answer.' });
    assert.equal(result.status, 'no_evidence');
    assert.equal(result.score, null);
    assert.equal(result.label, null);
    assert.deepEqual(result.evidence_snippets, []);
  }
  assert.equal(model.calls.length, 0);
});

test('invalid input is rejected with the field named', async () => {
  const s = scorer(new FakeModel());
  await assert.rejects(
    s.score({ question: 'q', evidence: ['e'], answer: '' }),
    (e: Error) => e instanceof FcsInputError && /answer/.test(e.message),
  );
  await assert.rejects(s.score({ question: 'q', evidence: 5, answer: 'a' } as never), FcsInputError);
});

test('a consistent answer: model probability, key facts supported, supporting snippet from the right passage', async () => {
  const s = scorer(new FakeModel((_, i) => (i === 0 ? 0.9 : 0.2)));
  const result = await s.score({
    question: 'How big is the kicad-doc-de download?',
    evidence: [
      { id: 'apt', text: APT },
      { id: 'other', text: DISTRACTOR },
    ],
    answer: 'The kicad-doc-de download is 19604184 bytes.',
  });
  assert.equal(result.status, 'scored');
  assert.equal(result.label, 'consistent');
  assert.equal(result.model_probability, 0.9);
  assert.ok(result.score! > 0.9, 'supported facts add a small bonus');
  assert.equal(result.execution_provider, 'fake');
  assert.equal(result.windows, 2);
  assert.deepEqual(
    result.evidence_snippets.map((s) => [s.passage_id, s.stance]),
    [['apt', 'supports']],
  );
  assert.ok(result.key_fact_findings.every((f) => f.status === 'supported'));
});

test('a contradicted key fact overrules a confident model, and the contradicting snippet is returned', async () => {
  const s = scorer(new FakeModel(() => 0.97));
  const result = await s.score({
    question: 'How big is the kicad-doc-de download?',
    evidence: [{ id: 'apt', text: APT }],
    answer: 'The kicad-doc-de download is 19604184 gigabytes.',
  });
  assert.equal(result.label, 'inconsistent');
  assert.ok(result.score! < 0.5);
  assert.equal(result.evidence_snippets[0]?.stance, 'contradicts');
  assert.equal(result.evidence_snippets[0]?.passage_id, 'apt');
  assert.ok(result.key_fact_findings.some((f) => f.kind === 'quantity' && f.status === 'contradicted'));
});

test('all windows of all triples go to the model in one batched call', async () => {
  const model = new FakeModel();
  const s = new FactConsistencyScorer({ model, tokenizer, cache: false, scorerVersion: 'v1' });
  const triples = Array.from({ length: 5 }, (_, i) => ({ question: `q${i}`, evidence: [APT, DISTRACTOR], answer: `Answer ${i}.` }));
  const results = await s.scoreMany(triples);
  assert.equal(results.length, 5);
  assert.equal(model.calls.length, 1);
  assert.equal(model.calls[0]!.length, 10);
});

test('the cache hits on case and punctuation variants of the same triple and counts it', async () => {
  const registry = new Registry();
  const model = new FakeModel();
  const s = scorer(model, registry);
  const evidence = [{ id: 'apt', text: APT }];
  const first = await s.score({ question: 'Who maintains kicad-doc-de?', evidence, answer: 'Debian Electronics Team maintains it.' });
  const second = await s.score({ question: 'who maintains KICAD-DOC-DE', evidence, answer: 'debian electronics team maintains it' });
  assert.equal(first.cached, false);
  assert.equal(second.cached, true);
  assert.equal(second.score, first.score);
  assert.equal(model.calls.length, 1);
  await s.score({
    question: 'Who maintains kicad-doc-de?',
    evidence: [{ id: 'apt-v2', text: APT }],
    answer: 'Debian Electronics Team maintains it.',
  });
  assert.equal(model.calls.length, 2, 'other evidence ids miss');
  assert.equal(s.cache!.hitRatio(), 1 / 3);
  assert.match(await registry.metrics(), /rag_immune_fcs_cache_hit_ratio 0\.333/);
  // Every call is timed, hits included: the sentinel's FCS share of probe time is this sum over its run time.
  assert.match(await registry.metrics(), /rag_immune_fcs_score_seconds_count 3\n/);
});

test('over-long evidence is windowed and truncated deterministically, and the result says so', async () => {
  const model = new FakeModel();
  const s = new FactConsistencyScorer({ model, tokenizer, cache: false, scorerVersion: 'v1' });
  const longSentence = `${Array.from({ length: 400 }, (_, i) => `token${i}`).join(' ')}.`;
  const long = [APT, longSentence, APT].join(' ');
  const input = { question: 'How big is the kicad-doc-de download?', evidence: [long], answer: 'The download is 19604184 bytes.' };
  const first = await s.score(input);
  const second = await s.score(input);
  assert.equal(first.truncated, true);
  assert.ok(first.windows >= 3);
  assert.ok(model.calls.flat().every((pair) => pair.inputIds.length <= 256));
  assert.deepEqual(model.calls[0], model.calls[1]);
  assert.deepEqual({ ...first, latency_ms: 0 }, { ...second, latency_ms: 0 });

  const short = await s.score({ question: 'q', evidence: [APT], answer: 'The download is 19604184 bytes.' });
  assert.equal(short.truncated, false);
});

test('the threshold decides the label', async () => {
  const s = new FactConsistencyScorer({ model: new FakeModel(() => 0.6), tokenizer, threshold: 0.7, cache: false, scorerVersion: 'v1' });
  const result = await s.score({ question: 'What is Palapeli?', evidence: [DISTRACTOR], answer: 'A jigsaw puzzle game.' });
  assert.equal(result.label, 'inconsistent');
  assert.equal(result.threshold, 0.7);
});
