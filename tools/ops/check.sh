#!/usr/bin/env bash
# npm run ops:check — proves the operations artefacts with the tools their users run:
#   Helm:      helm lint --strict; helm template | kubeconform -strict (offline Kubernetes schemas);
#              a NetworkPolicy by default, HTTPS probes with tls.secretName;
#              the values schema refuses literal secrets and a missing broker list.
#   OpenTofu:  tofu fmt -check; tofu init (kubernetes provider from the local mirror) + tofu validate
#              of the root module and the example; tflint on the root module and its modules.
#   Grafana:   the committed dashboards are exactly what grafana/go generates, and pass the
#              foundation SDK's strict unmarshal and Validate.
#   Alerts:    promtool check rules + promtool test rules; amtool check-config and route tests on
#              the Alertmanager example.
# The tools are built (or taken from the cache) by tools/ops/install-tools.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD

bash tools/ops/install-tools.sh
eval "$(bash tools/ops/install-tools.sh --env)"
KUBE_VERSION=${KUBERNETES_SCHEMA_VERSION:-1.32.0}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
step() { printf '\n== ops:check: %s\n' "$*"; }

kubeconform_strict() {
  kubeconform -strict -summary -output text -schema-location "$KUBECONFORM_SCHEMAS/{{ .ResourceKind }}{{ .KindSuffix }}.json" "$@"
}

# A command that must fail, and must say why: expect_failure <pattern> <command...>
expect_failure() {
  local pattern=$1
  shift
  if "$@" >"$work/out" 2>&1; then
    echo "ops:check: expected a failure matching '$pattern' from: $*" >&2
    return 1
  fi
  grep -q -- "$pattern" "$work/out" || {
    echo "ops:check: '$*' failed without '$pattern':" >&2
    cat "$work/out" >&2
    return 1
  }
  echo "refused as expected ($pattern)"
}

step "helm: lint, template, kubeconform -strict (Kubernetes $KUBE_VERSION schemas)"
for chart in sentinel identifier effector memory trace-intake; do
  helm dependency build "helm/$chart" >/dev/null
  helm lint --strict --kube-version "$KUBE_VERSION" -f "helm/$chart/ci/values.yaml" "helm/$chart"
  helm template "rag-immune-$chart" "helm/$chart" -n rag-immune --kube-version "$KUBE_VERSION" -f "helm/$chart/ci/values.yaml" >"$work/$chart.yaml"
  kubeconform_strict "$work/$chart.yaml"
  # The effector is a StatefulSet (stable pod names are its replicas' identities); the others Deployments.
  workload=Deployment
  [ "$chart" = effector ] && workload=StatefulSet
  # NetworkPolicy: on by default (ci/values.yaml leaves networkPolicy alone), ingress on the HTTP port only.
  for kind in $workload Service PodDisruptionBudget ConfigMap ServiceAccount NetworkPolicy; do
    grep -q "^kind: $kind$" "$work/$chart.yaml" || { echo "ops:check: $chart renders no $kind" >&2; exit 1; }
  done
  # networkPolicy.enabled=false renders none; tls.secretName switches the probes to HTTPS (and still validates).
  if helm template x "helm/$chart" --kube-version "$KUBE_VERSION" -f "helm/$chart/ci/values.yaml" --set networkPolicy.enabled=false |
    grep -q '^kind: NetworkPolicy$'; then
    echo "ops:check: $chart renders a NetworkPolicy with networkPolicy.enabled=false" >&2
    exit 1
  fi
  helm template x "helm/$chart" --kube-version "$KUBE_VERSION" -f "helm/$chart/ci/values.yaml" \
    --set tls.secretName=http-tls,networkPolicy.egress.restrict=true >"$work/$chart-tls.yaml"
  kubeconform_strict "$work/$chart-tls.yaml"
  [ "$(grep -c 'scheme: HTTPS' "$work/$chart-tls.yaml")" = 3 ] || { echo "ops:check: $chart: tls.secretName gives no HTTPS probes" >&2; exit 1; }
  grep -q 'HTTP_TLS_KEY_FILE: "/etc/rag-immune/http-tls/tls.key"' "$work/$chart-tls.yaml" ||
    { echo "ops:check: $chart: tls.secretName sets no HTTP_TLS_KEY_FILE" >&2; exit 1; }
done
helm lint --strict --kube-version "$KUBE_VERSION" helm/rag-immune-observability 2>&1 | grep -v 'found symbolic link'
# Helm warns on stderr that it follows the chart's links to grafana/dashboards and prometheus/rules.
helm template rag-immune-observability helm/rag-immune-observability -n monitoring --kube-version "$KUBE_VERSION" \
  2> >(grep -v 'found symbolic link' >&2) >"$work/observability.yaml"
kubeconform_strict "$work/observability.yaml"
dashboards=$(ls grafana/dashboards/*.json | wc -l)
configmaps=$(grep -c '^  rag-immune-.*\.json: |-$' "$work/observability.yaml")
[ "$dashboards" = "$configmaps" ] || { echo "ops:check: $dashboards dashboards but $configmaps dashboard ConfigMaps" >&2; exit 1; }

step "helm: the values schema and templates refuse what must never be rendered"
expect_failure "KAFKA_SASL_PASSWORD" \
  helm template x helm/identifier -f helm/identifier/ci/values.yaml --set config.KAFKA_SASL_PASSWORD=hunter2 --kube-version "$KUBE_VERSION"
expect_failure "bus.brokers is required" helm template x helm/memory --set existingSecret=s --kube-version "$KUBE_VERSION"
expect_failure "existingSecret is required" \
  helm template x helm/memory --set bus.brokers=k:9092,bus.schemaRegistryUrl=http://r --kube-version "$KUBE_VERSION"
expect_failure "readOnlyRootFilesystem" \
  helm template x helm/sentinel -f helm/sentinel/ci/values.yaml --set securityContext.readOnlyRootFilesystem=false --kube-version "$KUBE_VERSION"
expect_failure "stores.elasticsearchUrl is required" helm template x helm/trace-intake --set existingSecret=s --kube-version "$KUBE_VERSION"
expect_failure "schema" \
  helm template x helm/trace-intake -f helm/trace-intake/ci/values.yaml --set bus.brokers=k:9092 --kube-version "$KUBE_VERSION"

step "opentofu: fmt, init from the provider mirror, validate; tflint"
tofu version
tofu fmt -check -recursive -diff terraform
for dir in terraform terraform/examples/basic; do
  # The lock file and .terraform are per machine (providers come from the local mirror): not committed.
  (cd "$dir" && TF_DATA_DIR="$work/tfdata-${dir//\//-}" tofu init -backend=false -input=false -no-color >"$work/init.log" 2>&1 ||
    { cat "$work/init.log" >&2; exit 1; })
  (cd "$dir" && TF_DATA_DIR="$work/tfdata-${dir//\//-}" tofu validate -no-color)
done
# Parity with the Helm charts, planned against a mocked Kubernetes provider (terraform/tests/).
(cd terraform && TF_DATA_DIR="$work/tfdata-terraform" tofu test -no-color)
tflint --version
(cd terraform && tflint --recursive --config "$repo/terraform/.tflint.hcl" --format compact)

step "grafana: generated dashboards are committed as generated, and valid"
rag-immune-dashboards check grafana/dashboards
rag-immune-dashboards validate grafana/dashboards/*.json

step "prometheus: rules and their unit tests"
promtool check rules prometheus/rules/*.yml
promtool test rules prometheus/tests/*.test.yml

step "alertmanager: example config and routing"
amtool check-config prometheus/alertmanager/alertmanager.example.yml
route() { amtool config routes test --config.file=prometheus/alertmanager/alertmanager.example.yml "$@"; }
[ "$(route alertname=RagImmuneRepairBreakerOpen severity=critical component=vector_index)" = rag-oncall ]
[ "$(route alertname=RagImmuneRollbacks severity=warning trigger=verification)" = rag-team ]
echo "critical alerts page rag-oncall, warnings go to rag-team"

printf '\nops:check: all checks passed\n'
