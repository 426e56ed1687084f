/**
 * The golden probes of a loop run: labelled questions about the knowledge the RAG pair serves,
 * chosen so that every fault kind touches some of them (answers that changed since the stale date
 * for a knowledge-source failure, names with '-', '.' or '+' for the tokenizer anomaly), written as
 * the sentinel's probe file.
 */
import { writeFileSync } from 'node:fs';
import { loadQuestions, touchedByTokenizerAnomaly } from '@rag-immune/reference-rag/testing';
import { formatProbeFile, probesFromQuestions, type GoldenProbe } from '@rag-immune/probing';

/** The date a stale knowledge source falls back to; questions.jsonl holds each answer as of it. */
export const STALE_AS_OF = '2024-06-01T00:00:00.000Z';

export interface LoopProbes {
  probes: GoldenProbe[];
  /** Probes whose expected answer changed since STALE_AS_OF (a stale source must move their KF). */
  changedSinceStale: Set<string>;
  /** Probes whose query a tokenizer anomaly corrupts. */
  tokenizerTouched: Set<string>;
}

/** Deterministic: the same knowledge and count give the same probes. */
export function selectLoopProbes(knowledgeIds: Set<string>, count = 10, idPrefix = 'loop'): LoopProbes {
  const questions = loadQuestions().filter((q) => knowledgeIds.has(q.knowledge_id));
  const changed = questions.filter((q) => q.kind === 'latest_version' && q.expected !== q.expected_baseline).slice(0, 3);
  const tokenized = questions.filter((q) => !changed.includes(q) && touchedByTokenizerAnomaly(q.question)).slice(0, 2);
  // The changed and tokenizer-touched questions come first, but never more probes than asked for.
  const chosen = [...changed, ...tokenized].slice(0, count);
  const rest = questions.filter((q) => !chosen.includes(q));
  // Spread over the rest so that several question kinds and knowledge ids are probed.
  const step = Math.max(1, Math.floor(rest.length / Math.max(1, count - chosen.length)));
  for (let i = 0; i < rest.length && chosen.length < count; i += step) chosen.push(rest[i]!);
  const probes = probesFromQuestions(chosen, idPrefix);
  return {
    probes,
    changedSinceStale: new Set(probes.slice(0, changed.length).map((p) => p.id)),
    tokenizerTouched: new Set(probes.filter((p) => touchedByTokenizerAnomaly(p.query)).map((p) => p.id)),
  };
}

export function writeProbeFile(path: string, probes: readonly GoldenProbe[]): void {
  writeFileSync(path, formatProbeFile(probes));
}
