"""Re-export the shipped FCS model with the fast attention graph (recipe/fast_attention.py) and check
that it is the same model, then time both graphs in one run.

The FP32 weights come back from the shipped INT8 graph (recipe/dequantize_int8.py, recipe/onnx_weights.py),
and are quantised again with the settings of recipe/export.py: symmetric per-tensor INT8 weights
reproduce the same integer weights, so the two INT8 graphs differ only in how attention is computed.

  cd models/fcs && mkdir -p ckpt && git show b8cb759:models/fcs/model.int8.onnx > ckpt/v22.int8.onnx   # the v2.2 graph
  OMP_NUM_THREADS=1 .venv/bin/python recipe/export_fast.py \
      [--int8 ckpt/v22.int8.onnx] [--out ckpt/fast/model.int8.onnx] [--pairs 400] [--lat-n 200] [--report reports/export-fast.json]
  cp ckpt/fast/model.int8.onnx model.int8.onnx                                                          # what ships since v2.3
  python ../recipe/u8_weights.py model.int8.onnx model.int8.onnx    # since 2026-12-02: the same integers as uint8 (AVX2 without VNNI)

Checks (in the report): the patched PyTorch model against the unpatched one (padded batches included);
INT8 fast against INT8 shipped on real (claim, evidence) pairs from /work/shared/data/factcheck test
splits: label agreement at 0.5, mean and max |dp|. Latency: batch 1 at 64, 128 and 256 tokens (every
token real, no padding) and on the real pairs' own lengths, the two graphs alternating.
"""
import argparse, json, os, random, statistics, subprocess, sys, tempfile, time
import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import FCS, get_tokenizer, pad_batch
from export import export_module, session, softmax1
import fast_attention
from onnx_weights import load_from_onnx

FACTCHECK = os.environ.get("FACTCHECK_DIR", "/work/shared/data/factcheck")


def real_pairs(tok, n, seed=7):
    """(question + answer, evidence) pairs from the real test splits, encoded and cut to 256 tokens."""
    rows = []
    for name in ("wice_oracle", "expertqa", "summedits", "begin", "dialfact_testsmall", "snli"):
        with open(os.path.join(FACTCHECK, f"{name}.jsonl")) as fh:
            rows += [r for r in map(json.loads, fh) if r["split"] != "dev"]
    random.Random(seed).shuffle(rows)
    enc = tok.encode_batch([((r["question"] + " " + r["answer"]).strip(), r["evidence"]) for r in rows[:n]])
    return [(e.ids, e.type_ids) for e in enc]


def stats(times):
    t = sorted(times)
    pick = lambda q: round(t[min(len(t) - 1, int(len(t) * q))], 2)
    return {"n": len(t), "p50_ms": pick(0.5), "p90_ms": pick(0.9), "p99_ms": pick(0.99), "mean_ms": round(statistics.mean(t), 2)}


def logits_of(sess, enc, bs=8):
    out = np.zeros((len(enc), 2), dtype=np.float32)
    order = sorted(range(len(enc)), key=lambda i: len(enc[i][0]))
    for j in range(0, len(order), bs):
        b = order[j:j + bs]
        ids, am, tt = pad_batch([enc[i] for i in b])
        out[b] = sess.run(["logits"], {"input_ids": ids, "attention_mask": am, "token_type_ids": tt})[0]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--int8", default=os.path.join(FCS, "ckpt", "v22.int8.onnx"))
    ap.add_argument("--out", default=os.path.join(FCS, "ckpt", "fast", "model.int8.onnx"))
    ap.add_argument("--pairs", type=int, default=400)
    ap.add_argument("--lat-n", type=int, default=200)
    ap.add_argument("--report", default=os.path.join(FCS, "reports", "export-fast.json"))
    a = ap.parse_args()
    torch.set_num_threads(1)
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    rep = {"int8_reference": os.path.relpath(a.int8, FCS)}
    with tempfile.TemporaryDirectory() as d:
        dequant = os.path.join(d, "dequant.onnx")
        subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "dequantize_int8.py"),
                        "--int8", a.int8, "--out", dequant], check=True)
        reference = load_from_onnx(dequant, FCS).eval()
        fast = fast_attention.patch(load_from_onnx(dequant, FCS).eval())
        # The same function in PyTorch, on a padded batch of mixed lengths.
        tok = get_tokenizer()
        enc = real_pairs(tok, a.pairs)
        ids, am, tt = (torch.from_numpy(x) for x in pad_batch(enc[:16]))
        with torch.no_grad():
            want = reference(input_ids=ids, attention_mask=am, token_type_ids=tt).logits
            got = fast(input_ids=ids, attention_mask=am, token_type_ids=tt).logits
        rep["torch_fast_vs_reference_max_abs_logit_diff"] = float((want - got).abs().max())
        fp32 = os.path.join(d, "fast.onnx")
        export_module(fast, fp32, 14)
        # The exported graph at every length (it was traced at one), against the unpatched model.
        with torch.no_grad():
            want = np.concatenate([reference(**dict(zip(("input_ids", "attention_mask", "token_type_ids"),
                                                        (torch.from_numpy(x) for x in pad_batch(enc[j:j + 8]))))).logits.numpy()
                                   for j in range(0, len(enc), 8)])
        got = np.concatenate([session(fp32, 1).run(["logits"], dict(zip(("input_ids", "attention_mask", "token_type_ids"),
                                                                        pad_batch(enc[j:j + 8]))))[0]
                              for j in range(0, len(enc), 8)])
        rep["onnx_fp32_fast_vs_torch_reference_max_abs_logit_diff"] = float(np.abs(want - got).max())
        from onnxruntime.quantization import quantize_dynamic, QuantType
        quantize_dynamic(fp32, a.out, weight_type=QuantType.QInt8, per_channel=False,
                         op_types_to_quantize=["MatMul", "Gather"])
    ref8, fast8 = session(a.int8, 1), session(a.out, 1)
    p_ref, p_fast = softmax1(logits_of(ref8, enc)), softmax1(logits_of(fast8, enc))
    lens = [len(i) for i, _ in enc]
    rep["int8_fast_vs_shipped"] = {
        "pairs": len(enc), "tokens_p50": int(np.median(lens)), "tokens_max": int(max(lens)),
        "label_agreement": float(((p_ref >= .5) == (p_fast >= .5)).mean()),
        "mean_abs_prob_diff": float(np.abs(p_ref - p_fast).mean()),
        "max_abs_prob_diff": float(np.abs(p_ref - p_fast).max()),
    }
    # Both INT8 graphs against the FP32 function they quantise (the unpatched model's logits above):
    # the fast graph should sit as close to it as the shipped one does.
    p_fp32 = softmax1(want)
    rep["int8_vs_fp32_function"] = {
        name: {"label_agreement": float(((p_fp32 >= .5) == (p >= .5)).mean()), "mean_abs_prob_diff": float(np.abs(p_fp32 - p).mean())}
        for name, p in (("shipped", p_ref), ("fast", p_fast))
    }
    rep["size_bytes"] = {"shipped": os.path.getsize(a.int8), "fast": os.path.getsize(a.out)}
    full = (list(range(1000, 1000 + 256)), [0] * 100 + [1] * 156)  # every token real: no padding
    lat = {}
    for label, length in (("real_pairs", None), ("seq64", 64), ("seq128", 128), ("seq256", 256)):
        inputs = enc if length is None else [(full[0][:length], full[1][:length])]
        # The two graphs alternate call by call, so load changes hit both alike.
        times = {"shipped": [], "fast": []}
        for k in range(a.lat_n + 10):
            ids_, tt_ = inputs[k % len(inputs)]
            feed = dict(zip(("input_ids", "attention_mask", "token_type_ids"), pad_batch([(ids_, tt_)])))
            for name, s in (("shipped", ref8), ("fast", fast8)):
                t = time.perf_counter()
                s.run(["logits"], feed)
                if k >= 10:
                    times[name].append((time.perf_counter() - t) * 1000)
        lat[label] = {name: stats(ts) for name, ts in times.items()}
        print(label, json.dumps(lat[label]), flush=True)
    rep["latency_batch1_1thread"] = lat
    rep["machine"] = {"cpus": os.cpu_count(), "load_average": os.getloadavg()}
    os.makedirs(os.path.dirname(a.report), exist_ok=True)
    json.dump(rep, open(a.report, "w"), indent=1)
    print(json.dumps(rep, indent=1))


if __name__ == "__main__":
    main()
