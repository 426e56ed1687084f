#!/usr/bin/env bash
# Builds the operations tools CI checks the Helm charts, OpenTofu modules, dashboards and alerts with
# (helm, kubeconform + offline Kubernetes schemas, tofu, tflint, the kubernetes provider mirror, the
# Grafana dashboard validator) into a cache directory OUTSIDE the repo, so a second CI run on the same
# machine reuses them. Every tool is pinned; a tool is rebuilt only when its pin changes.
# Nothing here can be downloaded as a binary on this kind of machine (only package registries are
# reachable), so the Go tools are built from the Go module proxy and the schemas come from PyPI.
#
#   bash tools/ops/install-tools.sh          # prints the environment to source: eval "$(... --env)"
#   RAG_IMMUNE_TOOLS_DIR=/somewhere bash tools/ops/install-tools.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD

TOOLS=${RAG_IMMUNE_TOOLS_DIR:-$HOME/.cache/rag-immune-tools}
HELM_VERSION=v3.22.0
KUBECONFORM_VERSION=v0.8.0
TFLINT_VERSION=v0.64.0
# OpenTofu is pinned in tools/ops/tofu/go.mod (go get -tool), which repeats its hcl replace directive.
TOFU_VERSION=$(awk '$1 == "github.com/opentofu/opentofu" { print $2 }' tools/ops/tofu/go.mod)
# The provider has no Go-module-compatible release tags (v2+ lacks /v2), so a main-branch pseudo-version.
K8S_PROVIDER_MODULE=v1.13.4-0.20260821094251-3a33fb6cc605
# The version the mirror serves it as (that commit is main after the 3.2.1 release); terraform/ requires ~> 3.0.
K8S_PROVIDER_VERSION=3.2.1
KUBERNETES_VALIDATE_VERSION=1.37.0
KUBERNETES_SCHEMA_VERSION=${KUBERNETES_SCHEMA_VERSION:-1.32.0}

if [ "${1:-}" = "--env" ]; then
  echo "export PATH=\"$TOOLS/bin:\$PATH\""
  echo "export RAG_IMMUNE_TOOLS_DIR=\"$TOOLS\""
  echo "export KUBECONFORM_SCHEMAS=\"$TOOLS/schemas/v$KUBERNETES_SCHEMA_VERSION\""
  echo "export TF_CLI_CONFIG_FILE=\"$TOOLS/tofu.tfrc\""
  exit 0
fi

mkdir -p "$TOOLS/bin" "$TOOLS/stamps"
export GOPATH="$TOOLS/go" GOMODCACHE="$TOOLS/go/pkg/mod" GOCACHE="$TOOLS/go-build" GOBIN="$TOOLS/bin"
# Lowest priority, and by default one package at a time so a shared machine stays usable;
# OPS_TOOLS_JOBS=$(nproc) (what .ci/run sets on a CI machine of its own) builds in parallel.
export GOFLAGS="-p=${OPS_TOOLS_JOBS:-1} -buildvcs=false -trimpath" GOTOOLCHAIN=local CGO_ENABLED=0
exec 9>"$TOOLS/.lock"
flock 9

timed() { # name stamp command...: runs the command unless the stamp exists, and says how long it took
  local name=$1 stamp=$2
  shift 2
  if [ -e "$TOOLS/stamps/$stamp" ]; then
    echo "ops-tools: $name cached ($stamp)"
    return
  fi
  echo "ops-tools: building $name ($stamp)"
  # Wall time depends on what else runs; user+sys CPU seconds say what it costs on any machine.
  local TIMEFORMAT="ops-tools: $name built in %0R s wall, %0U s user + %0S s sys CPU"
  if declare -F "$1" >/dev/null; then
    time "$1" # a function of this script (nice runs only programs); pip and file copies, not CPU bound
  else
    time nice -n 19 "$@"
  fi
  touch "$TOOLS/stamps/$stamp"
}

total0=$SECONDS
timed helm "helm-$HELM_VERSION" \
  go install -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION" "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"
timed kubeconform "kubeconform-$KUBECONFORM_VERSION" \
  go install -ldflags "-s -w" "github.com/yannh/kubeconform/cmd/kubeconform@$KUBECONFORM_VERSION"
timed tflint "tflint-$TFLINT_VERSION" \
  go install -ldflags "-s -w" "github.com/terraform-linters/tflint@$TFLINT_VERSION"
# -mod=readonly: go.sum is committed, so CI builds exactly what was checked in.
# version.dev=no: a release build (no "-dev" suffix), as OpenTofu's own release builds set it.
timed tofu "tofu-$TOFU_VERSION-release" \
  bash -c "cd '$repo/tools/ops/tofu' && go build -mod=readonly -ldflags '-s -w -X github.com/opentofu/opentofu/version.dev=no' -o '$TOOLS/bin/tofu' github.com/opentofu/opentofu/cmd/tofu"

mirror="$TOOLS/providers/registry.opentofu.org/hashicorp/kubernetes/$K8S_PROVIDER_VERSION/linux_amd64"
# go install (not build) because only install accepts module@version; it names the binary after the module.
timed terraform-provider-kubernetes "kubernetes-provider-$K8S_PROVIDER_MODULE-$K8S_PROVIDER_VERSION" \
  bash -c "mkdir -p '$mirror' && GOBIN='$mirror' go install -ldflags '-s -w' github.com/hashicorp/terraform-provider-kubernetes@$K8S_PROVIDER_MODULE \
    && mv '$mirror/terraform-provider-kubernetes' '$mirror/terraform-provider-kubernetes_v$K8S_PROVIDER_VERSION'"
# Providers come only from the mirror (no registry is reachable); tofu init writes a lock file we do not commit.
cat >"$TOOLS/tofu.tfrc" <<TFRC
provider_installation {
  filesystem_mirror {
    path    = "$TOOLS/providers"
    include = ["registry.opentofu.org/hashicorp/kubernetes"]
  }
}
plugin_cache_dir = "$TOOLS/plugin-cache"
TFRC
mkdir -p "$TOOLS/plugin-cache"

# Offline Kubernetes JSON schemas from PyPI kubernetes-validate. Their $id is an absolute
# https://kubernetes.io/... URL and $ref points at /api/_definitions.json, which kubeconform would fetch
# over the network; rewriting both to the file next door makes them resolve on disk.
schema_build() {
  rm -rf "$TOOLS/venv" "$TOOLS/schemas/v$KUBERNETES_SCHEMA_VERSION"
  python3 -m venv "$TOOLS/venv"
  "$TOOLS/venv/bin/pip" install -q --disable-pip-version-check "kubernetes-validate==$KUBERNETES_VALIDATE_VERSION"
  local src
  src=$("$TOOLS/venv/bin/python" -c 'import kubernetes_validate, os; print(os.path.dirname(kubernetes_validate.__file__))')
  "$TOOLS/venv/bin/python" "$repo/tools/ops/rewrite-schemas.py" \
    "$src/kubernetes-json-schema/v$KUBERNETES_SCHEMA_VERSION-local-strict" "$TOOLS/schemas/v$KUBERNETES_SCHEMA_VERSION"
}
timed kubernetes-schemas "schemas-$KUBERNETES_VALIDATE_VERSION-v$KUBERNETES_SCHEMA_VERSION" schema_build

# Our own dashboard generator/validator (Grafana foundation SDK); cheap, so rebuilt when its source changes.
grafana_hash=$(cat grafana/go/go.mod grafana/go/go.sum grafana/go/*.go | sha256sum | cut -c1-16)
timed grafana-dashboards "grafana-dashboards-$grafana_hash" \
  bash -c "cd '$repo/grafana/go' && go build -mod=readonly -o '$TOOLS/bin/rag-immune-dashboards' ."

echo "ops-tools: ready in $TOOLS ($((SECONDS - total0)) s)"
