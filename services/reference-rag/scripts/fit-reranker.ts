/**
 * Fits the reranker's weights honestly on labelled questions from the knowledge:
 *   npx tsx services/reference-rag/scripts/fit-reranker.ts [--packages 200]
 * Retrieval runs for real (all-MiniLM-L6-v2 embeddings in a scratch qdrant-local collection); every
 * retrieved candidate of a training question becomes one example, labelled 1 when it belongs to the
 * knowledge id that answers the question. Half of the packages (seeded) train, the other half is
 * held out for the reported top-1 accuracy. Writes models/reranker/v2.1.json and v2.2-drift.json.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createQdrantClient } from '@rag-immune/worker-runtime';
import { loadSentenceEmbedder } from '../src/embedding/sentence-embedder.ts';
import { loadStackConfig, stackEndpoints } from '@rag-immune/stack';
import pino from 'pino';
import { DocumentParser } from '../src/chunking/document-parser.ts';
import { CachingEmbedder } from '../src/embedding/embedder.ts';
import { pickFraction } from '../src/faults/fault-injector.ts';
import { VectorIndex } from '../src/index/vector-index.ts';
import { KnowledgeIndexer } from '../src/ingest/knowledge-indexer.ts';
import { loadDebianKnowledge } from '@rag-immune/debian-knowledge';
import { buildQuestions } from '../src/questions/question-set.ts';
import { FEATURE_NAMES, featureVectors } from '../src/rerank/features.ts';
import { fitLogistic } from '../src/rerank/fit-logistic.ts';
import { DEFAULT_RERANKER_DIR } from '../src/reference-rag.ts';
import { QueryNormalizer } from '../src/text/query-normalizer.ts';

const { values } = parseArgs({
  options: { packages: { type: 'string', default: '200' }, 'as-of': { type: 'string', default: '2026-11-29T00:00:00.000Z' } },
});
const asOf = new Date(values['as-of']!);
const logger = pino({ level: 'warn' });
const embedder = new CachingEmbedder(await loadSentenceEmbedder());
const { sources } = loadDebianKnowledge({ packages: Number(values.packages) });
const index = new VectorIndex(
  createQdrantClient({ url: stackEndpoints(loadStackConfig()).qdrantUrl, apiKey: stackEndpoints(loadStackConfig()).qdrantApiKey }),
  `reranker-fit-${Date.now()}`,
  embedder.dimension,
);
await index.ensureCollection();
try {
  await new KnowledgeIndexer(
    index,
    embedder,
    new DocumentParser((name) => sources.find((s) => s.name === name)?.trust ?? 0.5),
    sources,
    logger,
  ).sync(asOf);
  const questions = buildQuestions(sources, asOf, asOf);
  const trainIds = new Set(pickFraction([...new Set(questions.map((q) => q.knowledge_id))], 0.5, 'reranker-fit'));
  const normalizer = new QueryNormalizer();
  type Example = { features: number[][]; labels: number[]; question: string };
  const examples: { train: Example[]; heldout: Example[] } = { train: [], heldout: [] };
  for (const question of questions) {
    const query = normalizer.normalize(question.question);
    const [vector] = await embedder.embed([query]);
    const hits = await index.search(vector!, asOf, 30);
    const candidates = hits.map((hit) => ({ ...hit, retrievalScore: hit.score }));
    const example = {
      question: question.id,
      features: featureVectors(query, candidates),
      labels: candidates.map((candidate) => (candidate.payload.knowledge_id === question.knowledge_id ? 1 : 0)),
    };
    (trainIds.has(question.knowledge_id) ? examples.train : examples.heldout).push(example);
  }
  const flat = (set: Example[], labels: (e: Example) => number[]) => ({ x: set.flatMap((e) => e.features), y: set.flatMap(labels) });
  const top1 = (weights: number[], bias: number, set: Example[]): number => {
    const answerable = set.filter((e) => e.labels.includes(1));
    const hits = answerable.filter((e) => {
      const scores = e.features.map((row) => row.reduce((sum, value, j) => sum + value * weights[j]!, bias));
      return e.labels[scores.indexOf(Math.max(...scores))] === 1;
    });
    return hits.length / Math.max(1, answerable.length);
  };
  const recall = examples.heldout.filter((e) => e.labels.includes(1)).length / Math.max(1, examples.heldout.length);
  const good = flat(examples.train, (e) => e.labels);
  const fit = fitLogistic(good.x, good.y, { positiveWeight: 5 });
  // The drifted release: same recipe and data, but one of the two training shards went through a
  // pipeline step that flipped the label polarity (a join/encoding bug): the fit loses its grip on
  // which candidate answers and leans on whatever the flipped shard rewards.
  const flippedShard = new Set(
    pickFraction(
      examples.train.map((e) => e.question),
      0.5,
      'flipped-shard',
    ),
  );
  const drifted = flat(examples.train, (e) => (flippedShard.has(e.question) ? e.labels.map((label) => 1 - label) : e.labels));
  const drift = fitLogistic(drifted.x, drifted.y);
  const common = {
    fitted_at: new Date().toISOString(),
    embedder: embedder.version,
    packages: Number(values.packages),
    knowledge_as_of: asOf.toISOString(),
    train_questions: examples.train.length,
    train_pairs: good.x.length,
    heldout_questions: examples.heldout.length,
    heldout_retrieval_recall_at_30: Number(recall.toFixed(4)),
    heldout_top1_cosine_only: Number(top1([1, 0, 0, 0, 0, 0], 0, examples.heldout).toFixed(4)),
  };
  const write = (version: string, result: { weights: number[]; bias: number; loss: number }, note: string) => {
    const file = {
      version,
      model: 'logistic-regression',
      features: [...FEATURE_NAMES],
      weights: result.weights.map((w) => Number(w.toFixed(6))),
      bias: Number(result.bias.toFixed(6)),
      fitted: {
        ...common,
        note,
        train_log_loss: Number(result.loss.toFixed(5)),
        heldout_top1: Number(top1(result.weights, result.bias, examples.heldout).toFixed(4)),
      },
    };
    writeFileSync(join(DEFAULT_RERANKER_DIR, `${version}.json`), JSON.stringify(file, null, 2) + '\n');
    console.log(version, JSON.stringify(file.fitted), file.weights);
  };
  write('v2.1', fit, 'labels: candidate belongs to the knowledge id that answers the question');
  write(
    'v2.2-drift',
    drift,
    'DRIFTED on purpose: same data and recipe, but half of the training questions (one shard) had their label polarity flipped by a retraining-pipeline bug',
  );
} finally {
  await index.drop();
}
