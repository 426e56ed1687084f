output "namespace" {
  description = "Namespace RAG Immune runs in."
  value       = local.namespace
}

output "worker_urls" {
  description = "In-cluster URL of each worker's HTTP API (/healthz, /metrics, its routes)."
  value = {
    sentinel   = module.sentinel.service_url
    identifier = module.identifier.service_url
    effector   = module.effector.service_url
    memory     = module.memory.service_url
    # null when trace_intake.enabled is false.
    trace-intake = one(module.trace_intake[*].service_url)
  }
}

output "bus_provision_job" {
  description = "The Job that created the topics and registered the schemas."
  value       = module.bus_topics.job_name
}

output "topic_layout" {
  description = "Partitions, replication and min.insync.replicas of the topics."
  value       = module.bus_topics.topic_layout
}

output "secret_name" {
  description = "The Secret the workers read their tokens and passwords from."
  value       = local.secret_name
}

output "worker_wiring" {
  description = "Each worker's environment, Secret key references, NetworkPolicy ingress peers and Secret files (no secret values): what tests/parity.tftest.hcl checks against the Helm charts."
  value = {
    sentinel     = module.sentinel.wiring
    identifier   = module.identifier.wiring
    effector     = module.effector.wiring
    memory       = module.memory.wiring
    trace-intake = one(module.trace_intake[*].wiring)
  }
}
