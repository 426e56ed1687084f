import { test } from 'node:test';
import assert from 'node:assert/strict';
import { calibratedConfidence, fitCalibration, reliability, UNFITTED_CALIBRATION } from '../../src/testing.ts';

test('fitted confidence rises with the detectors’ fit and stays inside (0,1)', () => {
  const samples = [
    ...Array.from({ length: 40 }, (_, i) => ({ features: { top: 0.85 + (i % 10) / 100, margin: 0.7, support: 1 }, correct: true })),
    ...Array.from({ length: 40 }, (_, i) => ({ features: { top: 0.1 + (i % 10) / 50, margin: 0.05, support: 1 }, correct: false })),
    ...Array.from({ length: 10 }, () => ({ features: { top: 0.6, margin: 0.2, support: 0.5 }, correct: true })),
    ...Array.from({ length: 10 }, () => ({ features: { top: 0.6, margin: 0.2, support: 0.5 }, correct: false })),
  ];
  const fitted = fitCalibration(samples, 'synthetic');
  const high = calibratedConfidence(fitted, { top: 0.95, margin: 0.8, support: 1 });
  const mid = calibratedConfidence(fitted, { top: 0.6, margin: 0.2, support: 0.5 });
  const low = calibratedConfidence(fitted, { top: 0.15, margin: 0.05, support: 1 });
  assert.ok(high > 0.9 && high < 1, `high ${high}`);
  assert.ok(low < 0.1 && low > 0, `low ${low}`);
  assert.ok(mid > low && mid < high, `mid ${mid}`);
  assert.ok(fitted.log_loss !== null && fitted.log_loss < 0.4, `log loss ${fitted.log_loss}`);
  assert.notDeepEqual(fitted.weights, UNFITTED_CALIBRATION.weights);
});

test('reliability: ECE and Brier of known predictions', () => {
  const perfect = reliability([
    { confidence: 1, correct: true },
    { confidence: 0, correct: false },
  ]);
  assert.equal(perfect.brier, 0);
  assert.equal(perfect.ece, 0);
  const overconfident = reliability([
    { confidence: 0.9, correct: false },
    { confidence: 0.9, correct: true },
  ]);
  assert.ok(Math.abs(overconfident.ece - 0.4) < 1e-9);
  assert.ok(Math.abs(overconfident.brier - (0.81 + 0.01) / 2) < 1e-9);
});
