# RAG Immune on an existing Kubernetes cluster: namespace, secret, the bus topics (a Job running the
# project's topic admin) and the four workers. Kafka, the schema registry, Elasticsearch and Qdrant
# are the platform's; this module only points the workers at them.

locals {
  namespace   = var.create_namespace ? kubernetes_namespace_v1.this[0].metadata[0].name : var.namespace
  secret_name = var.existing_secret != null ? var.existing_secret : kubernetes_secret_v1.this[0].metadata[0].name

  # BUS_TOPIC_PRODUCERS: bus-verify-keys lists every producer's key, and a consumer accepts each topic only
  # from keys whose id names its producer (<worker>@...): a report signed with the sentinel's key is dead-lettered.
  bus_env = merge(
    {
      KAFKA_BROKERS       = var.kafka_brokers
      SCHEMA_REGISTRY_URL = var.schema_registry_url
      BUS_PROFILE         = "production"
      BUS_TOPIC_PREFIX    = var.topic_prefix
      BUS_TOPIC_PRODUCERS = "probes=sentinel,reports=identifier,actions=effector"
    },
    var.kafka_tls.enabled ? { KAFKA_SSL = "true" } : {},
    var.kafka_tls.enabled && !var.kafka_tls.verify ? { KAFKA_SSL_REJECT_UNAUTHORIZED = "false" } : {},
    var.kafka_sasl == null ? {} : { KAFKA_SASL_MECHANISM = var.kafka_sasl.mechanism, KAFKA_SASL_USERNAME = var.kafka_sasl.username },
    var.schema_registry_username == "" ? {} : { SCHEMA_REGISTRY_USERNAME = var.schema_registry_username },
  )
  bus_secret_env = merge(
    var.kafka_sasl == null ? {} : { KAFKA_SASL_PASSWORD = "kafka-sasl-password" },
    var.schema_registry_username == "" ? {} : { SCHEMA_REGISTRY_PASSWORD = "schema-registry-password" },
  )
  # Each worker's own Kafka principal when kafka_sasl.usernames names one (the ACLs of kafka-acls.sh
  # give each topic a single writer), else the shared one.
  sasl_env = { for who in ["sentinel", "identifier", "effector", "memory", "provision"] : who => var.kafka_sasl == null ? {} : {
    KAFKA_SASL_USERNAME = var.kafka_sasl.usernames[who]
  } }
  sasl_secret_env = { for who in ["sentinel", "identifier", "effector", "memory", "provision"] : who => var.kafka_sasl == null ? {} : {
    KAFKA_SASL_PASSWORD = lookup(var.kafka_sasl.password_keys, who, "kafka-sasl-password-${who}")
  } }
  # The evidence ledger's key (and, during a rotation, the retired keys with their cut-offs), as helm/identifier.
  ledger_secret_env = { for name in ["IDENTIFIER_LEDGER_KEY", "IDENTIFIER_LEDGER_PREVIOUS_KEYS"] : name => var.secret_keys[name] if contains(keys(var.secret_keys), name) }
  ledger_env        = var.identifier_ledger_previous_keys_retired_at == "" ? {} : { IDENTIFIER_LEDGER_PREVIOUS_KEYS_RETIRED_AT = var.identifier_ledger_previous_keys_retired_at }
  # The effector's per-caller tokens file (helm/effector apiTokensFile).
  api_tokens_volume = var.effector_api_tokens_key == "" ? {} : {
    api-tokens = { secret = local.secret_name, key = var.effector_api_tokens_key, mount_path = "/etc/rag-immune/api-tokens" }
  }
  api_tokens_env = merge(
    var.effector_api_tokens_key == "" ? {} : { EFFECTOR_API_TOKENS_FILE = "/etc/rag-immune/api-tokens/${var.effector_api_tokens_key}" },
    length(var.effector_api_roles) == 0 ? {} : { EFFECTOR_API_ROLES = join(",", [for caller, roles in var.effector_api_roles : "${caller}=${join("+", roles)}"]) },
  )
  # NetworkPolicies as the charts': the scraper and the operators everywhere; the effector to the identifier and the memory.
  ingress_peers = [
    { to = ["sentinel", "identifier", "effector", "memory"], namespace_labels = { "kubernetes.io/metadata.name" = var.network_policy.prometheus_namespace }, pod_labels = var.network_policy.prometheus_pod_labels },
    { to = ["sentinel", "identifier", "effector", "memory"], namespace_labels = { "kubernetes.io/metadata.name" = var.network_policy.operators_namespace }, pod_labels = var.network_policy.operators_pod_labels },
    { to = ["identifier", "memory"], namespace_labels = null, pod_labels = { "app.kubernetes.io/name" = "effector" } },
  ]
  network_policy = { for who in ["sentinel", "identifier", "effector", "memory"] : who => {
    enabled         = var.network_policy.enabled
    ingress_from    = [for peer in local.ingress_peers : { namespace_labels = peer.namespace_labels, pod_labels = peer.pod_labels } if contains(peer.to, who)]
    egress_restrict = var.network_policy.egress_restrict
    allow_dns       = var.network_policy.allow_dns
    egress_to       = var.network_policy.egress_to
  } }
  # BUS_PROFILE=production: producers sign what they publish, consumers verify what they read.
  signing_env = { for who, id in var.bus_signing_key_ids : who => { BUS_SIGNING_KEY_ID = id } }
  signing_secret_env = { for who in keys(var.bus_signing_key_ids) : who => {
    BUS_SIGNING_KEY = lookup(var.secret_keys, "BUS_SIGNING_KEY_${upper(who)}", "bus-signing-key-${who}")
  } }
  verify_secret_env = { BUS_VERIFY_KEYS = lookup(var.secret_keys, "BUS_VERIFY_KEYS", "bus-verify-keys") }
  shared_env = merge(local.bus_env, {
    # Handled event_ids shared by all replicas of a consumer group (exactly-once handling across replicas).
    BUS_PROCESSED_EVENTS = "elasticsearch"
    ELASTICSEARCH_URL    = var.elasticsearch_url
    QDRANT_URL           = var.qdrant_url
    ES_INDEX_PREFIX      = var.index_prefix
    }, var.otlp_endpoint == "" ? {} : { OTEL_EXPORTER_OTLP_ENDPOINT = var.otlp_endpoint }
  )
  worker_env = {
    sentinel = {
      SENTINEL_ONLINE_RAG_URL   = var.online_rag_url
      SENTINEL_BASELINE_RAG_URL = var.baseline_rag_url
      SENTINEL_PROBES_FILE      = "/etc/rag-immune/probes/golden-probes.jsonl"
    }
    identifier = {
      IDENTIFIER_ONLINE_RAG_URL   = var.online_rag_url
      IDENTIFIER_BASELINE_RAG_URL = var.baseline_rag_url
    }
    # EFFECTOR_IDENTIFIER_URL: the identifier this module deploys; every report is checked against its
    # record (BUS_PROFILE=production refuses to start the effector without it).
    effector = {
      EFFECTOR_ONLINE_RAG_URL    = var.online_rag_url
      EFFECTOR_BASELINE_RAG_URL  = var.baseline_rag_url
      EFFECTOR_QDRANT_COLLECTION = var.effector_qdrant_collection
      EFFECTOR_MEMORY_URL        = module.memory.service_url
      EFFECTOR_IDENTIFIER_URL    = module.identifier.service_url
    }
    memory = {}
  }
  resources = {
    sentinel = { requests = { cpu = "250m", memory = "768Mi" }, limits = { cpu = "2", memory = "1536Mi" } }
    default  = { requests = { cpu = "200m", memory = "512Mi" }, limits = { cpu = "1", memory = "1Gi" } }
  }
}

resource "kubernetes_namespace_v1" "this" {
  count = var.create_namespace ? 1 : 0
  metadata {
    name = var.namespace
    labels = {
      "app.kubernetes.io/part-of"          = "rag-immune"
      "pod-security.kubernetes.io/enforce" = "restricted"
    }
  }
}

resource "kubernetes_secret_v1" "this" {
  count = var.existing_secret == null ? 1 : 0
  metadata {
    name      = "rag-immune"
    namespace = local.namespace
    labels = {
      "app.kubernetes.io/part-of" = "rag-immune"
    }
  }
  data = var.secrets
  lifecycle {
    precondition {
      condition     = alltrue([for key in values(var.secret_keys) : contains(keys(var.secrets), key)])
      error_message = "secrets must hold every key named in secret_keys (or set existing_secret)."
    }
  }
}

# Settings that only make sense together, checked at plan time rather than by a crash-looping pod.
resource "terraform_data" "settings" {
  lifecycle {
    precondition {
      condition     = !contains(keys(var.secret_keys), "IDENTIFIER_LEDGER_PREVIOUS_KEYS") || var.identifier_ledger_previous_keys_retired_at != ""
      error_message = "retired ledger keys (secret_keys IDENTIFIER_LEDGER_PREVIOUS_KEYS) need identifier_ledger_previous_keys_retired_at (BUS_PROFILE=production refuses them without cut-offs)."
    }
  }
}

resource "kubernetes_config_map_v1" "golden_probes" {
  metadata {
    name      = "rag-immune-golden-probes"
    namespace = local.namespace
    labels = {
      "app.kubernetes.io/part-of" = "rag-immune"
    }
  }
  data = {
    "golden-probes.jsonl" = var.golden_probes_jsonl
  }
}

module "bus_topics" {
  source      = "./modules/bus-topics"
  namespace   = local.namespace
  image       = var.image
  bus_env     = merge(local.bus_env, local.sasl_env.provision)
  secret_name = local.secret_name
  secret_env  = merge(local.bus_secret_env, local.sasl_secret_env.provision)
  topics = {
    probes_partitions      = var.topics.probes_partitions
    reports_partitions     = var.topics.reports_partitions
    actions_partitions     = var.topics.actions_partitions
    dead_letter_partitions = var.topics.dead_letter_partitions
  }
}

module "sentinel" {
  source      = "./modules/worker"
  name        = "sentinel"
  namespace   = local.namespace
  image       = var.image
  replicas    = 1
  env         = merge(local.shared_env, local.sasl_env.sentinel, local.signing_env.sentinel, local.worker_env.sentinel, lookup(var.worker_config, "sentinel", {}))
  secret_name = local.secret_name
  secret_env = merge(local.bus_secret_env, local.sasl_secret_env.sentinel, local.signing_secret_env.sentinel, {
    SENTINEL_API_TOKEN = var.secret_keys["SENTINEL_API_TOKEN"]
    # Signs each probe call's mark; the trace intake files a probe's spans as such only when it verifies.
    PROBE_MARK_KEY = lookup(var.secret_keys, "PROBE_MARK_KEY", "probe-mark-key")
  })
  resources      = local.resources.sentinel
  network_policy = local.network_policy.sentinel
  config_volumes = {
    probes = { config_map = kubernetes_config_map_v1.golden_probes.metadata[0].name, mount_path = "/etc/rag-immune/probes" }
  }
  depends_on = [module.bus_topics]
}

module "identifier" {
  source      = "./modules/worker"
  name        = "identifier"
  namespace   = local.namespace
  image       = var.image
  replicas    = var.replicas.identifier
  env         = merge(local.shared_env, local.sasl_env.identifier, local.signing_env.identifier, local.worker_env.identifier, local.ledger_env, lookup(var.worker_config, "identifier", {}))
  secret_name = local.secret_name
  secret_env = merge(local.bus_secret_env, local.sasl_secret_env.identifier, local.signing_secret_env.identifier, local.verify_secret_env, local.ledger_secret_env, {
    IDENTIFIER_API_TOKEN = var.secret_keys["IDENTIFIER_API_TOKEN"]
  })
  resources         = local.resources.default
  network_policy    = local.network_policy.identifier
  pdb_min_available = 1
  depends_on        = [module.bus_topics]
}

module "memory" {
  source      = "./modules/worker"
  name        = "memory"
  namespace   = local.namespace
  image       = var.image
  replicas    = var.replicas.memory
  env         = merge(local.shared_env, local.sasl_env.memory, local.worker_env.memory, lookup(var.worker_config, "memory", {}))
  secret_name = local.secret_name
  secret_env = merge(local.bus_secret_env, local.sasl_secret_env.memory, local.verify_secret_env, {
    MEMORY_API_TOKEN = var.secret_keys["MEMORY_API_TOKEN"]
  })
  resources         = local.resources.default
  network_policy    = local.network_policy.memory
  pdb_min_available = 1
  depends_on        = [module.bus_topics]
}

module "effector" {
  source      = "./modules/worker"
  name        = "effector"
  namespace   = local.namespace
  image       = var.image
  replicas    = var.replicas.effector
  env         = merge(local.shared_env, local.sasl_env.effector, local.signing_env.effector, local.worker_env.effector, local.api_tokens_env, lookup(var.worker_config, "effector", {}))
  secret_name = local.secret_name
  secret_env = merge(local.bus_secret_env, local.sasl_secret_env.effector, local.signing_secret_env.effector, local.verify_secret_env, {
    EFFECTOR_API_TOKEN        = var.secret_keys["EFFECTOR_API_TOKEN"]
    EFFECTOR_MEMORY_TOKEN     = var.secret_keys["MEMORY_API_TOKEN"]
    EFFECTOR_IDENTIFIER_TOKEN = var.secret_keys["IDENTIFIER_API_TOKEN"]
    # Verification probes are probes too: their mark is signed with the sentinel's key.
    PROBE_MARK_KEY = lookup(var.secret_keys, "PROBE_MARK_KEY", "probe-mark-key")
  })
  resources         = local.resources.default
  network_policy    = local.network_policy.effector
  secret_volumes    = local.api_tokens_volume
  pdb_min_available = 1
  pod_name_env      = "EFFECTOR_INSTANCE_ID"
  depends_on        = [module.bus_topics]
}

# The trace intake (as helm/trace-intake): OTLP/HTTP in, Elasticsearch out, no bus. The RAG a span set
# belongs to comes from its token (tokens_key: a mounted per-RAG tokens file); a probe's spans are filed
# as such only when their mark verifies under PROBE_MARK_KEY, the sentinel's and the effector's key.
module "trace_intake" {
  count     = var.trace_intake.enabled ? 1 : 0
  source    = "./modules/worker"
  name      = "trace-intake"
  namespace = local.namespace
  image     = var.image
  replicas  = var.trace_intake.replicas
  env = merge(
    {
      ELASTICSEARCH_URL                       = var.elasticsearch_url
      ES_INDEX_PREFIX                         = var.index_prefix
      TRACE_INTAKE_RETENTION_HOURS            = tostring(var.trace_intake.retention_hours)
      TRACE_INTAKE_USER_TRAFFIC               = var.trace_intake.user_traffic
      TRACE_INTAKE_USER_RETENTION_HOURS       = tostring(var.trace_intake.user_retention_hours)
      TRACE_INTAKE_MAX_BODY_BYTES             = tostring(var.trace_intake.max_body_bytes)
      TRACE_INTAKE_MAX_SPANS_PER_TRACE        = tostring(var.trace_intake.max_spans_per_trace)
      TRACE_INTAKE_RATE_SPANS_PER_SECOND      = tostring(var.trace_intake.rate_spans_per_second)
      TRACE_INTAKE_RATE_BURST_SPANS           = tostring(var.trace_intake.rate_burst_spans)
      TRACE_INTAKE_PROBE_MARK_MAX_AGE_SECONDS = tostring(var.trace_intake.probe_mark_max_age_seconds)
    },
    var.trace_intake.tokens_key == "" ? {} : { TRACE_INTAKE_TOKENS_FILE = "/etc/rag-immune/intake-tokens/${var.trace_intake.tokens_key}" },
    var.otlp_endpoint == "" ? {} : { OTEL_EXPORTER_OTLP_ENDPOINT = var.otlp_endpoint },
    lookup(var.worker_config, "trace-intake", {}),
  )
  secret_name = local.secret_name
  secret_env = merge(
    { PROBE_MARK_KEY = lookup(var.secret_keys, "PROBE_MARK_KEY", "probe-mark-key") },
    var.trace_intake.tokens_key != "" ? {} : { TRACE_INTAKE_API_TOKEN = lookup(var.secret_keys, "TRACE_INTAKE_API_TOKEN", "trace-intake-api-token") },
  )
  secret_volumes = var.trace_intake.tokens_key == "" ? {} : {
    intake-tokens = { secret = local.secret_name, key = var.trace_intake.tokens_key, mount_path = "/etc/rag-immune/intake-tokens" }
  }
  resources         = local.resources.default
  pdb_min_available = 1
  network_policy = {
    enabled = var.network_policy.enabled
    # The scraper, and the RAG's exporters (the chart's default: any namespace).
    ingress_from = concat(
      [{ namespace_labels = { "kubernetes.io/metadata.name" = var.network_policy.prometheus_namespace }, pod_labels = var.network_policy.prometheus_pod_labels }],
      var.trace_intake.rag_peers,
    )
    egress_restrict = var.network_policy.egress_restrict
    allow_dns       = var.network_policy.allow_dns
    egress_to       = var.network_policy.egress_to
  }
}
