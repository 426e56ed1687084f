import type { RepairIntent } from '@rag-immune/contracts';
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

export const TOOLS: readonly RepairTool[] = [
  reindexIntoNewCollection,
  reindexKnowledge,
  restoreCollectionSnapshot,
  pinRerankerVersion,
  refreshKnowledgeSource,
  switchToBackupSource,
  reparseDocuments,
  enableAnswerValidation,
  pinGeneratorVersion,
  setQueryRewriteRules,
  escalateToHuman,
] as unknown as readonly RepairTool[];

/** The shipped tools, as the effector's loop reaches them. */
export const CATALOGUE: ToolBox = toolBox(TOOLS);

export function toolNamed(name: string): RepairTool | undefined {
  return CATALOGUE.named(name);
}

/** Every RepairIntent of the contract → the tools that carry it out, preferred first ('unknown' escalates). */
export const INTENT_TOOLS: Record<RepairIntent, string[]> = {
  // Blue/green first where the RAG's collection is behind an alias; in place (snapshot first) otherwise.
  rebuild_index_incremental: ['reindex_into_new_collection', 'reindex_knowledge', 'restore_collection_snapshot'],
  rollback_reranker: ['pin_reranker_version'],
  refresh_knowledge_source: ['refresh_knowledge_source'],
  switch_backup_source: ['switch_to_backup_source'],
  reparse_documents: ['reparse_documents'],
  enable_answer_validation_fallback: ['pin_generator_version', 'enable_answer_validation'],
  add_query_rewrite_rule: ['set_query_rewrite_rules'],
  escalate_to_human: ['escalate_to_human'],
  unknown: ['escalate_to_human'],
};
