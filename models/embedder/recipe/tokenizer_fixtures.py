"""Pair-tokenisation fixtures for the TypeScript WordPieceTokenizer, produced by HF `tokenizers` (Rust)
from the committed tokenizer.json with longest_first / only_first / only_second truncation.

  cd models/embedder && .venv/bin/python recipe/tokenizer_fixtures.py
  -> packages/embeddings/test/fixtures/pair-tokenization.json
"""
import itertools, json, os
import tokenizers
from tokenizers import Tokenizer

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "..", "packages", "embeddings", "test", "fixtures", "pair-tokenization.json")
words = lambda n: " ".join(["cat"] * n)

pairs = [(words(a), words(b)) for a, b in itertools.product([0, 1, 3, 4, 5, 6, 7, 9, 12], [0, 1, 3, 4, 5, 6, 7, 9, 12])]
pairs += [
    ("Which version of xz-utils fixed CVE-2022-1271?",
     "xz-utils (5.2.5-2.1) was uploaded to unstable with medium urgency by Salvatore Bonaccorso on 10 April 2022. "
     "Changes: xzgrep: Fix escaping of malicious filenames (ZDI-CAN-16587) (CVE-2022-1271) (Closes: #1009167)."),
    ("The refund window is 30 days.", "Customers may request a refund within thirty days of purchase; after that, credit only."),
]
cases = []
for max_length in (8, 11, 12, 13, 64):
    for strategy in ("longest_first", "only_first", "only_second"):
        t = Tokenizer.from_file(os.path.join(HERE, "..", "tokenizer.json"))
        t.no_padding()
        t.enable_truncation(max_length=max_length, strategy=strategy)
        for a, b in pairs:
            try:
                e = t.encode(a, b)
                cases.append({"first": a, "second": b, "maxLength": max_length, "truncation": strategy, "inputIds": e.ids, "tokenTypeIds": e.type_ids})
            except Exception as err:  # only_* that cannot fit
                cases.append({"first": a, "second": b, "maxLength": max_length, "truncation": strategy, "error": str(err)})
with open(OUT, "w") as fh:
    json.dump({"produced_by": f"models/embedder/recipe/tokenizer_fixtures.py, tokenizers {tokenizers.__version__}", "cases": cases}, fh)
    fh.write("\n")
print(len(cases), "cases,", sum("error" in c for c in cases), "errors ->", os.path.abspath(OUT))
