// GENERATED from avro/ProbeResult.avsc by packages/contracts/scripts/codegen.ts. Do not edit: run `npm run codegen`.
/* eslint-disable */

export type ProbeResult = IoRagimmuneSentinel.ProbeResult;

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
}

export namespace IoRagimmuneSentinel {
    export const RagCallStatusSchema = "{\"type\":\"enum\",\"name\":\"RagCallStatus\",\"symbols\":[\"ok\",\"timeout\",\"http_error\",\"connection_error\",\"invalid_response\",\"unknown\",\"circuit_open\"],\"default\":\"unknown\"}";
    export const RagCallStatusName = "io.ragimmune.sentinel.RagCallStatus";
    export type RagCallStatus = "ok" | "timeout" | "http_error" | "connection_error" | "invalid_response" | "unknown" | "circuit_open";
    export const FcsStatusSchema = "{\"type\":\"enum\",\"name\":\"FcsStatus\",\"symbols\":[\"scored\",\"no_evidence\",\"not_scored\",\"empty_answer\",\"scorer_error\"],\"default\":\"not_scored\"}";
    export const FcsStatusName = "io.ragimmune.sentinel.FcsStatus";
    export type FcsStatus = "scored" | "no_evidence" | "not_scored" | "empty_answer" | "scorer_error";
    export const HealthSignalsSchema = "{\"type\":\"record\",\"name\":\"HealthSignals\",\"fields\":[{\"name\":\"fcs\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"Fact consistency score in [0,1]; null when fcs_status is not scored.\"},{\"name\":\"fcs_status\",\"type\":{\"type\":\"enum\",\"name\":\"FcsStatus\",\"symbols\":[\"scored\",\"no_evidence\",\"not_scored\",\"empty_answer\",\"scorer_error\"],\"default\":\"not_scored\"}},{\"name\":\"fcs_truncated\",\"type\":\"boolean\",\"default\":false,\"doc\":\"True when the scorer cut over-long input.\"},{\"name\":\"ic\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"Intent coverage in [0,1].\"},{\"name\":\"kf_as_of\",\"type\":[\"null\",{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}],\"default\":null,\"doc\":\"Knowledge freshness: trust x relevance weighted mean update time of the retrieved documents.\"},{\"name\":\"kf_age_days\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"Age of kf_as_of at occurred_at, in days.\"}]}";
    export const HealthSignalsName = "io.ragimmune.sentinel.HealthSignals";
    export interface HealthSignals {
        /**
         * Fact consistency score in [0,1]; null when fcs_status is not scored.
         *
         * Default: null
         */
        fcs: null | number;
        fcs_status: IoRagimmuneSentinel.FcsStatus;
        /**
         * True when the scorer cut over-long input.
         *
         * Default: false
         */
        fcs_truncated: boolean;
        /**
         * Intent coverage in [0,1].
         *
         * Default: null
         */
        ic: null | number;
        /**
         * Knowledge freshness: trust x relevance weighted mean update time of the retrieved documents.
         *
         * Default: null
         */
        kf_as_of: null | number;
        /**
         * Age of kf_as_of at occurred_at, in days.
         *
         * Default: null
         */
        kf_age_days: null | number;
    }
    export const RetrievedDocumentSchema = "{\"type\":\"record\",\"name\":\"RetrievedDocument\",\"fields\":[{\"name\":\"rank\",\"type\":\"int\"},{\"name\":\"doc_id\",\"type\":\"string\"},{\"name\":\"chunk_id\",\"type\":\"string\"},{\"name\":\"knowledge_id\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"knowledge_version\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"source\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"source_trust\",\"type\":[\"null\",\"double\"],\"default\":null},{\"name\":\"updated_at\",\"type\":[\"null\",{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}],\"default\":null},{\"name\":\"retrieval_score\",\"type\":[\"null\",\"double\"],\"default\":null},{\"name\":\"rerank_score\",\"type\":[\"null\",\"double\"],\"default\":null}]}";
    export const RetrievedDocumentName = "io.ragimmune.sentinel.RetrievedDocument";
    export interface RetrievedDocument {
        rank: number;
        doc_id: string;
        chunk_id: string;
        /**
         * Default: null
         */
        knowledge_id: null | string;
        /**
         * Default: null
         */
        knowledge_version: null | string;
        /**
         * Default: null
         */
        source: null | string;
        /**
         * Default: null
         */
        source_trust: null | number;
        /**
         * Default: null
         */
        updated_at: null | number;
        /**
         * Default: null
         */
        retrieval_score: null | number;
        /**
         * Default: null
         */
        rerank_score: null | number;
    }
    export const RagComponentVersionsSchema = "{\"type\":\"record\",\"name\":\"RagComponentVersions\",\"fields\":[{\"name\":\"embedder\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"reranker\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"generator\",\"type\":[\"null\",\"string\"],\"default\":null}]}";
    export const RagComponentVersionsName = "io.ragimmune.sentinel.RagComponentVersions";
    export interface RagComponentVersions {
        /**
         * Default: null
         */
        embedder: null | string;
        /**
         * Default: null
         */
        reranker: null | string;
        /**
         * Default: null
         */
        generator: null | string;
    }
    export const ProbeObservationSchema = "{\"type\":\"record\",\"name\":\"ProbeObservation\",\"doc\":\"What one RAG (online or baseline) answered to the probe and how healthy that answer is.\",\"fields\":[{\"name\":\"call_status\",\"type\":{\"type\":\"enum\",\"name\":\"RagCallStatus\",\"symbols\":[\"ok\",\"timeout\",\"http_error\",\"connection_error\",\"invalid_response\",\"unknown\",\"circuit_open\"],\"default\":\"unknown\"}},{\"name\":\"http_status\",\"type\":[\"null\",\"int\"],\"default\":null},{\"name\":\"error_message\",\"type\":[\"null\",\"string\"],\"default\":null,\"doc\":\"Why the call failed, for the on-call engineer; null when call_status is ok.\"},{\"name\":\"trace_id\",\"type\":[\"null\",\"string\"],\"default\":null,\"doc\":\"The RAG's own trace id, for GET /traces/{id}.\"},{\"name\":\"traceparent\",\"type\":[\"null\",\"string\"],\"default\":null,\"doc\":\"The W3C traceparent the sentinel sent with the query: the RAG's OpenTelemetry spans of this call carry its trace id and its entry span names its parent id, so the trace intake finds them without asking the RAG.\"},{\"name\":\"latency_ms\",\"type\":\"double\",\"doc\":\"Wall time of the call as the sentinel saw it.\"},{\"name\":\"signals\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"HealthSignals\",\"fields\":[{\"name\":\"fcs\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"Fact consistency score in [0,1]; null when fcs_status is not scored.\"},{\"name\":\"fcs_status\",\"type\":{\"type\":\"enum\",\"name\":\"FcsStatus\",\"symbols\":[\"scored\",\"no_evidence\",\"not_scored\",\"empty_answer\",\"scorer_error\"],\"default\":\"not_scored\"}},{\"name\":\"fcs_truncated\",\"type\":\"boolean\",\"default\":false,\"doc\":\"True when the scorer cut over-long input.\"},{\"name\":\"ic\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"Intent coverage in [0,1].\"},{\"name\":\"kf_as_of\",\"type\":[\"null\",{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}],\"default\":null,\"doc\":\"Knowledge freshness: trust x relevance weighted mean update time of the retrieved documents.\"},{\"name\":\"kf_age_days\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"Age of kf_as_of at occurred_at, in days.\"}]}],\"default\":null,\"doc\":\"Null when the call failed.\"},{\"name\":\"retrieved_documents\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"RetrievedDocument\",\"fields\":[{\"name\":\"rank\",\"type\":\"int\"},{\"name\":\"doc_id\",\"type\":\"string\"},{\"name\":\"chunk_id\",\"type\":\"string\"},{\"name\":\"knowledge_id\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"knowledge_version\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"source\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"source_trust\",\"type\":[\"null\",\"double\"],\"default\":null},{\"name\":\"updated_at\",\"type\":[\"null\",{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}],\"default\":null},{\"name\":\"retrieval_score\",\"type\":[\"null\",\"double\"],\"default\":null},{\"name\":\"rerank_score\",\"type\":[\"null\",\"double\"],\"default\":null}]}},\"default\":[]},{\"name\":\"component_versions\",\"type\":{\"type\":\"record\",\"name\":\"RagComponentVersions\",\"fields\":[{\"name\":\"embedder\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"reranker\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"generator\",\"type\":[\"null\",\"string\"],\"default\":null}]}},{\"name\":\"answer_hash\",\"type\":[\"null\",\"string\"],\"default\":null,\"doc\":\"sha256 (hex) of the answer as received, whitespace-normalised (trimmed, runs of whitespace as one space): the identifier uses a trace as evidence for this call only when the trace's answer hashes the same. Null when the call failed, or from a sentinel that predates it.\"}]}";
    export const ProbeObservationName = "io.ragimmune.sentinel.ProbeObservation";
    /**
     * What one RAG (online or baseline) answered to the probe and how healthy that answer is.
     */
    export interface ProbeObservation {
        call_status: IoRagimmuneSentinel.RagCallStatus;
        /**
         * Default: null
         */
        http_status: null | number;
        /**
         * Why the call failed, for the on-call engineer; null when call_status is ok.
         *
         * Default: null
         */
        error_message: null | string;
        /**
         * The RAG's own trace id, for GET /traces/{id}.
         *
         * Default: null
         */
        trace_id: null | string;
        /**
         * The W3C traceparent the sentinel sent with the query: the RAG's OpenTelemetry spans of this call carry its trace id and its entry span names its parent id, so the trace intake finds them without asking the RAG.
         *
         * Default: null
         */
        traceparent: null | string;
        /**
         * Wall time of the call as the sentinel saw it.
         */
        latency_ms: number;
        /**
         * Null when the call failed.
         *
         * Default: null
         */
        signals: null | IoRagimmuneSentinel.HealthSignals;
        /**
         * Default: []
         */
        retrieved_documents: IoRagimmuneSentinel.RetrievedDocument[];
        component_versions: IoRagimmuneSentinel.RagComponentVersions;
        /**
         * sha256 (hex) of the answer as received, whitespace-normalised (trimmed, runs of whitespace as one space): the identifier uses a trace as evidence for this call only when the trace's answer hashes the same. Null when the call failed, or from a sentinel that predates it.
         *
         * Default: null
         */
        answer_hash: null | string;
    }
    export const FeedCheckStatusSchema = "{\"type\":\"enum\",\"name\":\"FeedCheckStatus\",\"doc\":\"Whether the online knowledge newer than the baseline's was checked against the feed that should have published it (GET /knowledge/{id}). published: the feed publishes every such version; ahead_of_feed: some version was indexed ahead of the feed or is unknown to it; lookup_not_served: the RAG has no freshness lookup (404), so the newer knowledge is taken as an update unchecked, as before; lookup_failed: the lookup errored or timed out; baseline_not_refreshed: the RAG has no freshness lookup and its adapter declares that every intended knowledge change comes with a baseline refresh (knowledge.newer_than_baseline: unverified), so each newer version is listed as unpublished knowledge.\",\"symbols\":[\"published\",\"ahead_of_feed\",\"lookup_not_served\",\"lookup_failed\",\"unknown\",\"baseline_not_refreshed\"],\"default\":\"unknown\"}";
    export const FeedCheckStatusName = "io.ragimmune.sentinel.FeedCheckStatus";
    /**
     * Whether the online knowledge newer than the baseline's was checked against the feed that should have published it (GET /knowledge/{id}). published: the feed publishes every such version; ahead_of_feed: some version was indexed ahead of the feed or is unknown to it; lookup_not_served: the RAG has no freshness lookup (404), so the newer knowledge is taken as an update unchecked, as before; lookup_failed: the lookup errored or timed out; baseline_not_refreshed: the RAG has no freshness lookup and its adapter declares that every intended knowledge change comes with a baseline refresh (knowledge.newer_than_baseline: unverified), so each newer version is listed as unpublished knowledge.
     */
    export type FeedCheckStatus = "published" | "ahead_of_feed" | "lookup_not_served" | "lookup_failed" | "unknown" | "baseline_not_refreshed";
    export const UnpublishedKnowledgeSchema = "{\"type\":\"record\",\"name\":\"UnpublishedKnowledge\",\"doc\":\"A knowledge version the online RAG served that its active feed never published.\",\"fields\":[{\"name\":\"knowledge_id\",\"type\":\"string\"},{\"name\":\"online_version\",\"type\":\"string\"},{\"name\":\"online_valid_from\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}},{\"name\":\"feed_version\",\"type\":[\"null\",\"string\"],\"default\":null,\"doc\":\"The newest version the feed publishes at the RAG's knowledge time; null when the feed does not know the id.\"},{\"name\":\"feed_valid_from\",\"type\":[\"null\",{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}],\"default\":null}]}";
    export const UnpublishedKnowledgeName = "io.ragimmune.sentinel.UnpublishedKnowledge";
    /**
     * A knowledge version the online RAG served that its active feed never published.
     */
    export interface UnpublishedKnowledge {
        knowledge_id: string;
        online_version: string;
        online_valid_from: number;
        /**
         * The newest version the feed publishes at the RAG's knowledge time; null when the feed does not know the id.
         *
         * Default: null
         */
        feed_version: null | string;
        /**
         * Default: null
         */
        feed_valid_from: null | number;
    }
    export const AttributionCheckSchema = "{\"type\":\"record\",\"name\":\"AttributionCheck\",\"doc\":\"Which knowledge each side's answer cites, against the probe's expected sources.\",\"fields\":[{\"name\":\"expected_sources\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"default\":[]},{\"name\":\"online_cited\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"default\":[],\"doc\":\"Knowledge ids the online answer cites.\"},{\"name\":\"baseline_cited\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"default\":[]},{\"name\":\"relabelled_chunks\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"default\":[],\"doc\":\"Chunk ids both sides retrieved under different knowledge or document ids: the chunk's metadata names another document.\"},{\"name\":\"relabelled_knowledge_ids\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"default\":[],\"doc\":\"Every knowledge id a relabelled chunk carries on either side.\"}]}";
    export const AttributionCheckName = "io.ragimmune.sentinel.AttributionCheck";
    /**
     * Which knowledge each side's answer cites, against the probe's expected sources.
     */
    export interface AttributionCheck {
        /**
         * Default: []
         */
        expected_sources: string[];
        /**
         * Knowledge ids the online answer cites.
         *
         * Default: []
         */
        online_cited: string[];
        /**
         * Default: []
         */
        baseline_cited: string[];
        /**
         * Chunk ids both sides retrieved under different knowledge or document ids: the chunk's metadata names another document.
         *
         * Default: []
         */
        relabelled_chunks: string[];
        /**
         * Every knowledge id a relabelled chunk carries on either side.
         *
         * Default: []
         */
        relabelled_knowledge_ids: string[];
    }
    export const KnowledgePoolSchema = "{\"type\":\"record\",\"name\":\"KnowledgePool\",\"doc\":\"Evidence pooled across the probes on one knowledge id this probe expects: every run of any of them feeds one CUSUM e-detector per signal, alarming at threshold = 3 / level once at least two probes fed it since its restart; the expected pooled runs between false alarms of one pool are at least 1 / level. A pool's alarm raises the signal on this run as the probe's own detector would.\",\"fields\":[{\"name\":\"knowledge_id\",\"type\":\"string\"},{\"name\":\"level\",\"type\":\"double\",\"doc\":\"The pool's level alpha.\"},{\"name\":\"threshold\",\"type\":\"double\"},{\"name\":\"probe_ids\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"doc\":\"The distinct probes pooled since the pool's last restart, this one included (at most 16 listed).\"},{\"name\":\"probes\",\"type\":\"int\",\"doc\":\"How many distinct probes were pooled (probe_ids is bounded).\"},{\"name\":\"runs\",\"type\":\"int\",\"doc\":\"Runs pooled since the last restart, this one included.\"},{\"name\":\"fcs_statistic\",\"type\":\"double\"},{\"name\":\"ic_statistic\",\"type\":\"double\"},{\"name\":\"facts_statistic\",\"type\":\"double\"},{\"name\":\"alarmed\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"doc\":\"The signals (fcs, ic, facts) whose pooled detector alarmed on this run; the pool then restarted.\"}]}";
    export const KnowledgePoolName = "io.ragimmune.sentinel.KnowledgePool";
    /**
     * Evidence pooled across the probes on one knowledge id this probe expects: every run of any of them feeds one CUSUM e-detector per signal, alarming at threshold = 3 / level once at least two probes fed it since its restart; the expected pooled runs between false alarms of one pool are at least 1 / level. A pool's alarm raises the signal on this run as the probe's own detector would.
     */
    export interface KnowledgePool {
        knowledge_id: string;
        /**
         * The pool's level alpha.
         */
        level: number;
        threshold: number;
        /**
         * The distinct probes pooled since the pool's last restart, this one included (at most 16 listed).
         */
        probe_ids: string[];
        /**
         * How many distinct probes were pooled (probe_ids is bounded).
         */
        probes: number;
        /**
         * Runs pooled since the last restart, this one included.
         */
        runs: number;
        fcs_statistic: number;
        ic_statistic: number;
        facts_statistic: number;
        /**
         * The signals (fcs, ic, facts) whose pooled detector alarmed on this run; the pool then restarted.
         */
        alarmed: string[];
    }
    export const PooledTestSchema = "{\"type\":\"record\",\"name\":\"PooledTest\",\"doc\":\"Sampled mode with the pooled test: evidence accumulated over this probe's runs by one CUSUM e-detector per signal (each run's test turned into an e-value of expectation 1 under 'online and baseline samples are exchangeable'). A detector alarms at threshold = 3 / level; the expected clean runs of a probe between false anomalies are at least 1 / level. A detector restarts after the alarm that raised its signal.\",\"fields\":[{\"name\":\"level\",\"type\":\"double\",\"doc\":\"The per-probe level alpha.\"},{\"name\":\"threshold\",\"type\":\"double\",\"doc\":\"The statistic at which a detector alarms.\"},{\"name\":\"fcs_e\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"This run's e-value of the FCS test (online lower); null when a side had no FCS.\"},{\"name\":\"fcs_statistic\",\"type\":\"double\",\"default\":0,\"doc\":\"The FCS detector after this run, before any restart.\"},{\"name\":\"ic_e\",\"type\":[\"null\",\"double\"],\"default\":null},{\"name\":\"ic_statistic\",\"type\":\"double\",\"default\":0},{\"name\":\"facts_p\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"p of this run's two-sided permutation test on the key facts' frequencies (versions, dates, numbers, names) in the online against the baseline answers; null when no answer states any fact.\"},{\"name\":\"facts_e\",\"type\":[\"null\",\"double\"],\"default\":null},{\"name\":\"facts_statistic\",\"type\":\"double\",\"default\":0},{\"name\":\"rag_calls\",\"type\":\"int\",\"default\":0,\"doc\":\"RAG calls this run made, both sides (the adaptive sampling's cost).\"},{\"name\":\"knowledge_pools\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"KnowledgePool\",\"doc\":\"Evidence pooled across the probes on one knowledge id this probe expects: every run of any of them feeds one CUSUM e-detector per signal, alarming at threshold = 3 / level once at least two probes fed it since its restart; the expected pooled runs between false alarms of one pool are at least 1 / level. A pool's alarm raises the signal on this run as the probe's own detector would.\",\"fields\":[{\"name\":\"knowledge_id\",\"type\":\"string\"},{\"name\":\"level\",\"type\":\"double\",\"doc\":\"The pool's level alpha.\"},{\"name\":\"threshold\",\"type\":\"double\"},{\"name\":\"probe_ids\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"doc\":\"The distinct probes pooled since the pool's last restart, this one included (at most 16 listed).\"},{\"name\":\"probes\",\"type\":\"int\",\"doc\":\"How many distinct probes were pooled (probe_ids is bounded).\"},{\"name\":\"runs\",\"type\":\"int\",\"doc\":\"Runs pooled since the last restart, this one included.\"},{\"name\":\"fcs_statistic\",\"type\":\"double\"},{\"name\":\"ic_statistic\",\"type\":\"double\"},{\"name\":\"facts_statistic\",\"type\":\"double\"},{\"name\":\"alarmed\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"doc\":\"The signals (fcs, ic, facts) whose pooled detector alarmed on this run; the pool then restarted.\"}]}},\"default\":[],\"doc\":\"Pooled across probes (SENTINEL_KNOWLEDGE_POOL=on): one entry per knowledge id this probe expects; empty when off.\"}]}";
    export const PooledTestName = "io.ragimmune.sentinel.PooledTest";
    /**
     * Sampled mode with the pooled test: evidence accumulated over this probe's runs by one CUSUM e-detector per signal (each run's test turned into an e-value of expectation 1 under 'online and baseline samples are exchangeable'). A detector alarms at threshold = 3 / level; the expected clean runs of a probe between false anomalies are at least 1 / level. A detector restarts after the alarm that raised its signal.
     */
    export interface PooledTest {
        /**
         * The per-probe level alpha.
         */
        level: number;
        /**
         * The statistic at which a detector alarms.
         */
        threshold: number;
        /**
         * This run's e-value of the FCS test (online lower); null when a side had no FCS.
         *
         * Default: null
         */
        fcs_e: null | number;
        /**
         * The FCS detector after this run, before any restart.
         *
         * Default: 0
         */
        fcs_statistic: number;
        /**
         * Default: null
         */
        ic_e: null | number;
        /**
         * Default: 0
         */
        ic_statistic: number;
        /**
         * p of this run's two-sided permutation test on the key facts' frequencies (versions, dates, numbers, names) in the online against the baseline answers; null when no answer states any fact.
         *
         * Default: null
         */
        facts_p: null | number;
        /**
         * Default: null
         */
        facts_e: null | number;
        /**
         * Default: 0
         */
        facts_statistic: number;
        /**
         * RAG calls this run made, both sides (the adaptive sampling's cost).
         *
         * Default: 0
         */
        rag_calls: number;
        /**
         * Pooled across probes (SENTINEL_KNOWLEDGE_POOL=on): one entry per knowledge id this probe expects; empty when off.
         *
         * Default: []
         */
        knowledge_pools: IoRagimmuneSentinel.KnowledgePool[];
    }
    export const BaselineComparisonSchema = "{\"type\":\"record\",\"name\":\"BaselineComparison\",\"doc\":\"Online minus baseline; null where either side has no figure.\",\"fields\":[{\"name\":\"fcs_drop\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"baseline.fcs - online.fcs (positive = online is worse).\"},{\"name\":\"ic_drop\",\"type\":[\"null\",\"double\"],\"default\":null},{\"name\":\"kf_lag_days\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"baseline.kf_as_of - online.kf_as_of in days (positive: the online RAG serves knowledge older than the frozen baseline's).\"},{\"name\":\"answer_agreement\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"Share of the key facts (versions, dates, numbers, names) of both answers that both answers state, in [0,1]; null when either side has no answer.\"},{\"name\":\"online_answer_vs_baseline_fcs\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"FCS of the online answer against the baseline's evidence and answer; computed only when the key facts differ.\"},{\"name\":\"baseline_answer_vs_online_fcs\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"FCS of the baseline answer against the online evidence; computed only when the key facts differ.\"},{\"name\":\"knowledge_update\",\"type\":\"boolean\",\"default\":false,\"doc\":\"The online side's evidence is newer (knowledge version, valid_from, updated_at) than the pinned baseline's: a differing answer is a legitimate update, not corruption.\"},{\"name\":\"altered_chunks\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"default\":[],\"doc\":\"Chunk ids retrieved on both sides at the same knowledge version and update time whose text differs: content changed without a new version.\"},{\"name\":\"online_latency_p95_ms\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"p95 of the online RAG's recent call latencies (successful calls, this sentinel's window).\"},{\"name\":\"baseline_latency_p95_ms\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"p95 of the baseline RAG's recent call latencies.\"},{\"name\":\"online_timeout_rate\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"Share of the online RAG's recent calls that timed out or were cut by its open circuit.\"},{\"name\":\"feed_check\",\"type\":[\"null\",{\"type\":\"enum\",\"name\":\"FeedCheckStatus\",\"doc\":\"Whether the online knowledge newer than the baseline's was checked against the feed that should have published it (GET /knowledge/{id}). published: the feed publishes every such version; ahead_of_feed: some version was indexed ahead of the feed or is unknown to it; lookup_not_served: the RAG has no freshness lookup (404), so the newer knowledge is taken as an update unchecked, as before; lookup_failed: the lookup errored or timed out; baseline_not_refreshed: the RAG has no freshness lookup and its adapter declares that every intended knowledge change comes with a baseline refresh (knowledge.newer_than_baseline: unverified), so each newer version is listed as unpublished knowledge.\",\"symbols\":[\"published\",\"ahead_of_feed\",\"lookup_not_served\",\"lookup_failed\",\"unknown\",\"baseline_not_refreshed\"],\"default\":\"unknown\"}],\"default\":null,\"doc\":\"Null when the online side served nothing newer than the baseline (nothing to check), or from a sentinel that predates the check.\"},{\"name\":\"unpublished_knowledge\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"UnpublishedKnowledge\",\"doc\":\"A knowledge version the online RAG served that its active feed never published.\",\"fields\":[{\"name\":\"knowledge_id\",\"type\":\"string\"},{\"name\":\"online_version\",\"type\":\"string\"},{\"name\":\"online_valid_from\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}},{\"name\":\"feed_version\",\"type\":[\"null\",\"string\"],\"default\":null,\"doc\":\"The newest version the feed publishes at the RAG's knowledge time; null when the feed does not know the id.\"},{\"name\":\"feed_valid_from\",\"type\":[\"null\",{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}],\"default\":null}]}},\"default\":[],\"doc\":\"Online knowledge newer than the baseline's that the feed does not publish: indexed ahead of the feed, or a version the feed does not know. Such a version is no legitimate update.\"},{\"name\":\"attribution\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"AttributionCheck\",\"doc\":\"Which knowledge each side's answer cites, against the probe's expected sources.\",\"fields\":[{\"name\":\"expected_sources\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"default\":[]},{\"name\":\"online_cited\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"default\":[],\"doc\":\"Knowledge ids the online answer cites.\"},{\"name\":\"baseline_cited\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"default\":[]},{\"name\":\"relabelled_chunks\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"default\":[],\"doc\":\"Chunk ids both sides retrieved under different knowledge or document ids: the chunk's metadata names another document.\"},{\"name\":\"relabelled_knowledge_ids\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"default\":[],\"doc\":\"Every knowledge id a relabelled chunk carries on either side.\"}]}],\"default\":null,\"doc\":\"Null when either side failed or gave no citations (an abstention cites nothing).\"},{\"name\":\"samples\",\"type\":[\"null\",\"int\"],\"default\":null,\"doc\":\"Calls per side asked of this run in the sampled mode (a RAG whose LLM samples; a side stops at its first failed call): fcs_drop and ic_drop are then the drops of the medians, and fire only when the one-sided exact Mann-Whitney test of the online samples against the baseline's is significant. Null: one call a side, compared one against the other.\"},{\"name\":\"fcs_sample_test_p\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"Sampled mode: p of the one-sided exact Mann-Whitney test that the online FCS samples are lower than the baseline's; null with one call a side or when a side has no FCS.\"},{\"name\":\"ic_sample_test_p\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"Sampled mode: the same test on the intent coverage samples.\"},{\"name\":\"online_fcs_median\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"Sampled mode: median FCS over the online side's scored samples (the figure fcs_drop compares; online.signals.fcs is the representative sample's alone). Null with one call a side or when no online sample was scored.\"},{\"name\":\"baseline_fcs_median\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"Sampled mode: median FCS over the baseline side's scored samples. Null with one call a side or when no baseline sample was scored.\"},{\"name\":\"online_ic_median\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"Sampled mode: median intent coverage over the online side's samples. Null with one call a side or when no online sample has one.\"},{\"name\":\"baseline_ic_median\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"Sampled mode: median intent coverage over the baseline side's samples. Null with one call a side or when no baseline sample has one.\"},{\"name\":\"pooled_test\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"PooledTest\",\"doc\":\"Sampled mode with the pooled test: evidence accumulated over this probe's runs by one CUSUM e-detector per signal (each run's test turned into an e-value of expectation 1 under 'online and baseline samples are exchangeable'). A detector alarms at threshold = 3 / level; the expected clean runs of a probe between false anomalies are at least 1 / level. A detector restarts after the alarm that raised its signal.\",\"fields\":[{\"name\":\"level\",\"type\":\"double\",\"doc\":\"The per-probe level alpha.\"},{\"name\":\"threshold\",\"type\":\"double\",\"doc\":\"The statistic at which a detector alarms.\"},{\"name\":\"fcs_e\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"This run's e-value of the FCS test (online lower); null when a side had no FCS.\"},{\"name\":\"fcs_statistic\",\"type\":\"double\",\"default\":0,\"doc\":\"The FCS detector after this run, before any restart.\"},{\"name\":\"ic_e\",\"type\":[\"null\",\"double\"],\"default\":null},{\"name\":\"ic_statistic\",\"type\":\"double\",\"default\":0},{\"name\":\"facts_p\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"p of this run's two-sided permutation test on the key facts' frequencies (versions, dates, numbers, names) in the online against the baseline answers; null when no answer states any fact.\"},{\"name\":\"facts_e\",\"type\":[\"null\",\"double\"],\"default\":null},{\"name\":\"facts_statistic\",\"type\":\"double\",\"default\":0},{\"name\":\"rag_calls\",\"type\":\"int\",\"default\":0,\"doc\":\"RAG calls this run made, both sides (the adaptive sampling's cost).\"},{\"name\":\"knowledge_pools\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"KnowledgePool\",\"doc\":\"Evidence pooled across the probes on one knowledge id this probe expects: every run of any of them feeds one CUSUM e-detector per signal, alarming at threshold = 3 / level once at least two probes fed it since its restart; the expected pooled runs between false alarms of one pool are at least 1 / level. A pool's alarm raises the signal on this run as the probe's own detector would.\",\"fields\":[{\"name\":\"knowledge_id\",\"type\":\"string\"},{\"name\":\"level\",\"type\":\"double\",\"doc\":\"The pool's level alpha.\"},{\"name\":\"threshold\",\"type\":\"double\"},{\"name\":\"probe_ids\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"doc\":\"The distinct probes pooled since the pool's last restart, this one included (at most 16 listed).\"},{\"name\":\"probes\",\"type\":\"int\",\"doc\":\"How many distinct probes were pooled (probe_ids is bounded).\"},{\"name\":\"runs\",\"type\":\"int\",\"doc\":\"Runs pooled since the last restart, this one included.\"},{\"name\":\"fcs_statistic\",\"type\":\"double\"},{\"name\":\"ic_statistic\",\"type\":\"double\"},{\"name\":\"facts_statistic\",\"type\":\"double\"},{\"name\":\"alarmed\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"doc\":\"The signals (fcs, ic, facts) whose pooled detector alarmed on this run; the pool then restarted.\"}]}},\"default\":[],\"doc\":\"Pooled across probes (SENTINEL_KNOWLEDGE_POOL=on): one entry per knowledge id this probe expects; empty when off.\"}]}],\"default\":null,\"doc\":\"Null unless the run was sampled with the pooled test on.\"}]}";
    export const BaselineComparisonName = "io.ragimmune.sentinel.BaselineComparison";
    /**
     * Online minus baseline; null where either side has no figure.
     */
    export interface BaselineComparison {
        /**
         * baseline.fcs - online.fcs (positive = online is worse).
         *
         * Default: null
         */
        fcs_drop: null | number;
        /**
         * Default: null
         */
        ic_drop: null | number;
        /**
         * baseline.kf_as_of - online.kf_as_of in days (positive: the online RAG serves knowledge older than the frozen baseline's).
         *
         * Default: null
         */
        kf_lag_days: null | number;
        /**
         * Share of the key facts (versions, dates, numbers, names) of both answers that both answers state, in [0,1]; null when either side has no answer.
         *
         * Default: null
         */
        answer_agreement: null | number;
        /**
         * FCS of the online answer against the baseline's evidence and answer; computed only when the key facts differ.
         *
         * Default: null
         */
        online_answer_vs_baseline_fcs: null | number;
        /**
         * FCS of the baseline answer against the online evidence; computed only when the key facts differ.
         *
         * Default: null
         */
        baseline_answer_vs_online_fcs: null | number;
        /**
         * The online side's evidence is newer (knowledge version, valid_from, updated_at) than the pinned baseline's: a differing answer is a legitimate update, not corruption.
         *
         * Default: false
         */
        knowledge_update: boolean;
        /**
         * Chunk ids retrieved on both sides at the same knowledge version and update time whose text differs: content changed without a new version.
         *
         * Default: []
         */
        altered_chunks: string[];
        /**
         * p95 of the online RAG's recent call latencies (successful calls, this sentinel's window).
         *
         * Default: null
         */
        online_latency_p95_ms: null | number;
        /**
         * p95 of the baseline RAG's recent call latencies.
         *
         * Default: null
         */
        baseline_latency_p95_ms: null | number;
        /**
         * Share of the online RAG's recent calls that timed out or were cut by its open circuit.
         *
         * Default: null
         */
        online_timeout_rate: null | number;
        /**
         * Null when the online side served nothing newer than the baseline (nothing to check), or from a sentinel that predates the check.
         *
         * Default: null
         */
        feed_check: null | IoRagimmuneSentinel.FeedCheckStatus;
        /**
         * Online knowledge newer than the baseline's that the feed does not publish: indexed ahead of the feed, or a version the feed does not know. Such a version is no legitimate update.
         *
         * Default: []
         */
        unpublished_knowledge: IoRagimmuneSentinel.UnpublishedKnowledge[];
        /**
         * Null when either side failed or gave no citations (an abstention cites nothing).
         *
         * Default: null
         */
        attribution: null | IoRagimmuneSentinel.AttributionCheck;
        /**
         * Calls per side asked of this run in the sampled mode (a RAG whose LLM samples; a side stops at its first failed call): fcs_drop and ic_drop are then the drops of the medians, and fire only when the one-sided exact Mann-Whitney test of the online samples against the baseline's is significant. Null: one call a side, compared one against the other.
         *
         * Default: null
         */
        samples: null | number;
        /**
         * Sampled mode: p of the one-sided exact Mann-Whitney test that the online FCS samples are lower than the baseline's; null with one call a side or when a side has no FCS.
         *
         * Default: null
         */
        fcs_sample_test_p: null | number;
        /**
         * Sampled mode: the same test on the intent coverage samples.
         *
         * Default: null
         */
        ic_sample_test_p: null | number;
        /**
         * Sampled mode: median FCS over the online side's scored samples (the figure fcs_drop compares; online.signals.fcs is the representative sample's alone). Null with one call a side or when no online sample was scored.
         *
         * Default: null
         */
        online_fcs_median: null | number;
        /**
         * Sampled mode: median FCS over the baseline side's scored samples. Null with one call a side or when no baseline sample was scored.
         *
         * Default: null
         */
        baseline_fcs_median: null | number;
        /**
         * Sampled mode: median intent coverage over the online side's samples. Null with one call a side or when no online sample has one.
         *
         * Default: null
         */
        online_ic_median: null | number;
        /**
         * Sampled mode: median intent coverage over the baseline side's samples. Null with one call a side or when no baseline sample has one.
         *
         * Default: null
         */
        baseline_ic_median: null | number;
        /**
         * Null unless the run was sampled with the pooled test on.
         *
         * Default: null
         */
        pooled_test: null | IoRagimmuneSentinel.PooledTest;
    }
    export const AnomalySeveritySchema = "{\"type\":\"enum\",\"name\":\"AnomalySeverity\",\"symbols\":[\"none\",\"low\",\"medium\",\"high\",\"critical\"],\"default\":\"none\"}";
    export const AnomalySeverityName = "io.ragimmune.sentinel.AnomalySeverity";
    export type AnomalySeverity = "none" | "low" | "medium" | "high" | "critical";
    export const AnomalySignalSchema = "{\"type\":\"enum\",\"name\":\"AnomalySignal\",\"symbols\":[\"fcs_drop\",\"ic_drop\",\"kf_stale\",\"online_error\",\"baseline_error\",\"unknown\",\"answer_disagreement\",\"latency_regression\",\"timeout_rate\",\"empty_answer\",\"unpublished_knowledge\",\"wrong_attribution\"],\"default\":\"unknown\"}";
    export const AnomalySignalName = "io.ragimmune.sentinel.AnomalySignal";
    export type AnomalySignal = "fcs_drop" | "ic_drop" | "kf_stale" | "online_error" | "baseline_error" | "unknown" | "answer_disagreement" | "latency_regression" | "timeout_rate" | "empty_answer" | "unpublished_knowledge" | "wrong_attribution";
    export const ProbeOriginSchema = "{\"type\":\"enum\",\"name\":\"ProbeOrigin\",\"doc\":\"Where the probe's query came from. golden: the sentinel's probe set. traffic: a (redacted) user query replayed to confirm a drift the traffic watcher saw in live traffic.\",\"symbols\":[\"golden\",\"traffic\"],\"default\":\"golden\"}";
    export const ProbeOriginName = "io.ragimmune.sentinel.ProbeOrigin";
    /**
     * Where the probe's query came from. golden: the sentinel's probe set. traffic: a (redacted) user query replayed to confirm a drift the traffic watcher saw in live traffic.
     */
    export type ProbeOrigin = "golden" | "traffic";
    export const ProbeResultSchema = "{\"type\":\"record\",\"name\":\"ProbeResult\",\"namespace\":\"io.ragimmune.sentinel\",\"doc\":\"Value of topic rag-sentinel-probes (key: probe_id). One golden probe run against the online RAG and the frozen baseline RAG, with both sides' semantic health signals. A failed call carries an error status and no signals, never a fake score.\",\"fields\":[{\"name\":\"event_id\",\"type\":{\"type\":\"string\",\"logicalType\":\"uuid\"},\"doc\":\"Unique per event; consumers deduplicate on it.\"},{\"name\":\"correlation_id\",\"type\":\"string\",\"doc\":\"Probe run id shared by the online and baseline calls and by the OpenTelemetry spans of this run.\"},{\"name\":\"occurred_at\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"},\"doc\":\"When the probe run finished, UTC.\"},{\"name\":\"producer\",\"type\":{\"type\":\"record\",\"name\":\"EventProducer\",\"namespace\":\"io.ragimmune.common\",\"doc\":\"Which deployed worker wrote the event.\",\"fields\":[{\"name\":\"service\",\"type\":\"string\"},{\"name\":\"version\",\"type\":\"string\"},{\"name\":\"instance\",\"type\":\"string\",\"doc\":\"Host or pod name, so an event can be traced to one replica.\"}]}},{\"name\":\"probe_id\",\"type\":\"string\"},{\"name\":\"probe_version\",\"type\":\"int\",\"doc\":\"Version of the probe definition that ran.\"},{\"name\":\"query\",\"type\":\"string\",\"doc\":\"The golden query exactly as sent to both RAGs.\"},{\"name\":\"query_hash\",\"type\":\"string\",\"doc\":\"sha256 of the query, hex; joins spans, traces and events without carrying the text.\"},{\"name\":\"online\",\"type\":{\"type\":\"record\",\"name\":\"ProbeObservation\",\"doc\":\"What one RAG (online or baseline) answered to the probe and how healthy that answer is.\",\"fields\":[{\"name\":\"call_status\",\"type\":{\"type\":\"enum\",\"name\":\"RagCallStatus\",\"symbols\":[\"ok\",\"timeout\",\"http_error\",\"connection_error\",\"invalid_response\",\"unknown\",\"circuit_open\"],\"default\":\"unknown\"}},{\"name\":\"http_status\",\"type\":[\"null\",\"int\"],\"default\":null},{\"name\":\"error_message\",\"type\":[\"null\",\"string\"],\"default\":null,\"doc\":\"Why the call failed, for the on-call engineer; null when call_status is ok.\"},{\"name\":\"trace_id\",\"type\":[\"null\",\"string\"],\"default\":null,\"doc\":\"The RAG's own trace id, for GET /traces/{id}.\"},{\"name\":\"traceparent\",\"type\":[\"null\",\"string\"],\"default\":null,\"doc\":\"The W3C traceparent the sentinel sent with the query: the RAG's OpenTelemetry spans of this call carry its trace id and its entry span names its parent id, so the trace intake finds them without asking the RAG.\"},{\"name\":\"latency_ms\",\"type\":\"double\",\"doc\":\"Wall time of the call as the sentinel saw it.\"},{\"name\":\"signals\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"HealthSignals\",\"fields\":[{\"name\":\"fcs\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"Fact consistency score in [0,1]; null when fcs_status is not scored.\"},{\"name\":\"fcs_status\",\"type\":{\"type\":\"enum\",\"name\":\"FcsStatus\",\"symbols\":[\"scored\",\"no_evidence\",\"not_scored\",\"empty_answer\",\"scorer_error\"],\"default\":\"not_scored\"}},{\"name\":\"fcs_truncated\",\"type\":\"boolean\",\"default\":false,\"doc\":\"True when the scorer cut over-long input.\"},{\"name\":\"ic\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"Intent coverage in [0,1].\"},{\"name\":\"kf_as_of\",\"type\":[\"null\",{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}],\"default\":null,\"doc\":\"Knowledge freshness: trust x relevance weighted mean update time of the retrieved documents.\"},{\"name\":\"kf_age_days\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"Age of kf_as_of at occurred_at, in days.\"}]}],\"default\":null,\"doc\":\"Null when the call failed.\"},{\"name\":\"retrieved_documents\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"RetrievedDocument\",\"fields\":[{\"name\":\"rank\",\"type\":\"int\"},{\"name\":\"doc_id\",\"type\":\"string\"},{\"name\":\"chunk_id\",\"type\":\"string\"},{\"name\":\"knowledge_id\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"knowledge_version\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"source\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"source_trust\",\"type\":[\"null\",\"double\"],\"default\":null},{\"name\":\"updated_at\",\"type\":[\"null\",{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}],\"default\":null},{\"name\":\"retrieval_score\",\"type\":[\"null\",\"double\"],\"default\":null},{\"name\":\"rerank_score\",\"type\":[\"null\",\"double\"],\"default\":null}]}},\"default\":[]},{\"name\":\"component_versions\",\"type\":{\"type\":\"record\",\"name\":\"RagComponentVersions\",\"fields\":[{\"name\":\"embedder\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"reranker\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"generator\",\"type\":[\"null\",\"string\"],\"default\":null}]}},{\"name\":\"answer_hash\",\"type\":[\"null\",\"string\"],\"default\":null,\"doc\":\"sha256 (hex) of the answer as received, whitespace-normalised (trimmed, runs of whitespace as one space): the identifier uses a trace as evidence for this call only when the trace's answer hashes the same. Null when the call failed, or from a sentinel that predates it.\"}]}},{\"name\":\"baseline\",\"type\":\"ProbeObservation\"},{\"name\":\"comparison\",\"type\":{\"type\":\"record\",\"name\":\"BaselineComparison\",\"doc\":\"Online minus baseline; null where either side has no figure.\",\"fields\":[{\"name\":\"fcs_drop\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"baseline.fcs - online.fcs (positive = online is worse).\"},{\"name\":\"ic_drop\",\"type\":[\"null\",\"double\"],\"default\":null},{\"name\":\"kf_lag_days\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"baseline.kf_as_of - online.kf_as_of in days (positive: the online RAG serves knowledge older than the frozen baseline's).\"},{\"name\":\"answer_agreement\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"Share of the key facts (versions, dates, numbers, names) of both answers that both answers state, in [0,1]; null when either side has no answer.\"},{\"name\":\"online_answer_vs_baseline_fcs\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"FCS of the online answer against the baseline's evidence and answer; computed only when the key facts differ.\"},{\"name\":\"baseline_answer_vs_online_fcs\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"FCS of the baseline answer against the online evidence; computed only when the key facts differ.\"},{\"name\":\"knowledge_update\",\"type\":\"boolean\",\"default\":false,\"doc\":\"The online side's evidence is newer (knowledge version, valid_from, updated_at) than the pinned baseline's: a differing answer is a legitimate update, not corruption.\"},{\"name\":\"altered_chunks\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"default\":[],\"doc\":\"Chunk ids retrieved on both sides at the same knowledge version and update time whose text differs: content changed without a new version.\"},{\"name\":\"online_latency_p95_ms\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"p95 of the online RAG's recent call latencies (successful calls, this sentinel's window).\"},{\"name\":\"baseline_latency_p95_ms\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"p95 of the baseline RAG's recent call latencies.\"},{\"name\":\"online_timeout_rate\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"Share of the online RAG's recent calls that timed out or were cut by its open circuit.\"},{\"name\":\"feed_check\",\"type\":[\"null\",{\"type\":\"enum\",\"name\":\"FeedCheckStatus\",\"doc\":\"Whether the online knowledge newer than the baseline's was checked against the feed that should have published it (GET /knowledge/{id}). published: the feed publishes every such version; ahead_of_feed: some version was indexed ahead of the feed or is unknown to it; lookup_not_served: the RAG has no freshness lookup (404), so the newer knowledge is taken as an update unchecked, as before; lookup_failed: the lookup errored or timed out; baseline_not_refreshed: the RAG has no freshness lookup and its adapter declares that every intended knowledge change comes with a baseline refresh (knowledge.newer_than_baseline: unverified), so each newer version is listed as unpublished knowledge.\",\"symbols\":[\"published\",\"ahead_of_feed\",\"lookup_not_served\",\"lookup_failed\",\"unknown\",\"baseline_not_refreshed\"],\"default\":\"unknown\"}],\"default\":null,\"doc\":\"Null when the online side served nothing newer than the baseline (nothing to check), or from a sentinel that predates the check.\"},{\"name\":\"unpublished_knowledge\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"UnpublishedKnowledge\",\"doc\":\"A knowledge version the online RAG served that its active feed never published.\",\"fields\":[{\"name\":\"knowledge_id\",\"type\":\"string\"},{\"name\":\"online_version\",\"type\":\"string\"},{\"name\":\"online_valid_from\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}},{\"name\":\"feed_version\",\"type\":[\"null\",\"string\"],\"default\":null,\"doc\":\"The newest version the feed publishes at the RAG's knowledge time; null when the feed does not know the id.\"},{\"name\":\"feed_valid_from\",\"type\":[\"null\",{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}],\"default\":null}]}},\"default\":[],\"doc\":\"Online knowledge newer than the baseline's that the feed does not publish: indexed ahead of the feed, or a version the feed does not know. Such a version is no legitimate update.\"},{\"name\":\"attribution\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"AttributionCheck\",\"doc\":\"Which knowledge each side's answer cites, against the probe's expected sources.\",\"fields\":[{\"name\":\"expected_sources\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"default\":[]},{\"name\":\"online_cited\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"default\":[],\"doc\":\"Knowledge ids the online answer cites.\"},{\"name\":\"baseline_cited\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"default\":[]},{\"name\":\"relabelled_chunks\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"default\":[],\"doc\":\"Chunk ids both sides retrieved under different knowledge or document ids: the chunk's metadata names another document.\"},{\"name\":\"relabelled_knowledge_ids\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"default\":[],\"doc\":\"Every knowledge id a relabelled chunk carries on either side.\"}]}],\"default\":null,\"doc\":\"Null when either side failed or gave no citations (an abstention cites nothing).\"},{\"name\":\"samples\",\"type\":[\"null\",\"int\"],\"default\":null,\"doc\":\"Calls per side asked of this run in the sampled mode (a RAG whose LLM samples; a side stops at its first failed call): fcs_drop and ic_drop are then the drops of the medians, and fire only when the one-sided exact Mann-Whitney test of the online samples against the baseline's is significant. Null: one call a side, compared one against the other.\"},{\"name\":\"fcs_sample_test_p\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"Sampled mode: p of the one-sided exact Mann-Whitney test that the online FCS samples are lower than the baseline's; null with one call a side or when a side has no FCS.\"},{\"name\":\"ic_sample_test_p\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"Sampled mode: the same test on the intent coverage samples.\"},{\"name\":\"online_fcs_median\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"Sampled mode: median FCS over the online side's scored samples (the figure fcs_drop compares; online.signals.fcs is the representative sample's alone). Null with one call a side or when no online sample was scored.\"},{\"name\":\"baseline_fcs_median\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"Sampled mode: median FCS over the baseline side's scored samples. Null with one call a side or when no baseline sample was scored.\"},{\"name\":\"online_ic_median\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"Sampled mode: median intent coverage over the online side's samples. Null with one call a side or when no online sample has one.\"},{\"name\":\"baseline_ic_median\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"Sampled mode: median intent coverage over the baseline side's samples. Null with one call a side or when no baseline sample has one.\"},{\"name\":\"pooled_test\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"PooledTest\",\"doc\":\"Sampled mode with the pooled test: evidence accumulated over this probe's runs by one CUSUM e-detector per signal (each run's test turned into an e-value of expectation 1 under 'online and baseline samples are exchangeable'). A detector alarms at threshold = 3 / level; the expected clean runs of a probe between false anomalies are at least 1 / level. A detector restarts after the alarm that raised its signal.\",\"fields\":[{\"name\":\"level\",\"type\":\"double\",\"doc\":\"The per-probe level alpha.\"},{\"name\":\"threshold\",\"type\":\"double\",\"doc\":\"The statistic at which a detector alarms.\"},{\"name\":\"fcs_e\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"This run's e-value of the FCS test (online lower); null when a side had no FCS.\"},{\"name\":\"fcs_statistic\",\"type\":\"double\",\"default\":0,\"doc\":\"The FCS detector after this run, before any restart.\"},{\"name\":\"ic_e\",\"type\":[\"null\",\"double\"],\"default\":null},{\"name\":\"ic_statistic\",\"type\":\"double\",\"default\":0},{\"name\":\"facts_p\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"p of this run's two-sided permutation test on the key facts' frequencies (versions, dates, numbers, names) in the online against the baseline answers; null when no answer states any fact.\"},{\"name\":\"facts_e\",\"type\":[\"null\",\"double\"],\"default\":null},{\"name\":\"facts_statistic\",\"type\":\"double\",\"default\":0},{\"name\":\"rag_calls\",\"type\":\"int\",\"default\":0,\"doc\":\"RAG calls this run made, both sides (the adaptive sampling's cost).\"},{\"name\":\"knowledge_pools\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"KnowledgePool\",\"doc\":\"Evidence pooled across the probes on one knowledge id this probe expects: every run of any of them feeds one CUSUM e-detector per signal, alarming at threshold = 3 / level once at least two probes fed it since its restart; the expected pooled runs between false alarms of one pool are at least 1 / level. A pool's alarm raises the signal on this run as the probe's own detector would.\",\"fields\":[{\"name\":\"knowledge_id\",\"type\":\"string\"},{\"name\":\"level\",\"type\":\"double\",\"doc\":\"The pool's level alpha.\"},{\"name\":\"threshold\",\"type\":\"double\"},{\"name\":\"probe_ids\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"doc\":\"The distinct probes pooled since the pool's last restart, this one included (at most 16 listed).\"},{\"name\":\"probes\",\"type\":\"int\",\"doc\":\"How many distinct probes were pooled (probe_ids is bounded).\"},{\"name\":\"runs\",\"type\":\"int\",\"doc\":\"Runs pooled since the last restart, this one included.\"},{\"name\":\"fcs_statistic\",\"type\":\"double\"},{\"name\":\"ic_statistic\",\"type\":\"double\"},{\"name\":\"facts_statistic\",\"type\":\"double\"},{\"name\":\"alarmed\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"doc\":\"The signals (fcs, ic, facts) whose pooled detector alarmed on this run; the pool then restarted.\"}]}},\"default\":[],\"doc\":\"Pooled across probes (SENTINEL_KNOWLEDGE_POOL=on): one entry per knowledge id this probe expects; empty when off.\"}]}],\"default\":null,\"doc\":\"Null unless the run was sampled with the pooled test on.\"}]}},{\"name\":\"anomaly\",\"type\":\"boolean\"},{\"name\":\"severity\",\"type\":{\"type\":\"enum\",\"name\":\"AnomalySeverity\",\"symbols\":[\"none\",\"low\",\"medium\",\"high\",\"critical\"],\"default\":\"none\"}},{\"name\":\"anomaly_signals\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"enum\",\"name\":\"AnomalySignal\",\"symbols\":[\"fcs_drop\",\"ic_drop\",\"kf_stale\",\"online_error\",\"baseline_error\",\"unknown\",\"answer_disagreement\",\"latency_regression\",\"timeout_rate\",\"empty_answer\",\"unpublished_knowledge\",\"wrong_attribution\"],\"default\":\"unknown\"}},\"default\":[]},{\"name\":\"origin\",\"type\":{\"type\":\"enum\",\"name\":\"ProbeOrigin\",\"doc\":\"Where the probe's query came from. golden: the sentinel's probe set. traffic: a (redacted) user query replayed to confirm a drift the traffic watcher saw in live traffic.\",\"symbols\":[\"golden\",\"traffic\"],\"default\":\"golden\"},\"default\":\"golden\"},{\"name\":\"segment\",\"type\":[\"null\",\"string\"],\"default\":null,\"doc\":\"For origin traffic: the traffic segment whose drift the replay confirms or rejects (the knowledge id). Null for golden probes.\"}]}";
    export const ProbeResultName = "io.ragimmune.sentinel.ProbeResult";
    /**
     * Value of topic rag-sentinel-probes (key: probe_id). One golden probe run against the online RAG and the frozen baseline RAG, with both sides' semantic health signals. A failed call carries an error status and no signals, never a fake score.
     */
    export interface ProbeResult {
        /**
         * Unique per event; consumers deduplicate on it.
         */
        event_id: string;
        /**
         * Probe run id shared by the online and baseline calls and by the OpenTelemetry spans of this run.
         */
        correlation_id: string;
        /**
         * When the probe run finished, UTC.
         */
        occurred_at: number;
        producer: IoRagimmuneCommon.EventProducer;
        probe_id: string;
        /**
         * Version of the probe definition that ran.
         */
        probe_version: number;
        /**
         * The golden query exactly as sent to both RAGs.
         */
        query: string;
        /**
         * sha256 of the query, hex; joins spans, traces and events without carrying the text.
         */
        query_hash: string;
        online: IoRagimmuneSentinel.ProbeObservation;
        baseline: IoRagimmuneSentinel.ProbeObservation;
        comparison: IoRagimmuneSentinel.BaselineComparison;
        anomaly: boolean;
        severity: IoRagimmuneSentinel.AnomalySeverity;
        /**
         * Default: []
         */
        anomaly_signals: IoRagimmuneSentinel.AnomalySignal[];
        /**
         * Default: "golden"
         */
        origin: IoRagimmuneSentinel.ProbeOrigin;
        /**
         * For origin traffic: the traffic segment whose drift the replay confirms or rejects (the knowledge id). Null for golden probes.
         *
         * Default: null
         */
        segment: null | string;
    }
}
