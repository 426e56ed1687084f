"""Writes bench/fcs/RESULTS-v3-<run>.md from what bench/fcs/v3-eval.sh and train_v3.py measured: training
progress and throughput (the run's train_log.jsonl and chunk logs), the export's parity, the dev readings, the
refitted combinations and the test table, with the issue 41 verdict computed from the table (nothing typed in).

  python3.11 bench/fcs/v3_results.py --run a3
"""
import argparse, glob, json, os, platform, statistics, subprocess

TOOLS = os.environ.get("RAG_IMMUNE_TOOLS_DIR", os.path.expanduser("~/.cache/rag-immune-tools"))
REAL = "bench/fcs/real"
# issue 41: macro >= 72 over the test splits, and no set more than 2 points below v2.3
GOAL_MACRO, MAX_LOSS = 72.0, 2.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run", required=True)
    a = ap.parse_args()
    rd = os.path.join(TOOLS, "fcs-train", a.run)
    name = f"v3{a.run}"
    log = [json.loads(l) for l in open(os.path.join(rd, "train_log.jsonl")) if l.strip()]
    exp = json.load(open(os.path.join(rd, "export", "export-report.json")))
    dev = json.load(open(os.path.join(rd, "eval-dev.json")))
    tab = json.load(open(f"{REAL}/table-1000-{name}.json"))
    cand = json.load(open(f"{REAL}/combination-{name}-candidate.json"))
    ctrl = json.load(open(f"{REAL}/combination-v23-fitpart-{a.run}.json"))
    ship = json.load(open("models/fcs/combination-v2.json"))
    step, bs = exp["checkpoint_step"], exp["train_args"]["bs"]
    steps_per_epoch = None
    for f in sorted(glob.glob(os.path.join(rd, "chunk*.log"))):
        for line in open(f, errors="replace"):
            if line.startswith('{"rows"'):
                steps_per_epoch = json.loads(line)["steps_per_epoch"]; rows = json.loads(line)["rows"]
    L = []
    w = L.append
    w(f"# FCS v3 option (a), run `{a.run}`: the shipped MiniLM-L6 graph retrained on the v3 data — measured, not shipped\n")
    w(f"Written by `bench/fcs/v3_results.py --run {a.run}` (from `flock /tmp/bench.lock bash bench/fcs/v3-eval.sh {a.run}`). "
      f"Machine: {os.cpu_count()} vCPU {platform.processor() or platform.machine()}, shared by other sessions; "
      "training and evaluation each ran under the exclusive bench lock, niced (nice 10).\n")
    frac = step / steps_per_epoch if steps_per_epoch else float("nan")
    full = frac >= 1
    w("## Training (one full epoch)\n" if full else "## Training (partial epoch)\n")
    w(f"- Checkpoint `fcs-train/{a.run}/last.pt`: **step {step} of {steps_per_epoch}** ({100 * frac:.1f} % of one epoch), "
      f"**{step * bs:,} rows seen** of {rows:,} (bs {bs}; lr {exp['train_args']['lr'] or '3e-5 (default)'}, warm-up 6 % then "
      f"linear decay over the whole epoch{', ended' if full else ', so this checkpoint is mid-schedule'}; `--hold-out-fit`: the factcheck and SNLI dev "
      f"'fit' part left out of training).")
    w(f"- Command per chunk: `flock /tmp/bench.lock nice -n 10 models/fcs/.venv/bin/python models/fcs/recipe/train_v3.py "
      f"--model student --run {a.run} --hold-out-fit --epochs 1 --max-minutes <chunk> --resume` (chunks below)")
    sp = [r["s_per_step"] for r in log]; cpu = [r["cpu_s_per_step"] for r in log if "cpu_s_per_step" in r]
    loads = [r["load_1m"] for r in log if "load_1m" in r]
    w(f"- Throughput (train_log.jsonl, {len(log)} readings every 20 steps, cumulative per chunk): wall "
      f"{min(sp):.2f}–{max(sp):.2f} s/step (median {statistics.median(sp):.2f}, i.e. {bs / statistics.median(sp):.2f} rows/s, "
      f"{1 / statistics.median(sp):.3f} steps/s); CPU {statistics.median(cpu):.2f} s/step on 2 threads (median); 1-minute "
      f"load {min(loads):.1f}–{max(loads):.1f} while it ran.")
    if not full:
        left = (steps_per_epoch - step) * statistics.median(sp)
        w(f"- Rest of the epoch at the median rate: {steps_per_epoch - step} steps ≈ {left / 3600:.1f} wall hours "
          f"({left / 840:.0f} chunks of 14 minutes); at the CPU rate on an idle 2-core share ≈ "
          f"{(steps_per_epoch - step) * statistics.median(cpu) / 2 / 3600:.1f} h.\n")
    w("Chunks:\n")
    for f in sorted(glob.glob(os.path.join(rd, "chunk*.log"))):
        marks = [l.strip() for l in open(f, errors="replace") if l.startswith(("queued", "end", "time budget", "resumed"))]
        w(f"- `{os.path.basename(f)}`: " + "; ".join(marks))
    q = exp.get("quantisation", {"per_channel": False, "ops": ["MatMul", "Gather"]})
    w(f"\n## Export and parity (INT8 on the shipped graph: dynamic, {'per-channel' if q['per_channel'] else 'per-tensor'} "
      f"weights of {', '.join(q['ops'])}; v2.3 ships per-tensor)\n")
    p = exp["parity"]
    w(f"`models/fcs/recipe/export_v3.py --run {a.run}{' --per-channel' if q['per_channel'] else ''}`: FP32 ONNX (fast attention) vs PyTorch max |logit| diff "
      f"{p['onnx_fp32_fast_vs_torch_max_abs_logit_diff']:.2e}; INT8 vs FP32 on {p['pairs']} real test pairs: label agreement "
      f"{100 * p['int8_vs_fp32_label_agreement']:.2f} %, mean |dp| {p['int8_vs_fp32_mean_abs_prob_diff']:.4f}, max "
      f"{p['int8_vs_fp32_max_abs_prob_diff']:.3f}; INT8 {exp['size_bytes']['int8']:,} bytes. Kept outside git "
      f"(`fcs-train/{a.run}/export/`).\n")
    w("## v3 dev.jsonl (3 % of each external source, never trained on; FP32, model alone, threshold 0.5)\n")
    w("| set | n | BA |\n|---|---:|---:|")
    for s, v in dev.items():
        w(f"| {s} | {v['n']} | {v['ba']} |")
    w("\n## Key-fact combination refitted on the factcheck dev 'fit' part (v2.3's features and numbers penalty)\n")
    w("| combination | dev records | LOSO macro BA | weights (lex_cov, model_min, kf_unsupported_unread) | bias | threshold |\n|---|---|---:|---|---:|---:|")
    for label, c in (("v2.3 shipped (all dev, v2.3 model)", ship), (f"control: v2.3 model, fit part", ctrl), (f"{name}: candidate model, fit part", cand)):
        w(f"| {label} | `{c['fitted']['data']}` | {100 * c['fitted']['loso_macro_balanced_accuracy']:.1f} | "
          f"{', '.join(f'{x:.3f}' for x in c['weights'])} | {c['bias']:.3f} | {c['threshold']} |")
    full = tab["triples"] == 6407
    scope = "the same 6,407 triples as" if full else f"**PARTIAL: {tab['triples']:,} of the 6,407 triples** of"
    w(f"\n## Test splits ({scope} v2.3's table, compared on the triples every run scored; BA / AUC %)\n")
    w(open(f"{REAL}/table-1000-{name}.md").read().split("\n\nReliability")[0].strip() + "\n")
    mac = tab["macro_test"]
    worse = {s: round(v["runs"][name]["ba"] - v["runs"]["v2.3"]["ba"], 1) for s, v in tab["per_set"].items()
             if v["runs"][name]["ba"] - v["runs"]["v2.3"]["ba"] < -MAX_LOSS}
    ok = full and mac[name]["ba"] >= GOAL_MACRO and not worse
    if not full:
        w("**No verdict: the test splits were not read whole** (rerun `bench/fcs/v3-eval.sh` to complete them). On the "
          "triples read so far:")
    w(f"**Verdict (issue 41 rules: macro ≥ {GOAL_MACRO:.0f}, no set more than {MAX_LOSS:.0f} points below v2.3):** "
      f"{name} combined macro {mac[name]['ba']:.1f} against v2.3's {mac['v2.3']['ba']:.1f} (control, v2.3's model on the same "
      f"fit part: {mac['v2.3-fitpart']['ba']:.1f}); sets more than {MAX_LOSS:.0f} points below v2.3: "
      f"{', '.join(f'{s} {d:+.1f}' for s, d in worse.items()) or 'none'}. "
      + ("**Meets the rule**: export parity is above; the switch still needs the card and latency." if ok else
         "**Does not meet it: v2.3 stays the shipped scorer.**" if full else "v2.3 stays the shipped scorer."))
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    w(f"\nCode at {commit} (+ the results commit); records: `{REAL}/{name}-dev-fit.jsonl`, `{REAL}/{name}-test-1000.jsonl`.")
    out = f"bench/fcs/RESULTS-v3-{a.run}.md"
    open(out, "w").write("\n".join(L) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
