# tflint's bundled terraform ruleset (no plugin download: nothing but package registries is reachable).
config {
  call_module_type = "local"
}

plugin "terraform" {
  enabled = true
  preset  = "all"
}
