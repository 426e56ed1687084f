import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadQuestions } from '@rag-immune/reference-rag/testing';
import { selectLoopProbes } from '../../src/loop/probes.ts';

// Every knowledge id the question bank asks about: more changed and tokenizer-touched questions than the smallest counts.
const knowledgeIds = new Set(loadQuestions().map((q) => q.knowledge_id));

test('selectLoopProbes gives exactly the probes asked for, also fewer than its changed and tokenizer-touched picks', () => {
  for (const count of [1, 3, 4, 5, 10]) {
    const { probes, changedSinceStale } = selectLoopProbes(knowledgeIds, count, 't');
    assert.equal(probes.length, count, `asked for ${count}`);
    assert.ok(changedSinceStale.size <= Math.min(3, count));
    assert.equal(new Set(probes.map((p) => p.id)).size, count);
  }
});
