import { test } from 'node:test';
import assert from 'node:assert/strict';
import { citationCheck } from '../../../src/traffic/signals/citation-check.ts';
import { userAnswer } from './user-answer-fixture.ts';

const signal = citationCheck();

test('an answer citing a retrieved chunk is not bad', async () => {
  assert.equal((await signal.read(userAnswer({ cited: ['pkg-openssl#0'] }), { segment: 's' }))?.bad, false);
});

test('an answer citing a chunk that was never retrieved is bad', async () => {
  const reading = await signal.read(userAnswer({ cited: ['pkg-openssl#0', 'pkg-zlib#4'] }), { segment: 's' });
  assert.equal(reading?.bad, true);
  assert.match(reading?.detail ?? '', /1\/2/);
});

test('an answer that cites nothing is not measured', async () => {
  assert.equal(await signal.read(userAnswer({ cited: [] }), { segment: 's' }), null);
  assert.equal(await signal.read(userAnswer(), { segment: 's' }), null);
});
