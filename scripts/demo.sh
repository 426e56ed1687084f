#!/usr/bin/env bash
# The main job for a newcomer (npm run demo): the real local stack, the reference RAG pair and the
# four workers of the immune system; a fault is injected and the system heals it by itself.
# DEMO_FAULT=<kind>|all picks the fault (default vector-index-corruption).
set -euo pipefail
cd "$(dirname "$0")/.."
npm run --silent stack -- up
exec npx tsx scripts/healing-demo.ts
