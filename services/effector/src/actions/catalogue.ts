import { REPAIR_INTENTS, type RepairIntent } from '@rag-immune/contracts';
import { toolBox, type RepairTool, type ToolBox } from './repair-tool.ts';
import { reindexKnowledge } from './reindex-knowledge.ts';
import { reindexIntoNewCollection } from './reindex-into-new-collection.ts';
import { restoreCollectionSnapshot } from './restore-collection-snapshot.ts';
import { pinRerankerVersion } from './pin-reranker-version.ts';
import { pinGeneratorVersion } from './pin-generator-version.ts';
import { enableAnswerValidation } from './enable-answer-validation.ts';
import { refreshKnowledgeSource } from './refresh-knowledge-source.ts';
import { switchToBackupSource } from './switch-knowledge-source.ts';
import { reparseDocuments } from './reparse-documents.ts';
import { setQueryRewriteRules } from './set-query-rewrite-rules.ts';
import { escalateToHuman } from './escalate-to-human.ts';

/** Every tool, in order of preference among those carrying one intent (the first is memory's default for it). */
export const TOOLS: readonly RepairTool[] = [
  // Blue/green first where the RAG's collection is behind an alias; in place (snapshot first) otherwise.
  reindexIntoNewCollection,
  reindexKnowledge,
  restoreCollectionSnapshot,
  pinRerankerVersion,
  refreshKnowledgeSource,
  switchToBackupSource,
  reparseDocuments,
  // The generator pin first: withholding answers alone never makes the probes recover.
  pinGeneratorVersion,
  enableAnswerValidation,
  setQueryRewriteRules,
  escalateToHuman,
] as unknown as readonly RepairTool[];

/** The shipped tools, as the effector's loop reaches them. */
export const CATALOGUE: ToolBox = toolBox(TOOLS);

export function toolNamed(name: string): RepairTool | undefined {
  return CATALOGUE.named(name);
}

/**
 * Every RepairIntent of the contract → the tools that carry it out, preferred first: each tool
 * names its intent; 'unknown' (and escalate_to_human) go to the terminal tool.
 */
export const INTENT_TOOLS: Record<RepairIntent, string[]> = Object.fromEntries(
  REPAIR_INTENTS.map((intent) => [
    intent,
    intent === 'unknown' ? [CATALOGUE.escalation.name] : TOOLS.filter((tool) => tool.intent === intent).map((tool) => tool.name),
  ]),
) as Record<RepairIntent, string[]>;
