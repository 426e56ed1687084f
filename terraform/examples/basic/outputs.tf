output "worker_urls" {
  description = "In-cluster URLs of the workers."
  value       = module.rag_immune.worker_urls
}
