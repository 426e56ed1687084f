variable "namespace" {
  description = "Namespace for RAG Immune."
  type        = string
  default     = "rag-immune"
}

variable "create_namespace" {
  description = "Create the namespace (false: it exists already)."
  type        = bool
  default     = true
}

variable "image" {
  description = "Container image holding the RAG Immune repository, pinned by tag or digest."
  type        = string
}

variable "kafka_brokers" {
  description = "KAFKA_BROKERS: comma-separated host:port list."
  type        = string
  validation {
    condition     = can(regex("^[^\\s:,]+:[0-9]{1,5}(,[^\\s:,]+:[0-9]{1,5})*$", var.kafka_brokers))
    error_message = "kafka_brokers must be host:port[,host:port...]."
  }
}

variable "schema_registry_url" {
  description = "SCHEMA_REGISTRY_URL: Confluent-compatible registry base URL."
  type        = string
}

variable "topic_prefix" {
  description = "BUS_TOPIC_PREFIX: prepended to every topic name (several immune systems on one cluster)."
  type        = string
  default     = ""
}

variable "kafka_tls" {
  description = "KAFKA_SSL and whether to verify the broker certificate. The workers run BUS_PROFILE=production, which refuses plaintext or unverified brokers."
  type = object({
    enabled = bool
    verify  = optional(bool, true)
  })
  default = { enabled = true }
  validation {
    condition     = var.kafka_tls.enabled && var.kafka_tls.verify
    error_message = "BUS_PROFILE=production needs TLS to the brokers with verified certificates (enabled = true, verify = true)."
  }
}

variable "kafka_sasl" {
  description = <<-EOT
    SASL mechanism (plain, scram-sha-256, scram-sha-512) and each worker's own Kafka principal: usernames names one
    for every one of sentinel, identifier, effector, memory and provision (the topic Job), all different, as the
    Kafka ACLs of kafka-acls.sh expect (one writer per topic) and as each Helm chart's bus.sasl.username does.
    password_keys: each one's Secret key (default kafka-sasl-password-<worker>). username is no longer used.
  EOT
  type = object({
    mechanism     = string
    username      = optional(string)
    usernames     = map(string)
    password_keys = optional(map(string), {})
  })
  validation {
    condition     = var.kafka_sasl != null
    error_message = "BUS_PROFILE=production needs SASL to the brokers: set kafka_sasl."
  }
  validation {
    condition = alltrue([for who in ["sentinel", "identifier", "effector", "memory", "provision"] : contains(keys(var.kafka_sasl.usernames), who)]) && (
      length(distinct(values(var.kafka_sasl.usernames))) == length(var.kafka_sasl.usernames)
    )
    error_message = "kafka_sasl.usernames must give sentinel, identifier, effector, memory and provision each its own Kafka principal (all different): a shared principal can write every topic."
  }
}

variable "bus_signing_key_ids" {
  description = "BUS_SIGNING_KEY_ID of each producing worker (<worker>@<version>); the secret is Secret key bus-signing-key-<worker> (secret_keys BUS_SIGNING_KEY_<WORKER>), the consumers' accepted keys bus-verify-keys. Rotation: packages/bus/README.md."
  type        = map(string)
  default = {
    sentinel   = "sentinel@0.1.0"
    identifier = "identifier@0.1.0"
    effector   = "effector@0.1.0"
  }
  validation {
    condition     = alltrue([for who in ["sentinel", "identifier", "effector"] : can(regex("^[A-Za-z0-9._@+-]{1,128}$", var.bus_signing_key_ids[who]))])
    error_message = "bus_signing_key_ids needs sentinel, identifier and effector, each of letters, digits and . _ @ + - (at most 128)."
  }
  validation {
    # Consumers accept a topic only from keys naming its producer (BUS_TOPIC_PRODUCERS).
    condition     = alltrue([for who, id in var.bus_signing_key_ids : startswith(id, "${who}@")])
    error_message = "each bus_signing_key_ids entry must name its worker: <worker>@<version> (e.g. identifier@0.2.0)."
  }
}

variable "schema_registry_username" {
  description = "SCHEMA_REGISTRY_USERNAME; the password is the secret key schema-registry-password."
  type        = string
  default     = ""
}

variable "elasticsearch_url" {
  description = "ELASTICSEARCH_URL for the identifier's evidence ledger and the memory's cases."
  type        = string
}

variable "qdrant_url" {
  description = "QDRANT_URL for the memory's case vectors and the effector's snapshots."
  type        = string
}

variable "index_prefix" {
  description = "ES_INDEX_PREFIX: every index and collection name starts with it."
  type        = string
  default     = "rag-immune"
}

variable "otlp_endpoint" {
  description = "OTEL_EXPORTER_OTLP_ENDPOINT; empty: no trace export."
  type        = string
  default     = ""
}

variable "online_rag_url" {
  description = "The production RAG the immune system watches and repairs."
  type        = string
}

variable "baseline_rag_url" {
  description = "The frozen baseline RAG (same code, pinned knowledge)."
  type        = string
}

variable "golden_probes_jsonl" {
  description = "The sentinel's golden probes, JSON Lines (see services/sentinel/README.md)."
  type        = string
}

variable "effector_qdrant_collection" {
  description = "EFFECTOR_QDRANT_COLLECTION: the RAG's collection the effector snapshots before a repair."
  type        = string
}

variable "existing_secret" {
  description = "An existing Secret with the keys named in secret_keys; null: this module creates one from secrets."
  type        = string
  default     = null
}

variable "secrets" {
  description = "Secret values when existing_secret is null (keys as in secret_keys). Prefer existing_secret: values here end up in the state."
  type        = map(string)
  default     = {}
  sensitive   = true
}

variable "secret_keys" {
  description = "Secret environment variable -> key in the Secret."
  type        = map(string)
  default = {
    SENTINEL_API_TOKEN   = "sentinel-api-token"
    IDENTIFIER_API_TOKEN = "identifier-api-token"
    EFFECTOR_API_TOKEN   = "effector-api-token"
    MEMORY_API_TOKEN     = "memory-api-token"
    # The evidence ledger's HMAC key (32+ characters): records keyed, chain heads signed. Remove for an
    # unkeyed (tamper-evident only) ledger; IDENTIFIER_LEDGER_PREVIOUS_KEYS (optional) lists retired keys.
    IDENTIFIER_LEDGER_KEY = "identifier-ledger-key"
    # Event signing (BUS_PROFILE=production): each producer's secret, and the consumers' keyid:secret list.
    BUS_SIGNING_KEY_SENTINEL   = "bus-signing-key-sentinel"
    BUS_SIGNING_KEY_IDENTIFIER = "bus-signing-key-identifier"
    BUS_SIGNING_KEY_EFFECTOR   = "bus-signing-key-effector"
    BUS_VERIFY_KEYS            = "bus-verify-keys"
    # The probe mark's key (32+ characters), shared by the sentinel, the effector and the trace intake (Helm chart).
    PROBE_MARK_KEY = "probe-mark-key"
  }
}

variable "worker_config" {
  description = "Extra non-secret settings per worker, e.g. { effector = { EFFECTOR_MODE = \"approve\" } }."
  type        = map(map(string))
  default     = {}
  validation {
    condition     = alltrue([for w in keys(var.worker_config) : contains(["sentinel", "identifier", "effector", "memory"], w)])
    error_message = "worker_config keys are sentinel, identifier, effector, memory."
  }
}

variable "replicas" {
  description = "Replicas per worker; the sentinel stays at 1 (one scheduler)."
  type = object({
    identifier = optional(number, 2)
    effector   = optional(number, 2)
    memory     = optional(number, 2)
  })
  default = {}
}

variable "topics" {
  description = "Partitions per topic (replication 3, min.insync.replicas 2)."
  type = object({
    probes_partitions      = optional(number, 16)
    reports_partitions     = optional(number, 6)
    actions_partitions     = optional(number, 6)
    dead_letter_partitions = optional(number, 3)
  })
  default = {}
}

variable "identifier_ledger_previous_keys_retired_at" {
  description = "IDENTIFIER_LEDGER_PREVIOUS_KEYS_RETIRED_AT: when each retired ledger key (secret_keys IDENTIFIER_LEDGER_PREVIOUS_KEYS) stopped signing, ISO times comma-separated in the same order; required with retired keys."
  type        = string
  default     = ""
}

variable "effector_api_tokens_key" {
  description = "Key in the Secret holding the effector's per-caller API tokens (name:token lines, EFFECTOR_API_TOKENS_FILE, mounted read-only as helm/effector's apiTokensFile). Empty: the shared EFFECTOR_API_TOKEN only."
  type        = string
  default     = ""
}

variable "network_policy" {
  description = <<-EOT
    NetworkPolicy of every worker, as the Helm charts' networkPolicy: ingress only on the worker's HTTP port, from
    the Prometheus scraper and the operators' pods (and, to the identifier and the memory, the effector's pods).
    egress_restrict: egress only to DNS (allow_dns) and egress_to (CIDR blocks and ports).
  EOT
  type = object({
    enabled               = optional(bool, true)
    prometheus_namespace  = optional(string, "monitoring")
    prometheus_pod_labels = optional(map(string), { "app.kubernetes.io/name" = "prometheus" })
    operators_namespace   = optional(string, "rag-immune-operators")
    operators_pod_labels  = optional(map(string), { "rag-immune/operator" = "true" })
    egress_restrict       = optional(bool, false)
    allow_dns             = optional(bool, true)
    egress_to = optional(list(object({
      cidr  = string
      ports = list(number)
    })), [])
  })
  default = {}
}

variable "effector_api_roles" {
  description = "EFFECTOR_API_ROLES: each caller of effector_api_tokens_key and its roles (read, operate, grant). Empty: every caller may do everything."
  type        = map(list(string))
  default     = {}
  validation {
    condition     = alltrue([for roles in values(var.effector_api_roles) : length(roles) > 0 && alltrue([for r in roles : contains(["read", "operate", "grant"], r)])])
    error_message = "effector_api_roles: each caller needs at least one of read, operate, grant."
  }
}

variable "trace_intake" {
  description = <<-EOT
    The trace intake (services/trace-intake, as helm/trace-intake): the RAG's OTLP/HTTP exporter posts its spans here,
    the identifier reads them from Elasticsearch. No bus. tokens_key: the Secret key of the per-RAG tokens file
    (TRACE_INTAKE_TOKENS_FILE: the RAG a span set belongs to comes from its token); empty: the single
    TRACE_INTAKE_API_TOKEN (secret_keys, default key trace-intake-api-token). rag_peers: who may post spans
    (NetworkPolicy ingress; default any pod of any namespace, as the chart: narrow it to the RAG's namespace).
  EOT
  type = object({
    enabled                    = optional(bool, true)
    replicas                   = optional(number, 2)
    tokens_key                 = optional(string, "")
    rag_peers                  = optional(list(object({ namespace_labels = optional(map(string)), pod_labels = optional(map(string)) })), [{ namespace_labels = {} }])
    retention_hours            = optional(number, 72)
    user_traffic               = optional(string, "on")
    user_retention_hours       = optional(number, 24)
    max_body_bytes             = optional(number, 8388608)
    max_spans_per_trace        = optional(number, 500)
    rate_spans_per_second      = optional(number, 2000)
    rate_burst_spans           = optional(number, 20000)
    probe_mark_max_age_seconds = optional(number, 3600)
  })
  default = {}
  validation {
    condition     = contains(["on", "off"], var.trace_intake.user_traffic)
    error_message = "trace_intake.user_traffic is on or off."
  }
  validation {
    condition     = var.trace_intake.max_spans_per_trace >= 1 && var.trace_intake.rate_spans_per_second > 0
    error_message = "trace_intake.max_spans_per_trace and rate_spans_per_second must be positive."
  }
}
