import { test } from 'node:test';
import assert from 'node:assert/strict';
import { retrievalHealth } from '../../../src/traffic/signals/retrieval-health.ts';
import { userAnswer } from './user-answer-fixture.ts';

const signal = retrievalHealth({ scoreDropRatio: 0.8 });

test('a healthy retrieval at the usual score from the usual knowledge is not bad', async () => {
  const reading = await signal.read(userAnswer({ score: 0.78 }), {
    segment: 'pkg-openssl',
    usualTopScore: 0.8,
    usualKnowledgeId: 'pkg-openssl',
  });
  assert.equal(reading?.bad, false);
});

test('nothing retrieved is bad', async () => {
  const reading = await signal.read(userAnswer({ candidates: [], context: [] }), { segment: 'pkg-openssl' });
  assert.equal(reading?.bad, true);
  assert.match(reading?.detail ?? '', /nothing retrieved/);
});

test('a top score far below the segment usual is bad', async () => {
  const reading = await signal.read(userAnswer({ score: 0.4 }), { segment: 'pkg-openssl', usualTopScore: 0.8 });
  assert.equal(reading?.bad, true);
  assert.match(reading?.detail ?? '', /usual/);
});

test('chunks missing their versioned metadata are bad', async () => {
  const reading = await signal.read(userAnswer({ gaps: [{ piece: 'document_metadata', detail: 'context document x lacks version' }] }), {
    segment: 'pkg-openssl',
  });
  assert.equal(reading?.bad, true);
});

test('a query whose usual knowledge is no longer retrieved is bad', async () => {
  const reading = await signal.read(userAnswer({ knowledgeId: 'pkg-curl' }), { segment: 'pkg-openssl', usualKnowledgeId: 'pkg-openssl' });
  assert.equal(reading?.bad, true);
  assert.match(reading?.detail ?? '', /no longer retrieved/);
  // Decisive: worth a led spot check now (a score drop alone is not).
  assert.equal(reading?.decisive, true);
  const near = await signal.read(userAnswer({ knowledgeId: 'pkg-curl' }), {
    segment: 'pkg-openssl',
    usualKnowledgeId: 'pkg-openssl',
    usualMatch: 'near',
  });
  assert.match(near?.detail ?? '', /rewording's words point to \(pkg-openssl\)/);
  const dropped = await signal.read(userAnswer({ knowledgeId: 'pkg-openssl', score: 0.3 }), { segment: 'pkg-openssl', usualTopScore: 0.8 });
  assert.equal(dropped?.bad, true);
  assert.equal(dropped?.decisive, undefined);
});
