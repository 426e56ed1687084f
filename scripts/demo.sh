#!/usr/bin/env bash
# The main job for a newcomer (npm run demo): the real local stack, the reference RAG and the
# sentinel catching a production fault that infrastructure monitoring cannot see.
set -euo pipefail
cd "$(dirname "$0")/.."
npm run --silent stack -- up
npx tsx scripts/demo.ts
exec npx tsx scripts/healing-demo.ts
