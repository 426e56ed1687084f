"""Export a train_v3.py student checkpoint the way the shipped v2.3 model is built, and check parity.

The checkpoint's weights (fcs-train/<run>/last.pt) go onto the shipped MiniLM-L6 DeBERTa-v2 graph, which is
patched with the fast attention (recipe/fast_attention.py, as export_fast.py does for v2.3), traced to FP32
ONNX, dynamically quantised to INT8 with recipe/export.py's settings, and its int8 weights re-expressed as
uint8 (models/recipe/u8_weights.py, what ships since 2026-12-02). Parity, on real (claim, evidence) pairs of
the factcheck test splits: the FP32 graph against the unpatched PyTorch model (max |logit| difference) and
the INT8 graph against the FP32 function (label agreement at 0.5, mean / max |dp|). Nothing is copied over
the shipped model: point real-eval.ts --model at the INT8 file.

  nice -n 10 models/fcs/.venv/bin/python models/fcs/recipe/export_v3.py --run a3 \
      [--out-dir ~/.cache/rag-immune-tools/fcs-train/a3/export] [--pairs 400]
Needs models/fcs/model.fp32-dequant.onnx (recipe/dequantize_int8.py), the graph the student starts from.
"""
import argparse, json, os, sys, time
import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "recipe"))
from common import FCS, get_tokenizer, pad_batch
from export import export_module, session, softmax1
from export_fast import logits_of, real_pairs
import fast_attention
from onnx_weights import load_from_onnx
from train_v3 import TRAIN_DIR


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--run", required=True)
    ap.add_argument("--out-dir", default=None, help="default fcs-train/<run>/export")
    ap.add_argument("--pairs", type=int, default=400)
    ap.add_argument("--per-channel", action="store_true",
                    help="one scale and zero point per weight column (per tensor otherwise, as v2.3 ships)")
    ap.add_argument("--ops", default="MatMul,Gather", help="op types to quantise (Gather: the embeddings)")
    ap.add_argument("--checkpoint", default=None, help="default fcs-train/<run>/last.pt")
    a = ap.parse_args()
    torch.set_num_threads(1)
    run_dir = os.path.join(TRAIN_DIR, a.run)
    out = a.out_dir or os.path.join(run_dir, "export")
    os.makedirs(out, exist_ok=True)
    st = torch.load(a.checkpoint or os.path.join(run_dir, "last.pt"), weights_only=False)
    dequant = os.path.join(FCS, "model.fp32-dequant.onnx")
    reference = load_from_onnx(dequant, FCS).eval()
    reference.load_state_dict(st["model"])
    fast = fast_attention.patch(load_from_onnx(dequant, FCS).eval())
    fast.load_state_dict(st["model"])
    rep = {"run": a.run, "checkpoint_step": st["step"], "checkpoint_epoch": st["epoch"],
           "train_args": {k: st["args"].get(k) for k in ("epochs", "bs", "lr", "hold_out_fit", "exclude_sets", "seed")}}
    fp32 = os.path.join(out, "model.fp32.onnx")
    int8_s8 = os.path.join(out, "model.int8-s8.onnx")
    int8 = os.path.join(out, "model.int8.onnx")
    t = time.time()
    export_module(fast, fp32, 14)
    from onnxruntime.quantization import quantize_dynamic, QuantType
    ops = [o for o in a.ops.split(",") if o]
    quantize_dynamic(fp32, int8_s8, weight_type=QuantType.QInt8, per_channel=a.per_channel,
                     op_types_to_quantize=ops)
    rep["quantisation"] = {"per_channel": a.per_channel, "ops": ops}
    import onnx
    from u8_weights import rewrite
    m = onnx.load(int8_s8)
    rep["u8_tensors"] = rewrite(m)
    onnx.checker.check_model(m)
    onnx.save(m, int8)
    os.remove(int8_s8)
    rep["export_s"] = round(time.time() - t, 1)
    enc = real_pairs(get_tokenizer(), a.pairs)
    with torch.no_grad():
        want = np.concatenate([reference(**dict(zip(("input_ids", "attention_mask", "token_type_ids"),
                                                    (torch.from_numpy(x) for x in pad_batch(enc[j:j + 8]))))).logits.numpy()
                               for j in range(0, len(enc), 8)])
    got32 = logits_of(session(fp32, 1), enc)
    got8 = logits_of(session(int8, 1), enc)
    p_ref, p8 = softmax1(want), softmax1(got8)
    lens = [len(i) for i, _ in enc]
    rep["parity"] = {
        "pairs": len(enc), "tokens_p50": int(np.median(lens)), "tokens_max": int(max(lens)),
        "onnx_fp32_fast_vs_torch_max_abs_logit_diff": float(np.abs(want - got32).max()),
        "int8_vs_fp32_label_agreement": float(((p_ref >= .5) == (p8 >= .5)).mean()),
        "int8_vs_fp32_mean_abs_prob_diff": float(np.abs(p_ref - p8).mean()),
        "int8_vs_fp32_max_abs_prob_diff": float(np.abs(p_ref - p8).max()),
    }
    rep["size_bytes"] = {"fp32": os.path.getsize(fp32), "int8": os.path.getsize(int8)}
    rep["machine"] = {"cpus": os.cpu_count(), "load_average": [round(x, 2) for x in os.getloadavg()]}
    json.dump(rep, open(os.path.join(out, "export-report.json"), "w"), indent=1)
    print(json.dumps(rep, indent=1))


if __name__ == "__main__":
    main()
