import { test } from 'node:test';
import assert from 'node:assert/strict';
import { devPart } from '../../scripts/real-eval.ts';

test('devPart: a fixed ~20 % of dev ids fit the combination, the rest train the model', () => {
  const ids = Array.from({ length: 4000 }, (_, i) => `begin-${i}`);
  const fit = ids.filter((id) => devPart(id) === 'fit').length / ids.length;
  assert.ok(fit > 0.17 && fit < 0.24, `fit share ${fit}`);
  assert.equal(devPart('begin-17'), devPart('begin-17'));
});

test('devPart: a WiCE claim and its oracle-chunk twin fall on the same side', () => {
  const sides = Array.from({ length: 700 }, (_, i) => [devPart(`wice-${i}`), devPart(`wice_oracle-${i}`)]);
  assert.ok(sides.every(([a, b]) => a === b));
  assert.ok(sides.some(([a]) => a === 'fit') && sides.some(([a]) => a === 'train'));
});
