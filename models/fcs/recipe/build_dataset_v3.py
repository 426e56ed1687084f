"""FCS v3 training set: real NLI and grounding data from public git repositories, plus the project's own
(SNLI dev, the synthetic Debian triples, the dev splits of shared/data/factcheck), decontaminated against
the held-out evaluation sets, with a manifest.

Two steps, one command each:

  python recipe/build_dataset_v3.py fetch    # copy the raw files from the local git mirrors (/work/.mirror,
                                             # made by the session's `fetch` tool) into the cache and check
                                             # them against data/v3-sources.sha256 (committed)
  python recipe/build_dataset_v3.py build    # normalise, de-duplicate, decontaminate; writes
                                             # $CACHE/v3/{train,dev}.jsonl and data/v3-manifest.json

CACHE = $RAG_IMMUNE_TOOLS_DIR/fcs-data (default ~/.cache/rag-immune-tools/fcs-data). The data itself is not
committed (tens of MB); the manifest and the sha256 list are.

Row format (the recipe's triple format): {id, set, source, split, question, evidence: [passage, ...], answer,
label (1 consistent / 0 not), kind}.

Decontamination (rule of /work/shared/data/factcheck/README.md): a text is lower-cased, every character
outside [a-z0-9] becomes a space, it is split on whitespace; every 8 consecutive tokens form a shingle,
h = sha1(shingle); the sampled shingles are those with int(h[:8], 16) % 8 == 0. A row is dropped when 10 %
or more of its evidence's sampled shingles are in heldout-shingles.txt (as h[:12]), or when
"a:" + sha1(normalised answer)[:12] is in it. Every source, the project's own included, goes through it.

Sources left out because of their licence (recorded in the manifest with the reason): ConTRoL
(CC BY-NC-SA 4.0), ANLI (CC BY-NC 4.0 upstream, and its rules forbid training on the test files, the only
ones in the mirror), COVID-Fact (no licence stated anywhere in the repository: all rights reserved).
"""
import argparse, collections, hashlib, json, os, re, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
FCS = os.path.dirname(HERE)
REPO_ROOT = os.path.dirname(os.path.dirname(FCS))
MIRRORS = os.environ.get("FCS_MIRRORS", "/work/.mirror")
CACHE = os.path.join(os.environ.get("RAG_IMMUNE_TOOLS_DIR", os.path.expanduser("~/.cache/rag-immune-tools")),
                     "fcs-data")
FACTCHECK = os.environ.get("FACTCHECK", "/work/shared/data/factcheck")
SHA_LIST = os.path.join(FCS, "data", "v3-sources.sha256")
MANIFEST = os.path.join(FCS, "data", "v3-manifest.json")
DEV_PERCENT = 3  # of each external source, by id hash: a small in-distribution dev set for training curves

# repo, commit, licence as stated, paths read.
SOURCES = {
    "salesforce/DocNLI": {
        "commit": "492992a4d3fbf4bb96a7a48c4c6c95ee11c3234a",
        "licence": "BSD-3-Clause (LICENSE.txt, Salesforce); the pairs derive from MultiNLI (OANC, mostly "
                   "permissive; fiction CC BY-SA 3.0) and FEVER (Wikipedia, CC BY-SA 3.0)",
        "paths": ["LICENSE.txt", "Data/binary-MNLI/dev.txt", "Data/binary-MNLI/test.txt",
                  "Data/binary-FEVER-NLI/dev.txt", "Data/binary-FEVER-NLI/test.txt"],
    },
    "derenlei/FactCG": {
        "commit": "41f185413312ed9b3904ec03963fe899693498e0",
        "licence": "MIT (LICENSE); CG2C claims are generated from MuSiQue (CC BY 4.0) / news text as released",
        "paths": ["LICENSE", "data/training_stage2/CG2C_doc.json",
                  "data/training_stage1/CG2C_musique_minhop3_rbt_mnli_failed.json"],
    },
    "tingofurro/summac": {
        # The benchmark files were removed from the tip; read from the last commit that has them.
        "commit": "10b9ae4320dbc9e0869447c2638a959069e5452a",
        "licence": "Apache-2.0 (LICENSE); redistributes FactCC (BSD-3-Clause), SummEval (MIT) and Polytope "
                   "annotations over CNN/DailyMail articles",
        "paths": ["LICENSE", "data/factcc.json", "data/polytope.json", "data/summeval.json"],
    },
}
EXCLUDED = [
    {"source": "control", "repo": "csitfun/ConTRoL-dataset", "commit": "d7acc335bef6c716f2830e1413d0d90c133ad6e9",
     "licence": "CC BY-NC-SA 4.0 (readme.md)", "reason": "non-commercial, share-alike: not usable for a "
     "model shipped with the project"},
    {"source": "anli", "repo": "eric11eca/curriculum-ling", "commit": "6ed5500fa71c881faa802b5a0fd5bd4f4968cfa7",
     "licence": "repository MIT, but the data is ANLI v1.0 (CC BY-NC 4.0 upstream, facebookresearch/anli)",
     "reason": "non-commercial; and data/anli_v1.0/README.txt rule 2: test data is for reporting, not "
     "training (the train files are absent from the mirror)"},
    {"source": "covidfact", "repo": "asaakyan/covidfact", "commit": "ceeb613cde5a6c19dea4f2c165654e510ff52b10",
     "licence": "none stated (no LICENSE file; README gives a citation only)",
     "reason": "no licence grant: all rights reserved"},
]


# ----------------------------------------------------------------------------- fetch
def mirror_dir(repo):
    return os.path.join(MIRRORS, repo.replace("/", "+"), "repo")


def cache_path(repo, commit, path):
    return os.path.join(CACHE, "raw", repo.replace("/", "+"), commit[:12], path)


def sha256_file(p):
    h = hashlib.sha256()
    with open(p, "rb") as fh:
        for b in iter(lambda: fh.read(1 << 20), b""):
            h.update(b)
    return h.hexdigest()


def fetch(write_list):
    rows = []
    for repo, s in SOURCES.items():
        for path in s["paths"]:
            dst = cache_path(repo, s["commit"], path)
            if not os.path.exists(dst):
                blob = subprocess.run(["git", "--git-dir", mirror_dir(repo), "show", f"{s['commit']}:{path}"],
                                      capture_output=True)
                if blob.returncode != 0:
                    sys.exit(f"fetch: {repo}@{s['commit'][:12]}:{path} not readable from {mirror_dir(repo)} "
                             f"({blob.stderr.decode().strip()}); run the session's fetch tool for {repo} first")
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                with open(dst + ".tmp", "wb") as fh:
                    fh.write(blob.stdout)
                os.replace(dst + ".tmp", dst)
            rows.append((sha256_file(dst), os.path.relpath(dst, os.path.join(CACHE, "raw"))))
    if write_list:
        with open(SHA_LIST, "w") as fh:
            fh.writelines(f"{h}  {p}\n" for h, p in rows)
        print(f"fetch: wrote {SHA_LIST} ({len(rows)} files)")
    else:
        want = dict((p, h) for h, p in (l.split("  ", 1) for l in open(SHA_LIST).read().splitlines()))
        bad = [p for h, p in rows if want.get(p) != h]
        if bad:
            sys.exit(f"fetch: sha256 mismatch for {bad}")
        print(f"fetch: {len(rows)} files verified against {SHA_LIST}")


# ----------------------------------------------------------------------------- decontamination
_NORM = re.compile(r"[^a-z0-9]+")


def tokens(text):
    return _NORM.sub(" ", text.lower()).split()


class Decontaminator:
    def __init__(self, path):
        self.shingles, self.answers = set(), set()
        for line in open(path):
            line = line.strip()
            if line.startswith("a:"):
                self.answers.add(line[2:])
            elif line:
                self.shingles.add(line)

    def reason(self, evidence_text, answer):
        """None if the row may be kept, else why it is dropped."""
        if hashlib.sha1(" ".join(tokens(answer)).encode()).hexdigest()[:12] in self.answers:
            return "answer_hash"
        t = tokens(evidence_text)
        sampled = hits = 0
        for i in range(len(t) - 7):
            h = hashlib.sha1(" ".join(t[i:i + 8]).encode()).hexdigest()
            if int(h[:8], 16) % 8 == 0:
                sampled += 1
                hits += h[:12] in self.shingles
        if sampled and hits / sampled >= 0.10:
            return "evidence_shingles"
        return None


# ----------------------------------------------------------------------------- readers
def raw(repo, path):
    return cache_path(repo, SOURCES[repo]["commit"], path)


def row(set_, repo, oid, evidence, answer, label, question="", kind=""):
    ev = [e for e in (evidence if isinstance(evidence, list) else [evidence]) if e and e.strip()]
    return {"id": oid, "set": set_, "source": repo, "question": question or "", "evidence": ev,
            "answer": (answer or "").strip(), "label": int(label), "kind": kind}


def read_docnli(name, sub):
    repo = "salesforce/DocNLI"
    for part in ("dev", "test"):
        for i, line in enumerate(open(raw(repo, f"Data/{sub}/{part}.txt"), encoding="utf-8")):
            f = line.rstrip("\n").split("\t")
            if len(f) != 3 or f[0] not in ("entailment", "not_entailment"):
                yield None, "malformed_line"
                continue
            yield row(name, repo, f"{name}-{part}-{i}", f[1], f[2], f[0] == "entailment", kind=f"docnli-{part}"), None


def read_factcg_doc():
    repo = "derenlei/FactCG"
    for i, line in enumerate(open(raw(repo, "data/training_stage2/CG2C_doc.json"), encoding="utf-8")):
        r = json.loads(line)
        yield row("factcg_doc", repo, f"factcg_doc-{i}", r["text_a"], " ".join(r["text_b"]), r["orig_label"],
                  kind="cg2c-doc"), None


def read_factcg_musique():
    """Stage-1 MuSiQue graphs: only the negatives carry their evidence (the positives have text_a empty)."""
    repo = "derenlei/FactCG"
    for i, line in enumerate(open(raw(repo, "data/training_stage1/CG2C_musique_minhop3_rbt_mnli_failed.json"),
                                  encoding="utf-8")):
        r = json.loads(line)
        if r["orig_label"] != 0:
            yield None, "positive_without_evidence" if not r["text_a"] else "positive_not_used"
            continue
        if not r["text_a"]:
            yield None, "empty_evidence"
            continue
        yield row("factcg_musique_neg", repo, f"factcg_musique_neg-{i}", r["text_a"], " ".join(r["text_b"]), 0,
                  kind="cg2c-musique"), None


def read_summac(name):
    """SummaC benchmark files: the `val` cut only where a cut is given (its `test` cut is a benchmark's test)."""
    repo = "tingofurro/summac"
    d = json.load(open(raw(repo, f"data/{name}.json"), encoding="utf-8"))
    for k, r in d.items():
        if r.get("cut", "val") != "val":
            yield None, f"cut_{r['cut']}"
            continue
        yield row(f"summac_{name}", repo, f"summac_{name}-{k}", r["document"], r["claim"], int(r["label"]),
                  kind=r.get("origin", "")), None


def read_factcheck_dev():
    """The dev splits of shared/data/factcheck the v2 recipe already fits on (wice_oracle left out: same claims
    as wice; snli comes in as `snli` below)."""
    for name in ("wice", "summedits", "begin", "expertqa"):
        for line in open(os.path.join(FACTCHECK, f"{name}.jsonl"), encoding="utf-8"):
            r = json.loads(line)
            if r["split"] != "dev":
                continue
            yield row(f"factcheck_{name}", "shared/data/factcheck", r["id"], r["evidence"].split("\n\n"),
                      r["answer"], r["label"], r["question"], kind="factcheck-dev"), None


def read_snli():
    for line in open(os.path.join(FACTCHECK, "snli.jsonl"), encoding="utf-8"):
        r = json.loads(line)
        if r["split"] != "dev":
            continue
        yield row("snli", "shared/data/factcheck (e-SNLI)", r["id"], r["evidence"], r["answer"], r["label"],
                  kind="snli-dev"), None


def read_synthetic():
    for i, line in enumerate(open(os.path.join(FCS, "data", "train.jsonl"), encoding="utf-8")):
        r = json.loads(line)
        yield row("synthetic", "models/fcs/data/train.jsonl", f"synthetic-{i}", r["evidence"], r["answer"],
                  r["label"], r.get("question", ""), kind=r.get("kind", "")), None


READERS = [
    ("docnli_mnli", "salesforce/DocNLI", lambda: read_docnli("docnli_mnli", "binary-MNLI")),
    ("docnli_fever", "salesforce/DocNLI", lambda: read_docnli("docnli_fever", "binary-FEVER-NLI")),
    ("factcg_doc", "derenlei/FactCG", read_factcg_doc),
    ("factcg_musique_neg", "derenlei/FactCG", read_factcg_musique),
    ("summac_factcc", "tingofurro/summac", lambda: read_summac("factcc")),
    ("summac_polytope", "tingofurro/summac", lambda: read_summac("polytope")),
    ("summac_summeval", "tingofurro/summac", lambda: read_summac("summeval")),
    ("factcheck_dev", None, read_factcheck_dev),
    ("snli", None, read_snli),
    ("synthetic", None, read_synthetic),
]
OWN_LICENCE = {
    "factcheck_dev": "per set, see /work/shared/data/factcheck/README.md (WiCE ODC-BY, SummEdits Apache-2.0, "
                     "BEGIN CC BY 4.0 / CDLA-Sharing-1.0, ExpertQA MIT)",
    "snli": "e-SNLI repository MIT (SNLI itself CC BY-SA 4.0)",
    "synthetic": "generated by recipe/build_dataset.py from Debian package metadata on this machine",
}


def git_head():
    return subprocess.run(["git", "-C", REPO_ROOT, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()


def build():
    for repo, s in SOURCES.items():
        for path in s["paths"]:
            if not os.path.exists(cache_path(repo, s["commit"], path)):
                sys.exit(f"build: {repo}:{path} missing from {CACHE}/raw; run `build_dataset_v3.py fetch` first")
    deco = Decontaminator(os.path.join(FACTCHECK, "heldout-shingles.txt"))
    out_dir = os.path.join(CACHE, "v3")
    os.makedirs(out_dir, exist_ok=True)
    seen = {}  # normalised (evidence, answer) -> (label, set)
    kept_rows, entries = [], []
    for name, repo, reader in READERS:
        st = {"read": 0, "dropped": collections.Counter(), "labels": collections.Counter()}
        rows = []
        for r, why in reader():
            st["read"] += 1
            if r is None:
                st["dropped"][why] += 1
                continue
            if not r["evidence"] or not r["answer"]:
                st["dropped"]["empty_evidence_or_answer"] += 1
                continue
            ev_text = "\n".join(r["evidence"])
            why = deco.reason(ev_text, r["answer"])
            if why:
                st["dropped"]["decontamination_" + why] += 1
                continue
            key = hashlib.sha1((" ".join(tokens(ev_text)) + "\t" + " ".join(tokens(r["answer"]))).encode()).hexdigest()
            if key in seen:
                st["dropped"]["duplicate" if seen[key][0] == r["label"] else "duplicate_conflicting_label"] += 1
                continue
            seen[key] = (r["label"], name)
            own = name in OWN_LICENCE
            r["split"] = "train" if own or int(key[:8], 16) % 100 >= DEV_PERCENT else "dev"
            rows.append(r)
            st["labels"][f"{r['split']}/{r['label']}"] += 1
        kept_rows += rows
        s = SOURCES.get(repo, {})
        words = sorted(len(" ".join(r["evidence"]).split()) for r in rows) or [0]
        entries.append({
            "source": name, "repo": repo or (rows[0]["source"] if rows else ""),
            "commit": s.get("commit") or git_head(), "licence": s.get("licence") or OWN_LICENCE[name],
            "rows_read": st["read"], "rows_kept": len(rows), "rows_dropped": sum(st["dropped"].values()),
            "dropped_by_reason": dict(sorted(st["dropped"].items())),
            "decontamination_dropped": sum(v for k, v in st["dropped"].items() if k.startswith("decontamination")),
            "kept_by_split_label": dict(sorted(st["labels"].items())),
            "evidence_words_median": words[len(words) // 2],
        })
        print(f"{name:22s} read {st['read']:6d} kept {len(rows):6d} dropped {dict(st['dropped'])}", flush=True)
    digests = {}
    for split in ("train", "dev"):
        p = os.path.join(out_dir, f"{split}.jsonl")
        with open(p, "w", encoding="utf-8") as fh:
            for r in kept_rows:
                if r["split"] == split:
                    fh.write(json.dumps(r, ensure_ascii=False) + "\n")
        digests[split] = {"path": os.path.relpath(p, CACHE), "sha256": sha256_file(p),
                          "rows": sum(1 for r in kept_rows if r["split"] == split)}
    manifest = {
        "built_by": "python models/fcs/recipe/build_dataset_v3.py fetch && python models/fcs/recipe/build_dataset_v3.py build",
        "decontamination": "shared/data/factcheck/heldout-shingles.txt, rule of shared/data/factcheck/README.md "
                           "(>= 10 % of sampled evidence 8-shingles listed, or the normalised answer's a: hash)",
        "dev_split": f"{DEV_PERCENT} % of each external source by hash of the normalised (evidence, answer)",
        "outputs": digests,
        "totals": {"rows_kept": len(kept_rows),
                   "decontamination_dropped": sum(e["decontamination_dropped"] for e in entries)},
        "sources": entries,
        "excluded_sources": EXCLUDED,
    }
    with open(MANIFEST, "w") as fh:
        json.dump(manifest, fh, indent=1)
        fh.write("\n")
    print(f"build: {len(kept_rows)} rows -> {out_dir}; manifest {MANIFEST}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("step", choices=["fetch", "build"])
    ap.add_argument("--write-sha-list", action="store_true",
                    help="fetch: (re)write data/v3-sources.sha256 instead of checking against it")
    a = ap.parse_args()
    fetch(a.write_sha_list) if a.step == "fetch" else build()


if __name__ == "__main__":
    main()
