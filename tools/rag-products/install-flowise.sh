#!/usr/bin/env bash
# Installs Flowise, a RAG product nobody here wrote, from the npm registry into the tools cache, for the
# rag-products trial (bench/rag-products). Pinned: flowise 2.2.8 (3.x needs Node 24; the project runs Node 20).
# --ignore-scripts because faiss-node's install script downloads a prebuilt binary from GitHub, which this
# machine cannot reach (Flowise starts without faiss; the trial's flow uses Qdrant). sqlite3 (Flowise's own
# database) is then rebuilt from source against the system Node headers. Idempotent: a finished install
# (stamp file) is kept. Prints the path of the flowise binary.
set -euo pipefail
VERSION=2.2.8
tools="${RAG_IMMUNE_TOOLS_DIR:-${HOME}/.cache/rag-immune-tools}"
dest="$tools/flowise-${VERSION}"
bin="$dest/node_modules/.bin/flowise"
stamp="$dest/.installed"
if [ -f "$stamp" ] && [ -x "$bin" ]; then
  echo "$bin"
  exit 0
fi
mkdir -p "$dest"
cd "$dest"
[ -f package.json ] || echo '{"name":"rag-immune-flowise","private":true}' >package.json
nice -n 10 npm install --no-audit --no-fund --ignore-scripts --loglevel=error "flowise@${VERSION}" >&2
# Flowise keeps its chatflows and credentials in SQLite: sqlite3's native module must exist.
npm_config_nodedir="${NODE_DIR:-/usr}" nice -n 10 npm rebuild sqlite3 >&2
node -e "require('$dest/node_modules/sqlite3')" || { echo "install-flowise: sqlite3 did not build" >&2; exit 1; }
touch "$stamp"
echo "install-flowise: flowise ${VERSION} installed in $dest" >&2
echo "$bin"
