variable "namespace" {
  description = "Namespace the provisioning Job runs in (must exist)."
  type        = string
}

variable "image" {
  description = "Container image holding the RAG Immune repository."
  type        = string
}

variable "bus_env" {
  description = "Non-secret bus settings: KAFKA_BROKERS, SCHEMA_REGISTRY_URL, BUS_TOPIC_PREFIX, KAFKA_SSL, KAFKA_SASL_MECHANISM, ..."
  type        = map(string)
  validation {
    condition     = contains(keys(var.bus_env), "KAFKA_BROKERS") && contains(keys(var.bus_env), "SCHEMA_REGISTRY_URL")
    error_message = "bus_env needs KAFKA_BROKERS and SCHEMA_REGISTRY_URL."
  }
}

variable "secret_name" {
  description = "Secret holding the secret_env keys."
  type        = string
  default     = ""
}

variable "secret_env" {
  description = "Environment variable name -> key in secret_name (KAFKA_SASL_PASSWORD, SCHEMA_REGISTRY_PASSWORD)."
  type        = map(string)
  default     = {}
}

variable "topics" {
  description = "Partitions per topic; replication 3 and min.insync.replicas 2 come from BUS_PROFILE=production."
  type = object({
    probes_partitions      = number
    reports_partitions     = number
    actions_partitions     = number
    dead_letter_partitions = number
  })
  default = {
    probes_partitions      = 16
    reports_partitions     = 6
    actions_partitions     = 6
    dead_letter_partitions = 3
  }
  validation {
    condition     = alltrue([for n in values(var.topics) : n >= 1 && n <= 1000 && floor(n) == n])
    error_message = "Partition counts are whole numbers from 1 to 1000."
  }
}

variable "replication_factor" {
  description = "Replication factor of every topic (production needs at least 3)."
  type        = number
  default     = 3
  validation {
    condition     = var.replication_factor >= 3
    error_message = "The production profile needs replication 3 or more."
  }
}

variable "min_insync_replicas" {
  description = "min.insync.replicas of every topic (production needs at least 2)."
  type        = number
  default     = 2
  validation {
    condition     = var.min_insync_replicas >= 2
    error_message = "The production profile needs min.insync.replicas 2 or more."
  }
}

variable "timeout" {
  description = "How long tofu apply waits for the Job to finish."
  type        = string
  default     = "10m"
}
