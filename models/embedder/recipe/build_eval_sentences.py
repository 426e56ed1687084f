"""Build the evaluation corpus for the ONNX-vs-PyTorch agreement check: real, human-written English
from this machine, frozen into eval-sentences.jsonl so the check is reproducible elsewhere.

  python recipe/build_eval_sentences.py            # writes recipe/eval-sentences.jsonl

Sources: Debian package long descriptions (/var/lib/dpkg/status, Debian 12) split into sentences,
prose sentences from the repository's README files, and whole package descriptions joined into texts
(longer than the model's 256-token window, so truncation is exercised too). Selection is by sha1
order of the text, so it is deterministic for a given input.
"""
import hashlib, json, os, re, sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
N_DPKG, N_README, N_LONG = 400, 60, 40


def key(s):
    return hashlib.sha1(s.encode()).hexdigest()


def dpkg_descriptions(path="/var/lib/dpkg/status"):
    descs, cur = [], None
    for line in open(path, encoding="utf-8"):
        if line.startswith("Description:"):
            cur = [line[len("Description:"):].strip()]
        elif cur is not None and line.startswith(" "):
            t = line.strip()
            cur.append("" if t == "." else t)
        elif cur is not None:
            descs.append(cur); cur = None
    if cur:
        descs.append(cur)
    return descs


def sentences(text):
    text = re.sub(r"\s+", " ", text).strip()
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+(?=[A-Z])", text) if s.strip()]


def good(s):
    words = s.split()
    return 6 <= len(words) <= 60 and s[-1] in ".!?" and not re.search(r"https?://|\*|`|\|", s)


def main():
    descs = dpkg_descriptions()
    dpkg, long_ = set(), set()
    for d in descs:
        body = " ".join(x for x in d[1:] if x)
        for s in sentences(body):
            if good(s):
                dpkg.add(s)
        full = re.sub(r"\s+", " ", d[0] + ". " + body)
        if len(full.split()) > 40:
            long_.add(full)
    readme = set()
    for root, dirs, files in os.walk(REPO):
        dirs[:] = [x for x in dirs if x not in ("node_modules", ".git", ".stack", ".venv", "models")]
        for f in files:
            if f == "README.md":
                txt = open(os.path.join(root, f), encoding="utf-8").read()
                txt = re.sub(r"```.*?```", " ", txt, flags=re.S)
                for para in re.split(r"\n\s*\n", txt):
                    if para.lstrip().startswith(("#", "|", "-", ">")):
                        continue
                    for s in sentences(para):
                        if good(s):
                            readme.add(s)
    pick = lambda pool, n: sorted(pool, key=key)[:n]
    # Long texts: whole descriptions joined (in sha1 order) until ~230+ words, i.e. past 256 tokens.
    joined, buf = [], []
    for d in sorted(long_, key=key):
        buf.append(d)
        if sum(len(x.split()) for x in buf) > 230:
            joined.append(" ".join(buf)); buf = []
    long_ = joined
    rows = ([{"source": "dpkg-description", "text": s} for s in pick(dpkg, N_DPKG)]
            + [{"source": "repo-readme", "text": s} for s in pick(readme, N_README)]
            + [{"source": "dpkg-description-long", "text": s} for s in pick(long_, N_LONG)])
    out = os.path.join(HERE, "eval-sentences.jsonl")
    with open(out, "w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"{len(rows)} texts ({len(dpkg)} dpkg sentences, {len(readme)} readme sentences, {len(long_)} long descriptions available) -> {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
