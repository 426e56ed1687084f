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

output "wiring" {
  description = "What the worker is given (names only, no secret values): its environment, the Secret keys behind its secret variables, its NetworkPolicy's ingress peers (null: none rendered) and its mounted Secret files."
  value = {
    env            = local.env
    secret_env     = var.secret_env
    ingress_from   = var.network_policy.enabled ? var.network_policy.ingress_from : null
    secret_volumes = { for name, v in var.secret_volumes : name => v.mount_path }
  }
}
