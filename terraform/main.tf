# RAG Immune on an existing Kubernetes cluster: namespace, secret, the bus topics (a Job running the
# project's topic admin) and the four workers. Kafka, the schema registry, Elasticsearch and Qdrant
# are the platform's; this module only points the workers at them.

locals {
  namespace   = var.create_namespace ? kubernetes_namespace_v1.this[0].metadata[0].name : var.namespace
  secret_name = var.existing_secret != null ? var.existing_secret : kubernetes_secret_v1.this[0].metadata[0].name

  bus_env = merge(
    {
      KAFKA_BROKERS       = var.kafka_brokers
      SCHEMA_REGISTRY_URL = var.schema_registry_url
      BUS_PROFILE         = "production"
      BUS_TOPIC_PREFIX    = var.topic_prefix
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
  shared_env = merge(local.bus_env, {
    ELASTICSEARCH_URL = var.elasticsearch_url
    QDRANT_URL        = var.qdrant_url
    ES_INDEX_PREFIX   = var.index_prefix
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
    effector = {
      EFFECTOR_ONLINE_RAG_URL    = var.online_rag_url
      EFFECTOR_BASELINE_RAG_URL  = var.baseline_rag_url
      EFFECTOR_QDRANT_COLLECTION = var.effector_qdrant_collection
      EFFECTOR_MEMORY_URL        = module.memory.service_url
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
  bus_env     = local.bus_env
  secret_name = local.secret_name
  secret_env  = local.bus_secret_env
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
  env         = merge(local.shared_env, local.worker_env.sentinel, lookup(var.worker_config, "sentinel", {}))
  secret_name = local.secret_name
  secret_env  = merge(local.bus_secret_env, { SENTINEL_API_TOKEN = var.secret_keys["SENTINEL_API_TOKEN"] })
  resources   = local.resources.sentinel
  config_volumes = {
    probes = { config_map = kubernetes_config_map_v1.golden_probes.metadata[0].name, mount_path = "/etc/rag-immune/probes" }
  }
  depends_on = [module.bus_topics]
}

module "identifier" {
  source            = "./modules/worker"
  name              = "identifier"
  namespace         = local.namespace
  image             = var.image
  replicas          = var.replicas.identifier
  env               = merge(local.shared_env, local.worker_env.identifier, lookup(var.worker_config, "identifier", {}))
  secret_name       = local.secret_name
  secret_env        = merge(local.bus_secret_env, { IDENTIFIER_API_TOKEN = var.secret_keys["IDENTIFIER_API_TOKEN"] })
  resources         = local.resources.default
  pdb_min_available = 1
  depends_on        = [module.bus_topics]
}

module "memory" {
  source            = "./modules/worker"
  name              = "memory"
  namespace         = local.namespace
  image             = var.image
  replicas          = var.replicas.memory
  env               = merge(local.shared_env, local.worker_env.memory, lookup(var.worker_config, "memory", {}))
  secret_name       = local.secret_name
  secret_env        = merge(local.bus_secret_env, { MEMORY_API_TOKEN = var.secret_keys["MEMORY_API_TOKEN"] })
  resources         = local.resources.default
  pdb_min_available = 1
  depends_on        = [module.bus_topics]
}

module "effector" {
  source      = "./modules/worker"
  name        = "effector"
  namespace   = local.namespace
  image       = var.image
  replicas    = var.replicas.effector
  env         = merge(local.shared_env, local.worker_env.effector, lookup(var.worker_config, "effector", {}))
  secret_name = local.secret_name
  secret_env = merge(local.bus_secret_env, {
    EFFECTOR_API_TOKEN    = var.secret_keys["EFFECTOR_API_TOKEN"]
    EFFECTOR_MEMORY_TOKEN = var.secret_keys["MEMORY_API_TOKEN"]
  })
  resources         = local.resources.default
  pdb_min_available = 1
  pod_name_env      = "EFFECTOR_INSTANCE_ID"
  depends_on        = [module.bus_topics]
}
