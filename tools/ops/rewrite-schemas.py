"""Copies PyPI kubernetes-validate's strict JSON schemas so kubeconform resolves them on disk.

Each schema's $id is an absolute https://kubernetes.io/... URL and its $ref values point at
/api/_definitions.json relative to that URL, so kubeconform would try the network. Dropping $id and
making the refs relative to the file ("_definitions.json#/...") keeps every schema offline.

usage: python3 rewrite-schemas.py <kubernetes-validate schema dir> <output dir>
"""

import json
import os
import sys


def rewrite(node):
    if isinstance(node, dict):
        node.pop("$id", None)
        out = {}
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                path, _, fragment = value.partition("#")
                if path:
                    value = os.path.basename(path) + ("#" + fragment if fragment else "")
            out[key] = rewrite(value)
        return out
    if isinstance(node, list):
        return [rewrite(item) for item in node]
    return node


def main(src, dst):
    os.makedirs(dst, exist_ok=True)
    count = 0
    for name in sorted(os.listdir(src)):
        if not name.endswith(".json"):
            continue
        with open(os.path.join(src, name), encoding="utf-8") as f:
            schema = json.load(f)
        with open(os.path.join(dst, name), "w", encoding="utf-8") as f:
            json.dump(rewrite(schema), f)
        count += 1
    if count == 0:
        sys.exit(f"no schemas in {src}")
    print(f"rewrite-schemas: {count} schemas written to {dst}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
