# RAG Immune next to a RAG on an existing cluster. The Secret "rag-immune" is created beforehand
# (kubectl create secret generic rag-immune --from-literal=sentinel-api-token=... , see ../../README.md),
# so no secret value passes through this configuration or its state.

terraform {
  required_version = ">= 1.6.0"
  required_providers {
    kubernetes = {
      source  = "hashicorp/kubernetes"
      version = "~> 3.0"
    }
  }
}

provider "kubernetes" {
  config_path    = pathexpand(var.kubeconfig)
  config_context = var.kube_context
}

module "rag_immune" {
  source = "../.."

  image               = "ghcr.io/rag-immune/rag-immune:0.1.0"
  namespace           = "rag-immune"
  kafka_brokers       = "kafka-0.kafka.svc:9093,kafka-1.kafka.svc:9093,kafka-2.kafka.svc:9093"
  schema_registry_url = "https://schema-registry.kafka.svc:8081"
  kafka_tls           = { enabled = true }
  # One Kafka principal per worker (the ACLs of ../../kafka-acls.sh); passwords in Secret keys kafka-sasl-password-<worker>.
  kafka_sasl = {
    mechanism = "scram-sha-512"
    usernames = {
      sentinel   = "rag-immune-sentinel"
      identifier = "rag-immune-identifier"
      effector   = "rag-immune-effector"
      memory     = "rag-immune-memory"
      provision  = "rag-immune-provision"
    }
  }
  elasticsearch_url = "https://elasticsearch.search.svc:9200"
  qdrant_url        = "http://qdrant.vectors.svc:6333"
  otlp_endpoint     = "http://otel-collector.observability.svc:4318"

  online_rag_url             = "http://rag.search.svc:8080"
  baseline_rag_url           = "http://rag-baseline.search.svc:8080"
  effector_qdrant_collection = "rag-chunks"
  golden_probes_jsonl        = file("${path.module}/golden-probes.jsonl")

  existing_secret = "rag-immune"
  secret_keys = {
    SENTINEL_API_TOKEN         = "sentinel-api-token"
    IDENTIFIER_API_TOKEN       = "identifier-api-token"
    EFFECTOR_API_TOKEN         = "effector-api-token"
    MEMORY_API_TOKEN           = "memory-api-token"
    IDENTIFIER_LEDGER_KEY      = "identifier-ledger-key"
    BUS_SIGNING_KEY_SENTINEL   = "bus-signing-key-sentinel"
    BUS_SIGNING_KEY_IDENTIFIER = "bus-signing-key-identifier"
    BUS_SIGNING_KEY_EFFECTOR   = "bus-signing-key-effector"
    BUS_VERIFY_KEYS            = "bus-verify-keys"
  }

  # Per-caller tokens for the effector's API (name:token lines) and each caller's roles.
  effector_api_tokens_key = "effector-api-tokens"
  effector_api_roles      = { oncall = ["read", "operate", "grant"], dashboard = ["read"] }
  worker_config = {
    effector = { EFFECTOR_MODE = "approve" }
  }
}
