"""Export, evaluate and time a smaller FCS variant WITHOUT touching the production artifacts or reports.

recipe/export.py and recipe/evaluate.py write models/fcs/config.json, reports/export_t1.json and
reports/eval.json (the production model's records), and tokenise at 256 tokens; this script reuses their
functions but writes only into --out-dir (model.onnx, model.int8.onnx, config.json) and
reports/<name>_*.json, and tokenises at --max-len.

  OMP_NUM_THREADS=1 nice -n 10 models/fcs/.venv/bin/python models/fcs/variants/variant_eval.py \
      --model models/fcs/variants/l4-s128/ckpt/final --out-dir models/fcs/variants/l4-s128 --max-len 128 --name l4-s128

--from-last LAYERS: build the model from ckpt-dir/last.pt (a run stopped by --max-minutes) instead of final/.
Latency: batch 1, 1 thread, real test inputs; the production INT8 model (at 256 tokens, as deployed) and
the variant (at --max-len) run in alternating rounds in one process so background load hits both alike.
"""
import argparse, json, os, sys, time
import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "recipe"))
from common import FCS, load_jsonl, load_snli, get_tokenizer, encode, pad_batch  # noqa: E402
from export import export, session, run, softmax1, latency  # noqa: E402
from evaluate import metrics, per_group  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True, help="save_pretrained dir (or ckpt dir with --from-last)")
    ap.add_argument("--from-last", type=int, default=0, help="number of layers; load <model>/last.pt")
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--name", required=True)
    ap.add_argument("--max-len", type=int, default=128)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--lat-n", type=int, default=300)
    ap.add_argument("--skip-export", action="store_true")
    ap.add_argument("--snli", action="store_true", help="also evaluate on the SNLI test split")
    ap.add_argument("--limit", type=int, default=None, help="smoke test: first N test/dev triples only")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    os.makedirs(a.out_dir, exist_ok=True)
    fp32 = os.path.join(a.out_dir, "model.onnx"); int8 = os.path.join(a.out_dir, "model.int8.onnx")
    rep = {"name": a.name, "max_len": a.max_len, "threads": a.threads}
    model_dir = a.model
    if a.from_last:
        from transplant import transplant
        st = torch.load(os.path.join(a.model, "last.pt"), weights_only=False)
        m, _ = transplant(a.from_last); m.load_state_dict(st["model"])
        model_dir = os.path.join(a.model, "from_last"); m.save_pretrained(model_dir)
        rep["from_last_step"] = st["step"]
    if not a.skip_export:
        t = time.time()
        m = export(model_dir, fp32, 14)
        import onnx
        onnx.checker.check_model(fp32)
        from onnxruntime.quantization import quantize_dynamic, QuantType
        quantize_dynamic(fp32, int8, weight_type=QuantType.QInt8, per_channel=False,
                         op_types_to_quantize=["MatMul", "Gather"])
        m.config.to_json_file(os.path.join(a.out_dir, "config.json"))
        rep["export_seconds"] = round(time.time() - t, 1)
    import onnx
    g = onnx.load(int8, load_external_data=False).graph
    rep["io_names"] = {"inputs": [i.name for i in g.input], "outputs": [o.name for o in g.output]}
    rep["size_bytes"] = {"model.onnx": os.path.getsize(fp32), "model.int8.onnx": os.path.getsize(int8)}

    tok = get_tokenizer(); tok.enable_truncation(max_length=a.max_len, strategy="longest_first")
    test = load_jsonl(os.path.join(FCS, "data", "test.jsonl")); dev = load_jsonl(os.path.join(FCS, "data", "dev.jsonl"))
    test, dev = test[:a.limit], dev[:a.limit]
    enc_t, enc_d = encode(tok, test), encode(tok, dev)
    y_t = np.array([e["label"] for e in test]); y_d = np.array([e["label"] for e in dev])
    lens = [len(i) for i, _ in enc_t]
    rep["test_token_lengths_after_truncation"] = {"mean": float(np.mean(lens)), "p50": int(np.median(lens)), "max": int(max(lens)),
                                                  "share_truncated": float(np.mean([l >= a.max_len for l in lens]))}
    ev = {}
    probs = {}
    for nm, path in (("model.int8.onnx", int8), ("model.onnx", fp32)):
        s = session(path, a.threads)
        p_t, p_d = softmax1(run(s, enc_t)), softmax1(run(s, enc_d))
        probs[nm] = p_t
        grid = np.linspace(0.05, 0.95, 91)
        thr = float(grid[int(np.argmax([metrics(y_d, p_d, t)["macro_f1"] for t in grid]))])
        r = {"dev_selected_threshold": round(thr, 3), "fcs_dev": metrics(y_d, p_d),
             "fcs_test": metrics(y_t, p_t), "fcs_test_by_kind": per_group(test, p_t, "kind"),
             "fcs_test_by_source": per_group(test, p_t, "source"),
             "fcs_test_at_dev_threshold": metrics(y_t, p_t, thr)}
        if a.snli:
            snli = load_snli("test"); y_s = np.array([e["label"] for e in snli])
            r["snli_test_binary"] = metrics(y_s, softmax1(run(s, encode(tok, snli))))
        ev[nm] = r
        print(nm, json.dumps({k: r[k] for k in ("fcs_test", "fcs_test_by_kind")}, indent=1), flush=True)
    p32, p8 = probs["model.onnx"], probs["model.int8.onnx"]
    rep["int8_vs_fp32"] = {"n": len(test), "label_agreement": float(((p32 >= .5) == (p8 >= .5)).mean()),
                           "mean_abs_prob_diff": float(np.abs(p32 - p8).mean())}
    json.dump(ev, open(os.path.join(FCS, "reports", f"{a.name}_eval.json"), "w"), indent=1)

    # latency: variant INT8 at max_len vs production INT8 at 256, alternating rounds of 50 calls
    tok256 = get_tokenizer(); enc256 = encode(tok256, test)
    s_var, s_prod = session(int8, a.threads), session(os.path.join(FCS, "model.int8.onnx"), a.threads)
    rounds = max(1, a.lat_n // 50)
    for sess, e in ((s_var, enc_t), (s_prod, enc256)):  # warm-up
        latency(sess, e, n=1, warm=20)
    # percentiles over all calls
    def raw(sess, enc, n):
        ts = []
        for i in range(n):
            ids, am, tt = pad_batch([enc[i % len(enc)]])
            t = time.perf_counter(); sess.run(["logits"], {"input_ids": ids, "attention_mask": am, "token_type_ids": tt})
            ts.append((time.perf_counter() - t) * 1000)
        return ts
    tv, tp = [], []
    for k in range(rounds):
        tv += raw(s_var, enc_t[k * 50:(k + 1) * 50], 50)
        tp += raw(s_prod, enc256[k * 50:(k + 1) * 50], 50)
    def pct(ts):
        ts = sorted(ts); n = len(ts)
        return {"n": n, "p50_ms": round(ts[n // 2], 2), "p90_ms": round(ts[int(n * .9)], 2),
                "p99_ms": round(ts[min(n - 1, int(n * .99))], 2), "mean_ms": round(float(np.mean(ts)), 2)}
    rep["latency_batch1_real_test_inputs"] = {
        "variant_int8_at_max_len": pct(tv), "production_int8_at_256": pct(tp),
        "note": "alternating rounds of 50 calls (same inputs: the first %d test triples), 1 intra-op thread; "
                "load average at the end: %s" % (rounds * 50, os.getloadavg())}
    rep["latency_batch1_seq_fixed_max_len_variant_int8"] = latency(s_var, enc_t, 100, seqlen=a.max_len)
    json.dump(rep, open(os.path.join(FCS, "reports", f"{a.name}_export_t{a.threads}.json"), "w"), indent=1)
    print(json.dumps(rep, indent=1))


if __name__ == "__main__":
    main()
