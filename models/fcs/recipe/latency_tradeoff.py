"""Latency side of the accuracy/latency trade-off: INT8 onnxruntime batch-1 latency of the same
architecture with fewer layers (first N MiniLM layers transplanted; latency does not depend on the
weight values, so these variants are NOT fine-tuned) at several fixed sequence lengths.

  OMP_NUM_THREADS=1 nice -n 15 python recipe/latency_tradeoff.py --layers 6 4 3 --seq 64 128 256
Writes models/fcs/reports/latency_tradeoff.json.
"""
import argparse, json, os, sys, tempfile
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import FCS
from transplant import transplant
from export import export, session, latency


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--layers", type=int, nargs="+", default=[6, 4, 3])
    ap.add_argument("--seq", type=int, nargs="+", default=[64, 128, 256])
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--n", type=int, default=100)
    a = ap.parse_args()
    torch.set_num_threads(1)
    from onnxruntime.quantization import quantize_dynamic, QuantType
    res = []
    enc = [([101] + [2000 + i for i in range(300)], [0] * 301)]
    for L in a.layers:
        with tempfile.TemporaryDirectory() as d:
            m, _ = transplant(L); m.save_pretrained(d)
            export(d, os.path.join(d, "m.onnx"), 14)
            quantize_dynamic(os.path.join(d, "m.onnx"), os.path.join(d, "m8.onnx"), weight_type=QuantType.QInt8,
                             op_types_to_quantize=["MatMul", "Gather"])
            size = os.path.getsize(os.path.join(d, "m8.onnx"))
            for th in a.threads:
                s = session(os.path.join(d, "m8.onnx"), th)
                for S in a.seq:
                    r = {"layers": L, "seq": S, "threads": th, "int8_bytes": size, **latency(s, enc, a.n, seqlen=S, warm=10)}
                    print(json.dumps(r), flush=True); res.append(r)
    os.makedirs(os.path.join(FCS, "reports"), exist_ok=True)
    json.dump(res, open(os.path.join(FCS, "reports", "latency_tradeoff.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
