import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { FEATURE_NAMES, featureVectors, type Candidate } from './features.ts';

/** A reranker weights file (models/reranker/<version>.json). */
export const RerankerWeights = z.object({
  version: z.string().min(1),
  model: z.literal('logistic-regression'),
  features: z.array(z.enum(FEATURE_NAMES)),
  weights: z.array(z.number()),
  bias: z.number(),
  fitted: z.record(z.unknown()).optional(),
});
export type RerankerWeights = z.infer<typeof RerankerWeights>;

export function loadRerankerWeights(dir: string): Map<string, RerankerWeights> {
  const out = new Map<string, RerankerWeights>();
  for (const file of readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()) {
    const weights = RerankerWeights.parse(JSON.parse(readFileSync(join(dir, file), 'utf8')));
    if (weights.features.length !== weights.weights.length)
      throw new Error(`${file}: ${weights.features.length} features but ${weights.weights.length} weights`);
    out.set(weights.version, weights);
  }
  return out;
}

export interface Reranked<T extends Candidate> {
  candidate: T;
  score: number;
}

/** A linear (logistic) reranker over lexical, numeric, trust and embedding features, with versioned weights. */
export class Reranker {
  private active: RerankerWeights;

  constructor(
    private readonly versions: Map<string, RerankerWeights>,
    version: string,
  ) {
    this.active = this.get(version);
  }

  get version(): string {
    return this.active.version;
  }

  get availableVersions(): string[] {
    return [...this.versions.keys()];
  }

  use(version: string): void {
    this.active = this.get(version);
  }

  rerank<T extends Candidate>(query: string, candidates: T[]): Reranked<T>[] {
    const features = featureVectors(query, candidates);
    const index = new Map(FEATURE_NAMES.map((name, i) => [name, i]));
    return candidates
      .map((candidate, i) => {
        let z = this.active.bias;
        this.active.features.forEach((name, j) => (z += this.active.weights[j]! * features[i]![index.get(name)!]!));
        return { candidate, score: 1 / (1 + Math.exp(-z)) };
      })
      .sort((a, b) => b.score - a.score);
  }

  private get(version: string): RerankerWeights {
    const weights = this.versions.get(version);
    if (weights === undefined) throw new Error(`unknown reranker version ${version} (have ${[...this.versions.keys()].join(', ')})`);
    return weights;
  }
}
