// GENERATED from avro/RepairAction.avsc by packages/contracts/scripts/codegen.ts. Do not edit: run `npm run codegen`.
/* eslint-disable */

export type RepairAction = IoRagimmuneEffector.RepairAction;

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

export namespace IoRagimmuneEffector {
    export const RepairStatusSchema = "{\"type\":\"enum\",\"name\":\"RepairStatus\",\"symbols\":[\"planned\",\"started\",\"succeeded\",\"failed\",\"rolled_back\",\"escalated\",\"unknown\"],\"default\":\"unknown\"}";
    export const RepairStatusName = "io.ragimmune.effector.RepairStatus";
    export type RepairStatus = "planned" | "started" | "succeeded" | "failed" | "rolled_back" | "escalated" | "unknown";
    export const GrantKindSchema = "{\"type\":\"enum\",\"name\":\"GrantKind\",\"symbols\":[\"policy\",\"human\",\"unknown\"],\"default\":\"unknown\"}";
    export const GrantKindName = "io.ragimmune.effector.GrantKind";
    export type GrantKind = "policy" | "human" | "unknown";
    export const IrreversibleGrantSchema = "{\"type\":\"record\",\"name\":\"IrreversibleGrant\",\"doc\":\"Who allowed an irreversible repair.\",\"fields\":[{\"name\":\"granted_by\",\"type\":\"string\"},{\"name\":\"kind\",\"type\":{\"type\":\"enum\",\"name\":\"GrantKind\",\"symbols\":[\"policy\",\"human\",\"unknown\"],\"default\":\"unknown\"}},{\"name\":\"granted_at\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}}]}";
    export const IrreversibleGrantName = "io.ragimmune.effector.IrreversibleGrant";
    /**
     * Who allowed an irreversible repair.
     */
    export interface IrreversibleGrant {
        granted_by: string;
        kind: IoRagimmuneEffector.GrantKind;
        granted_at: number;
    }
    export const RecoveryOutcomeSchema = "{\"type\":\"enum\",\"name\":\"RecoveryOutcome\",\"doc\":\"recovered: every probe of the repaired cause healed and none got worse (kept); partial: some healed, none got worse (kept, the rest handled or paged); no_effect: none healed (undone); worse: a probe healthy before is anomalous after (undone); unknown: not judged per probe.\",\"symbols\":[\"recovered\",\"partial\",\"no_effect\",\"worse\",\"unknown\"],\"default\":\"unknown\"}";
    export const RecoveryOutcomeName = "io.ragimmune.effector.RecoveryOutcome";
    /**
     * recovered: every probe of the repaired cause healed and none got worse (kept); partial: some healed, none got worse (kept, the rest handled or paged); no_effect: none healed (undone); worse: a probe healthy before is anomalous after (undone); unknown: not judged per probe.
     */
    export type RecoveryOutcome = "recovered" | "partial" | "no_effect" | "worse" | "unknown";
    export const RecoveryVerificationSchema = "{\"type\":\"record\",\"name\":\"RecoveryVerification\",\"doc\":\"Figures from re-running the affected probes after the repair.\",\"fields\":[{\"name\":\"probe_ids\",\"type\":{\"type\":\"array\",\"items\":\"string\"}},{\"name\":\"fcs_before\",\"type\":[\"null\",\"double\"],\"default\":null},{\"name\":\"fcs_after\",\"type\":[\"null\",\"double\"],\"default\":null},{\"name\":\"ic_before\",\"type\":[\"null\",\"double\"],\"default\":null},{\"name\":\"ic_after\",\"type\":[\"null\",\"double\"],\"default\":null},{\"name\":\"kf_age_days_before\",\"type\":[\"null\",\"double\"],\"default\":null},{\"name\":\"kf_age_days_after\",\"type\":[\"null\",\"double\"],\"default\":null},{\"name\":\"recovered\",\"type\":\"boolean\"},{\"name\":\"outcome\",\"type\":{\"type\":\"enum\",\"name\":\"RecoveryOutcome\",\"doc\":\"recovered: every probe of the repaired cause healed and none got worse (kept); partial: some healed, none got worse (kept, the rest handled or paged); no_effect: none healed (undone); worse: a probe healthy before is anomalous after (undone); unknown: not judged per probe.\",\"symbols\":[\"recovered\",\"partial\",\"no_effect\",\"worse\",\"unknown\"],\"default\":\"unknown\"},\"default\":\"unknown\"},{\"name\":\"healed_probe_ids\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"default\":[],\"doc\":\"Anomalous before the repair, healthy after.\"},{\"name\":\"unhealed_probe_ids\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"default\":[],\"doc\":\"Probes of the repaired cause still anomalous after it.\"},{\"name\":\"worsened_probe_ids\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"default\":[],\"doc\":\"Healthy before the repair, anomalous after.\"}]}";
    export const RecoveryVerificationName = "io.ragimmune.effector.RecoveryVerification";
    /**
     * Figures from re-running the affected probes after the repair.
     */
    export interface RecoveryVerification {
        probe_ids: string[];
        /**
         * Default: null
         */
        fcs_before: null | number;
        /**
         * Default: null
         */
        fcs_after: null | number;
        /**
         * Default: null
         */
        ic_before: null | number;
        /**
         * Default: null
         */
        ic_after: null | number;
        /**
         * Default: null
         */
        kf_age_days_before: null | number;
        /**
         * Default: null
         */
        kf_age_days_after: null | number;
        recovered: boolean;
        /**
         * Default: "unknown"
         */
        outcome: IoRagimmuneEffector.RecoveryOutcome;
        /**
         * Anomalous before the repair, healthy after.
         *
         * Default: []
         */
        healed_probe_ids: string[];
        /**
         * Probes of the repaired cause still anomalous after it.
         *
         * Default: []
         */
        unhealed_probe_ids: string[];
        /**
         * Healthy before the repair, anomalous after.
         *
         * Default: []
         */
        worsened_probe_ids: string[];
    }
    export const RepairFailureReasonSchema = "{\"type\":\"enum\",\"name\":\"RepairFailureReason\",\"symbols\":[\"tool_error\",\"verification_failed\",\"snapshot_failed\",\"timeout\",\"policy_denied\",\"unknown\"],\"default\":\"unknown\"}";
    export const RepairFailureReasonName = "io.ragimmune.effector.RepairFailureReason";
    export type RepairFailureReason = "tool_error" | "verification_failed" | "snapshot_failed" | "timeout" | "policy_denied" | "unknown";
    export const RepairFailureSchema = "{\"type\":\"record\",\"name\":\"RepairFailure\",\"fields\":[{\"name\":\"reason\",\"type\":{\"type\":\"enum\",\"name\":\"RepairFailureReason\",\"symbols\":[\"tool_error\",\"verification_failed\",\"snapshot_failed\",\"timeout\",\"policy_denied\",\"unknown\"],\"default\":\"unknown\"}},{\"name\":\"message\",\"type\":\"string\",\"doc\":\"Error text for the on-call engineer.\"}]}";
    export const RepairFailureName = "io.ragimmune.effector.RepairFailure";
    export interface RepairFailure {
        reason: IoRagimmuneEffector.RepairFailureReason;
        /**
         * Error text for the on-call engineer.
         */
        message: string;
    }
    export const RepairActionSchema = "{\"type\":\"record\",\"name\":\"RepairAction\",\"namespace\":\"io.ragimmune.effector\",\"doc\":\"Value of topic rag-effectors-actions (key: incident_id). One lifecycle step of one repair: planned, started, succeeded, failed, rolled_back or escalated. All steps of a repair share action_id.\",\"fields\":[{\"name\":\"event_id\",\"type\":{\"type\":\"string\",\"logicalType\":\"uuid\"},\"doc\":\"Unique per event; consumers deduplicate on it.\"},{\"name\":\"incident_id\",\"type\":\"string\",\"doc\":\"Correlates every report and repair action of one incident.\"},{\"name\":\"occurred_at\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"},\"doc\":\"When this lifecycle step happened, UTC.\"},{\"name\":\"producer\",\"type\":{\"type\":\"record\",\"name\":\"EventProducer\",\"namespace\":\"io.ragimmune.common\",\"doc\":\"Which deployed worker wrote the event.\",\"fields\":[{\"name\":\"service\",\"type\":\"string\"},{\"name\":\"version\",\"type\":\"string\"},{\"name\":\"instance\",\"type\":\"string\",\"doc\":\"Host or pod name, so an event can be traced to one replica.\"}]}},{\"name\":\"action_id\",\"type\":\"string\",\"doc\":\"Stable across the lifecycle steps of one repair.\"},{\"name\":\"report_event_id\",\"type\":\"string\",\"doc\":\"event_id of the RootCauseReport this repair answers.\"},{\"name\":\"intent\",\"type\":{\"type\":\"enum\",\"name\":\"RepairIntent\",\"namespace\":\"io.ragimmune.common\",\"symbols\":[\"rebuild_index_incremental\",\"rollback_reranker\",\"refresh_knowledge_source\",\"switch_backup_source\",\"reparse_documents\",\"enable_answer_validation_fallback\",\"add_query_rewrite_rule\",\"escalate_to_human\",\"unknown\"],\"default\":\"unknown\"}},{\"name\":\"tool\",\"type\":\"string\",\"doc\":\"Name of the typed tool call that carries out the intent.\"},{\"name\":\"tool_version\",\"type\":\"string\"},{\"name\":\"arguments\",\"type\":{\"type\":\"map\",\"values\":\"string\"},\"default\":{},\"doc\":\"Tool arguments, validated against the tool's own versioned schema by the effector before it runs.\"},{\"name\":\"status\",\"type\":{\"type\":\"enum\",\"name\":\"RepairStatus\",\"symbols\":[\"planned\",\"started\",\"succeeded\",\"failed\",\"rolled_back\",\"escalated\",\"unknown\"],\"default\":\"unknown\"}},{\"name\":\"attempt\",\"type\":\"int\",\"doc\":\"1-based; the effector escalates after the third failure.\"},{\"name\":\"snapshot_id\",\"type\":[\"null\",\"string\"],\"default\":null,\"doc\":\"Qdrant snapshot taken before the repair touched the index; required before any reversible Qdrant change.\"},{\"name\":\"reversible\",\"type\":\"boolean\"},{\"name\":\"grant\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"IrreversibleGrant\",\"doc\":\"Who allowed an irreversible repair.\",\"fields\":[{\"name\":\"granted_by\",\"type\":\"string\"},{\"name\":\"kind\",\"type\":{\"type\":\"enum\",\"name\":\"GrantKind\",\"symbols\":[\"policy\",\"human\",\"unknown\"],\"default\":\"unknown\"}},{\"name\":\"granted_at\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}}]}],\"default\":null},{\"name\":\"verification\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"RecoveryVerification\",\"doc\":\"Figures from re-running the affected probes after the repair.\",\"fields\":[{\"name\":\"probe_ids\",\"type\":{\"type\":\"array\",\"items\":\"string\"}},{\"name\":\"fcs_before\",\"type\":[\"null\",\"double\"],\"default\":null},{\"name\":\"fcs_after\",\"type\":[\"null\",\"double\"],\"default\":null},{\"name\":\"ic_before\",\"type\":[\"null\",\"double\"],\"default\":null},{\"name\":\"ic_after\",\"type\":[\"null\",\"double\"],\"default\":null},{\"name\":\"kf_age_days_before\",\"type\":[\"null\",\"double\"],\"default\":null},{\"name\":\"kf_age_days_after\",\"type\":[\"null\",\"double\"],\"default\":null},{\"name\":\"recovered\",\"type\":\"boolean\"},{\"name\":\"outcome\",\"type\":{\"type\":\"enum\",\"name\":\"RecoveryOutcome\",\"doc\":\"recovered: every probe of the repaired cause healed and none got worse (kept); partial: some healed, none got worse (kept, the rest handled or paged); no_effect: none healed (undone); worse: a probe healthy before is anomalous after (undone); unknown: not judged per probe.\",\"symbols\":[\"recovered\",\"partial\",\"no_effect\",\"worse\",\"unknown\"],\"default\":\"unknown\"},\"default\":\"unknown\"},{\"name\":\"healed_probe_ids\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"default\":[],\"doc\":\"Anomalous before the repair, healthy after.\"},{\"name\":\"unhealed_probe_ids\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"default\":[],\"doc\":\"Probes of the repaired cause still anomalous after it.\"},{\"name\":\"worsened_probe_ids\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"default\":[],\"doc\":\"Healthy before the repair, anomalous after.\"}]}],\"default\":null},{\"name\":\"failure\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"RepairFailure\",\"fields\":[{\"name\":\"reason\",\"type\":{\"type\":\"enum\",\"name\":\"RepairFailureReason\",\"symbols\":[\"tool_error\",\"verification_failed\",\"snapshot_failed\",\"timeout\",\"policy_denied\",\"unknown\"],\"default\":\"unknown\"}},{\"name\":\"message\",\"type\":\"string\",\"doc\":\"Error text for the on-call engineer.\"}]}],\"default\":null},{\"name\":\"rollback_of_action_id\",\"type\":[\"null\",\"string\"],\"default\":null,\"doc\":\"Set on a rolled_back step triggered by `immune rollback` or by failed verification.\"}]}";
    export const RepairActionName = "io.ragimmune.effector.RepairAction";
    /**
     * Value of topic rag-effectors-actions (key: incident_id). One lifecycle step of one repair: planned, started, succeeded, failed, rolled_back or escalated. All steps of a repair share action_id.
     */
    export interface RepairAction {
        /**
         * Unique per event; consumers deduplicate on it.
         */
        event_id: string;
        /**
         * Correlates every report and repair action of one incident.
         */
        incident_id: string;
        /**
         * When this lifecycle step happened, UTC.
         */
        occurred_at: number;
        producer: IoRagimmuneCommon.EventProducer;
        /**
         * Stable across the lifecycle steps of one repair.
         */
        action_id: string;
        /**
         * event_id of the RootCauseReport this repair answers.
         */
        report_event_id: string;
        intent: IoRagimmuneCommon.RepairIntent;
        /**
         * Name of the typed tool call that carries out the intent.
         */
        tool: string;
        tool_version: string;
        /**
         * Tool arguments, validated against the tool's own versioned schema by the effector before it runs.
         *
         * Default: {}
         */
        arguments: {
            [index: string]: string;
        };
        status: IoRagimmuneEffector.RepairStatus;
        /**
         * 1-based; the effector escalates after the third failure.
         */
        attempt: number;
        /**
         * Qdrant snapshot taken before the repair touched the index; required before any reversible Qdrant change.
         *
         * Default: null
         */
        snapshot_id: null | string;
        reversible: boolean;
        /**
         * Default: null
         */
        grant: null | IoRagimmuneEffector.IrreversibleGrant;
        /**
         * Default: null
         */
        verification: null | IoRagimmuneEffector.RecoveryVerification;
        /**
         * Default: null
         */
        failure: null | IoRagimmuneEffector.RepairFailure;
        /**
         * Set on a rolled_back step triggered by `immune rollback` or by failed verification.
         *
         * Default: null
         */
        rollback_of_action_id: null | string;
    }
}
