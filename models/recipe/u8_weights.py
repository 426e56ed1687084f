"""Re-expresses the int8 weights of a dynamically quantised ONNX model as uint8, exactly.

Every int8 initializer feeding a MatMulInteger as its B input (the weight) or its B zero point becomes
uint8 with 128 added: B_u8 - zp_u8 = (B_s8 + 128) - (zp_s8 + 128) = B_s8 - zp_s8, so the integer
products, and hence the model's function, are unchanged. Why: ONNX Runtime's x64 kernels for uint8
activations x int8 weights multiply with vpmaddubsw, which adds two products into a saturating int16;
on CPUs without VNNI (AVX2-only, e.g. the AMD EPYC machines of 2026-12-02) that overflow changes the
results (the embedder fell to cosine 0.98566 against PyTorch, under the 0.99 it meets elsewhere). The
uint8 x uint8 kernels widen to int16 before multiplying and never saturate, on any CPU; on VNNI CPUs
the integer results are the same as before.

  python models/recipe/u8_weights.py <in.onnx> <out.onnx>      (needs the onnx package)
"""
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def rewrite(model: onnx.ModelProto) -> int:
    inits = {t.name: t for t in model.graph.initializer}
    done: set[str] = set()
    for node in model.graph.node:
        if node.op_type != "MatMulInteger":
            continue
        if len(node.input) < 4 or node.input[3] == "":
            raise SystemExit(f"{node.name}: MatMulInteger without a B zero point (int8 weights need one of 0 to shift)")
        for name in (node.input[1], node.input[3]):
            tensor = inits.get(name)
            if tensor is None or name in done or tensor.data_type != onnx.TensorProto.INT8:
                continue
            shifted = (numpy_helper.to_array(tensor).astype(np.int16) + 128).astype(np.uint8)
            tensor.CopyFrom(numpy_helper.from_array(shifted, name))
            done.add(name)
    return len(done)


if __name__ == "__main__":
    src, dst = sys.argv[1], sys.argv[2]
    model = onnx.load(src)
    count = rewrite(model)
    onnx.checker.check_model(model)
    onnx.save(model, dst)
    print(f"{count} int8 tensors re-expressed as uint8: {dst}")
