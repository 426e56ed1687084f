#!/usr/bin/env bash
# The main job for a newcomer (npm run demo): bring up the real local stack and show events flowing.
set -euo pipefail
cd "$(dirname "$0")/.."
npm run --silent stack -- up
exec npx tsx scripts/demo.ts
