// GENERATED from avro/common/*.avsc by packages/contracts/scripts/codegen.ts. Do not edit: run `npm run codegen`.
/* eslint-disable */

/** Every root cause the identifier may name; 'unknown' is an abstention. */
export const ROOT_CAUSES = ['vector_index_corruption', 'reranker_drift', 'knowledge_source_failure', 'parser_bug', 'generator_inconsistency', 'tokenizer_anomaly', 'unpublished_knowledge', 'wrong_attribution', 'unknown'] as const;
/** Every component of a RAG a report may implicate. */
export const RAG_COMPONENTS = ['vector_index', 'retriever', 'reranker', 'knowledge_source', 'parser', 'generator', 'tokenizer', 'unknown'] as const;
/** Every repair intent a report may recommend and an action carry out. */
export const REPAIR_INTENTS = ['rebuild_index_incremental', 'rollback_reranker', 'refresh_knowledge_source', 'switch_backup_source', 'reparse_documents', 'enable_answer_validation_fallback', 'add_query_rewrite_rule', 'escalate_to_human', 'unknown'] as const;
/** Where an incident stands, in every worker's words. */
export const INCIDENT_OUTCOMES = ['open', 'recovered', 'failed', 'escalated'] as const;

export type CatalogueCause = Exclude<(typeof ROOT_CAUSES)[number], 'unknown'>;

/** Each named cause: the component it lives in and the repair intents that heal it, preferred first. */
export const CAUSES: { readonly [C in CatalogueCause]: { readonly component: (typeof RAG_COMPONENTS)[number]; readonly intents: readonly (typeof REPAIR_INTENTS)[number][] } } = {
  vector_index_corruption: { component: 'vector_index', intents: ['rebuild_index_incremental'] },
  reranker_drift: { component: 'reranker', intents: ['rollback_reranker'] },
  knowledge_source_failure: { component: 'knowledge_source', intents: ['switch_backup_source', 'refresh_knowledge_source'] },
  parser_bug: { component: 'parser', intents: ['reparse_documents', 'rebuild_index_incremental'] },
  generator_inconsistency: { component: 'generator', intents: ['enable_answer_validation_fallback'] },
  tokenizer_anomaly: { component: 'tokenizer', intents: ['add_query_rewrite_rule'] },
  unpublished_knowledge: { component: 'vector_index', intents: ['rebuild_index_incremental'] },
  wrong_attribution: { component: 'vector_index', intents: ['rebuild_index_incremental'] },
};
