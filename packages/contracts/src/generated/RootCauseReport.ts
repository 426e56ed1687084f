// GENERATED from avro/RootCauseReport.avsc by packages/contracts/scripts/codegen.ts. Do not edit: run `npm run codegen`.
/* eslint-disable */

export type RootCauseReport = IoRagimmuneIdentifier.RootCauseReport;

export namespace IoRagimmuneCommon {
    export const EventProducerSchema = "{\"type\":\"record\",\"name\":\"EventProducer\",\"namespace\":\"io.ragimmune.common\",\"doc\":\"Which deployed worker wrote the event.\",\"fields\":[{\"name\":\"service\",\"type\":\"string\"},{\"name\":\"version\",\"type\":\"string\"},{\"name\":\"instance\",\"type\":\"string\",\"doc\":\"Host or pod name, so an event can be traced to one replica.\"}]}";
    export const EventProducerName = "io.ragimmune.common.EventProducer";
    /**
     * Which deployed worker wrote the event.
     */
    export interface EventProducer {
        service: string;
        version: string;
        /**
         * Host or pod name, so an event can be traced to one replica.
         */
        instance: string;
    }
    export const RepairIntentSchema = "{\"type\":\"enum\",\"name\":\"RepairIntent\",\"namespace\":\"io.ragimmune.common\",\"symbols\":[\"rebuild_index_incremental\",\"rollback_reranker\",\"refresh_knowledge_source\",\"switch_backup_source\",\"reparse_documents\",\"enable_answer_validation_fallback\",\"add_query_rewrite_rule\",\"escalate_to_human\",\"unknown\"],\"default\":\"unknown\"}";
    export const RepairIntentName = "io.ragimmune.common.RepairIntent";
    export type RepairIntent = "rebuild_index_incremental" | "rollback_reranker" | "refresh_knowledge_source" | "switch_backup_source" | "reparse_documents" | "enable_answer_validation_fallback" | "add_query_rewrite_rule" | "escalate_to_human" | "unknown";
}

export namespace IoRagimmuneIdentifier {
    export const RootCauseSchema = "{\"type\":\"enum\",\"name\":\"RootCause\",\"doc\":\"unknown is an abstention: the evidence does not support any cause.\",\"symbols\":[\"vector_index_corruption\",\"reranker_drift\",\"knowledge_source_failure\",\"parser_bug\",\"generator_inconsistency\",\"tokenizer_anomaly\",\"unpublished_knowledge\",\"wrong_attribution\",\"unknown\"],\"default\":\"unknown\"}";
    export const RootCauseName = "io.ragimmune.identifier.RootCause";
    /**
     * unknown is an abstention: the evidence does not support any cause.
     */
    export type RootCause = "vector_index_corruption" | "reranker_drift" | "knowledge_source_failure" | "parser_bug" | "generator_inconsistency" | "tokenizer_anomaly" | "unpublished_knowledge" | "wrong_attribution" | "unknown";
    export const RagComponentSchema = "{\"type\":\"enum\",\"name\":\"RagComponent\",\"symbols\":[\"vector_index\",\"retriever\",\"reranker\",\"knowledge_source\",\"parser\",\"generator\",\"tokenizer\",\"unknown\"],\"default\":\"unknown\"}";
    export const RagComponentName = "io.ragimmune.identifier.RagComponent";
    export type RagComponent = "vector_index" | "retriever" | "reranker" | "knowledge_source" | "parser" | "generator" | "tokenizer" | "unknown";
    export const ClaimKindSchema = "{\"type\":\"enum\",\"name\":\"ClaimKind\",\"symbols\":[\"retrieval_score_shift\",\"rerank_score_shift\",\"retrieved_set_change\",\"knowledge_staleness\",\"chunk_pollution\",\"answer_fact_mismatch\",\"query_encoding_anomaly\",\"component_version_change\",\"unknown\"],\"default\":\"unknown\"}";
    export const ClaimKindName = "io.ragimmune.identifier.ClaimKind";
    export type ClaimKind = "retrieval_score_shift" | "rerank_score_shift" | "retrieved_set_change" | "knowledge_staleness" | "chunk_pollution" | "answer_fact_mismatch" | "query_encoding_anomaly" | "component_version_change" | "unknown";
    export const EvidenceClaimSchema = "{\"type\":\"record\",\"name\":\"EvidenceClaim\",\"doc\":\"One checkable statement: a metric of a subject moved from baseline to observed. Cites at least one ledger record.\",\"fields\":[{\"name\":\"claim_id\",\"type\":\"string\"},{\"name\":\"kind\",\"type\":{\"type\":\"enum\",\"name\":\"ClaimKind\",\"symbols\":[\"retrieval_score_shift\",\"rerank_score_shift\",\"retrieved_set_change\",\"knowledge_staleness\",\"chunk_pollution\",\"answer_fact_mismatch\",\"query_encoding_anomaly\",\"component_version_change\",\"unknown\"],\"default\":\"unknown\"}},{\"name\":\"subject\",\"type\":\"string\",\"doc\":\"What the claim is about: a probe id, document id, chunk id or component name.\"},{\"name\":\"metric\",\"type\":\"string\",\"doc\":\"Machine name of the measured quantity, e.g. top1_rerank_score, jaccard_top5, kf_age_days.\"},{\"name\":\"observed\",\"type\":\"double\"},{\"name\":\"baseline\",\"type\":[\"null\",\"double\"],\"default\":null},{\"name\":\"evidence_ids\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"doc\":\"Content-hashed evidence ledger record ids; never empty.\"}]}";
    export const EvidenceClaimName = "io.ragimmune.identifier.EvidenceClaim";
    /**
     * One checkable statement: a metric of a subject moved from baseline to observed. Cites at least one ledger record.
     */
    export interface EvidenceClaim {
        claim_id: string;
        kind: IoRagimmuneIdentifier.ClaimKind;
        /**
         * What the claim is about: a probe id, document id, chunk id or component name.
         */
        subject: string;
        /**
         * Machine name of the measured quantity, e.g. top1_rerank_score, jaccard_top5, kf_age_days.
         */
        metric: string;
        observed: number;
        /**
         * Default: null
         */
        baseline: null | number;
        /**
         * Content-hashed evidence ledger record ids; never empty.
         */
        evidence_ids: string[];
    }
    export const OpenQuestionKindSchema = "{\"type\":\"enum\",\"name\":\"OpenQuestionKind\",\"symbols\":[\"insufficient_evidence\",\"conflicting_evidence\",\"trace_unavailable\",\"baseline_unavailable\",\"multiple_causes\",\"unknown\",\"trace_incomplete\",\"index_change_unexplained\"],\"default\":\"unknown\"}";
    export const OpenQuestionKindName = "io.ragimmune.identifier.OpenQuestionKind";
    export type OpenQuestionKind = "insufficient_evidence" | "conflicting_evidence" | "trace_unavailable" | "baseline_unavailable" | "multiple_causes" | "unknown" | "trace_incomplete" | "index_change_unexplained";
    export const OpenQuestionSchema = "{\"type\":\"record\",\"name\":\"OpenQuestion\",\"doc\":\"What the identifier could not settle, typed so that no free text passes between workers.\",\"fields\":[{\"name\":\"kind\",\"type\":{\"type\":\"enum\",\"name\":\"OpenQuestionKind\",\"symbols\":[\"insufficient_evidence\",\"conflicting_evidence\",\"trace_unavailable\",\"baseline_unavailable\",\"multiple_causes\",\"unknown\",\"trace_incomplete\",\"index_change_unexplained\"],\"default\":\"unknown\"}},{\"name\":\"subject\",\"type\":\"string\"},{\"name\":\"evidence_ids\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"default\":[]}]}";
    export const OpenQuestionName = "io.ragimmune.identifier.OpenQuestion";
    /**
     * What the identifier could not settle, typed so that no free text passes between workers.
     */
    export interface OpenQuestion {
        kind: IoRagimmuneIdentifier.OpenQuestionKind;
        subject: string;
        /**
         * Default: []
         */
        evidence_ids: string[];
    }
    export const AffectedProbeSchema = "{\"type\":\"record\",\"name\":\"AffectedProbe\",\"doc\":\"A golden probe whose answers this incident degraded: what the effector re-runs to verify a repair.\",\"fields\":[{\"name\":\"probe_id\",\"type\":\"string\"},{\"name\":\"probe_version\",\"type\":\"int\"},{\"name\":\"query\",\"type\":\"string\",\"doc\":\"The probe's query exactly as the sentinel sent it.\"}]}";
    export const AffectedProbeName = "io.ragimmune.identifier.AffectedProbe";
    /**
     * A golden probe whose answers this incident degraded: what the effector re-runs to verify a repair.
     */
    export interface AffectedProbe {
        probe_id: string;
        probe_version: number;
        /**
         * The probe's query exactly as the sentinel sent it.
         */
        query: string;
    }
    export const FindingSchema = "{\"type\":\"record\",\"name\":\"Finding\",\"doc\":\"One cause of the incident and the probe group it explains. An incident with several causes has one per cause; the top-level fields repeat the primary (first) finding, so a consumer that reads only them still acts on one named cause.\",\"fields\":[{\"name\":\"root_cause\",\"type\":\"io.ragimmune.identifier.RootCause\"},{\"name\":\"affected_component\",\"type\":\"io.ragimmune.identifier.RagComponent\"},{\"name\":\"confidence\",\"type\":\"double\",\"doc\":\"Calibrated probability in [0,1] that this cause explains its probe group.\"},{\"name\":\"claims\",\"type\":{\"type\":\"array\",\"items\":\"io.ragimmune.identifier.EvidenceClaim\"},\"default\":[]},{\"name\":\"affected_probes\",\"type\":{\"type\":\"array\",\"items\":\"io.ragimmune.identifier.AffectedProbe\"},\"default\":[],\"doc\":\"The probes this cause explains: what a repair of this cause is verified against.\"},{\"name\":\"affected_knowledge_ids\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"default\":[]},{\"name\":\"recommended_intents\",\"type\":{\"type\":\"array\",\"items\":\"io.ragimmune.common.RepairIntent\"},\"default\":[]}]}";
    export const FindingName = "io.ragimmune.identifier.Finding";
    /**
     * One cause of the incident and the probe group it explains. An incident with several causes has one per cause; the top-level fields repeat the primary (first) finding, so a consumer that reads only them still acts on one named cause.
     */
    export interface Finding {
        root_cause: IoRagimmuneIdentifier.RootCause;
        affected_component: IoRagimmuneIdentifier.RagComponent;
        /**
         * Calibrated probability in [0,1] that this cause explains its probe group.
         */
        confidence: number;
        /**
         * Default: []
         */
        claims: IoRagimmuneIdentifier.EvidenceClaim[];
        /**
         * The probes this cause explains: what a repair of this cause is verified against.
         *
         * Default: []
         */
        affected_probes: IoRagimmuneIdentifier.AffectedProbe[];
        /**
         * Default: []
         */
        affected_knowledge_ids: string[];
        /**
         * Default: []
         */
        recommended_intents: IoRagimmuneCommon.RepairIntent[];
    }
    export const LedgerAnchorSchema = "{\"type\":\"record\",\"name\":\"LedgerAnchor\",\"doc\":\"An evidence ledger chain head: the sequence number and record hash of the incident's newest record.\",\"fields\":[{\"name\":\"seq\",\"type\":\"long\"},{\"name\":\"hash\",\"type\":\"string\"}]}";
    export const LedgerAnchorName = "io.ragimmune.identifier.LedgerAnchor";
    /**
     * An evidence ledger chain head: the sequence number and record hash of the incident's newest record.
     */
    export interface LedgerAnchor {
        seq: number;
        hash: string;
    }
    export const IndexChangeKindSchema = "{\"type\":\"enum\",\"name\":\"IndexChangeKind\",\"symbols\":[\"missing\",\"added\",\"relabelled\",\"payload_changed\",\"text_changed\",\"vector_moved\",\"alias_target_changed\",\"unknown\"],\"default\":\"unknown\"}";
    export const IndexChangeKindName = "io.ragimmune.identifier.IndexChangeKind";
    export type IndexChangeKind = "missing" | "added" | "relabelled" | "payload_changed" | "text_changed" | "vector_moved" | "alias_target_changed" | "unknown";
    export const IndexChangeExampleSchema = "{\"type\":\"record\",\"name\":\"IndexChangeExample\",\"doc\":\"One changed chunk: which field, and its value before (baseline) and after (online), shortened.\",\"fields\":[{\"name\":\"kind\",\"type\":\"io.ragimmune.identifier.IndexChangeKind\"},{\"name\":\"knowledge_id\",\"type\":\"string\"},{\"name\":\"point_id\",\"type\":\"string\",\"doc\":\"The point's id in the online collection, or the baseline's when the point is missing online.\"},{\"name\":\"chunk\",\"type\":\"string\",\"doc\":\"The chunk id (or document@version#point).\"},{\"name\":\"field\",\"type\":\"string\",\"doc\":\"What differs: knowledge_id, version, valid_until, vector, point, ...\"},{\"name\":\"before\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"after\",\"type\":[\"null\",\"string\"],\"default\":null}]}";
    export const IndexChangeExampleName = "io.ragimmune.identifier.IndexChangeExample";
    /**
     * One changed chunk: which field, and its value before (baseline) and after (online), shortened.
     */
    export interface IndexChangeExample {
        kind: IoRagimmuneIdentifier.IndexChangeKind;
        knowledge_id: string;
        /**
         * The point's id in the online collection, or the baseline's when the point is missing online.
         */
        point_id: string;
        /**
         * The chunk id (or document@version#point).
         */
        chunk: string;
        /**
         * What differs: knowledge_id, version, valid_until, vector, point, ...
         */
        field: string;
        /**
         * Default: null
         */
        before: null | string;
        /**
         * Default: null
         */
        after: null | string;
    }
    export const IndexDiffEvidenceSchema = "{\"type\":\"record\",\"name\":\"IndexDiffEvidence\",\"doc\":\"What changed in the online index against the baseline's for the knowledge the data causes implicate, read from the store itself (bounded: counts and a few examples). Which catalogue causes' signatures it shows, and which changes none explains.\",\"fields\":[{\"name\":\"online_collection\",\"type\":\"string\",\"doc\":\"The collection or alias the online RAG reads, as configured.\"},{\"name\":\"baseline_collection\",\"type\":\"string\",\"doc\":\"The collection or alias the baseline RAG reads, as configured.\"},{\"name\":\"online_target\",\"type\":[\"null\",\"string\"],\"default\":null,\"doc\":\"The collection the online alias resolved to when read; null when it is not an alias.\"},{\"name\":\"baseline_target\",\"type\":[\"null\",\"string\"],\"default\":null,\"doc\":\"The collection the baseline alias resolved to when read; null when it is not an alias.\"},{\"name\":\"online_target_before\",\"type\":[\"null\",\"string\"],\"default\":null,\"doc\":\"The online alias's target at the identifier's previous read, when it has changed since (null: unchanged or first read).\"},{\"name\":\"knowledge_ids\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"doc\":\"The knowledge ids diffed (at most 8).\"},{\"name\":\"online_points\",\"type\":\"int\"},{\"name\":\"baseline_points\",\"type\":\"int\"},{\"name\":\"missing\",\"type\":\"int\",\"doc\":\"Baseline chunks no online chunk has the text of (deleted, or rewritten beyond recognition).\"},{\"name\":\"added_unexpected\",\"type\":\"int\",\"doc\":\"Online chunks the baseline lacks, of versions valid from before the baseline's pin.\"},{\"name\":\"added_after_pin\",\"type\":\"int\",\"doc\":\"Online chunks of versions valid from after the baseline's pin: the knowledge moving on, not a change.\"},{\"name\":\"relabelled\",\"type\":\"int\",\"doc\":\"Same text, another knowledge id or document.\"},{\"name\":\"payload_changed\",\"type\":\"int\",\"doc\":\"Same text and identity, another version or validity window.\"},{\"name\":\"text_changed\",\"type\":\"int\",\"doc\":\"Same chunk (chunk id, or its vector unchanged), its text rewritten in place.\"},{\"name\":\"vectors_moved\",\"type\":\"int\",\"doc\":\"Same chunk, vector no longer the baseline's (cosine below 0.999).\"},{\"name\":\"min_vector_cosine\",\"type\":[\"null\",\"double\"],\"default\":null},{\"name\":\"explained_by\",\"type\":{\"type\":\"array\",\"items\":\"io.ragimmune.identifier.RootCause\"},\"default\":[],\"doc\":\"The catalogue causes whose index signature the diff shows (vector_index_corruption: vectors moved or points missing; wrong_attribution: chunks relabelled; knowledge_source_failure: versions or validity windows changed).\"},{\"name\":\"unexplained\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"enum\",\"name\":\"IndexChangeKind\",\"symbols\":[\"missing\",\"added\",\"relabelled\",\"payload_changed\",\"text_changed\",\"vector_moved\",\"alias_target_changed\",\"unknown\"],\"default\":\"unknown\"}},\"default\":[],\"doc\":\"The kinds of change the diff shows that no catalogue cause's signature explains: the report abstains on them rather than borrow the nearest cause.\"},{\"name\":\"examples\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"IndexChangeExample\",\"doc\":\"One changed chunk: which field, and its value before (baseline) and after (online), shortened.\",\"fields\":[{\"name\":\"kind\",\"type\":\"io.ragimmune.identifier.IndexChangeKind\"},{\"name\":\"knowledge_id\",\"type\":\"string\"},{\"name\":\"point_id\",\"type\":\"string\",\"doc\":\"The point's id in the online collection, or the baseline's when the point is missing online.\"},{\"name\":\"chunk\",\"type\":\"string\",\"doc\":\"The chunk id (or document@version#point).\"},{\"name\":\"field\",\"type\":\"string\",\"doc\":\"What differs: knowledge_id, version, valid_until, vector, point, ...\"},{\"name\":\"before\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"after\",\"type\":[\"null\",\"string\"],\"default\":null}]}},\"default\":[]},{\"name\":\"evidence_id\",\"type\":[\"null\",\"string\"],\"default\":null,\"doc\":\"The ledger record (index_changed) that holds this diff.\"}]}";
    export const IndexDiffEvidenceName = "io.ragimmune.identifier.IndexDiffEvidence";
    /**
     * What changed in the online index against the baseline's for the knowledge the data causes implicate, read from the store itself (bounded: counts and a few examples). Which catalogue causes' signatures it shows, and which changes none explains.
     */
    export interface IndexDiffEvidence {
        /**
         * The collection or alias the online RAG reads, as configured.
         */
        online_collection: string;
        /**
         * The collection or alias the baseline RAG reads, as configured.
         */
        baseline_collection: string;
        /**
         * The collection the online alias resolved to when read; null when it is not an alias.
         *
         * Default: null
         */
        online_target: null | string;
        /**
         * The collection the baseline alias resolved to when read; null when it is not an alias.
         *
         * Default: null
         */
        baseline_target: null | string;
        /**
         * The online alias's target at the identifier's previous read, when it has changed since (null: unchanged or first read).
         *
         * Default: null
         */
        online_target_before: null | string;
        /**
         * The knowledge ids diffed (at most 8).
         */
        knowledge_ids: string[];
        online_points: number;
        baseline_points: number;
        /**
         * Baseline chunks no online chunk has the text of (deleted, or rewritten beyond recognition).
         */
        missing: number;
        /**
         * Online chunks the baseline lacks, of versions valid from before the baseline's pin.
         */
        added_unexpected: number;
        /**
         * Online chunks of versions valid from after the baseline's pin: the knowledge moving on, not a change.
         */
        added_after_pin: number;
        /**
         * Same text, another knowledge id or document.
         */
        relabelled: number;
        /**
         * Same text and identity, another version or validity window.
         */
        payload_changed: number;
        /**
         * Same chunk (chunk id, or its vector unchanged), its text rewritten in place.
         */
        text_changed: number;
        /**
         * Same chunk, vector no longer the baseline's (cosine below 0.999).
         */
        vectors_moved: number;
        /**
         * Default: null
         */
        min_vector_cosine: null | number;
        /**
         * The catalogue causes whose index signature the diff shows (vector_index_corruption: vectors moved or points missing; wrong_attribution: chunks relabelled; knowledge_source_failure: versions or validity windows changed).
         *
         * Default: []
         */
        explained_by: IoRagimmuneIdentifier.RootCause[];
        /**
         * The kinds of change the diff shows that no catalogue cause's signature explains: the report abstains on them rather than borrow the nearest cause.
         *
         * Default: []
         */
        unexplained: IoRagimmuneIdentifier.IndexChangeKind[];
        /**
         * Default: []
         */
        examples: IoRagimmuneIdentifier.IndexChangeExample[];
        /**
         * The ledger record (index_changed) that holds this diff.
         *
         * Default: null
         */
        evidence_id: null | string;
    }
    export const RootCauseReportSchema = "{\"type\":\"record\",\"name\":\"RootCauseReport\",\"namespace\":\"io.ragimmune.identifier\",\"doc\":\"Value of topic rag-identifiers-reports (key: incident_id). The identifier's verdict on an incident: a root cause (or an explicit abstention as 'unknown'), the component it names, a calibrated confidence and typed claims that each cite evidence ledger records.\",\"fields\":[{\"name\":\"event_id\",\"type\":{\"type\":\"string\",\"logicalType\":\"uuid\"},\"doc\":\"Unique per event; consumers deduplicate on it.\"},{\"name\":\"incident_id\",\"type\":\"string\",\"doc\":\"Correlates every report and repair action of one incident.\"},{\"name\":\"occurred_at\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"},\"doc\":\"When the report was issued, UTC.\"},{\"name\":\"producer\",\"type\":{\"type\":\"record\",\"name\":\"EventProducer\",\"namespace\":\"io.ragimmune.common\",\"doc\":\"Which deployed worker wrote the event.\",\"fields\":[{\"name\":\"service\",\"type\":\"string\"},{\"name\":\"version\",\"type\":\"string\"},{\"name\":\"instance\",\"type\":\"string\",\"doc\":\"Host or pod name, so an event can be traced to one replica.\"}]}},{\"name\":\"report_revision\",\"type\":\"int\",\"doc\":\"1 for the first report of an incident; later reports supersede earlier ones.\"},{\"name\":\"probe_event_ids\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"doc\":\"event_id of every ProbeResult grouped into this incident.\"},{\"name\":\"window_start\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}},{\"name\":\"window_end\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}},{\"name\":\"root_cause\",\"type\":{\"type\":\"enum\",\"name\":\"RootCause\",\"doc\":\"unknown is an abstention: the evidence does not support any cause.\",\"symbols\":[\"vector_index_corruption\",\"reranker_drift\",\"knowledge_source_failure\",\"parser_bug\",\"generator_inconsistency\",\"tokenizer_anomaly\",\"unpublished_knowledge\",\"wrong_attribution\",\"unknown\"],\"default\":\"unknown\"}},{\"name\":\"affected_component\",\"type\":{\"type\":\"enum\",\"name\":\"RagComponent\",\"symbols\":[\"vector_index\",\"retriever\",\"reranker\",\"knowledge_source\",\"parser\",\"generator\",\"tokenizer\",\"unknown\"],\"default\":\"unknown\"}},{\"name\":\"confidence\",\"type\":\"double\",\"doc\":\"Calibrated probability in [0,1] that root_cause is right.\"},{\"name\":\"claims\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"EvidenceClaim\",\"doc\":\"One checkable statement: a metric of a subject moved from baseline to observed. Cites at least one ledger record.\",\"fields\":[{\"name\":\"claim_id\",\"type\":\"string\"},{\"name\":\"kind\",\"type\":{\"type\":\"enum\",\"name\":\"ClaimKind\",\"symbols\":[\"retrieval_score_shift\",\"rerank_score_shift\",\"retrieved_set_change\",\"knowledge_staleness\",\"chunk_pollution\",\"answer_fact_mismatch\",\"query_encoding_anomaly\",\"component_version_change\",\"unknown\"],\"default\":\"unknown\"}},{\"name\":\"subject\",\"type\":\"string\",\"doc\":\"What the claim is about: a probe id, document id, chunk id or component name.\"},{\"name\":\"metric\",\"type\":\"string\",\"doc\":\"Machine name of the measured quantity, e.g. top1_rerank_score, jaccard_top5, kf_age_days.\"},{\"name\":\"observed\",\"type\":\"double\"},{\"name\":\"baseline\",\"type\":[\"null\",\"double\"],\"default\":null},{\"name\":\"evidence_ids\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"doc\":\"Content-hashed evidence ledger record ids; never empty.\"}]}}},{\"name\":\"open_questions\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"OpenQuestion\",\"doc\":\"What the identifier could not settle, typed so that no free text passes between workers.\",\"fields\":[{\"name\":\"kind\",\"type\":{\"type\":\"enum\",\"name\":\"OpenQuestionKind\",\"symbols\":[\"insufficient_evidence\",\"conflicting_evidence\",\"trace_unavailable\",\"baseline_unavailable\",\"multiple_causes\",\"unknown\",\"trace_incomplete\",\"index_change_unexplained\"],\"default\":\"unknown\"}},{\"name\":\"subject\",\"type\":\"string\"},{\"name\":\"evidence_ids\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"default\":[]}]}},\"default\":[]},{\"name\":\"affected_probes\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"AffectedProbe\",\"doc\":\"A golden probe whose answers this incident degraded: what the effector re-runs to verify a repair.\",\"fields\":[{\"name\":\"probe_id\",\"type\":\"string\"},{\"name\":\"probe_version\",\"type\":\"int\"},{\"name\":\"query\",\"type\":\"string\",\"doc\":\"The probe's query exactly as the sentinel sent it.\"}]}},\"default\":[],\"doc\":\"Every probe grouped into the incident, so a repair can be verified without the sentinel's probe file.\"},{\"name\":\"affected_knowledge_ids\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"default\":[],\"doc\":\"Knowledge ids the evidence implicates (scope of an incremental repair); empty when the cause is not knowledge-scoped.\"},{\"name\":\"recommended_intents\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"enum\",\"name\":\"RepairIntent\",\"namespace\":\"io.ragimmune.common\",\"symbols\":[\"rebuild_index_incremental\",\"rollback_reranker\",\"refresh_knowledge_source\",\"switch_backup_source\",\"reparse_documents\",\"enable_answer_validation_fallback\",\"add_query_rewrite_rule\",\"escalate_to_human\",\"unknown\"],\"default\":\"unknown\"}},\"default\":[],\"doc\":\"Repair intents in order of preference; the effector's policy decides what actually runs.\"},{\"name\":\"findings\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"Finding\",\"doc\":\"One cause of the incident and the probe group it explains. An incident with several causes has one per cause; the top-level fields repeat the primary (first) finding, so a consumer that reads only them still acts on one named cause.\",\"fields\":[{\"name\":\"root_cause\",\"type\":\"io.ragimmune.identifier.RootCause\"},{\"name\":\"affected_component\",\"type\":\"io.ragimmune.identifier.RagComponent\"},{\"name\":\"confidence\",\"type\":\"double\",\"doc\":\"Calibrated probability in [0,1] that this cause explains its probe group.\"},{\"name\":\"claims\",\"type\":{\"type\":\"array\",\"items\":\"io.ragimmune.identifier.EvidenceClaim\"},\"default\":[]},{\"name\":\"affected_probes\",\"type\":{\"type\":\"array\",\"items\":\"io.ragimmune.identifier.AffectedProbe\"},\"default\":[],\"doc\":\"The probes this cause explains: what a repair of this cause is verified against.\"},{\"name\":\"affected_knowledge_ids\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"default\":[]},{\"name\":\"recommended_intents\",\"type\":{\"type\":\"array\",\"items\":\"io.ragimmune.common.RepairIntent\"},\"default\":[]}]}},\"default\":[],\"doc\":\"Every named cause with its own probe group, primary first; empty when the report abstains (or from an identifier that predates findings: then the top-level fields are the one finding).\"},{\"name\":\"unexplained_probes\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"default\":[],\"doc\":\"Probe ids of the incident that no finding explains (no trace, or no cause fits them well enough).\"},{\"name\":\"ledger_head\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"LedgerAnchor\",\"doc\":\"An evidence ledger chain head: the sequence number and record hash of the incident's newest record.\",\"fields\":[{\"name\":\"seq\",\"type\":\"long\"},{\"name\":\"hash\",\"type\":\"string\"}]}],\"default\":null,\"doc\":\"The incident's evidence ledger head when the report was issued (after its verdict record). Kafka keeps it outside the ledger's store, so a ledger cut back to an older signed head fails verification against the newest head seen. Null from identifiers that predate anchoring.\"},{\"name\":\"index_diff\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"IndexDiffEvidence\",\"doc\":\"What changed in the online index against the baseline's for the knowledge the data causes implicate, read from the store itself (bounded: counts and a few examples). Which catalogue causes' signatures it shows, and which changes none explains.\",\"fields\":[{\"name\":\"online_collection\",\"type\":\"string\",\"doc\":\"The collection or alias the online RAG reads, as configured.\"},{\"name\":\"baseline_collection\",\"type\":\"string\",\"doc\":\"The collection or alias the baseline RAG reads, as configured.\"},{\"name\":\"online_target\",\"type\":[\"null\",\"string\"],\"default\":null,\"doc\":\"The collection the online alias resolved to when read; null when it is not an alias.\"},{\"name\":\"baseline_target\",\"type\":[\"null\",\"string\"],\"default\":null,\"doc\":\"The collection the baseline alias resolved to when read; null when it is not an alias.\"},{\"name\":\"online_target_before\",\"type\":[\"null\",\"string\"],\"default\":null,\"doc\":\"The online alias's target at the identifier's previous read, when it has changed since (null: unchanged or first read).\"},{\"name\":\"knowledge_ids\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"doc\":\"The knowledge ids diffed (at most 8).\"},{\"name\":\"online_points\",\"type\":\"int\"},{\"name\":\"baseline_points\",\"type\":\"int\"},{\"name\":\"missing\",\"type\":\"int\",\"doc\":\"Baseline chunks no online chunk has the text of (deleted, or rewritten beyond recognition).\"},{\"name\":\"added_unexpected\",\"type\":\"int\",\"doc\":\"Online chunks the baseline lacks, of versions valid from before the baseline's pin.\"},{\"name\":\"added_after_pin\",\"type\":\"int\",\"doc\":\"Online chunks of versions valid from after the baseline's pin: the knowledge moving on, not a change.\"},{\"name\":\"relabelled\",\"type\":\"int\",\"doc\":\"Same text, another knowledge id or document.\"},{\"name\":\"payload_changed\",\"type\":\"int\",\"doc\":\"Same text and identity, another version or validity window.\"},{\"name\":\"text_changed\",\"type\":\"int\",\"doc\":\"Same chunk (chunk id, or its vector unchanged), its text rewritten in place.\"},{\"name\":\"vectors_moved\",\"type\":\"int\",\"doc\":\"Same chunk, vector no longer the baseline's (cosine below 0.999).\"},{\"name\":\"min_vector_cosine\",\"type\":[\"null\",\"double\"],\"default\":null},{\"name\":\"explained_by\",\"type\":{\"type\":\"array\",\"items\":\"io.ragimmune.identifier.RootCause\"},\"default\":[],\"doc\":\"The catalogue causes whose index signature the diff shows (vector_index_corruption: vectors moved or points missing; wrong_attribution: chunks relabelled; knowledge_source_failure: versions or validity windows changed).\"},{\"name\":\"unexplained\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"enum\",\"name\":\"IndexChangeKind\",\"symbols\":[\"missing\",\"added\",\"relabelled\",\"payload_changed\",\"text_changed\",\"vector_moved\",\"alias_target_changed\",\"unknown\"],\"default\":\"unknown\"}},\"default\":[],\"doc\":\"The kinds of change the diff shows that no catalogue cause's signature explains: the report abstains on them rather than borrow the nearest cause.\"},{\"name\":\"examples\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"IndexChangeExample\",\"doc\":\"One changed chunk: which field, and its value before (baseline) and after (online), shortened.\",\"fields\":[{\"name\":\"kind\",\"type\":\"io.ragimmune.identifier.IndexChangeKind\"},{\"name\":\"knowledge_id\",\"type\":\"string\"},{\"name\":\"point_id\",\"type\":\"string\",\"doc\":\"The point's id in the online collection, or the baseline's when the point is missing online.\"},{\"name\":\"chunk\",\"type\":\"string\",\"doc\":\"The chunk id (or document@version#point).\"},{\"name\":\"field\",\"type\":\"string\",\"doc\":\"What differs: knowledge_id, version, valid_until, vector, point, ...\"},{\"name\":\"before\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"after\",\"type\":[\"null\",\"string\"],\"default\":null}]}},\"default\":[]},{\"name\":\"evidence_id\",\"type\":[\"null\",\"string\"],\"default\":null,\"doc\":\"The ledger record (index_changed) that holds this diff.\"}]}],\"default\":null,\"doc\":\"The index diff behind the report (the latest one read for the incident, a changed one first); null when none was read (no index diff configured, or no data cause implicated knowledge).\"}]}";
    export const RootCauseReportName = "io.ragimmune.identifier.RootCauseReport";
    /**
     * Value of topic rag-identifiers-reports (key: incident_id). The identifier's verdict on an incident: a root cause (or an explicit abstention as 'unknown'), the component it names, a calibrated confidence and typed claims that each cite evidence ledger records.
     */
    export interface RootCauseReport {
        /**
         * Unique per event; consumers deduplicate on it.
         */
        event_id: string;
        /**
         * Correlates every report and repair action of one incident.
         */
        incident_id: string;
        /**
         * When the report was issued, UTC.
         */
        occurred_at: number;
        producer: IoRagimmuneCommon.EventProducer;
        /**
         * 1 for the first report of an incident; later reports supersede earlier ones.
         */
        report_revision: number;
        /**
         * event_id of every ProbeResult grouped into this incident.
         */
        probe_event_ids: string[];
        window_start: number;
        window_end: number;
        root_cause: IoRagimmuneIdentifier.RootCause;
        affected_component: IoRagimmuneIdentifier.RagComponent;
        /**
         * Calibrated probability in [0,1] that root_cause is right.
         */
        confidence: number;
        claims: IoRagimmuneIdentifier.EvidenceClaim[];
        /**
         * Default: []
         */
        open_questions: IoRagimmuneIdentifier.OpenQuestion[];
        /**
         * Every probe grouped into the incident, so a repair can be verified without the sentinel's probe file.
         *
         * Default: []
         */
        affected_probes: IoRagimmuneIdentifier.AffectedProbe[];
        /**
         * Knowledge ids the evidence implicates (scope of an incremental repair); empty when the cause is not knowledge-scoped.
         *
         * Default: []
         */
        affected_knowledge_ids: string[];
        /**
         * Repair intents in order of preference; the effector's policy decides what actually runs.
         *
         * Default: []
         */
        recommended_intents: IoRagimmuneCommon.RepairIntent[];
        /**
         * Every named cause with its own probe group, primary first; empty when the report abstains (or from an identifier that predates findings: then the top-level fields are the one finding).
         *
         * Default: []
         */
        findings: IoRagimmuneIdentifier.Finding[];
        /**
         * Probe ids of the incident that no finding explains (no trace, or no cause fits them well enough).
         *
         * Default: []
         */
        unexplained_probes: string[];
        /**
         * The incident's evidence ledger head when the report was issued (after its verdict record). Kafka keeps it outside the ledger's store, so a ledger cut back to an older signed head fails verification against the newest head seen. Null from identifiers that predate anchoring.
         *
         * Default: null
         */
        ledger_head: null | IoRagimmuneIdentifier.LedgerAnchor;
        /**
         * The index diff behind the report (the latest one read for the incident, a changed one first); null when none was read (no index diff configured, or no data cause implicated knowledge).
         *
         * Default: null
         */
        index_diff: null | IoRagimmuneIdentifier.IndexDiffEvidence;
    }
}
