/**
 * The labelled fault scenarios the identifier is tested and measured on: each reference-RAG fault
 * kind and mode with the root cause and component it must be named as, plus probe selection from
 * the reference RAG's labelled questions. Shared by the recording script, the integration tests and
 * the benchmark; "what counts as right" is the fault catalogue's (@rag-immune/rag-contract).
 */
import { createHash } from 'node:crypto';
import type { RagComponent, RootCause } from '@rag-immune/contracts';
import { probesFromQuestions, type GoldenProbe } from '@rag-immune/probing';
import { EVALUATION_FAULT_KINDS, FAULT_CATALOGUE, FAULT_KINDS, type FaultApiKind } from '@rag-immune/rag-contract';

/** The subset of a reference-RAG labelled question the probes are built from. */
export interface QuestionLike {
  id: string;
  kind: string;
  question: string;
  knowledge_id: string;
  expected: string;
  expected_baseline: string | null;
}

/** A golden probe as the sentinel's probe file holds it. */
export type ProbeLike = GoldenProbe;

export interface FaultScenario {
  kind: string;
  mode: string;
  body: (knowledgeIds: string[], seed: string) => Record<string, unknown>;
  /** The cause the identifier must name; `unknown` for a fault no detector was designed for. */
  cause: RootCause;
  /** Components that count as correctly localised. */
  components: RagComponent[];
}

/** stale_as_of of the knowledge-source failure: the online source falls back to this date. */
export const STALE_AS_OF = '2024-06-01T00:00:00.000Z';

const half = (ids: string[], seed: string) => {
  const picked = ids.filter((id) => rank(`${seed}:${id}`) % 2 === 0);
  return picked.length > 0 ? picked : ids.slice(0, 1);
};

function rank(text: string): number {
  return createHash('sha1').update(text).digest().readUInt32BE(0);
}

/**
 * The injection body of a scenario: a scoped kind hits a seeded half of the probed knowledge, an
 * unscoped one takes only its mode; the kinds whose body says more are listed.
 */
const SPECIAL_BODIES: Partial<Record<FaultApiKind, (mode: string) => FaultScenario['body']>> = {
  'knowledge-source-failure': (mode) => (ids) => ({ mode, stale_as_of: STALE_AS_OF, scope: { knowledge_ids: ids } }),
  'embedding-model-swap': () => (_ids, seed) => ({ scope: { seed } }),
};
const bodyOf = (kind: FaultApiKind, mode: string): FaultScenario['body'] =>
  SPECIAL_BODIES[kind]?.(mode) ??
  (FAULT_CATALOGUE[kind].scoped ? (ids, seed) => ({ mode, scope: { knowledge_ids: half(ids, seed) } }) : () => ({ mode }));

/** Every fault-API kind and scenario mode of the fault catalogue (@rag-immune/rag-contract), in its order. */
export const FAULT_SCENARIOS: FaultScenario[] = [...FAULT_KINDS, ...EVALUATION_FAULT_KINDS].flatMap((kind) =>
  FAULT_CATALOGUE[kind].scenarioModes.map((mode) => ({
    kind,
    mode,
    body: bodyOf(kind, mode),
    cause: FAULT_CATALOGUE[kind].cause ?? 'unknown',
    components: [...FAULT_CATALOGUE[kind].components],
  })),
);

export { probesFromQuestions };

/**
 * A seeded probe set over the ingested knowledge: questions whose answer changed since STALE_AS_OF
 * (a stale source must show on them), questions whose subject has a word-internal '-', '.' or '+'
 * (the tokenizer anomaly touches only those), and others of every kind.
 */
export function selectProbes(questions: readonly QuestionLike[], knowledgeIds: Set<string>, count: number, seed: string): ProbeLike[] {
  const pool = questions.filter((q) => knowledgeIds.has(q.knowledge_id)).sort((a, b) => rank(`${seed}:${a.id}`) - rank(`${seed}:${b.id}`));
  const picked: QuestionLike[] = [];
  const take = (filter: (q: QuestionLike) => boolean, n: number) => {
    for (const q of pool) {
      if (picked.length >= count || n <= 0) return;
      if (!picked.includes(q) && filter(q)) {
        picked.push(q);
        n -= 1;
      }
    }
  };
  const quarter = Math.max(1, Math.floor(count / 4));
  take((q) => q.kind === 'latest_version' && q.expected !== q.expected_baseline, quarter);
  take((q) => /\w[-.+]\w/.test(q.knowledge_id.split('/')[1] ?? ''), quarter);
  take(() => true, count);
  return probesFromQuestions(picked, `p-${seed}`);
}
