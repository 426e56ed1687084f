#!/usr/bin/env bash
# Unpacks a Qdrant server archive (qdrant-<version>-linux-x86_64.gz, e.g. ../shared/bin's, built from
# upstream sources) into ~/.cache/rag-immune-tools/qdrant-<version>/qdrant, where the stack finds it,
# after checking the archive and the binary against the SHA256SUMS file beside the archive.
# Prints the binary's path (for QDRANT_BINARY). Idempotent: a verified binary is kept.
set -euo pipefail
archive=${1:?usage: install-qdrant.sh <qdrant-VERSION-linux-x86_64.gz>}
[ -f "$archive" ] || { echo "install-qdrant: $archive not found" >&2; exit 1; }
name=$(basename "$archive")
version=$(sed -nE 's/^qdrant-([0-9]+\.[0-9]+\.[0-9]+)-linux-x86_64\.gz$/\1/p' <<<"$name")
[ -n "$version" ] || { echo "install-qdrant: cannot read a version from $name" >&2; exit 1; }
sums="$(dirname "$archive")/SHA256SUMS"
[ -f "$sums" ] || { echo "install-qdrant: no SHA256SUMS beside $archive: refusing an unverified binary" >&2; exit 1; }
want_archive=$(awk -v f="$name" '$2 == f { print $1 }' "$sums")
want_binary=$(awk '$2 == "qdrant" { print $1 }' "$sums")
[ -n "$want_archive" ] && [ -n "$want_binary" ] || { echo "install-qdrant: $sums lists no checksum for $name or the unpacked qdrant" >&2; exit 1; }
dest="${HOME}/.cache/rag-immune-tools/qdrant-${version}"
bin="$dest/qdrant"
if [ -x "$bin" ] && [ "$(sha256sum "$bin" | cut -d' ' -f1)" = "$want_binary" ]; then
  echo "$bin"
  exit 0
fi
got=$(sha256sum "$archive" | cut -d' ' -f1)
[ "$got" = "$want_archive" ] || { echo "install-qdrant: $archive has sha256 $got, SHA256SUMS says $want_archive" >&2; exit 1; }
mkdir -p "$dest"
gunzip -c "$archive" >"$bin.tmp"
got=$(sha256sum "$bin.tmp" | cut -d' ' -f1)
[ "$got" = "$want_binary" ] || { rm -f "$bin.tmp"; echo "install-qdrant: unpacked binary has sha256 $got, SHA256SUMS says $want_binary" >&2; exit 1; }
chmod 755 "$bin.tmp"
mv "$bin.tmp" "$bin"
echo "install-qdrant: Qdrant $version verified and unpacked to $bin" >&2
echo "$bin"
