/** Fits L2-regularised logistic regression by full-batch gradient descent (small data, no dependency). */
export function fitLogistic(
  x: number[][],
  y: number[],
  options: { epochs?: number; learningRate?: number; l2?: number; positiveWeight?: number } = {},
): { weights: number[]; bias: number; loss: number } {
  const n = x.length;
  const d = x[0]?.length ?? 0;
  const weights = new Array<number>(d).fill(0);
  let bias = 0;
  const { epochs = 3000, learningRate = 0.5, l2 = 1e-3, positiveWeight = 1 } = options;
  let loss = 0;
  for (let epoch = 0; epoch < epochs; epoch++) {
    const grad = new Array<number>(d).fill(0);
    let gradBias = 0;
    loss = 0;
    let total = 0;
    for (let i = 0; i < n; i++) {
      const row = x[i]!;
      let z = bias;
      for (let j = 0; j < d; j++) z += weights[j]! * row[j]!;
      const p = 1 / (1 + Math.exp(-z));
      const w = y[i] === 1 ? positiveWeight : 1;
      total += w;
      loss -= w * (y[i] === 1 ? Math.log(p + 1e-12) : Math.log(1 - p + 1e-12));
      const err = w * (p - y[i]!);
      for (let j = 0; j < d; j++) grad[j]! += err * row[j]!;
      gradBias += err;
    }
    for (let j = 0; j < d; j++) weights[j]! -= learningRate * (grad[j]! / total + l2 * weights[j]!);
    bias -= learningRate * (gradBias / total);
    loss /= total;
  }
  return { weights, bias, loss };
}
