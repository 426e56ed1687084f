import { seededRandom } from '../random.ts';

export { seededRandom };

function squaredDistance(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i += 1) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    sum += d * d;
  }
  return sum;
}

export interface Clustering {
  assignments: number[];
  centroids: Float32Array[];
}

/**
 * k-means with k-means++ seeding over (L2-normalised) embeddings, where squared Euclidean distance
 * orders points as cosine similarity does. Deterministic for a given seed.
 */
export function kMeans(points: readonly Float32Array[], k: number, seed = 42, maxIterations = 50): Clustering {
  if (points.length === 0) return { assignments: [], centroids: [] };
  const clusters = Math.min(k, points.length);
  const random = seededRandom(seed);
  const first = points[Math.floor(random() * points.length)] as Float32Array;
  const centroids: Float32Array[] = [Float32Array.from(first)];
  while (centroids.length < clusters) {
    const distances = points.map((p) => Math.min(...centroids.map((c) => squaredDistance(p, c))));
    const total = distances.reduce((a, b) => a + b, 0);
    let chosen = -1;
    if (total > 0) {
      let target = random() * total;
      chosen = distances.findIndex((d) => (target -= d) <= 0);
    }
    // All points coincide with a centroid (or rounding ran past the end): take the farthest one.
    if (chosen < 0) chosen = distances.indexOf(Math.max(...distances));
    centroids.push(Float32Array.from(points[chosen] as Float32Array));
  }
  let assignments = points.map(() => 0);
  for (let iteration = 0; iteration < maxIterations; iteration += 1) {
    const next = points.map((p) => {
      let best = 0;
      let bestDistance = Infinity;
      centroids.forEach((c, index) => {
        const d = squaredDistance(p, c);
        if (d < bestDistance) [best, bestDistance] = [index, d];
      });
      return best;
    });
    const changed = next.some((a, i) => a !== assignments[i]);
    assignments = next;
    for (let c = 0; c < centroids.length; c += 1) {
      const members = points.filter((_, i) => assignments[i] === c);
      if (members.length === 0) continue;
      const mean = new Float32Array(members[0]?.length ?? 0);
      for (const m of members) for (let d = 0; d < mean.length; d += 1) mean[d] = (mean[d] ?? 0) + (m[d] ?? 0) / members.length;
      centroids[c] = mean;
    }
    if (!changed && iteration > 0) break;
  }
  return { assignments, centroids };
}

export function distanceToCentroid(point: Float32Array, centroid: Float32Array): number {
  return squaredDistance(point, centroid);
}
