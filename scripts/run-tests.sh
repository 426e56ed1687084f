#!/usr/bin/env bash
# Runs one tier of the test suite with node's built-in test runner.
#   unit:        fast, no servers; test/unit folders of every workspace.
#   integration: against the real local stack (npm run stack -- up must have run).
set -euo pipefail
cd "$(dirname "$0")/.."
tier=${1:?usage: run-tests.sh unit|integration}
mapfile -t files < <(find apps packages services tools test -path '*/node_modules' -prune -o -path "*test/${tier}/*" -name '*.test.ts' -print 2>/dev/null | sort)
if [ ${#files[@]} -eq 0 ]; then
  echo "no ${tier} tests found" >&2
  exit 1
fi
# Integration tests share one stack: run files one at a time so they don't fight over topics.
concurrency=1
[ "$tier" = unit ] && concurrency=2
# --test-force-exit: a file whose tests are done exits even if a client library keeps a socket or timer
# open (kafkajs after a broker restart); --test-timeout stops a test that hangs outright (15 min: a
# file runs as one test, and the LangChain loop on Gemma with the pooled sampled test takes ~10 min).
exec node --import tsx --test --test-force-exit --test-timeout=900000 --test-concurrency="$concurrency" --test-reporter=spec "${files[@]}"
