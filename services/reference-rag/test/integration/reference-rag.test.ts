import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { loadSentenceEmbedder } from '../../src/embedding/sentence-embedder.ts';
import { RagClient, RagHttpError, callFaultAdmin } from '@rag-immune/rag-contract';
import { qdrantEnv } from '@rag-immune/stack';
import { endpoints } from '@rag-immune/test-kit/stack';
import pino from 'pino';
import { ragConfigFromEnv } from '../../src/config.ts';
import { CachingEmbedder } from '../../src/embedding/embedder.ts';
import { loadDebianKnowledge } from '@rag-immune/debian-knowledge';
import { accuracy, grade, loadQuestions, percentile, type Graded } from '../../src/questions/evaluate.ts';
import type { LabelledQuestion } from '../../src/questions/question-set.ts';
import { createReferenceRag, type ReferenceRag } from '../../src/reference-rag.ts';
import { touchedByTokenizerAnomaly } from '../../src/text/query-normalizer.ts';

// A knowledge subset keeps the suite within its time budget on two shared cores.
const PACKAGES = 30;
const PINNED = '2024-06-01T00:00:00.000Z';
const run = randomUUID().slice(0, 8);
const logger = pino({ level: 'warn' });

let online: ReferenceRag;
let baseline: ReferenceRag;
let onlineClient: RagClient;
let baselineClient: RagClient;
let onlineUrl: string;
let questions: LabelledQuestion[];
let clean: Graded[];

const faultApi = (method: 'POST' | 'DELETE', kind: string, body: unknown = {}) => callFaultAdmin(onlineUrl, method, kind, body);

before(async () => {
  const { sources } = loadDebianKnowledge({ packages: PACKAGES });
  const ids = new Set(sources.flatMap((source) => source.recordsPublishedBy(new Date()).map((record) => record.knowledgeId)));
  // Every question of the subset's changelog knowledge, and a deterministic third of the apt ones.
  questions = loadQuestions().filter((q) => ids.has(q.knowledge_id) && (q.knowledge_id.startsWith('changelog/') || q.id.length % 3 === 0));
  const embedder = new CachingEmbedder(await loadSentenceEmbedder());
  const env = { ...qdrantEnv(endpoints), PORT: '0', LOG_LEVEL: 'warn', RAG_FAULT_INJECTION: 'enabled' };
  // The online instance starts with the knowledge as published at the pin; a refresh later moves it to now.
  online = createReferenceRag(
    ragConfigFromEnv({ ...env, INSTANCE: 'online', KNOWLEDGE_PUBLISHED_BY: PINNED, QDRANT_COLLECTION: `it-rag-online-${run}` }),
    {
      embedder,
      sources,
      logger,
    },
  );
  baseline = createReferenceRag(
    ragConfigFromEnv({ ...env, INSTANCE: 'baseline', PINNED_AS_OF: PINNED, QDRANT_COLLECTION: `it-rag-baseline-${run}` }),
    {
      embedder,
      sources: loadDebianKnowledge({ packages: PACKAGES }).sources,
      logger,
    },
  );
  await online.ingest();
  await baseline.ingest();
  onlineUrl = (await online.listen()).url;
  onlineClient = new RagClient({ baseUrl: onlineUrl, timeoutMs: 30_000 });
  baselineClient = new RagClient({ baseUrl: (await baseline.listen()).url, timeoutMs: 30_000 });
});

after(async () => {
  await online?.close();
  await baseline?.close();
  await online?.index.drop();
  await baseline?.index.drop();
});

test('before a refresh, online and baseline both answer as of the pinned time', async () => {
  const sample = questions.filter((q) => q.expected_baseline !== null && q.expected !== q.expected_baseline);
  assert.ok(sample.length >= 3, `the subset has questions whose answer changed since the pin (${sample.length})`);
  const onlineOld = await grade(onlineClient, sample, 'baseline');
  assert.ok(accuracy(onlineOld) >= 0.8, `online (not refreshed) answers as of the pin: ${accuracy(onlineOld)}`);
});

test('after the online knowledge changes, the baseline still answers as of its pin', async () => {
  const result = await onlineClient.knowledgeSource({ action: 'refresh', source: 'debian-changelog' });
  assert.ok(result.changed > 0);
  const changed = questions.filter((q) => q.expected_baseline !== null && q.expected !== q.expected_baseline);
  const onlineNew = await grade(onlineClient, changed, 'current');
  const baselineOld = await grade(baselineClient, changed, 'baseline');
  console.log(
    `changed-since-pin questions: ${changed.length}; online (current) ${accuracy(onlineNew).toFixed(3)}, baseline (as of pin) ${accuracy(baselineOld).toFixed(3)}`,
  );
  assert.ok(accuracy(onlineNew) >= 0.8);
  assert.ok(accuracy(baselineOld) >= 0.8);
  await assert.rejects(
    baselineClient.knowledgeSource({ action: 'refresh', source: 'debian-changelog' }),
    (error: unknown) => error instanceof RagHttpError && error.status === 409,
  );
});

test('clean answers are exact on the labelled set, traces follow the contract', async () => {
  clean = await grade(onlineClient, questions);
  const latencies = clean.map((g) => g.latencyMs);
  console.log(
    `clean exact-answer accuracy ${accuracy(clean).toFixed(3)} on ${clean.length} questions; p50 ${percentile(latencies, 50).toFixed(1)} ms p99 ${percentile(latencies, 99).toFixed(1)} ms`,
  );
  assert.ok(accuracy(clean) >= 0.8, `clean accuracy ${accuracy(clean)}`);
  const response = await onlineClient.query({ query: questions[0]!.question });
  const trace = await onlineClient.trace(response.trace_id);
  assert.equal(trace.answer, response.answer);
  assert.ok(trace.candidates.length >= trace.context.length);
});

test('a malformed /query gets a 400 with a message', async () => {
  const response = await fetch(`${onlineUrl}/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ top_k: 0 }),
  });
  assert.equal(response.status, 400);
  const body = (await response.json()) as { error: string };
  assert.match(body.error, /query: Required/);
  assert.match(body.error, /top_k/);
  const broken = await fetch(`${onlineUrl}/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{not json' });
  assert.equal(broken.status, 400);
});

interface FaultCase {
  kind: string;
  body: Record<string, unknown>;
  /** Which questions the fault should touch, given the knowledge ids it reports. */
  touches: (q: LabelledQuestion, affected: Set<string> | null) => boolean;
}

const scoped = (q: LabelledQuestion, affected: Set<string> | null): boolean => affected?.has(q.knowledge_id) ?? true;
const FAULTS: FaultCase[] = [
  { kind: 'vector-index-corruption', body: { mode: 'perturb', scope: { fraction: 0.4 } }, touches: scoped },
  { kind: 'reranker-drift', body: {}, touches: () => true },
  {
    kind: 'knowledge-source-failure',
    body: { mode: 'stale', stale_as_of: PINNED, scope: { fraction: 0.6 } },
    touches: (q, affected) => scoped(q, affected) && q.expected !== q.expected_baseline,
  },
  {
    kind: 'knowledge-source-failure',
    body: { mode: 'ingest-stalled', stale_as_of: PINNED, scope: { fraction: 0.6 } },
    touches: (q, affected) => scoped(q, affected) && q.expected !== q.expected_baseline,
  },
  { kind: 'parser-bug', body: { mode: 'boilerplate', scope: { fraction: 0.4 } }, touches: scoped },
  { kind: 'generator-inconsistency', body: { scope: { fraction: 0.4 } }, touches: scoped },
  { kind: 'tokenizer-anomaly', body: {}, touches: (q) => touchedByTokenizerAnomaly(q.question) },
];

for (const fault of FAULTS) {
  test(`fault ${fault.kind}: degrades the answers it touches, not the others; healthz and latency stay green; undo restores`, async () => {
    const injected = await faultApi('POST', fault.kind, fault.body);
    try {
      const affected = injected.fault?.affected_knowledge_ids ? new Set(injected.fault.affected_knowledge_ids) : null;
      const during = await grade(onlineClient, questions);
      const health = await fetch(`${onlineUrl}/healthz`);
      assert.equal(health.status, 200);
      const touched = during.filter((g) => fault.touches(g.question, affected));
      const untouched = during.filter((g) => !fault.touches(g.question, affected));
      const cleanOf = (set: Graded[]) => accuracy(clean.filter((g) => set.some((s) => s.question.id === g.question.id)));
      console.log(
        `${fault.kind}: touched ${touched.length} q: ${cleanOf(touched).toFixed(3)} → ${accuracy(touched).toFixed(3)}; ` +
          `untouched ${untouched.length} q: ${cleanOf(untouched).toFixed(3)} → ${accuracy(untouched).toFixed(3)}; ` +
          `p99 ${percentile(
            during.map((g) => g.latencyMs),
            99,
          ).toFixed(1)} ms`,
      );
      assert.ok(touched.length > 0, 'the fault touches some questions');
      assert.ok(cleanOf(touched) - accuracy(touched) >= 0.3, 'touched answers degrade by at least 30 points');
      if (untouched.length > 0) assert.ok(cleanOf(untouched) - accuracy(untouched) <= 0.1, 'untouched answers stay within 10 points');
      assert.ok(
        percentile(
          during.map((g) => g.latencyMs),
          99,
        ) < 2000,
        'latency stays green',
      );
    } finally {
      // Undo even when an assertion failed, so one fault never contaminates the next case.
      await faultApi('DELETE', fault.kind);
    }
    const restored = await grade(onlineClient, questions);
    const differing = restored.filter((g, i) => g.answer !== clean[i]!.answer);
    assert.deepEqual(
      differing.map((g) => g.question.id),
      [],
      'after undo every answer equals the clean answer',
    );
  });
}

interface RepairCase {
  kind: string;
  body: Record<string, unknown>;
  repair: () => Promise<unknown>;
  reset: () => Promise<unknown>;
  /** 'answers': touched answers are right again; 'withheld': no touched answer is wrong (it abstains instead). */
  expect: 'answers' | 'withheld';
}

const REPAIRS: RepairCase[] = [
  {
    kind: 'vector-index-corruption',
    body: { mode: 'zero', scope: { fraction: 0.4 } },
    repair: () => onlineClient.reindex({ knowledge_ids: repairScope }),
    reset: async () => undefined,
    expect: 'answers',
  },
  {
    kind: 'reranker-drift',
    body: {},
    repair: () => onlineClient.pinReranker({ version: 'v2.1' }),
    reset: async () => undefined,
    expect: 'answers',
  },
  {
    kind: 'knowledge-source-failure',
    body: { mode: 'stale', stale_as_of: PINNED, scope: { fraction: 0.6 } },
    repair: () => onlineClient.knowledgeSource({ action: 'switch_to_backup', source: 'debian-changelog' }),
    reset: () => onlineClient.knowledgeSource({ action: 'switch_to_primary', source: 'debian-changelog' }),
    expect: 'answers',
  },
  {
    kind: 'generator-inconsistency',
    body: { scope: { fraction: 0.4 } },
    repair: () => onlineClient.answerValidation({ enabled: true }),
    reset: () => onlineClient.answerValidation({ enabled: false }),
    expect: 'withheld',
  },
  {
    kind: 'tokenizer-anomaly',
    body: {},
    repair: () =>
      onlineClient.setQueryRewriteRules({
        rules: [
          { pattern: '\\u200d', replacement: '' },
          { pattern: '\\u2010', replacement: '-' },
          { pattern: '\\u2024', replacement: '.' },
          { pattern: '\\u2795', replacement: '+' },
        ],
      }),
    reset: () => onlineClient.setQueryRewriteRules({ rules: [] }),
    expect: 'answers',
  },
];
let repairScope: string[] = [];

for (const repair of REPAIRS) {
  test(`repair hook heals ${repair.kind}`, async () => {
    const injected = await faultApi('POST', repair.kind, repair.body);
    repairScope = injected.fault?.affected_knowledge_ids ?? [];
    try {
      const result = (await repair.repair()) as { changed: number };
      assert.ok(result.changed > 0, 'the hook changed something');
      const after = await grade(onlineClient, questions);
      if (repair.expect === 'answers') {
        assert.ok(accuracy(after) >= accuracy(clean) - 0.05, `accuracy after repair ${accuracy(after)}`);
      } else {
        const responses = await Promise.all(
          after.filter((g) => !g.correct).map((g) => onlineClient.query({ query: g.question.question, as_of: g.question.as_of })),
        );
        assert.ok(
          responses.every((response) => response.abstained),
          'wrong answers are withheld, not stated',
        );
      }
    } finally {
      await faultApi('DELETE', repair.kind);
      await repair.reset();
    }
  });
}

test('a stalled ingest: the freshness lookup shows the feed ahead of the index; a backup switch does not heal it, a forced reindex does', async () => {
  const injected = await faultApi('POST', 'knowledge-source-failure', {
    mode: 'ingest-stalled',
    stale_as_of: PINNED,
    scope: { fraction: 0.6 },
  });
  const scope: string[] = injected.fault?.affected_knowledge_ids ?? [];
  const touched = questions.filter((q) => scope.includes(q.knowledge_id) && q.expected !== q.expected_baseline);
  const wrongAmong = async () => (await grade(onlineClient, touched)).filter((g) => !g.correct).length;
  try {
    assert.ok(touched.length > 0, 'the stall touches some questions');
    const lagging = await Promise.all(scope.map((id) => onlineClient.knowledgeFreshness(id)));
    const behind = lagging.filter((f) => f.feed !== null && f.indexed !== null && f.feed.valid_from > f.indexed.valid_from);
    assert.ok(behind.length > 0, 'some scoped ids have a feed newer than the index');
    for (const f of lagging) assert.equal(f.source, 'debian-changelog');
    const stalledWrong = await wrongAmong();
    assert.ok(stalledWrong > 0, 'touched answers are stale');

    const feed = async () => (await onlineClient.capabilities()).active_versions?.knowledge_sources?.['debian-changelog'];
    assert.equal(await feed(), 'primary');
    await onlineClient.knowledgeSource({ action: 'switch_to_backup', source: 'debian-changelog' });
    assert.equal(await feed(), 'backup', 'capabilities report the active feed');
    assert.equal(await wrongAmong(), stalledWrong, 'a backup switch does not heal a stalled ingest');
    await onlineClient.knowledgeSource({ action: 'switch_to_primary', source: 'debian-changelog' });

    const beforeReindex = Date.now();
    const reindexed = await onlineClient.reindex({ knowledge_ids: scope });
    assert.ok(reindexed.changed > 0);
    assert.equal(await wrongAmong(), 0, 'a forced reindex of the scope heals it');
    for (const f of await Promise.all(scope.map((id) => onlineClient.knowledgeFreshness(id)))) {
      const { indexed_at: indexedAt, ...held } = f.indexed ?? {};
      assert.deepEqual(held, f.feed);
      // The lookup says when the index wrote the version, so a probe older than that is not judged by it.
      assert.ok(indexedAt !== undefined && Date.parse(indexedAt) >= beforeReindex - 1000, `${f.knowledge_id} indexed_at ${indexedAt}`);
    }
  } finally {
    await faultApi('DELETE', 'knowledge-source-failure');
  }
  await assert.rejects(
    onlineClient.knowledgeFreshness('changelog/no-such-package'),
    (error) => error instanceof RagHttpError && error.status === 404,
  );
});

test('every injection and undo is journalled with a timestamp', async () => {
  const journal = (await (await fetch(`${onlineUrl}/admin/faults/journal`)).json()) as {
    entries: { at: string; action: string; kind: string }[];
  };
  // Each fault and repair case injects and undoes once; so does the stalled-ingest test.
  assert.equal(journal.entries.length, (FAULTS.length + REPAIRS.length + 1) * 2);
  for (const entry of journal.entries) assert.ok(!Number.isNaN(Date.parse(entry.at)));
});
