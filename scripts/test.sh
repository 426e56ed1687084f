#!/usr/bin/env bash
# The one test command (npm test): lint and unit tests, then the real local stack is brought up
# (installed on first use) and the integration tests run against it.
set -euo pipefail
cd "$(dirname "$0")/.."
npm run --silent lint
bash scripts/run-tests.sh unit
# Helm, OpenTofu, Grafana dashboards, alert rules: each checked by its own tool (tools/ops/check.sh).
npm run --silent ops:check
npm run --silent stack -- up
bash scripts/run-tests.sh integration
