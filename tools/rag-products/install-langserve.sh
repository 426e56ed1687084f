#!/usr/bin/env bash
# Installs a LangServe route's framework, the second kind of RAG nobody here wrote (issue 42 item 5):
# PyPI langserve with its server extras, LangChain's OpenAI and Qdrant integrations, uvicorn, pinned, in a
# venv under the tools cache (pure-Python wheels: no compiler). The route talks to the same
# OpenAI-compatible endpoints as Flowise (bench/rag-products/llm-server.ts, embeddings-server.ts).
# Idempotent. Prints the venv's python.
set -euo pipefail
tools="${RAG_IMMUNE_TOOLS_DIR:-${HOME}/.cache/rag-immune-tools}"
venv="$tools/langserve-0.3.3"
stamp="$venv/.installed"
if [ -f "$stamp" ] && [ -x "$venv/bin/python" ]; then
  echo "$venv/bin/python"
  exit 0
fi
python=${PYTHON:-python3}
[ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
nice -n 10 "$venv/bin/python" -m pip install --disable-pip-version-check --quiet \
  "langserve[server]==0.3.3" "langchain-openai==1.8.1" "langchain-qdrant==1.1.0" "uvicorn==0.55.0" >&2
"$venv/bin/python" -c 'import langserve, langchain_openai, langchain_qdrant, uvicorn' ||
  { echo "install-langserve: the packages do not import" >&2; exit 1; }
touch "$stamp"
echo "install-langserve: langserve 0.3.3 installed in $venv" >&2
echo "$venv/bin/python"
