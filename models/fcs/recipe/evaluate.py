"""Evaluate the exported ONNX FCS model(s) on the held-out triple test set (data/test.jsonl) and the
held-out SNLI `test` split (binarised: entailment = consistent).

  OMP_NUM_THREADS=1 nice -n 15 python recipe/evaluate.py            # INT8 and FP32
Writes models/fcs/reports/eval.json.  Positive class for precision/recall/F1 = "consistent" (label 1);
also reported: F1 of the "inconsistent" class and macro-F1.  Per-kind number = fraction of that kind
classified correctly (for inconsistent kinds: recall of inconsistency detection; for copy/paraphrase:
recall of the consistent class).  Threshold 0.5 on P(consistent), plus the dev-selected threshold.
"""
import argparse, collections, json, os, sys
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import FCS, load_jsonl, load_snli, get_tokenizer, encode
from export import session, run, softmax1


def metrics(y, p, thr=0.5):
    pr = (p >= thr).astype(int)
    def f1(c):
        tp = ((pr == c) & (y == c)).sum(); fp = ((pr == c) & (y != c)).sum(); fn = ((pr != c) & (y == c)).sum()
        P = tp / max(1, tp + fp); R = tp / max(1, tp + fn)
        return float(P), float(R), float(2 * P * R / max(1e-9, P + R))
    P1, R1, F1 = f1(1); P0, R0, F0 = f1(0)
    # ROC AUC (rank-based)
    order = np.argsort(p); ranks = np.empty(len(p)); ranks[order] = np.arange(1, len(p) + 1)
    n1, n0 = (y == 1).sum(), (y == 0).sum()
    auc = float((ranks[y == 1].sum() - n1 * (n1 + 1) / 2) / max(1, n1 * n0))
    return {"n": int(len(y)), "threshold": thr, "accuracy": float((pr == y).mean()),
            "precision_consistent": P1, "recall_consistent": R1, "f1_consistent": F1,
            "precision_inconsistent": P0, "recall_inconsistent": R0, "f1_inconsistent": F0,
            "macro_f1": (F1 + F0) / 2, "roc_auc": auc}


def per_group(rows, p, key, thr=0.5):
    g = collections.defaultdict(list)
    for r, pp in zip(rows, p):
        g[r[key]].append(int((pp >= thr) == bool(r["label"])))
    return {k: {"n": len(v), "correct_rate": round(float(np.mean(v)), 4)} for k, v in sorted(g.items())}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", nargs="+", default=["model.int8.onnx", "model.onnx"])
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    tok = get_tokenizer()
    test = load_jsonl(os.path.join(FCS, "data", "test.jsonl"))
    dev = load_jsonl(os.path.join(FCS, "data", "dev.jsonl"))
    snli = load_snli("test")
    enc_t, enc_d, enc_s = encode(tok, test), encode(tok, dev), encode(tok, snli)
    y_t = np.array([e["label"] for e in test]); y_d = np.array([e["label"] for e in dev]); y_s = np.array([e["label"] for e in snli])
    out = {}
    for mname in a.models:
        s = session(os.path.join(FCS, mname), a.threads)
        p_t, p_d, p_s = softmax1(run(s, enc_t)), softmax1(run(s, enc_d)), softmax1(run(s, enc_s))
        # dev-selected threshold (max macro-F1 on dev triples)
        grid = np.linspace(0.05, 0.95, 91)
        thr = float(grid[int(np.argmax([metrics(y_d, p_d, t)["macro_f1"] for t in grid]))])
        r = {"dev_selected_threshold": round(thr, 3),
             "fcs_dev": metrics(y_d, p_d),
             "fcs_test": metrics(y_t, p_t), "fcs_test_by_kind": per_group(test, p_t, "kind"),
             "fcs_test_by_source": per_group(test, p_t, "source"),
             "fcs_test_at_dev_threshold": metrics(y_t, p_t, thr),
             "fcs_test_by_kind_at_dev_threshold": per_group(test, p_t, "kind", thr),
             "snli_test_binary": metrics(y_s, p_s), "snli_test_by_label": per_group(snli, p_s, "kind")}
        out[mname] = r
        print(mname, json.dumps({k: v for k, v in r.items() if k in ("fcs_test", "snli_test_binary", "fcs_test_by_kind")}, indent=1), flush=True)
    os.makedirs(os.path.join(FCS, "reports"), exist_ok=True)
    json.dump(out, open(os.path.join(FCS, "reports", "eval.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
