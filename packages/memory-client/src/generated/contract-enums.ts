// GENERATED from avro/common/*.avsc by packages/contracts/scripts/codegen.ts. Do not edit: run `npm run codegen`.
/* eslint-disable */
import { z } from 'zod';

/** The contract's vocabularies as zod enums, so an HTTP body is checked like an Avro event. */
export const RootCauseName = z.enum(['vector_index_corruption', 'reranker_drift', 'knowledge_source_failure', 'parser_bug', 'generator_inconsistency', 'tokenizer_anomaly', 'unpublished_knowledge', 'wrong_attribution', 'unknown']);
export const RagComponentName = z.enum(['vector_index', 'retriever', 'reranker', 'knowledge_source', 'parser', 'generator', 'tokenizer', 'unknown']);
export const RepairIntentName = z.enum(['rebuild_index_incremental', 'rollback_reranker', 'refresh_knowledge_source', 'switch_backup_source', 'reparse_documents', 'enable_answer_validation_fallback', 'add_query_rewrite_rule', 'escalate_to_human', 'unknown']);
export const IncidentOutcomeName = z.enum(['open', 'recovered', 'failed', 'escalated']);
