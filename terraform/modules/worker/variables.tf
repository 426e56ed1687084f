variable "name" {
  description = "The worker: sentinel, identifier, effector, memory or trace-intake."
  type        = string
  validation {
    condition     = contains(["sentinel", "identifier", "effector", "memory", "trace-intake"], var.name)
    error_message = "name must be sentinel, identifier, effector, memory or trace-intake."
  }
}

variable "namespace" {
  description = "Namespace the worker is deployed to (must exist)."
  type        = string
}

variable "image" {
  description = "Container image holding the RAG Immune repository (one image for every worker)."
  type        = string
}

variable "image_pull_policy" {
  description = "Kubernetes imagePullPolicy."
  type        = string
  default     = "IfNotPresent"
}

variable "replicas" {
  description = "Replicas; the sentinel runs one scheduler and should stay at 1."
  type        = number
  default     = 1
}

variable "env" {
  description = "Non-secret environment (shared bus/store settings and the worker's own <WORKER>_* settings)."
  type        = map(string)
  default     = {}
  validation {
    condition     = alltrue([for k in keys(var.env) : !can(regex("(PASSWORD|TOKEN|SECRET|API_KEY)$", k))])
    error_message = "Secret-looking variables belong in secret_env (a reference to a Secret key), not env."
  }
}

variable "secret_name" {
  description = "Secret (in namespace) the secret_env keys are read from."
  type        = string
  default     = ""
}

variable "secret_env" {
  description = "Environment variable name -> key in secret_name."
  type        = map(string)
  default     = {}
}

variable "resources" {
  description = "Container resource requests and limits."
  type = object({
    requests = map(string)
    limits   = map(string)
  })
  default = {
    requests = { cpu = "200m", memory = "512Mi" }
    limits   = { cpu = "1", memory = "1Gi" }
  }
}

variable "config_volumes" {
  description = "ConfigMaps mounted read-only into the container: name -> { config_map, mount_path }."
  type = map(object({
    config_map = string
    mount_path = string
  }))
  default = {}
}

variable "pdb_min_available" {
  description = "PodDisruptionBudget minAvailable; null renders maxUnavailable 1 instead (single-replica workers)."
  type        = number
  default     = null
}

variable "labels" {
  description = "Extra labels on every object."
  type        = map(string)
  default     = {}
}

variable "pod_name_env" {
  description = "An environment variable set to the pod's name (the effector's EFFECTOR_INSTANCE_ID); empty: none."
  type        = string
  default     = ""
}

variable "network_policy" {
  description = <<-EOT
    NetworkPolicy of the worker's pods, as helm/rag-immune-common renders it: ingress only on the HTTP port, only
    from ingress_from (each peer: namespace_labels and/or pod_labels; an empty list admits no one). Egress stays
    open unless egress_restrict: then only DNS to kube-system (allow_dns) and egress_to (CIDR blocks and ports).
  EOT
  type = object({
    enabled = optional(bool, true)
    ingress_from = optional(list(object({
      namespace_labels = optional(map(string))
      pod_labels       = optional(map(string))
    })), [])
    egress_restrict = optional(bool, false)
    allow_dns       = optional(bool, true)
    egress_to = optional(list(object({
      cidr  = string
      ports = list(number)
    })), [])
  })
  default = {}
  validation {
    condition     = alltrue([for peer in var.network_policy.ingress_from : peer.namespace_labels != null || peer.pod_labels != null])
    error_message = "each network_policy.ingress_from peer needs namespace_labels, pod_labels or both."
  }
}

variable "secret_volumes" {
  description = "Secret keys mounted read-only as files (e.g. the effector's per-caller API tokens): name -> { secret, key, mount_path }."
  type = map(object({
    secret     = string
    key        = string
    mount_path = string
  }))
  default = {}
}
