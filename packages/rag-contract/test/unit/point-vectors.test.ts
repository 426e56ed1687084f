import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SAME_VECTOR_MIN_COSINE, vectorCosine } from '../../src/index.ts';

test('the same vector up to float noise and scale counts as the same; a moved one does not', () => {
  const v = [0.1, -0.4, 0.25, 0.9];
  assert.ok(vectorCosine(v, v) > 0.999999);
  assert.ok(
    vectorCosine(
      v,
      v.map((x) => x * 3 + 1e-7),
    ) >= SAME_VECTOR_MIN_COSINE,
  );
  assert.ok(vectorCosine(v, [0.9, 0.25, -0.4, 0.1]) < SAME_VECTOR_MIN_COSINE);
  assert.equal(vectorCosine([1, 0], [0, 1]), 0);
});

test('vectors that cannot be compared are never the same (0): other length, empty, all zeros', () => {
  assert.equal(vectorCosine([1, 2], [1, 2, 3]), 0);
  assert.equal(vectorCosine([], []), 0);
  assert.equal(vectorCosine([0, 0, 0], [1, 2, 3]), 0);
});
