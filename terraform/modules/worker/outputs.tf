output "service_url" {
  description = "In-cluster URL of the worker's HTTP API (/healthz, /metrics and its routes)."
  value       = "http://${kubernetes_service_v1.this.metadata[0].name}.${var.namespace}.svc:${local.port}"
}

output "deployment_name" {
  description = "Name of the worker's Deployment."
  value       = kubernetes_deployment_v1.this.metadata[0].name
}

output "port" {
  description = "The worker's HTTP port."
  value       = local.port
}
