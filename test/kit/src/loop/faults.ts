/**
 * What a loop run injects and what the immune system is expected to make of it: for each fault kind
 * of the reference RAG, the injection body for a given scope/mode/seed, the root cause and component
 * a correct RootCauseReport names, and the repair intents that really heal it: read from the one
 * fault catalogue (@rag-immune/rag-contract's FAULT_CATALOGUE), which the reference RAG's injector reads too.
 */
import { EVALUATION_FAULT_KINDS, FAULT_CATALOGUE, FAULT_KINDS } from '@rag-immune/rag-contract';
import { createHash } from 'node:crypto';
import type { RagComponent, RepairIntent, RootCause } from '@rag-immune/contracts';
import { STALE_AS_OF, type LoopProbes } from './probes.ts';

export const SEEN_FAULT_KINDS: readonly string[] = FAULT_KINDS;
/** Kinds no detector was designed for (evaluation only): `unknown` or the right component is correct. */
export const UNSEEN_FAULT_KINDS: readonly string[] = EVALUATION_FAULT_KINDS;
export const ALL_FAULT_KINDS: readonly string[] = [...FAULT_KINDS, ...EVALUATION_FAULT_KINDS];

export interface FaultExpectation {
  /** The cause a correct report names; null for an unseen kind (only `unknown` or `components` are right). */
  cause: RootCause | null;
  components: RagComponent[];
  /** Intents whose verified success is a right repair. Empty: no verified repair can be right. */
  healingIntents: RepairIntent[];
  /** The modes a loop trial runs, its default first. */
  modes: string[];
  /** Scoped by knowledge ids (false: global or by query). */
  scoped: boolean;
}

/** Every kind's expectation, read from the one fault catalogue (@rag-immune/rag-contract's FAULT_CATALOGUE). */
export const FAULT_EXPECTATIONS: Record<string, FaultExpectation> = Object.fromEntries(
  Object.entries(FAULT_CATALOGUE).map(([kind, spec]) => [
    kind,
    {
      cause: spec.cause,
      components: [...spec.components],
      healingIntents: [...spec.healingIntents],
      modes: [...spec.trialModes],
      scoped: spec.scoped,
    },
  ]),
);

export function expectationOf(kind: string): FaultExpectation {
  const expectation = FAULT_EXPECTATIONS[kind];
  if (expectation === undefined) throw new Error(`unknown fault kind ${kind}; known: ${ALL_FAULT_KINDS.join(', ')}`);
  return expectation;
}

/** One injection: kind, mode, the fraction of the probed knowledge it hits, and the seed of that pick. */
export interface FaultPlan {
  kind: string;
  mode?: string;
  /** Fraction of the probed knowledge ids in scope (scoped kinds); default 0.5. */
  fraction?: number;
  seed?: string;
}

const rank = (seed: string, id: string) => createHash('sha1').update(`${seed}:${id}`).digest().readUInt32BE(0);

/**
 * The body of POST /admin/faults/{kind}. A scoped fault hits a seeded fraction of the knowledge the
 * probes ask about (at least one id; for a stale source at least one whose answer changed since the
 * stale date, since only those can go stale).
 */
export function injectionBody(plan: FaultPlan, probes: LoopProbes): Record<string, unknown> {
  const expectation = expectationOf(plan.kind);
  const mode = plan.mode ?? expectation.modes[0];
  const body: Record<string, unknown> = { ...(mode === undefined ? {} : { mode }) };
  const seed = plan.seed ?? 'loop';
  if (expectation.scoped) {
    const probed = [...new Set(probes.probes.map((p) => p.expected_sources[0] as string))].sort((a, b) => rank(seed, a) - rank(seed, b));
    const wanted = Math.max(1, Math.round((plan.fraction ?? 0.5) * probed.length));
    let ids = probed.slice(0, wanted);
    if (plan.kind === 'attribution-swap') {
      // One probed changelog document and one probed apt document of another package: the apt chunk
      // lacks the release fields a version question needs, so answers stay right while citations move.
      const first = probed.find((id) => id.startsWith('changelog/')) ?? probed[0]!;
      const subject = (id: string) => id.slice(id.indexOf('/') + 1);
      const other = probed.find((id) => id.startsWith('apt/') && subject(id) !== subject(first)) ?? probed.find((id) => id !== first);
      if (other === undefined) throw new Error('attribution-swap needs probes on two documents');
      ids = [first, other];
    }
    if (plan.kind === 'knowledge-source-failure') {
      const changed = probes.probes.filter((p) => probes.changedSinceStale.has(p.id)).map((p) => p.expected_sources[0] as string);
      // Only the changelog source goes stale; keep the scope within it.
      ids = ids.filter((id) => id.startsWith('changelog/'));
      if (!ids.some((id) => changed.includes(id)) && changed[0] !== undefined) ids.push(changed[0]);
      body.stale_as_of = STALE_AS_OF;
    }
    body.scope = { knowledge_ids: ids };
  } else if (plan.kind === 'embedding-model-swap') {
    body.scope = { seed };
  }
  return body;
}

/** Probes an injected fault degrades, given what the RAG answered about the knowledge it hit. */
export function touchedProbes(kind: string, probes: LoopProbes, affectedKnowledgeIds: string[] | null | undefined): Set<string> {
  const affected = affectedKnowledgeIds ? new Set(affectedKnowledgeIds) : null;
  return new Set(
    probes.probes
      .filter((probe) => {
        if (kind === 'tokenizer-anomaly') return probes.tokenizerTouched.has(probe.id);
        const inScope = affected === null || affected.has(probe.expected_sources[0] ?? '');
        if (kind === 'knowledge-source-failure') return inScope && probes.changedSinceStale.has(probe.id);
        return inScope;
      })
      .map((probe) => probe.id),
  );
}
