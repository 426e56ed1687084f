#!/usr/bin/env bash
# The main job for a newcomer (npm run demo): the real local stack, the reference RAG pair and the
# four workers of the immune system; a fault is injected and the system heals it by itself.
# DEMO_FAULT=<kind>|all picks the fault (default vector-index-corruption); DEMO_RAG=langchain heals the
# LangChain RAG on Gemma 3 270M instead (default fault vectors-overwritten); DEMO_TRAFFIC=1 runs the
# traffic demo (scripts/traffic-demo.ts).
set -euo pipefail
cd "$(dirname "$0")/.."
npm run --silent stack -- up
# DEMO_RAG=langchain: the LangChain RAG's model is installed once (nothing downloads at run time).
if [ "${DEMO_RAG:-reference}" = "langchain" ]; then bash scripts/install-gemma.sh >/dev/null; fi
# DEMO_TRAFFIC=1: a fault on knowledge no golden probe covers, caught from simulated users' traffic (issue 38).
if [ "${DEMO_TRAFFIC:-0}" = "1" ]; then exec npx tsx scripts/traffic-demo.ts; fi
exec npx tsx scripts/healing-demo.ts
