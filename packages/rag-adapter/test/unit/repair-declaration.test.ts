import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AdapterFileError, parseAdapter } from '../../src/index.ts';

const BASE = `apiVersion: rag-immune/v1
kind: RagAdapter
metadata: { name: t }
request: { url: '\${base_url}/q', body: { q: '\${query}' } }
response: { answer: $.text }
`;

function issuesOf(text: string): string[] {
  try {
    parseAdapter(text, 't.yaml');
  } catch (error) {
    assert.ok(error instanceof AdapterFileError);
    return error.issues.map((issue) => `${issue.key}: ${issue.message}`);
  }
  assert.fail('accepted');
}

test('an adapter without `repair` is a RAG with the contract’s repair hooks (files written before the key stay valid)', () => {
  assert.equal(parseAdapter(BASE).repair, undefined);
  assert.equal(parseAdapter(`${BASE}repair: {}\n`).repair?.hooks, 'contract');
});

test('`repair` for a RAG without hooks: rebuild source, ingestion webhook with defaults, operator step', () => {
  const repair = parseAdapter(`${BASE}repair:
  hooks: none
  rebuild_from: kb-baseline
  ingestion: { url: 'http://ingest.local/jobs/\${incident_id}', body: { ids: '\${knowledge_ids}' } }
  operator_step: 'run \`flowise upsert\`'
`).repair!;
  assert.equal(repair.hooks, 'none');
  assert.equal(repair.rebuild_from, 'kb-baseline');
  assert.deepEqual(repair.ingestion, {
    method: 'POST',
    url: 'http://ingest.local/jobs/${incident_id}',
    headers: {},
    body: { ids: '${knowledge_ids}' },
    settle_seconds: 0,
  });
  assert.equal(repair.operator_step, 'run `flowise upsert`');
});

test('a bad `repair` is refused naming the key', () => {
  assert.deepEqual(issuesOf(`${BASE}repair: { hooks: some }\n`), [
    "repair.hooks: Invalid enum value. Expected 'contract' | 'none', received 'some'",
  ]);
  assert.deepEqual(issuesOf(`${BASE}repair: { hooks: none, rebuild_from: '../etc' }\n`), [
    'repair.rebuild_from: a Qdrant collection or alias name: letters, digits, _ . - only',
  ]);
  assert.match(
    issuesOf(`${BASE}repair: { hooks: none, ingestion: { url: '/jobs' } }\n`)[0]!,
    /^repair\.ingestion\.url: must be an absolute URL/,
  );
  assert.deepEqual(issuesOf(`${BASE}repair: { hooks: none, ingestion: { url: 'http://x', settle_seconds: -1 } }\n`), [
    'repair.ingestion.settle_seconds: Number must be greater than or equal to 0',
  ]);
  assert.deepEqual(issuesOf(`${BASE}repair: { hooks: none, webhook: {} }\n`), ["repair.webhook: Unrecognized key(s) in object: 'webhook'"]);
  // A webhook or rebuild source means nothing for a RAG whose own hooks repair it.
  assert.deepEqual(issuesOf(`${BASE}repair: { rebuild_from: kb-baseline }\n`), [
    'repair.hooks: ingestion and rebuild_from are for a RAG without repair hooks: set hooks: none',
  ]);
});

test('`repair.collection_mode`: alias by default, by_name for a RAG that names its collection, refused with hooks: contract', () => {
  assert.equal(parseAdapter(`${BASE}repair: { hooks: none }\n`).repair?.collection_mode, 'alias');
  assert.equal(parseAdapter(`${BASE}repair: { hooks: none, collection_mode: by_name }\n`).repair?.collection_mode, 'by_name');
  assert.deepEqual(issuesOf(`${BASE}repair: { hooks: none, collection_mode: name }\n`), [
    "repair.collection_mode: Invalid enum value. Expected 'alias' | 'by_name', received 'name'",
  ]);
  assert.deepEqual(issuesOf(`${BASE}repair: { collection_mode: by_name }\n`), [
    'repair.collection_mode: by_name chooses the hookless in-place restore: set hooks: none (a RAG with repair hooks repairs itself)',
  ]);
});

test('`repair.generation_step`: the operator step that puts the generation setting back, refused with hooks: contract', () => {
  const step = "redeploy the route with its previous RAG_PROMPT (the chain's prompt template)";
  assert.equal(parseAdapter(`${BASE}repair: { hooks: none, generation_step: "${step}" }\n`).repair?.generation_step, step);
  assert.equal(parseAdapter(`${BASE}repair: { hooks: none }\n`).repair?.generation_step, undefined);
  assert.deepEqual(issuesOf(`${BASE}repair: { hooks: none, generation_step: '' }\n`), [
    'repair.generation_step: String must contain at least 1 character(s)',
  ]);
  // A RAG with repair hooks pins its generator through them: the key is refused, naming it.
  assert.deepEqual(issuesOf(`${BASE}repair: { generation_step: "${step}" }\n`), [
    'repair.generation_step: generation_step is for a RAG without repair hooks: set hooks: none (a RAG with repair hooks pins its generator itself)',
  ]);
});
