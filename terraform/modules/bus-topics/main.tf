# Declares the three event topics and the dead-letter topic (partitions, replication, min ISR) and
# registers their Avro schemas, by running the project's own topic admin (packages/bus ensureTopics
# through tools/ops/provision-bus.ts) as a Kubernetes Job. A Job spec cannot change, so its name
# carries a hash of the settings: a changed setting runs a new Job. ensureTopics creates missing
# topics and grows partitions; it never shrinks or deletes.

locals {
  env = merge(var.bus_env, {
    BUS_PROFILE                 = "production"
    BUS_PROBES_PARTITIONS       = tostring(var.topics.probes_partitions)
    BUS_REPORTS_PARTITIONS      = tostring(var.topics.reports_partitions)
    BUS_ACTIONS_PARTITIONS      = tostring(var.topics.actions_partitions)
    BUS_DEAD_LETTER_PARTITIONS  = tostring(var.topics.dead_letter_partitions)
    BUS_PROBES_REPLICATION      = tostring(var.replication_factor)
    BUS_REPORTS_REPLICATION     = tostring(var.replication_factor)
    BUS_ACTIONS_REPLICATION     = tostring(var.replication_factor)
    BUS_DEAD_LETTER_REPLICATION = tostring(var.replication_factor)
    BUS_PROBES_MIN_ISR          = tostring(var.min_insync_replicas)
    BUS_REPORTS_MIN_ISR         = tostring(var.min_insync_replicas)
    BUS_ACTIONS_MIN_ISR         = tostring(var.min_insync_replicas)
    BUS_DEAD_LETTER_MIN_ISR     = tostring(var.min_insync_replicas)
  })
  settings_hash = substr(sha256(jsonencode([local.env, var.image, var.secret_env])), 0, 10)
}

resource "kubernetes_job_v1" "provision" {
  metadata {
    name      = "rag-immune-bus-provision-${local.settings_hash}"
    namespace = var.namespace
    labels = {
      "app.kubernetes.io/name"       = "rag-immune-bus-provision"
      "app.kubernetes.io/part-of"    = "rag-immune"
      "app.kubernetes.io/managed-by" = "opentofu"
    }
  }
  spec {
    backoff_limit              = 4
    ttl_seconds_after_finished = 86400
    template {
      metadata {
        labels = {
          "app.kubernetes.io/name"    = "rag-immune-bus-provision"
          "app.kubernetes.io/part-of" = "rag-immune"
        }
      }
      spec {
        restart_policy                  = "Never"
        automount_service_account_token = false
        security_context {
          run_as_non_root = true
          run_as_user     = 10001
          run_as_group    = 10001
          seccomp_profile {
            type = "RuntimeDefault"
          }
        }
        container {
          name    = "provision"
          image   = var.image
          command = ["node", "--import", "tsx", "tools/ops/provision-bus.ts"]
          dynamic "env" {
            for_each = local.env
            content {
              name  = env.key
              value = env.value
            }
          }
          dynamic "env" {
            for_each = var.secret_env
            content {
              name = env.key
              value_from {
                secret_key_ref {
                  name = var.secret_name
                  key  = env.value
                }
              }
            }
          }
          resources {
            requests = { cpu = "100m", memory = "256Mi" }
            limits   = { cpu = "500m", memory = "512Mi" }
          }
          security_context {
            allow_privilege_escalation = false
            read_only_root_filesystem  = true
            run_as_non_root            = true
            capabilities {
              drop = ["ALL"]
            }
          }
          volume_mount {
            name       = "tmp"
            mount_path = "/tmp"
          }
        }
        volume {
          name = "tmp"
          empty_dir {
            size_limit = "64Mi"
          }
        }
      }
    }
  }
  wait_for_completion = true
  timeouts {
    create = var.timeout
    update = var.timeout
  }
}
