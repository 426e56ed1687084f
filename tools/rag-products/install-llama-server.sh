#!/usr/bin/env bash
# Installs an OpenAI-compatible LLM server for RAG products (Flowise's ChatOpenAI, LangServe's ChatOpenAI):
# llama-cpp-python's server from PyPI, pinned, in a venv under the tools cache. It compiles llama.cpp from
# source (no wheel for this platform on PyPI; about 10+ minutes on a loaded 2-core machine), so it runs
# niced. The model is the project's Gemma 3 270M (scripts/install-gemma.sh). Idempotent. Prints the venv's
# python.
set -euo pipefail
VERSION=0.3.36
tools="${RAG_IMMUNE_TOOLS_DIR:-${HOME}/.cache/rag-immune-tools}"
venv="$tools/llama-server-${VERSION}"
stamp="$venv/.installed"
if [ -f "$stamp" ] && [ -x "$venv/bin/python" ]; then
  echo "$venv/bin/python"
  exit 0
fi
python=${PYTHON:-python3}
[ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
# CPU only, tuned for the machine it runs on (GGML_NATIVE default); the build runs at low priority.
CMAKE_ARGS="${CMAKE_ARGS:--DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF}" \
  CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}" \
  nice -n 10 "$venv/bin/python" -m pip install --disable-pip-version-check "llama-cpp-python[server]==${VERSION}" >&2
"$venv/bin/python" -c 'import llama_cpp.server' || { echo "install-llama-server: llama_cpp.server does not import" >&2; exit 1; }
touch "$stamp"
echo "install-llama-server: llama-cpp-python ${VERSION} installed in $venv" >&2
echo "$venv/bin/python"
