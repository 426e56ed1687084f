"""FP32 graph of the shipped INT8 model, for latency comparison only.

The trained FP32 export (model.onnx) is not committed and rebuilding it needs a training run. Latency
does not depend on weight values, so this rebuilds an FP32 graph from model.int8.onnx: every dynamic-
quantised MatMul (DynamicQuantizeLinear -> MatMulInteger -> Cast -> Mul by scales) becomes a float
MatMul with the dequantised weights W = (W_q - W_zp) * W_scale. Same architecture, same FLOPs as the
FP32 export; its outputs equal INT8's weights run in FP32 (close to, not equal to, the trained FP32).

  /tmp/fcs-venv/bin/python models/fcs/recipe/dequantize_int8.py \
      --int8 models/fcs/model.int8.onnx --out models/fcs/model.fp32-dequant.onnx
"""

import argparse

import numpy as np
import onnx
from onnx import helper, numpy_helper


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--int8", default="models/fcs/model.int8.onnx")
    ap.add_argument("--out", default="models/fcs/model.fp32-dequant.onnx")
    args = ap.parse_args()

    model = onnx.load(args.int8)
    g = model.graph
    inits = {i.name: i for i in g.initializer}
    consumers: dict[str, list[onnx.NodeProto]] = {}
    for n in g.node:
        for i in n.input:
            consumers.setdefault(i, []).append(n)
    producers = {o: n for n in g.node for o in n.output}

    remove: set[int] = set()
    add: list[onnx.NodeProto] = []
    new_inits: list[onnx.TensorProto] = []
    replaced = 0
    for n in g.node:
        if n.op_type != "MatMulInteger":
            continue
        dq = producers.get(n.input[0])
        if dq is None or dq.op_type != "DynamicQuantizeLinear":
            continue
        w_q = numpy_helper.to_array(inits[n.input[1]]).astype(np.float32)
        w_zp = numpy_helper.to_array(inits[n.input[3]]).astype(np.float32) if len(n.input) > 3 and n.input[3] else 0.0
        cast = consumers[n.output[0]][0]
        mul = consumers[cast.output[0]][0]
        # The other input of the final Mul is A_scale * W_scale; find W_scale (an initializer).
        scale_node = producers[[i for i in mul.input if i != cast.output[0]][0]]
        w_scale_name = [i for i in scale_node.input if i in inits][0]
        w_scale = numpy_helper.to_array(inits[w_scale_name]).astype(np.float32)
        w = (w_q - w_zp) * w_scale
        w_name = n.input[1] + "_fp32"
        new_inits.append(numpy_helper.from_array(w.astype(np.float32), w_name))
        add.append(helper.make_node("MatMul", [dq.input[0], w_name], [mul.output[0]], name=n.name + "_fp32"))
        for node in (n, cast, mul, scale_node):
            remove.add(id(node))
        replaced += 1

    kept = [n for n in g.node if id(n) not in remove]
    # DynamicQuantizeLinear nodes whose outputs are no longer used are dropped too.
    used = {i for n in kept + add for i in n.input} | {o.name for o in g.output}
    kept = [n for n in kept if not (n.op_type == "DynamicQuantizeLinear" and not any(o in used for o in n.output))]
    del g.node[:]
    g.node.extend(_toposort(kept + add, [i.name for i in g.input] + [i.name for i in g.initializer] + [i.name for i in new_inits]))
    g.initializer.extend(new_inits)
    used = {i for n in g.node for i in n.input}
    live = [i for i in g.initializer if i.name in used]
    del g.initializer[:]
    g.initializer.extend(live)
    onnx.checker.check_model(model)
    onnx.save(model, args.out)
    print(f"replaced {replaced} quantised MatMuls; wrote {args.out}")


def _toposort(nodes: list[onnx.NodeProto], available: list[str]) -> list[onnx.NodeProto]:
    have = set(available) | {""}
    out: list[onnx.NodeProto] = []
    pending = list(nodes)
    while pending:
        progressed = False
        rest = []
        for n in pending:
            if all(i in have for i in n.input):
                out.append(n)
                have.update(n.output)
                progressed = True
            else:
                rest.append(n)
        if not progressed:
            raise RuntimeError(f"cannot order {len(rest)} nodes, e.g. {rest[0].name} needs {[i for i in rest[0].input if i not in have]}")
        pending = rest
    return out


if __name__ == "__main__":
    main()
