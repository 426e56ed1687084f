#!/usr/bin/env bash
# Installs a LangServe route's framework, the second kind of RAG nobody here wrote (issue 42 item 5):
# PyPI langserve with its server extras, LangChain's OpenAI and Qdrant integrations, uvicorn, pinned, in a
# venv under the tools cache (pure-Python wheels: no compiler). The route talks to the same
# OpenAI-compatible endpoints as Flowise (bench/rag-products/llm-server.ts, embeddings-server.ts).
# With its traces: LangChain's OpenInference instrumentation, OpenTelemetry's SDK with the OTLP/HTTP exporter
# and the FastAPI instrumentation (continues the caller's traceparent/tracestate), which
# bench/rag-products/langserve/app.py turns on when OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set.
# Idempotent (the stamp names what was installed: an older venv without the tracing packages is topped up).
# Prints the venv's python.
set -euo pipefail
tools="${RAG_IMMUNE_TOOLS_DIR:-${HOME}/.cache/rag-immune-tools}"
venv="$tools/langserve-0.3.3"
stamp="$venv/.installed-tracing"
if [ -f "$stamp" ] && [ -x "$venv/bin/python" ]; then
  echo "$venv/bin/python"
  exit 0
fi
python=${PYTHON:-python3}
[ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
nice -n 10 "$venv/bin/python" -m pip install --disable-pip-version-check --quiet \
  "langserve[server]==0.3.3" "langchain-openai==1.8.1" "langchain-qdrant==1.1.0" "uvicorn==0.55.0" \
  "openinference-instrumentation-langchain==0.1.80" "opentelemetry-sdk==1.45.2" \
  "opentelemetry-exporter-otlp-proto-http==1.45.2" "opentelemetry-instrumentation-fastapi==0.66b2" >&2
"$venv/bin/python" -c 'import langserve, langchain_openai, langchain_qdrant, uvicorn
import openinference.instrumentation.langchain, opentelemetry.sdk.trace
import opentelemetry.exporter.otlp.proto.http.trace_exporter, opentelemetry.instrumentation.fastapi' ||
  { echo "install-langserve: the packages do not import" >&2; exit 1; }
touch "$stamp"
echo "install-langserve: langserve 0.3.3 installed in $venv" >&2
echo "$venv/bin/python"
