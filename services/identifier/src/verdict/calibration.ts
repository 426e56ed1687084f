/**
 * Turns the detectors' aggregated fit into a probability that the named cause is right: a logistic
 * (Platt) mapping over three features, fitted on labelled runs (`scripts/fit-calibration.ts`) and
 * judged on other runs (bench/identifier: ECE and Brier on seeds and scopes not used to fit it).
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';

export interface VerdictFeatures {
  /** Mean score of the best cause over the analysed probes. */
  top: number;
  /** top minus the runner-up's mean score. */
  margin: number;
  /** Analysed probes (with traces), capped at 4, over 4. */
  support: number;
}

export const CalibrationSchema = z
  .object({
    weights: z.object({ bias: z.number(), top: z.number(), margin: z.number(), support: z.number() }).strict(),
    fitted_on: z.string(),
    samples: z.number().int().min(0),
    log_loss: z.number().nullable(),
  })
  .strict();
export type Calibration = z.infer<typeof CalibrationSchema>;

/** Used until a fitted file is given: a hand-set mapping, deliberately modest. */
export const UNFITTED_CALIBRATION: Calibration = {
  weights: { bias: -4, top: 5, margin: 3, support: 1 },
  fitted_on: 'unfitted defaults',
  samples: 0,
  log_loss: null,
};

export const DEFAULT_CALIBRATION_PATH = new URL('./calibration.json', import.meta.url).pathname;

export function loadCalibration(path: string = DEFAULT_CALIBRATION_PATH): Calibration {
  try {
    return CalibrationSchema.parse(JSON.parse(readFileSync(path, 'utf8')));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return UNFITTED_CALIBRATION;
    throw new Error(`calibration file ${path} is invalid: ${(error as Error).message}`);
  }
}

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

export function calibratedConfidence(calibration: Calibration, features: VerdictFeatures): number {
  const w = calibration.weights;
  return sigmoid(w.bias + w.top * features.top + w.margin * features.margin + w.support * features.support);
}

/**
 * Fits the logistic mapping by gradient descent on the log loss with a small L2 penalty (the
 * labelled runs are nearly separable; the penalty keeps confidences from saturating at 0 and 1).
 */
export function fitCalibration(
  samples: readonly { features: VerdictFeatures; correct: boolean }[],
  fittedOn: string,
  l2 = 0.002,
): Calibration {
  let w = { ...UNFITTED_CALIBRATION.weights };
  const n = samples.length;
  if (n === 0) return UNFITTED_CALIBRATION;
  const rate = 2;
  for (let step = 0; step < 20000; step += 1) {
    const grad = { bias: 0, top: 0, margin: 0, support: 0 };
    for (const { features, correct } of samples) {
      const error = sigmoid(w.bias + w.top * features.top + w.margin * features.margin + w.support * features.support) - (correct ? 1 : 0);
      grad.bias += error;
      grad.top += error * features.top;
      grad.margin += error * features.margin;
      grad.support += error * features.support;
    }
    w = {
      bias: w.bias - (rate * grad.bias) / n,
      top: w.top - rate * (grad.top / n + l2 * w.top),
      margin: w.margin - rate * (grad.margin / n + l2 * w.margin),
      support: w.support - rate * (grad.support / n + l2 * w.support),
    };
  }
  const calibration: Calibration = { weights: w, fitted_on: fittedOn, samples: n, log_loss: null };
  const loss =
    samples.reduce((sum, { features, correct }) => {
      const p = Math.min(1 - 1e-9, Math.max(1e-9, calibratedConfidence(calibration, features)));
      return sum - (correct ? Math.log(p) : Math.log(1 - p));
    }, 0) / n;
  return { ...calibration, log_loss: loss };
}

/** Expected calibration error over equal-width confidence bins, and the Brier score. */
export function reliability(
  predictions: readonly { confidence: number; correct: boolean }[],
  bins = 10,
): { ece: number; brier: number; n: number } {
  const n = predictions.length;
  if (n === 0) return { ece: 0, brier: 0, n };
  let ece = 0;
  for (let b = 0; b < bins; b += 1) {
    const inBin = predictions.filter((p) => Math.min(bins - 1, Math.floor(p.confidence * bins)) === b);
    if (inBin.length === 0) continue;
    const meanConfidence = inBin.reduce((s, p) => s + p.confidence, 0) / inBin.length;
    const accuracy = inBin.filter((p) => p.correct).length / inBin.length;
    ece += (inBin.length / n) * Math.abs(meanConfidence - accuracy);
  }
  const brier = predictions.reduce((s, p) => s + (p.confidence - (p.correct ? 1 : 0)) ** 2, 0) / n;
  return { ece, brier, n };
}
