output "job_name" {
  description = "The provisioning Job (kubectl logs job/<name> shows each topic's layout and schema id)."
  value       = kubernetes_job_v1.provision.metadata[0].name
}

output "topic_layout" {
  description = "Partitions, replication and min.insync.replicas the Job enforces."
  value = {
    partitions          = var.topics
    replication_factor  = var.replication_factor
    min_insync_replicas = var.min_insync_replicas
  }
}
