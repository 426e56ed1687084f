import type { PartialQueryResponse } from '@rag-immune/rag-contract';
import { newProbeTraceContext, probeTraceHeaders } from '@rag-immune/traces';
import { evidence } from '../observed-response.ts';
import type { GoldenProbe } from '../golden-probe.ts';
import type { FactConsistencyPort, RagPort } from '../ports.ts';
import { defaultThresholds, type AnomalyThresholds } from '../signals/baseline-comparison.ts';
import { detectability, type Detectability } from '../signals/detectability.ts';
import { intentCoverage } from '../signals/intent-coverage.ts';
import { distanceToCentroid, kMeans } from './kmeans.ts';
import type { QueryLogEntry } from './query-log.ts';

/**
 * Builds a golden probe set the way the design document does (section 3.1):
 * 1. head: the most frequent high-value queries (count × business value);
 * 2. long tail: k-means over the embeddings of the remaining queries, one representative per
 *    cluster (the member nearest its centroid, then the next nearest if it is rejected);
 * 3. every candidate must be fragile — its FCS varies across N runs (the standard deviation is
 *    above a threshold) — and attributable — its answer rests on one knowledge source (that
 *    source's share of the answer's citations, or of the retrieval weight when the RAG cites
 *    nothing, is above a threshold).
 * A deterministic RAG gives the same answer on every repeat, so the N runs also vary the query's
 * surface (case, punctuation, a polite prefix) the way users do; a query whose FCS moves under
 * such noise is one whose answer is on a knife's edge, which is what a probe should watch.
 * 4. every candidate must be able to fire: its clean FCS must leave room for a drop by the sentinel's
 *    threshold (see `detectability`); one whose FCS is flat near the floor and whose IC cannot drop
 *    either is rejected, one where only IC can fire is kept but flagged.
 */
export interface ProbeSetOptions {
  size: number;
  headShare: number;
  runs: number;
  fragilityThreshold: number;
  attributionShare: number;
  seed: number;
  now: Date;
  /** The sentinel's thresholds a probe must be able to cross (default: the sentinel's defaults). */
  thresholds?: Pick<AnomalyThresholds, 'fcsDrop' | 'icDrop'>;
}

export const defaultProbeSetOptions: ProbeSetOptions = {
  size: 20,
  headShare: 0.5,
  runs: 5,
  fragilityThreshold: 0.02,
  attributionShare: 0.6,
  seed: 42,
  now: new Date(),
};

export interface CandidateVerdict {
  query: string;
  cluster: string;
  count: number;
  fcs_mean: number | null;
  fcs_std: number | null;
  source: string | null;
  source_share: number | null;
  accepted: boolean;
  reason: string;
  /** Whether a clean-state drop can show on the probe: 'flagged' means only IC can fire. */
  detectability?: Detectability['verdict'];
}

export interface ProbeSetReport {
  probes: GoldenProbe[];
  verdicts: CandidateVerdict[];
}

export interface ProbeSetPorts {
  embed(texts: string[]): Promise<Float32Array[]>;
  rag: RagPort;
  fcs: FactConsistencyPort;
}

/** Surface variants of a query: what different users type for the same question. */
export function queryVariants(query: string, runs: number): string[] {
  const trimmed = query.trim();
  const bare = trimmed.replace(/[?.!]+$/, '');
  const variants = [
    trimmed,
    bare.toLowerCase(),
    `${bare}?`,
    `Please tell me: ${bare}`,
    `${bare.charAt(0).toLowerCase()}${bare.slice(1)} ?`,
    bare.toUpperCase(),
  ];
  return Array.from({ length: runs }, (_, i) => variants[i % variants.length] as string);
}

/**
 * Which knowledge source the answer rests on, and how exclusively: the answer's citations when the
 * RAG gives them (the sources it says it used), else the retrieval weight of the retrieved chunks.
 */
export function attribution(response: Pick<PartialQueryResponse, 'citations' | 'chunks'>): { source: string | null; share: number | null } {
  const weights = new Map<string, number>();
  // Only what names its knowledge id counts, and a chunk only with its score: no id or no score, no attribution.
  const cited = (response.citations ?? []).flatMap((c) => (c.knowledge_id === undefined ? [] : [c.knowledge_id]));
  if (cited.length > 0) for (const id of cited) weights.set(id, (weights.get(id) ?? 0) + 1);
  else
    for (const chunk of response.chunks)
      if (chunk.knowledge_id !== undefined && chunk.retrieval_score !== undefined)
        weights.set(chunk.knowledge_id, (weights.get(chunk.knowledge_id) ?? 0) + Math.max(0, chunk.retrieval_score));
  const total = [...weights.values()].reduce((a, b) => a + b, 0);
  const [top] = [...weights].sort((a, b) => b[1] - a[1]);
  if (top === undefined || total === 0) return { source: null, share: null };
  return { source: top[0], share: top[1] / total };
}

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
}

function stdDev(values: number[]): number {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / values.length);
}

export class ProbeSetBuilder {
  constructor(
    private readonly ports: ProbeSetPorts,
    private readonly options: ProbeSetOptions = defaultProbeSetOptions,
  ) {}

  async build(log: readonly QueryLogEntry[]): Promise<ProbeSetReport> {
    const { size, headShare, seed } = this.options;
    const worth = (e: QueryLogEntry) => e.count * (e.business_value ?? 1);
    const ranked = [...log].sort((a, b) => worth(b) - worth(a) || a.query.localeCompare(b.query));
    const headTarget = Math.round(size * headShare);
    const verdicts: CandidateVerdict[] = [];
    const probes: GoldenProbe[] = [];
    const accept = (verdict: CandidateVerdict, entry: QueryLogEntry) => {
      verdicts.push(verdict);
      if (!verdict.accepted || verdict.source === null) return false;
      probes.push(this.toProbe(entry, verdict.cluster, verdict.source, probes.length));
      return true;
    };

    // Head: walk down the ranking until enough frequent queries pass.
    const headSeen = new Set<string>();
    for (const entry of ranked) {
      if (probes.length >= headTarget) break;
      headSeen.add(entry.query);
      await accept(await this.examine(entry, 'head'), entry);
    }

    // Long tail: the rest, clustered; one accepted representative per cluster.
    const tail = ranked.filter((entry) => !headSeen.has(entry.query));
    const tailTarget = size - probes.length;
    if (tail.length > 0 && tailTarget > 0) {
      const embeddings = await this.ports.embed(tail.map((e) => e.query));
      const { assignments, centroids } = kMeans(embeddings, tailTarget, seed);
      for (let cluster = 0; cluster < centroids.length && probes.length < size; cluster += 1) {
        const members = tail
          .map((entry, index) => ({
            entry,
            distance:
              assignments[index] === cluster
                ? distanceToCentroid(embeddings[index] as Float32Array, centroids[cluster] as Float32Array)
                : Infinity,
          }))
          .filter((m) => Number.isFinite(m.distance))
          .sort((a, b) => a.distance - b.distance)
          .slice(0, 3);
        for (const { entry } of members) if (await accept(await this.examine(entry, `tail-${cluster}`), entry)) break;
      }
    }
    return { probes, verdicts };
  }

  private async examine(entry: QueryLogEntry, cluster: string): Promise<CandidateVerdict> {
    const base = { query: entry.query, cluster, count: entry.count };
    const scores: number[] = [];
    let source: string | null = null;
    let share: number | null = null;
    let ic: number | null = null;
    // A candidate dropped before its FCS spread could be measured.
    const rejected = (reason: string): CandidateVerdict => ({
      ...base,
      fcs_mean: null,
      fcs_std: null,
      source,
      source_share: share,
      accepted: false,
      reason,
    });
    for (const [index, variant] of queryVariants(entry.query, this.options.runs).entries()) {
      let response;
      try {
        // The sentinel's own call, marked as a probe: the trace intake keeps it out of users' traffic.
        response = await this.ports.rag.query({ query: variant }, { headers: probeTraceHeaders(newProbeTraceContext()) });
      } catch (error) {
        return rejected(`RAG call failed: ${(error as Error).message}`);
      }
      if (index === 0) {
        ({ source, share } = attribution(response));
        ic = intentCoverage(entry.query, response.answer, response.abstained ?? false).ic;
      }
      const verdict = await this.ports.fcs.score({
        question: entry.query,
        evidence: evidence(response.chunks),
        answer: response.answer,
      });
      if (verdict.score !== null) scores.push(verdict.score);
    }
    if (scores.length < 2) return rejected('no FCS: the RAG returned no evidence');
    const mean = scores.reduce((a, b) => a + b, 0) / scores.length;
    const std = stdDev(scores);
    const verdict = { ...base, fcs_mean: mean, fcs_std: std, source, source_share: share };
    // First: a probe that can never fire is useless however attributable or fragile it is.
    const gate = detectability({ fcs: mean, ic }, this.options.thresholds ?? defaultThresholds);
    if (gate.verdict === 'rejected') return { ...verdict, accepted: false, reason: gate.reason, detectability: gate.verdict };
    if (share === null || share < this.options.attributionShare)
      return {
        ...verdict,
        accepted: false,
        reason: `not attributable: top source holds ${((share ?? 0) * 100).toFixed(0)}% of retrieval weight`,
      };
    if (std <= this.options.fragilityThreshold)
      return { ...verdict, accepted: false, reason: `not fragile: FCS std ${std.toFixed(3)} <= ${this.options.fragilityThreshold}` };
    const flagged = gate.verdict === 'flagged' ? `; flagged: ${gate.reason}` : '';
    return {
      ...verdict,
      accepted: true,
      reason: `fragile (FCS std ${std.toFixed(3)}) and attributable to ${source}${flagged}`,
      detectability: gate.verdict,
    };
  }

  private toProbe(entry: QueryLogEntry, cluster: string, source: string, index: number): GoldenProbe {
    return {
      id: `${slug(entry.query) || 'probe'}-${index + 1}`.replace(/^-/, ''),
      version: 1,
      query: entry.query,
      expected_sources: [source],
      business_value: entry.business_value ?? 1,
      cluster,
      created_at: this.options.now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      retired_at: null,
    };
  }
}
