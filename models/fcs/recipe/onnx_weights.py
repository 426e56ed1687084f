"""Recover a PyTorch DeBERTa-v2 classifier from the shipped ONNX graph, to fine-tune it further.

The FP32 training checkpoint of the v1 model was never committed; the INT8 model was. recipe/dequantize_int8.py
turns it into an FP32 graph (W = (W_q - zp) * scale); this reads that graph back into
DebertaV2ForSequenceClassification. Named initialisers ("m.<state_dict key>") map directly; a MatMul's weight
is found through the Add that follows it, whose bias is named "<module>.bias" (ONNX stores W transposed).
The recovered model carries the INT8 rounding of its weights (about 0.4 % of each tensor's range), which
fine-tuning absorbs.
"""
import numpy as np
import onnx
import torch
from onnx import numpy_helper


def onnx_state_dict(path):
    g = onnx.load(path).graph
    inits = {i.name: numpy_helper.to_array(i) for i in g.initializer}
    consumers = {}
    for n in g.node:
        for x in n.input:
            consumers.setdefault(x, []).append(n)
    sd = {k[2:]: v for k, v in inits.items() if k.startswith("m.")}
    for n in g.node:
        if n.op_type != "MatMul":
            continue
        w = [x for x in n.input if x in inits]
        if not w:
            continue
        bias = [x for c in consumers.get(n.output[0], []) if c.op_type == "Add" for x in c.input
                if x.startswith("m.") and x.endswith(".bias")]
        if len(bias) != 1:
            raise ValueError(f"MatMul {n.name}: cannot name its weight (biases {bias})")
        sd[bias[0][2:-len(".bias")] + ".weight"] = inits[w[0]].T
    # Embedding tables stay quantised (Gather on uint8): W = (W_q - zp) * scale.
    for k in [k for k in sd if k.endswith("_quantized")]:
        base = k[: -len("_quantized")]
        q = sd.pop(k).astype(np.float32)
        sd[base] = (q - np.float32(sd.pop(base + "_zero_point"))) * np.float32(sd.pop(base + "_scale"))
    # dequantize_int8.py's float copies of MatMul weights, already named through their bias above.
    for k in [k for k in sd if k.endswith("_quantized_fp32")]:
        del sd[k]
    return sd


def load_from_onnx(path, config_dir):
    from transformers import DebertaV2Config, DebertaV2ForSequenceClassification
    cfg = DebertaV2Config.from_pretrained(config_dir)
    model = DebertaV2ForSequenceClassification(cfg)
    sd = onnx_state_dict(path)
    own = model.state_dict()
    missing = [k for k in own if k not in sd]
    unexpected = [k for k in sd if k not in own]
    if missing or unexpected:
        raise ValueError(f"ONNX -> state_dict: missing {missing[:8]}, unexpected {unexpected[:8]}")
    model.load_state_dict({k: torch.from_numpy(np.ascontiguousarray(v)).to(own[k].dtype).reshape(own[k].shape) for k, v in sd.items()})
    return model
