# Parity with the Helm charts (issue 40 item 8), planned against a mocked Kubernetes provider (no
# cluster): NetworkPolicies, the ledger key, per-caller effector tokens and one Kafka principal per worker.
# Run: tofu init && tofu test (tools/ops/check.sh).

mock_provider "kubernetes" {}

variables {
  image               = "ghcr.io/rag-immune/rag-immune:test"
  kafka_brokers       = "kafka-0:9093"
  schema_registry_url = "https://registry:8081"
  kafka_sasl = {
    mechanism = "scram-sha-512"
    usernames = { sentinel = "ri-sentinel", identifier = "ri-identifier", effector = "ri-effector", memory = "ri-memory", provision = "ri-provision" }
  }
  elasticsearch_url          = "https://es:9200"
  qdrant_url                 = "http://qdrant:6333"
  online_rag_url             = "http://rag:8080"
  baseline_rag_url           = "http://rag-baseline:8080"
  effector_qdrant_collection = "chunks"
  golden_probes_jsonl        = "{}"
  existing_secret            = "rag-immune"
  effector_api_tokens_key    = "effector-api-tokens"
  effector_api_roles         = { oncall = ["read", "operate", "grant"], dashboard = ["read"] }
}

run "as_the_charts" {
  command = plan

  assert {
    condition     = alltrue([for who in ["sentinel", "identifier", "effector", "memory"] : output.worker_wiring[who].ingress_from != null])
    error_message = "every worker has a NetworkPolicy, as every chart renders one by default"
  }
  assert {
    condition     = length(output.worker_wiring.identifier.ingress_from) == 3 && length(output.worker_wiring.memory.ingress_from) == 3 && length(output.worker_wiring.sentinel.ingress_from) == 2 && length(output.worker_wiring.effector.ingress_from) == 2
    error_message = "ingress: the scraper and the operators everywhere, the effector's pods to the identifier and the memory only"
  }
  assert {
    condition     = output.worker_wiring.identifier.secret_env["IDENTIFIER_LEDGER_KEY"] == "identifier-ledger-key"
    error_message = "the identifier reads its ledger key from the Secret, as helm/identifier's secretEnv"
  }
  assert {
    condition     = output.worker_wiring.effector.env["EFFECTOR_API_TOKENS_FILE"] == "/etc/rag-immune/api-tokens/effector-api-tokens" && output.worker_wiring.effector.secret_volumes["api-tokens"] == "/etc/rag-immune/api-tokens"
    error_message = "the effector's per-caller tokens are a mounted Secret file, as helm/effector's apiTokensFile"
  }
  assert {
    condition     = output.worker_wiring.effector.env["EFFECTOR_API_ROLES"] == "dashboard=read,oncall=read+operate+grant"
    error_message = "each caller's roles"
  }
  assert {
    condition     = length(distinct([for who in ["sentinel", "identifier", "effector", "memory"] : output.worker_wiring[who].env["KAFKA_SASL_USERNAME"]])) == 4
    error_message = "each worker connects to Kafka as its own principal"
  }
  assert {
    condition     = output.worker_wiring.identifier.secret_env["KAFKA_SASL_PASSWORD"] == "kafka-sasl-password-identifier"
    error_message = "each principal's password in its own Secret key"
  }
}

run "a_shared_kafka_principal_is_refused" {
  command = plan
  variables {
    kafka_sasl = {
      mechanism = "scram-sha-512"
      usernames = { sentinel = "ri", identifier = "ri", effector = "ri", memory = "ri", provision = "ri" }
    }
  }
  expect_failures = [var.kafka_sasl]
}

run "retired_ledger_keys_need_cut_offs" {
  command = plan
  variables {
    secret_keys = {
      SENTINEL_API_TOKEN              = "sentinel-api-token"
      IDENTIFIER_API_TOKEN            = "identifier-api-token"
      EFFECTOR_API_TOKEN              = "effector-api-token"
      MEMORY_API_TOKEN                = "memory-api-token"
      IDENTIFIER_LEDGER_KEY           = "identifier-ledger-key"
      IDENTIFIER_LEDGER_PREVIOUS_KEYS = "identifier-ledger-previous-keys"
      BUS_SIGNING_KEY_SENTINEL        = "bus-signing-key-sentinel"
      BUS_SIGNING_KEY_IDENTIFIER      = "bus-signing-key-identifier"
      BUS_SIGNING_KEY_EFFECTOR        = "bus-signing-key-effector"
      BUS_VERIFY_KEYS                 = "bus-verify-keys"
    }
  }
  expect_failures = [terraform_data.settings]
}

run "network_policies_can_be_turned_off" {
  command = plan
  variables {
    network_policy = { enabled = false }
  }
  assert {
    condition     = output.worker_wiring.effector.ingress_from == null
    error_message = "enabled = false renders no NetworkPolicy"
  }
}

run "trace_intake_as_the_chart" {
  command = plan

  assert {
    condition     = output.worker_wiring["trace-intake"].env["TRACE_INTAKE_PORT"] == "4318" && output.worker_wiring["trace-intake"].env["TRACE_INTAKE_HOST"] == "0.0.0.0"
    error_message = "the intake listens on OTLP/HTTP's port 4318 (TRACE_INTAKE_PORT), as helm/trace-intake"
  }
  assert {
    condition     = output.worker_wiring["trace-intake"].env["TRACE_INTAKE_MAX_SPANS_PER_TRACE"] == "500" && output.worker_wiring["trace-intake"].env["TRACE_INTAKE_RATE_SPANS_PER_SECOND"] == "2000" && output.worker_wiring["trace-intake"].env["TRACE_INTAKE_PROBE_MARK_MAX_AGE_SECONDS"] == "3600"
    error_message = "the chart's caps: spans per trace, spans per second per token, probe mark age"
  }
  assert {
    condition     = output.worker_wiring["trace-intake"].secret_env["PROBE_MARK_KEY"] == "probe-mark-key" && output.worker_wiring["trace-intake"].secret_env["TRACE_INTAKE_API_TOKEN"] == "trace-intake-api-token"
    error_message = "the probe mark key and the intake token come from the Secret, as the chart's secretEnv"
  }
  assert {
    condition     = !contains(keys(output.worker_wiring["trace-intake"].env), "KAFKA_BROKERS")
    error_message = "the intake has no bus"
  }
  assert {
    condition     = length(output.worker_wiring["trace-intake"].ingress_from) == 2
    error_message = "ingress: the scraper and the RAG's exporters"
  }
  assert {
    condition     = output.worker_urls["trace-intake"] != null
    error_message = "the intake's URL is an output"
  }
}

run "trace_intake_per_rag_tokens" {
  command = plan
  variables {
    trace_intake = {
      tokens_key = "trace-intake-tokens"
      rag_peers  = [{ namespace_labels = { "kubernetes.io/metadata.name" = "search" } }]
    }
  }
  assert {
    condition     = output.worker_wiring["trace-intake"].env["TRACE_INTAKE_TOKENS_FILE"] == "/etc/rag-immune/intake-tokens/trace-intake-tokens" && output.worker_wiring["trace-intake"].secret_volumes["intake-tokens"] == "/etc/rag-immune/intake-tokens"
    error_message = "per-RAG tokens: a mounted Secret file"
  }
  assert {
    condition     = !contains(keys(output.worker_wiring["trace-intake"].secret_env), "TRACE_INTAKE_API_TOKEN")
    error_message = "with per-RAG tokens there is no shared token"
  }
  assert {
    condition     = output.worker_wiring["trace-intake"].ingress_from[1].namespace_labels["kubernetes.io/metadata.name"] == "search"
    error_message = "the RAG's namespace only"
  }
}

run "trace_intake_can_be_left_out" {
  command = plan
  variables {
    trace_intake = { enabled = false }
  }
  assert {
    condition     = output.worker_wiring["trace-intake"] == null && output.worker_urls["trace-intake"] == null
    error_message = "enabled = false deploys no intake"
  }
}

run "trace_intake_bad_user_traffic_is_refused" {
  command = plan
  variables {
    trace_intake = { user_traffic = "maybe" }
  }
  expect_failures = [var.trace_intake]
}
