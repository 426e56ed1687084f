import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contractSignals, loadAdapterFile, signalAvailability } from '../../src/index.ts';
import { example } from './helpers.ts';

const missingOf = (name: string) =>
  new Map(signalAvailability(loadAdapterFile(example(name))).unavailable.map((u) => [u.signal, u.missing]));

test('the health contract as an adapter supports every signal, as the contract client does', () => {
  const adapted = signalAvailability(loadAdapterFile(example('health-contract.yaml')));
  assert.deepEqual(adapted.unavailable, []);
  assert.deepEqual(adapted.available, contractSignals().available);
  assert.equal(adapted.adapter, 'rag-health-contract');
});

test('Flowise without ids or scores: no KF (no scores), no attribution and no knowledge-update checks (no ids)', () => {
  const missing = missingOf('flowise-prediction.yaml');
  const available = signalAvailability(loadAdapterFile(example('flowise-prediction.yaml'))).available;
  assert.deepEqual(available, ['fcs', 'ic', 'answer_agreement']);
  assert.deepEqual(missing.get('kf'), ['response.documents.retrieval_score']);
  assert.deepEqual(missing.get('attribution'), ['response.documents.chunk_id', 'response.citations']);
  assert.deepEqual(missing.get('knowledge_update'), ['response.documents.chunk_id', 'response.documents.valid_from']);
  assert.deepEqual(missing.get('rerank_evidence'), ['response.documents.rerank_score']);
  assert.deepEqual(missing.get('trace_lookup'), ['response.trace_id']);
});

test('LangServe with a scored, versioned context: KF and knowledge-update checks, still no attribution (no citations)', () => {
  const missing = missingOf('langserve-retrieval-invoke.yaml');
  assert.equal(missing.has('kf'), false);
  assert.equal(missing.has('knowledge_update'), false);
  assert.equal(missing.has('retrieved_documents'), false);
  assert.deepEqual(missing.get('attribution'), ['response.citations']);
});

test('an answer-only RAG: no FCS either (no evidence), only IC and answer agreement', () => {
  const signals = signalAvailability(loadAdapterFile(example('langserve-invoke.yaml')));
  assert.deepEqual(signals.available, ['ic', 'answer_agreement']);
  assert.deepEqual(
    signals.signals.find((s) => s.signal === 'fcs'),
    {
      signal: 'fcs',
      available: false,
      missing: ['response.documents'],
      what: "fact consistency of the answer with the retrieved documents' text",
    },
  );
});
