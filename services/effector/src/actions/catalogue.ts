/** The registry of repair tools: the shipped catalogue, and the tool box the effector's loop reaches tools through. */
import { REPAIR_INTENTS, type RepairIntent } from '@rag-immune/contracts';
import type { RepairTool } from './repair-tool.ts';
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
import { switchAliasBack } from './switch-alias-back.ts';
import { rebuildFromCollection } from './rebuild-from-collection.ts';
import { restoreKnowledgeFromCollection } from './restore-knowledge-from-collection.ts';
import { callIngestionWebhook } from './call-ingestion-webhook.ts';
import { recommendOperatorStep } from './recommend-operator-step.ts';
import { recommendGenerationRollback } from './recommend-generation-rollback.ts';

/**
 * The tools the effector may run, by name, and the one that hands an incident to a human. The
 * effector's loop reaches tools only through this, so it names none and a test can give it fakes.
 */
export interface ToolBox {
  named(name: string): RepairTool | undefined;
  /** The terminal tool (`terminal: true`) escalations are recorded under. */
  readonly escalation: RepairTool;
}

export function toolBox(tools: readonly RepairTool[]): ToolBox {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const terminal = tools.filter((tool) => tool.terminal === true);
  if (terminal.length !== 1) throw new Error(`a tool box needs exactly one terminal (escalation) tool, got ${terminal.length}`);
  return { named: (name) => byName.get(name), escalation: terminal[0]! };
}

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
  // A RAG without repair hooks (its adapter's `repair.hooks: none`): after every hook tool of the
  // same intent, so memory's default tool for an intent is unchanged.
  switchAliasBack,
  rebuildFromCollection,
  // A hookless RAG reading its collection by name (`repair.collection_mode: by_name`): no alias to switch.
  restoreKnowledgeFromCollection,
  callIngestionWebhook,
  recommendOperatorStep,
  // After the generator's hook tools (same intent): memory's default tool for it stays the generator pin.
  recommendGenerationRollback,
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
