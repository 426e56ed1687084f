#!/usr/bin/env bash
# The newcomer's path of docs/rag-products.md, timed as tried from a clean checkout (issue 42, Measured):
# from "I run product X" to the loop watching it. Each step is what the doc tells a newcomer to run; the
# timings and the last lines of each step go to bench/rag-products/NEWCOMER-<product>.md in THIS checkout.
#
#   bash bench/rag-products/newcomer.sh langserve [--fresh-tools]     (the stack must be down: it starts its own)
#
# 1. git clone of this repository's HEAD into a new folder (beside a copy of ../shared, as CI runs)
# 2. npm ci                                  6. the loop: run.ts --product <p> --clean-results 10 --faults ''
# 3. npm run stack -- up                        (the product's two instances, the adapter file, the workers)
# 4. bash scripts/install-gemma.sh           7. npm run stack -- down
# 5. the product's install script
# --fresh-tools: steps 4-6 with an empty RAG_IMMUNE_TOOLS_DIR (the model assembled, the product's venv made again;
# pip's and npm's download caches stay the machine's); the stack's servers come from the machine's tools cache either way (what CI's
# fresh machine downloads is timed by CI itself).
set -euo pipefail
PRODUCT=${1:?usage: newcomer.sh <flowise|langserve> [--fresh-tools]}
FRESH=${2:-}
HERE=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d /tmp/newcomer.XXXXXX)
OUT="$HERE/bench/rag-products/NEWCOMER-$PRODUCT.md"
LOG="$WORK/steps.log"
TOOLS_ENV=()
if [[ $FRESH == --fresh-tools ]]; then
  mkdir -p "$WORK/tools"
  TOOLS_ENV=(env RAG_IMMUNE_TOOLS_DIR="$WORK/tools")
fi
case $PRODUCT in
  langserve) INSTALL=(bash tools/rag-products/install-langserve.sh) ;;
  flowise) INSTALL=(bash tools/rag-products/install-flowise.sh) ;;
  *) echo "unknown product $PRODUCT (flowise | langserve)" >&2; exit 2 ;;
esac
START=$(date +%s)
ROWS=()
step() { # step <name> <command...>: runs it in the clone, times it, keeps its last lines
  local name=$1; shift
  local t0; t0=$(date +%s)
  echo "[$(date -u +%T)] $name: $*" | tee -a "$LOG"
  if ! (cd "$WORK/repo" 2>/dev/null || cd "$WORK"; "$@") >"$WORK/$name.out" 2>&1; then
    ROWS+=("| $name | \`$*\` | $(($(date +%s) - t0)) | FAILED |")
    write; tail -20 "$WORK/$name.out" >&2; exit 1
  fi
  ROWS+=("| $name | \`$*\` | $(($(date +%s) - t0)) | ok |")
}
write() {
  {
    echo "# The newcomer's path on $PRODUCT, timed from a clean checkout"
    echo
    echo "Written by the run ($(date -u +%FT%TZ)). Machine: $(nproc) × $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(free -g | awk '/Mem:/{print $2}') GiB, load average at the end $(cut -d' ' -f1-3 /proc/loadavg)."
    echo
    echo "Command: \`bash bench/rag-products/newcomer.sh $PRODUCT $FRESH\` at $(git -C "$HERE" rev-parse --short HEAD). Tools: $([[ -n $FRESH ]] && echo 'an empty RAG_IMMUNE_TOOLS_DIR for the model, the product and the loop (made again; the download caches of pip and npm as the machine has them)' || echo "the machine's tools cache (installed before: the scripts only check them)"); the stack's servers from the machine's tools cache."
    echo
    echo "| step | command | seconds | |"
    echo "| --- | --- | --- | --- |"
    printf '%s\n' "${ROWS[@]}"
    echo
    echo "From the clone to the loop watching $PRODUCT (the workers up, the sentinel probing it through the adapter file): **${WATCHING:-not reached} s**; to its first five clean probe results: ${FIVE_CLEAN:-not reached} s; the whole list: $(($(date +%s) - START)) s."
    if [[ -f $WORK/loop.out ]]; then
      echo
      echo "The loop's own lines (run.ts):"
      echo
      echo '```'
      grep -E '^\[[0-9:]{8}\]' "$WORK/loop.out" | cut -c1-220 | head -40
      echo '```'
    fi
  } >"$OUT"
}
trap 'cd "$WORK/repo" 2>/dev/null && npm run stack -- down >/dev/null 2>&1 || true' EXIT
[[ -d $HERE/../shared ]] && cp -r "$HERE/../shared" "$WORK/shared"
step clone git clone -q "$HERE" "$WORK/repo"
step npm-ci npm ci --no-audit --no-fund
step stack-up npm run stack -- up
step install-gemma "${TOOLS_ENV[@]}" bash scripts/install-gemma.sh
step install-product "${TOOLS_ENV[@]}" "${INSTALL[@]}"
LOOP_T0=$(date +%s)
step loop "${TOOLS_ENV[@]}" npx tsx bench/rag-products/run.ts --product "$PRODUCT" --probes 4 --interval 20 --clean-results 10 --faults ''
# "workers up" is the loop watching the product (the sentinel probing it through the adapter); run.ts
# prints its first "clean: 5 results" line after five clean probe results.
since_start() { # since_start <regex>: seconds from the clone to the first run.ts line matching it
  local at; at=$(grep -m1 -E "$1" "$WORK/loop.out" | cut -c2-9 || true)
  if [[ -n $at ]]; then echo $(($(date -u -d "$(date -u +%F) $at" +%s) - START)); fi
}
WATCHING=$(since_start '^\[[0-9:]{8}\] workers up:')
FIVE_CLEAN=$(since_start '^\[[0-9:]{8}\] clean: [1-9]')
step stack-down npm run stack -- down
write
echo "results in $OUT"
