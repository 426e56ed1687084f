variable "kubeconfig" {
  description = "Path to the kubeconfig of the target cluster."
  type        = string
  default     = "~/.kube/config"
}

variable "kube_context" {
  description = "kubeconfig context to use."
  type        = string
  default     = null
}
