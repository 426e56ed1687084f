"""Deterministic generator of FCS (fact consistency) triples from real technical text on a Debian 12
machine, plus the binarised SNLI pairs from shared/data/esnli.

Sources (all read locally, no network):
  * /var/lib/dpkg/status                 long package descriptions of installed packages
  * /var/lib/apt/lists/*Components-*.yml.gz  AppStream (DEP-11) English descriptions
  * `apt-cache dumpavail`                package metadata (version, sizes, maintainer, section, summary)
  * /usr/share/doc/*/changelog.Debian.gz  Debian changelog entries (versions, dates, people, bugs)

Every example is {question, evidence: [passage, ...], answer, label (1 consistent / 0 inconsistent),
kind, source, doc}.  Kinds: copy, paraphrase (label 1); number, unit, date, entity, negation,
cause, addition, wrong_passage (label 0).  The split is by SOURCE PACKAGE (all text of one Debian
source package lands in exactly one split) and, in addition, any train/dev example whose evidence
shares a sentence with a test passage is dropped.  SNLI: the `dev` split is used for training
(binarised: entailment -> 1, neutral/contradiction -> 0); the `test` split is held out.

Usage: python build_dataset.py --out ../data [--seed 13]
"""
import argparse, collections, glob, gzip, hashlib, html, json, os, random, re, subprocess, sys

SEED = 13
ESNLI = os.environ.get("ESNLI", "/work/shared/data/esnli/snli-dev-test.jsonl")


def h(s):
    return int(hashlib.sha1(s.encode()).hexdigest(), 16)


def split_of(doc):
    r = h("split:" + doc) % 100
    return "test" if r < 14 else ("dev" if r < 20 else "train")


SENT_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"(])")


def sentences(text):
    text = re.sub(r"\s+", " ", text).strip()
    out = []
    for s in SENT_RE.split(text):
        s = s.strip()
        if 4 <= len(s.split()) <= 45 and not re.search(r"https?://|www\.|@", s):
            out.append(s if s[-1] in ".!?" else s + ".")
    return out


# ----------------------------------------------------------------------------- sources
def load_apt_meta():
    out = subprocess.run(["apt-cache", "dumpavail"], capture_output=True, text=True).stdout
    recs = {}
    for block in out.split("\n\n"):
        f = {}
        for line in block.split("\n"):
            m = re.match(r"^([A-Za-z-]+): (.*)$", line)
            if m:
                f[m.group(1)] = m.group(2)
        if "Package" in f:
            recs.setdefault(f["Package"], f)
    return recs


def src_name(f):
    return (f.get("Source") or f["Package"]).split(" ")[0]


def load_status():
    docs = []
    txt = open("/var/lib/dpkg/status", encoding="utf-8", errors="replace").read()
    for block in txt.split("\n\n"):
        lines = block.split("\n")
        f, desc, cur = {}, [], None
        for line in lines:
            if line.startswith(" ") and cur == "Description":
                if line.strip() != ".":
                    desc.append(line.strip())
            else:
                m = re.match(r"^([A-Za-z-]+): ?(.*)$", line)
                if m:
                    cur = m.group(1); f[cur] = m.group(2)
        if "Package" in f and desc:
            body = " ".join(d for d in desc if not d.startswith(("*", "-", "+")) or len(d) > 30)
            body = re.sub(r"^[*+-]\s*", "", body)
            docs.append({"doc": src_name(f), "pkg": f["Package"], "source": "dpkg-description",
                         "title": f.get("Description", ""), "text": body})
    return docs


def load_dep11(meta):
    import yaml
    path = sorted(glob.glob("/var/lib/apt/lists/*Components-amd64.yml.gz"))
    docs = []
    for p in path:
        for d in yaml.load_all(gzip.open(p, "rt", encoding="utf-8"), Loader=yaml.CSafeLoader):
            if not d or "Package" not in d or not isinstance(d.get("Description"), dict):
                continue
            c = d["Description"].get("C") or d["Description"].get("en")
            if not c:
                continue
            c = re.sub(r"<li>(.*?)</li>", r" \1.", c, flags=re.S)
            c = html.unescape(re.sub(r"<[^>]+>", " ", c))
            pk = d["Package"]
            doc = src_name(meta[pk]) if pk in meta else pk
            name = d.get("Name", {}).get("C", pk) if isinstance(d.get("Name"), dict) else pk
            docs.append({"doc": doc, "pkg": pk, "source": "appstream-description", "title": name, "text": c})
    return docs


MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December"]
MON3 = {m[:3]: i for i, m in enumerate(MONTHS)}


def load_changelogs(meta, status_src):
    out = []
    for p in sorted(glob.glob("/usr/share/doc/*/changelog.Debian.gz")):
        binpkg = p.split("/")[4]
        doc = status_src.get(binpkg) or (src_name(meta[binpkg]) if binpkg in meta else binpkg)
        try:
            txt = gzip.open(p, "rt", encoding="utf-8", errors="replace").read()
        except Exception:
            continue
        entries = re.findall(r"^(\S+) \(([^)]+)\) ([^;]+); urgency=(\w+)\n(.*?)\n -- (.+?) <[^>]+>  \w{3}, (\d{1,2}) (\w{3}) (\d{4})",
                             txt, flags=re.S | re.M)
        for (pkg, ver, dist, urg, body, who, dd, mon, yy) in entries[:12]:
            if mon not in MON3:
                continue
            items = []
            for it in re.split(r"\n\s*[*+-] ", "\n" + body):
                it = re.sub(r"\s+", " ", it).strip()
                it = re.sub(r"^\[ [^\]]+ \]\s*", "", it)
                if 4 <= len(it.split()) <= 30 and not re.search(r"https?://|@", it):
                    items.append(it.rstrip(".") + ".")
            if not items:
                continue
            out.append({"doc": doc, "pkg": pkg, "source": "debian-changelog", "version": ver,
                        "dist": dist.strip(), "urgency": urg, "who": who.strip(),
                        "date": (int(dd), MON3[mon], int(yy)), "items": items[:4]})
    return out


# ----------------------------------------------------------------------------- perturbations
NUM_RE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)(?![\w.]*\d)")
UNIT_GROUPS = [
    ["kB", "MB", "GB", "TB"], ["KiB", "MiB", "GiB", "TiB"], ["bytes", "kilobytes", "megabytes", "gigabytes"],
    ["bits", "bytes"], ["ms", "seconds", "minutes", "hours"], ["second", "minute", "hour", "day"],
    ["seconds", "minutes", "hours", "days"], ["Hz", "kHz", "MHz", "GHz"], ["pixels", "points", "inches"],
    ["%", " times"], ["lines", "columns", "pages"], ["characters", "words", "lines"],
    ["mm", "cm", "m", "km"], ["threads", "processes", "cores"], ["bit", "byte"],
]
UNIT_RE = re.compile(r"(\d+(?:\.\d+)?)( ?)(kB|MB|GB|TB|KiB|MiB|GiB|TiB|bytes|kilobytes|megabytes|gigabytes|bits|bit|byte|ms|"
                     r"seconds|second|minutes|minute|hours|hour|days|day|Hz|kHz|MHz|GHz|pixels|points|%|lines|columns|"
                     r"pages|characters|words|mm|cm|km|threads|processes|cores)\b|(\d+)(%)")
YEAR_RE = re.compile(r"\b(19[5-9]\d|20[0-3]\d)\b")
DATE_RE = re.compile(r"\b(\d{1,2}) (" + "|".join(MONTHS) + r") (\d{4})\b")


def new_number(rng, s):
    if "." in s:
        a, b = s.split(".", 1)
        v = float(s)
        choices = [v * 2, v / 2, v + 1, max(0.0, v - 1), v + 10 ** -len(b) * rng.randint(1, 9)]
        out = f"{rng.choice(choices):.{len(b)}f}"
    else:
        n = int(s)
        choices = [n + rng.randint(1, 9), n * 2, n * 10, max(0, n - rng.randint(1, 9)), n + 100, (n // 2)]
        out = str(rng.choice(choices))
    return out if out != s else str(int(float(s)) + 3)


def perturb_number(rng, a):
    ms = [m for m in NUM_RE.finditer(a) if not YEAR_RE.fullmatch(m.group(1))]
    if not ms:
        return None
    m = rng.choice(ms)
    return a[:m.start(1)] + new_number(rng, m.group(1)) + a[m.end(1):]


def perturb_unit(rng, a):
    ms = list(UNIT_RE.finditer(a))
    if not ms:
        return None
    m = rng.choice(ms)
    if m.group(4):
        return a[:m.start(5)] + " times" + a[m.end(5):]
    u = m.group(3)
    groups = [g for g in UNIT_GROUPS if u in g]
    alts = [x for g in groups for x in g if x != u and x.strip() != u]
    if not alts:
        return None
    return a[:m.start(3)] + rng.choice(alts).strip() + a[m.end(3):]


def perturb_date(rng, a):
    m = DATE_RE.search(a)
    if m:
        d, mon, y = int(m.group(1)), m.group(2), int(m.group(3))
        c = rng.randint(0, 2)
        if c == 0:
            d2 = d + rng.choice([-3, -2, -1, 1, 2, 3, 7, 10]); d2 = d2 if 1 <= d2 <= 28 else (d % 28) + 1
            if d2 == d: d2 = (d % 27) + 2
            new = f"{d2} {mon} {y}"
        elif c == 1:
            i = MONTHS.index(mon); new = f"{d} {MONTHS[(i + rng.randint(1, 11)) % 12]} {y}"
        else:
            new = f"{d} {mon} {y + rng.choice([-3, -2, -1, 1, 2, 3])}"
        return a[:m.start()] + new + a[m.end():]
    ys = list(YEAR_RE.finditer(a))
    if ys:
        m = rng.choice(ys)
        return a[:m.start()] + str(int(m.group()) + rng.choice([-4, -2, -1, 1, 2, 5])) + a[m.end():]
    return None


NEG_RULES = [
    (r"\bdoes not\b", "does"), (r"\bdo not\b", "do"), (r"\bis not\b", "is"), (r"\bare not\b", "are"),
    (r"\bcannot\b", "can"), (r"\bwill not\b", "will"), (r"\bno longer\b", "still"), (r"\bwithout\b", "with"),
    (r"\bis\b", "is not"), (r"\bare\b", "are not"), (r"\bcan\b", "cannot"), (r"\bwill\b", "will not"),
    (r"\bwas\b", "was not"), (r"\bwere\b", "were not"), (r"\bshould\b", "should not"), (r"\bmay\b", "may not"),
    (r"\bhas been\b", "has not been"), (r"\bincludes the change\b", "does not include the change"),
]
VERBS = ("provides", "supports", "contains", "includes", "allows", "uses", "requires", "offers", "implements",
         "enables", "handles", "lets", "makes", "works", "runs", "needs", "depends", "helps", "displays", "generates",
         "creates", "reads", "writes", "converts", "manages", "installs", "ships", "adds", "fixes", "closes")


def lemma(v):
    if v.endswith("ies"): return v[:-3] + "y"
    if v.endswith(("sses", "xes", "ches", "shes")): return v[:-2]
    return v[:-1]


def perturb_negation(rng, a):
    opts = []
    for pat, rep in NEG_RULES:
        for m in re.finditer(pat, a):
            opts.append((m.start(), m.end(), rep))
        if opts and pat.startswith(r"\b(does|do|is|are|cannot|will) not"):
            break
    for m in re.finditer(r"\b(" + "|".join(VERBS) + r")\b", a):
        opts.append((m.start(), m.end(), "does not " + lemma(m.group(1))))
    # prefer un-negating if a negation exists
    neg = [o for o in opts if re.match(r"(does|do|is|are|can|will|still|with)$", o[2])]
    if neg:
        o = neg[0]
    elif opts:
        o = rng.choice(opts)
    else:
        return None
    return a[:o[0]] + o[2] + a[o[1]:]


CAUSE_RE = re.compile(r"^(.*?),? (because|since|as|due to|so that|in order to|so|thus|therefore|which causes|causing|leading to|to avoid|to prevent) (.*?)([.!?])$")


def perturb_cause(rng, a):
    m = CAUSE_RE.match(a)
    if not m or len(m.group(1).split()) < 3 or len(m.group(3).split()) < 3 or m.group(2) in ("as", "since"):
        return None
    x, c, y = m.group(1), m.group(2), m.group(3)
    if c == "because":
        return f"{y[0].upper() + y[1:]} because {x[0].lower() + x[1:]}."
    if c == "due to":
        return f"{x} despite {y}."
    if c in ("so", "thus", "therefore", "which causes", "causing", "leading to"):
        return f"{y[0].upper() + y[1:]}, so {x[0].lower() + x[1:]}."
    if c in ("to avoid", "to prevent"):
        return f"{x} to cause {y}."
    return f"{x}, which prevents {y}."


ENT_RE = re.compile(r"(?<!^)(?<![.!?] )\b([A-Z][A-Za-z0-9+#]*(?:[ -][A-Z][A-Za-z0-9+#]*)*)\b")


def perturb_entity(rng, a, evidence_text, pools):
    cands = [m for m in ENT_RE.finditer(a) if m.start() > 0 and m.group(1) not in ("I", "A", "The", "It", "This")]
    if not cands:
        return None
    m = rng.choice(cands)
    ent = m.group(1)
    pool = pools["person"] if ent in pools["person_set"] else pools["proper"]
    for _ in range(20):
        r = rng.choice(pool)
        if r != ent and r.lower() not in evidence_text.lower() and r.lower() not in ent.lower():
            return a[:m.start(1)] + r + a[m.end(1):]
    return None


SYN = [("provides", "offers"), ("contains", "includes"), ("allows", "lets you"), ("program", "application"),
       ("utility", "tool"), ("utilities", "tools"), ("uses", "makes use of"), ("supports", "has support for"),
       ("fast", "quick"), ("small", "compact"), ("package", "Debian package"), ("files", "file(s)"),
       ("implements", "provides an implementation of"), ("useful", "handy"), ("several", "multiple"),
       ("large", "big"), ("easy", "simple"), ("also", "additionally"), ("display", "show"), ("displays", "shows"),
       ("create", "make"), ("creates", "makes"), ("modify", "change"), ("required", "needed"), ("requires", "needs")]
UNIT_WORD = {"kB": "kilobytes", "MB": "megabytes", "GB": "gigabytes", "KiB": "kibibytes", "MiB": "mebibytes",
             "ms": "milliseconds", "%": " percent", "GHz": "gigahertz", "MHz": "megahertz", "km": "kilometres"}
PREFIXES = ["According to the documentation, ", "The passage says that ", "In short, ", "As described, ",
            "Per the package information, ", ""]


def paraphrase(rng, a):
    """Meaning-preserving rewrites of real sentences; returns None if nothing changed."""
    b = a
    ops = rng.sample(["syn", "syn", "unit", "date", "prefix", "clause", "paren"], 4)
    for op in ops:
        if op == "syn":
            c = [(x, y) for x, y in SYN if re.search(r"\b" + x + r"\b", b)]
            if c:
                x, y = rng.choice(c); b = re.sub(r"\b" + x + r"\b", y, b, count=1)
        elif op == "unit":
            m = re.search(r"(\d+(?:\.\d+)?) ?(kB|MB|GB|KiB|MiB|ms|GHz|MHz|km|%)(?![A-Za-z])", b)
            if m:
                b = b[:m.start()] + m.group(1) + (UNIT_WORD[m.group(2)] if m.group(2) == "%" else " " + UNIT_WORD[m.group(2)]) + b[m.end():]
        elif op == "date":
            m = DATE_RE.search(b)
            if m:
                d, mon, y = int(m.group(1)), m.group(2), int(m.group(3))
                fmt = rng.choice([f"{mon} {d}, {y}", f"{y}-{MONTHS.index(mon) + 1:02d}-{d:02d}", f"{d} {mon[:3]} {y}"])
                b = b[:m.start()] + fmt + b[m.end():]
        elif op == "prefix" and b == a:
            p = rng.choice(PREFIXES)
            if p and not re.match(r"^[A-Z][a-z]*[A-Z0-9]|^[A-Z]{2}", b):
                b = p + b[0].lower() + b[1:]
            elif p:
                b = p + b
        elif op == "clause":
            m = re.match(r"^(.{25,}?)(, which|, and| and also|; ) .+$", b)
            if m and not re.search(r"\bnot\b|n't|\bno\b|\bwithout\b", b[m.end(1):]):
                b = m.group(1) + "."
        elif op == "paren":
            b2 = re.sub(r" \([^()]{1,60}\)", "", b)
            if b2 != b and len(b2.split()) >= 4:
                b = b2
    return b if b != a else None


# ----------------------------------------------------------------------------- example builders
def fmt_date(d):
    return f"{d[0]} {MONTHS[d[1]]} {d[2]}"


def meta_passage(f, rng):
    size = int(f.get("Installed-Size", "0") or 0)
    dl = int(f.get("Size", "0") or 0)
    who = re.sub(r"\s*<.*", "", f.get("Maintainer", "")).strip()
    lines = [f"{f['Package']} {f.get('Version', '')}: {f.get('Description', '').strip()}."]
    lines.append(f"It is maintained by {who}." if who else "")
    if size:
        lines.append(rng.choice([f"The installed size is {size} kB.", f"Once installed it occupies {size} kB."]))
    if dl:
        lines.append(f"The download is {dl} bytes.")
    if f.get("Section"):
        lines.append(f"It belongs to the {f['Section']} section with {f.get('Priority', 'optional')} priority.")
    sents = [l for l in lines if l]
    answers = []
    pk = f["Package"]
    if who:
        answers.append((f"Who maintains {pk}?", f"{pk} is maintained by {who}."))
    if size:
        answers.append((f"How much disk space does {pk} need?", rng.choice([f"{pk} needs {size} kB of disk space once installed.", f"The installed size of {pk} is {size} kB."])))
    if dl:
        answers.append((f"How big is the {pk} download?", f"The {pk} download is {dl} bytes."))
    if f.get("Version"):
        answers.append((f"Which version of {pk} is available?", f"Version {f['Version']} of {pk} is available."))
    answers.append((f"What is {pk}?", f"{pk} is a package providing {f.get('Description', '').strip()}."))
    return " ".join(sents), answers


def changelog_passage(e, rng):
    items = e["items"]
    p = (f"{e['pkg']} ({e['version']}) was uploaded to {e['dist']} with {e['urgency']} urgency by {e['who']} "
         f"on {fmt_date(e['date'])}. Changes: " + " ".join(items))
    pk, v = e["pkg"], e["version"]
    ans = [(f"When was {pk} {v} uploaded?", f"{pk} {v} was uploaded on {fmt_date(e['date'])}."),
           (f"Who uploaded {pk} {v}?", f"{pk} {v} was uploaded by {e['who']}."),
           (f"Which suite was {pk} {v} uploaded to?", f"Version {v} of {pk} was uploaded to {e['dist']} on {fmt_date(e['date'])}."),
           (f"What changed in {pk} {v}?", f"The {v} upload of {pk} includes the change: {items[0]}")]
    if len(items) > 1:
        ans.append((f"What changed in {pk} {v}?", f"The {v} upload of {pk} includes the change: {rng.choice(items[1:])}"))
    bugs = re.findall(r"#(\d{4,7})", " ".join(items))
    if bugs:
        ans.append((f"Which bug does {pk} {v} close?", f"The {v} upload of {pk} closes bug #{rng.choice(bugs)}."))
    return p, ans


QTEMPL = ["What does {t} do?", "What is {t}?", "What does the documentation say about {t}?",
          "Tell me about {t}.", "What features does {t} have?", "How does {t} work?"]

INCONS_KINDS = ["number", "unit", "date", "entity", "negation", "cause", "addition", "wrong_passage"]


def make_examples(units, pools, rng, split):
    """units: list of dict(doc, source, evidence(str), qa: list[(q, a)], title)."""
    ex = []
    by_source = collections.defaultdict(list)
    for u in units:
        by_source[u["source"]].append(u)
    all_answers = [(u["doc"], a) for u in units for _, a in u["qa"]]
    for u in units:
        ev = [u["evidence"]]
        for (q, a) in u["qa"]:
            base = dict(question=q, doc=u["doc"], source=u["source"])
            # distractor passage from another document (multi-passage retrieval), 35%
            evs = list(ev)
            if rng.random() < 0.35:
                o = rng.choice(by_source[rng.choice(list(by_source))])
                if o["doc"] != u["doc"]:
                    ins = o["evidence"].split(". ")
                    d = ". ".join(ins[:2]).rstrip(".") + "."
                    evs.insert(rng.randint(0, 1), d)
            evtext = " ".join(evs)
            cands = []
            r = rng.random()
            if r < 0.45:
                cands.append(("copy", a, 1))
            p = paraphrase(rng, a)
            if p:
                cands.append(("paraphrase", p, 1))
            elif r >= 0.45:
                cands.append(("copy", a, 1))
            inc = []
            for k in INCONS_KINDS:
                if k == "number": b = perturb_number(rng, a)
                elif k == "unit": b = perturb_unit(rng, a)
                elif k == "date": b = perturb_date(rng, a)
                elif k == "entity": b = perturb_entity(rng, a, evtext, pools)
                elif k == "negation": b = perturb_negation(rng, a)
                elif k == "cause": b = perturb_cause(rng, a)
                elif k == "addition":
                    for _ in range(5):
                        od, oa = rng.choice(all_answers)
                        if od != u["doc"] and oa.lower() not in evtext.lower():
                            break
                    b = (a + " " + oa) if rng.random() < 0.5 else (a.rstrip(".!?") + "; also, " + oa[0].lower() + oa[1:])
                elif k == "wrong_passage":
                    for _ in range(5):
                        o = rng.choice(by_source[u["source"]])
                        if o["doc"] != u["doc"] and o["qa"]:
                            break
                    b = rng.choice(o["qa"])[1] if o["doc"] != u["doc"] else None
                if b and b != a and b.lower() not in evtext.lower():
                    inc.append((k, b, 0))
            # keep rare kinds preferentially; sample up to 2 inconsistent answers per QA
            rng.shuffle(inc)
            inc.sort(key=lambda t: {"cause": 0, "date": 1, "unit": 1, "number": 2, "entity": 2, "negation": 2}.get(t[0], 3))
            pick = inc[:1] + rng.sample(inc[1:], min(1, len(inc[1:]))) if inc else []
            for k, b, y in cands[:1] + pick:
                ex.append(dict(base, evidence=evs, answer=b, label=y, kind=k, split=split))
    return ex


def subsample(ex, n, rng):
    """Deterministic kind-stratified subsample: ~40% consistent (copy/paraphrase), rest spread evenly
    over the inconsistent kinds; kinds with too few examples keep all of theirs."""
    by = collections.defaultdict(list)
    for e in ex:
        by[e["kind"]].append(e)
    share = {"copy": 0.2, "paraphrase": 0.2}
    for k in INCONS_KINDS:
        share[k] = 0.6 / len(INCONS_KINDS)
    quota = {k: int(n * share[k]) for k in share}
    # redistribute the unused quota of small kinds
    for _ in range(3):
        spare = sum(max(0, quota[k] - len(by[k])) for k in quota)
        big = [k for k in quota if len(by[k]) > quota[k]]
        for k in quota:
            quota[k] = min(quota[k], len(by[k]))
        for k in big:
            quota[k] += spare // max(1, len(big))
    out = []
    for k in sorted(by):
        out += rng.sample(by[k], min(len(by[k]), quota.get(k, 0)))
    rng.shuffle(out)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "data"))
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--meta-per-split", type=int, default=2600)
    ap.add_argument("--n-train", type=int, default=12000)
    ap.add_argument("--n-dev", type=int, default=1200)
    ap.add_argument("--n-test", type=int, default=3000)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    meta = load_apt_meta()
    status = load_status()
    status_src = {d["pkg"]: d["doc"] for d in status}
    dep11 = load_dep11(meta)
    chl = load_changelogs(meta, status_src)
    print(f"sources: apt records {len(meta)}, dpkg descriptions {len(status)}, appstream {len(dep11)}, changelog entries {len(chl)}", file=sys.stderr)

    # entity pools (train-split documents only, so test entities are not leaked as substitutes)
    persons = sorted({e["who"] for e in chl if split_of(e["doc"]) == "train" and len(e["who"].split()) >= 2})
    proper = collections.Counter()
    for d in status + dep11:
        if split_of(d["doc"]) != "train":
            continue
        for s in sentences(d["text"]):
            for m in ENT_RE.finditer(s):
                if m.start() > 0 and len(m.group(1)) > 2:
                    proper[m.group(1)] += 1
    proper = sorted(k for k, c in proper.items() if c >= 2)
    pools = {"person": persons, "person_set": set(persons), "proper": proper}

    units = collections.defaultdict(list)
    for d in status + dep11:
        ss = sentences(d["text"])
        if len(ss) < 1:
            continue
        t = d["title"] if d["source"] == "appstream-description" else d["pkg"]
        # windows of up to 3 sentences (<= 70 words); each sentence in a window can be the answer
        i = 0
        while i < len(ss):
            w = [ss[i]]
            while i + len(w) < len(ss) and len(w) < 3 and sum(len(x.split()) for x in w + [ss[i + len(w)]]) <= 70:
                w.append(ss[i + len(w)])
            tgt = rng.sample(w, min(2, len(w)))
            qa = [(rng.choice(QTEMPL).format(t=t), s) for s in tgt]
            units[split_of(d["doc"])].append(dict(doc=d["doc"], source=d["source"], evidence=" ".join(w), qa=qa))
            i += len(w)
    for e in chl:
        p, ans = changelog_passage(e, rng)
        units[split_of(e["doc"])].append(dict(doc=e["doc"], source=e["source"], evidence=p, qa=rng.sample(ans, min(2, len(ans)))))
    metas = sorted(meta.values(), key=lambda f: h(f["Package"]))
    cnt = collections.Counter()
    for f in metas:
        sp = split_of(src_name(f))
        lim = a.meta_per_split * (4 if sp == "train" else 1)
        if cnt[sp] >= lim or not f.get("Description"):
            continue
        cnt[sp] += 1
        p, ans = meta_passage(f, rng)
        units[sp].append(dict(doc=src_name(f), source="apt-metadata", evidence=p, qa=rng.sample(ans, min(2, len(ans)))))

    out = {}
    for sp in ("train", "dev", "test"):
        us = sorted(units[sp], key=lambda u: h(u["evidence"] + u["doc"]))
        out[sp] = make_examples(us, pools, random.Random(a.seed + {"train": 0, "dev": 1, "test": 2}[sp]), sp)
    # leakage guard: drop train/dev examples whose evidence shares a sentence with any test evidence
    norm = lambda s: re.sub(r"\W+", " ", s.lower()).strip()
    TEMPLATE = re.compile(r"^(it is maintained by|the installed size is|once installed it occupies|the download is|"
                          r"it belongs to the|changes )")
    real = lambda s: len(s.split()) >= 8 and not TEMPLATE.match(norm(s))
    test_pass = {norm(p) for e in out["test"] for p in e["evidence"]}
    test_sents = {norm(s) for e in out["test"] for p in e["evidence"] for s in sentences(p) if real(s)}
    test_docs = {e["doc"] for e in out["test"]}
    dropped = collections.Counter()
    for sp in ("train", "dev"):
        keep = []
        for e in out[sp]:
            if (any(norm(p) in test_pass for p in e["evidence"]) or e["doc"] in test_docs
                    or any(norm(s) in test_sents for p in e["evidence"] for s in sentences(p) if real(s))):
                dropped[sp] += 1
            else:
                keep.append(e)
        out[sp] = keep
    for sp, n in (("train", a.n_train), ("dev", a.n_dev), ("test", a.n_test)):
        out[sp] = subsample(out[sp], n, random.Random(a.seed + 7))
    # test: distractor passages may come from any test doc; never from train docs (by construction)
    os.makedirs(a.out, exist_ok=True)
    stats = {}
    for sp in ("train", "dev", "test"):
        with open(os.path.join(a.out, f"{sp}.jsonl"), "w") as fh:
            for e in out[sp]:
                fh.write(json.dumps(e, ensure_ascii=False) + "\n")
        stats[sp] = {"n": len(out[sp]), "docs": len({e["doc"] for e in out[sp]}),
                     "by_kind": dict(sorted(collections.Counter(e["kind"] for e in out[sp]).items())),
                     "by_source": dict(sorted(collections.Counter(e["source"] for e in out[sp]).items())),
                     "label1": sum(e["label"] for e in out[sp])}
    # SNLI (binarised)
    snli = collections.Counter()
    with open(ESNLI) as fh:
        for line in fh:
            r = json.loads(line); snli[(r["split"], r["label"])] += 1
    stats["snli"] = {f"{k[0]}/{k[1]}": v for k, v in sorted(snli.items())}
    stats["dropped_for_test_overlap"] = dict(dropped)
    stats["doc_overlap_train_test"] = len({e["doc"] for e in out["train"]} & test_docs)
    stats["sources"] = {"apt_records": len(meta), "dpkg_descriptions": len(status), "appstream": len(dep11), "changelog_entries": len(chl)}
    json.dump(stats, open(os.path.join(a.out, "stats.json"), "w"), indent=1)
    print(json.dumps(stats, indent=1))


if __name__ == "__main__":
    main()
