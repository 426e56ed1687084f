"""Writes bench/fcs/RESULTS-v3-<run>.md when bench/fcs/v3-eval.sh was cut off before the test splits: what was
measured (training progress and throughput, export parity, v3 dev.jsonl, and the model alone on the factcheck dev
'fit' triples scored so far against v2.3's model on the same triples). No combined figure, no verdict.

  python3.11 bench/fcs/v3_partial.py --run a3
"""
import argparse, json, os, statistics

TOOLS = os.environ.get("RAG_IMMUNE_TOOLS_DIR", os.path.expanduser("~/.cache/rag-immune-tools"))
REAL = "bench/fcs/real"


def ba(y, p):
    rec = [sum(1 for a, b in zip(y, p) if a == c and (b >= .5) == c) / max(1, sum(1 for a in y if a == c)) for c in (0, 1) if c in y]
    return 100 * sum(rec) / len(rec)


def auc(y, p):
    pos = [b for a, b in zip(y, p) if a == 1]; neg = [b for a, b in zip(y, p) if a == 0]
    if not pos or not neg:
        return float("nan")
    return 100 * sum((x > z) + 0.5 * (x == z) for x in pos for z in neg) / (len(pos) * len(neg))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run", required=True)
    a = ap.parse_args()
    rd = os.path.join(TOOLS, "fcs-train", a.run)
    log = [json.loads(l) for l in open(os.path.join(rd, "train_log.jsonl")) if l.strip()]
    exp = json.load(open(os.path.join(rd, "export", "export-report.json")))
    dev = json.load(open(os.path.join(rd, "eval-dev.json")))
    cand = [json.loads(l) for l in open(f"{REAL}/v3{a.run}-dev-fit.jsonl") if l.strip()]
    base = {r["id"]: r for r in map(json.loads, open(f"{REAL}/v23-dev.jsonl")) if r}
    step, bs = exp["checkpoint_step"], exp["train_args"]["bs"]
    sp = [r["s_per_step"] for r in log]; cpu = [r["cpu_s_per_step"] for r in log]; ld = [r["load_1m"] for r in log]
    L = [f"# FCS v3 option (a), run `{a.run}`: a PARTIAL reading (the evaluation was cut off by the deadline)\n",
         f"Written by `python3.11 bench/fcs/v3_partial.py --run {a.run}` from the run's files. Machine: {os.cpu_count()} vCPU, "
         "shared with other sessions; training and evaluation under the exclusive bench lock, nice 10.\n",
         "## Training: 9 % of one epoch\n",
         f"- Checkpoint `fcs-train/{a.run}/last.pt`: **step {step} of 3,851, {step * bs:,} rows seen** of 61,608 "
         "(`--hold-out-fit`; lr 3e-5 peak, 6 % warm-up then linear decay over the epoch, so mid-schedule).",
         f"- Command: `flock /tmp/bench.lock nice -n 10 models/fcs/.venv/bin/python models/fcs/recipe/train_v3.py --model student "
         f"--run {a.run} --hold-out-fit --epochs 1 --max-minutes 12.5 --resume` (one chunk, {log[0]['utc']}–{log[-1]['utc']} UTC).",
         f"- Throughput (cumulative, read every 20 steps): {sp[-1]:.2f} s/step wall over the chunk = {bs / sp[-1]:.1f} rows/s = "
         f"{1 / sp[-1]:.2f} steps/s; {statistics.median(cpu):.2f} CPU s/step (2 threads, median); 1-minute load {min(ld):.1f}–{max(ld):.1f}.\n",
         "## Export (`models/fcs/recipe/export_v3.py`)\n"]
    p = exp["parity"]
    L.append(f"ONNX FP32 (fast graph) vs PyTorch: max |logit| diff {p['onnx_fp32_fast_vs_torch_max_abs_logit_diff']:.1e}. "
             f"**INT8 vs FP32 on {p['pairs']} real test pairs: label agreement {100 * p['int8_vs_fp32_label_agreement']:.1f} %, "
             f"mean |dp| {p['int8_vs_fp32_mean_abs_prob_diff']:.3f}** (v2.3's INT8 graph against its FP32 function: 97.0 %, "
             "reports/export-fast.json): the retrained weights lose more to per-tensor INT8 than v2.3's did; the factcheck "
             "figures below are the INT8 graph's.\n")
    L.append("## v3 dev.jsonl (3 % of each external source, never trained on; FP32 model alone, threshold 0.5)\n")
    L.append("| set | n | BA |\n|---|---:|---:|")
    L += [f"| {s} | {v['n']} | {v['ba']} |" for s, v in dev.items()]
    L.append("\n## Factcheck dev 'fit' part (never trained on), model alone, INT8, min over claims at 0.5 — triples scored before the cut\n")
    L.append("| set | n | v2.3 model BA / AUC | v3 " + a.run + " model BA / AUC |\n|---|---:|---:|---:|")
    for s in sorted({r["set"] for r in cand}):
        rows = [r for r in cand if r["set"] == s and r["id"] in base]
        y = [r["label"] for r in rows]
        pv, pb = [r["model_probability"] for r in rows], [base[r["id"]]["model_probability"] for r in rows]
        L.append(f"| {s} | {len(rows)} | {ba(y, pb):.1f} / {auc(y, pb):.1f} | {ba(y, pv):.1f} / {auc(y, pv):.1f} |")
    L.append(f"\nRecords: `{REAL}/v3{a.run}-dev-fit.jsonl` ({len(cand)} triples; real-eval.ts resumes from it). "
             "**Not read: the test splits, the refitted key-fact combination, hence no combined figure and no verdict; "
             "v2.3 stays the shipped scorer.** Complete with `flock /tmp/bench.lock bash bench/fcs/v3-eval.sh " + a.run + "`.")
    out = f"bench/fcs/RESULTS-v3-{a.run}.md"
    open(out, "w").write("\n".join(L) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
