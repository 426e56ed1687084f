# One RAG Immune worker: ConfigMap (env), ServiceAccount, Deployment, Service, PodDisruptionBudget, NetworkPolicy.
# Mirrors helm/rag-immune-common: probes on /healthz, non-root read-only container, scrape annotations.

locals {
  ports = {
    sentinel   = 9464
    identifier = 9465
    effector   = 9466
    memory     = 9467
    # OTLP/HTTP's registered port: exporters default to it.
    trace-intake = 4318
  }
  port   = local.ports[var.name]
  prefix = upper(replace(var.name, "-", "_"))
  selector = {
    "app.kubernetes.io/name"     = var.name
    "app.kubernetes.io/instance" = "rag-immune"
  }
  labels = merge(var.labels, local.selector, {
    "app.kubernetes.io/part-of"    = "rag-immune"
    "app.kubernetes.io/component"  = var.name
    "app.kubernetes.io/managed-by" = "opentofu"
  })
  env = merge(var.env, {
    "${local.prefix}_HOST" = "0.0.0.0"
    "${local.prefix}_PORT" = tostring(local.port)
  })
}

resource "kubernetes_config_map_v1" "env" {
  metadata {
    name      = "rag-immune-${var.name}"
    namespace = var.namespace
    labels    = local.labels
  }
  data = local.env
}

resource "kubernetes_service_account_v1" "this" {
  metadata {
    name      = "rag-immune-${var.name}"
    namespace = var.namespace
    labels    = local.labels
  }
  automount_service_account_token = false
}

resource "kubernetes_deployment_v1" "this" {
  metadata {
    name      = "rag-immune-${var.name}"
    namespace = var.namespace
    labels    = local.labels
  }
  spec {
    replicas = var.replicas
    selector {
      match_labels = local.selector
    }
    template {
      metadata {
        labels = local.labels
        annotations = {
          "checksum/config"      = sha256(jsonencode(local.env))
          "prometheus.io/scrape" = "true"
          "prometheus.io/port"   = tostring(local.port)
          "prometheus.io/path"   = "/metrics"
        }
      }
      spec {
        service_account_name            = kubernetes_service_account_v1.this.metadata[0].name
        automount_service_account_token = false
        security_context {
          run_as_non_root = true
          run_as_user     = 10001
          run_as_group    = 10001
          fs_group        = 10001
          seccomp_profile {
            type = "RuntimeDefault"
          }
        }
        container {
          name              = var.name
          image             = var.image
          image_pull_policy = var.image_pull_policy
          command           = ["node", "--import", "tsx", "services/${var.name}/src/main.ts"]
          port {
            name           = "http"
            container_port = local.port
          }
          env_from {
            config_map_ref {
              name = kubernetes_config_map_v1.env.metadata[0].name
            }
          }
          dynamic "env" {
            for_each = var.pod_name_env == "" ? [] : [var.pod_name_env]
            content {
              name = env.value
              value_from {
                field_ref {
                  field_path = "metadata.name"
                }
              }
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
          startup_probe {
            http_get {
              path = "/healthz"
              port = "http"
            }
            period_seconds    = 5
            failure_threshold = 60
            timeout_seconds   = 3
          }
          liveness_probe {
            http_get {
              path = "/healthz"
              port = "http"
            }
            period_seconds    = 15
            failure_threshold = 4
            timeout_seconds   = 3
          }
          readiness_probe {
            http_get {
              path = "/healthz"
              port = "http"
            }
            period_seconds    = 10
            failure_threshold = 3
            timeout_seconds   = 3
          }
          resources {
            requests = var.resources.requests
            limits   = var.resources.limits
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
          dynamic "volume_mount" {
            for_each = var.config_volumes
            content {
              name       = volume_mount.key
              mount_path = volume_mount.value.mount_path
              read_only  = true
            }
          }
          dynamic "volume_mount" {
            for_each = var.secret_volumes
            content {
              name       = volume_mount.key
              mount_path = volume_mount.value.mount_path
              read_only  = true
            }
          }
        }
        volume {
          name = "tmp"
          empty_dir {
            size_limit = "256Mi"
          }
        }
        dynamic "volume" {
          for_each = var.config_volumes
          content {
            name = volume.key
            config_map {
              name = volume.value.config_map
            }
          }
        }
        dynamic "volume" {
          for_each = var.secret_volumes
          content {
            name = volume.key
            secret {
              secret_name  = volume.value.secret
              default_mode = "0440"
              items {
                key  = volume.value.key
                path = volume.value.key
              }
            }
          }
        }
      }
    }
  }
}

resource "kubernetes_service_v1" "this" {
  metadata {
    name      = "rag-immune-${var.name}"
    namespace = var.namespace
    labels    = local.labels
  }
  spec {
    selector = local.selector
    port {
      name        = "http"
      port        = local.port
      target_port = "http"
    }
  }
}

resource "kubernetes_pod_disruption_budget_v1" "this" {
  metadata {
    name      = "rag-immune-${var.name}"
    namespace = var.namespace
    labels    = local.labels
  }
  spec {
    min_available   = var.pdb_min_available == null ? null : tostring(var.pdb_min_available)
    max_unavailable = var.pdb_min_available == null ? "1" : null
    selector {
      match_labels = local.selector
    }
  }
}

# As helm/rag-immune-common's networkpolicy: ingress only on the HTTP port from the listed peers (kubelet
# probes are not subject to it); egress open unless restricted (the bus and stores are often outside the cluster).
resource "kubernetes_network_policy_v1" "this" {
  count = var.network_policy.enabled ? 1 : 0
  metadata {
    name      = "rag-immune-${var.name}"
    namespace = var.namespace
    labels    = local.labels
  }
  spec {
    pod_selector {
      match_labels = local.selector
    }
    policy_types = var.network_policy.egress_restrict ? ["Ingress", "Egress"] : ["Ingress"]
    dynamic "ingress" {
      for_each = length(var.network_policy.ingress_from) > 0 ? [1] : []
      content {
        ports {
          port     = tostring(local.port)
          protocol = "TCP"
        }
        dynamic "from" {
          for_each = var.network_policy.ingress_from
          content {
            dynamic "namespace_selector" {
              for_each = from.value.namespace_labels == null ? [] : [from.value.namespace_labels]
              content {
                match_labels = namespace_selector.value
              }
            }
            dynamic "pod_selector" {
              for_each = from.value.pod_labels == null ? [] : [from.value.pod_labels]
              content {
                match_labels = pod_selector.value
              }
            }
          }
        }
      }
    }
    dynamic "egress" {
      for_each = var.network_policy.egress_restrict && var.network_policy.allow_dns ? [1] : []
      content {
        to {
          namespace_selector {
            match_labels = { "kubernetes.io/metadata.name" = "kube-system" }
          }
        }
        ports {
          port     = "53"
          protocol = "UDP"
        }
        ports {
          port     = "53"
          protocol = "TCP"
        }
      }
    }
    dynamic "egress" {
      for_each = var.network_policy.egress_restrict ? var.network_policy.egress_to : []
      content {
        to {
          ip_block {
            cidr = egress.value.cidr
          }
        }
        dynamic "ports" {
          for_each = egress.value.ports
          content {
            port     = tostring(ports.value)
            protocol = "TCP"
          }
        }
      }
    }
  }
}
