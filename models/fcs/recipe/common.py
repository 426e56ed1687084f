"""Shared input formatting for train / export / evaluate.  The TypeScript runtime must reproduce
`pair_text`: text_a = question + " " + answer, text_b = evidence passages joined by " ", encoded as
a BERT pair ([CLS] a [SEP] b [SEP], token_type_ids 0/1) with the committed tokenizer.json,
longest-first truncation to MAX_LEN tokens."""
import json, os

MAX_LEN = 256
HERE = os.path.dirname(os.path.abspath(__file__))
FCS = os.path.dirname(HERE)
ESNLI = os.environ.get("ESNLI", "/work/shared/data/esnli/snli-dev-test.jsonl")


def pair_text(ex):
    a = (ex.get("question", "") + " " + ex["answer"]).strip()
    b = " ".join(ex["evidence"]) if isinstance(ex["evidence"], list) else ex["evidence"]
    return a, b


def load_jsonl(p):
    with open(p) as fh:
        return [json.loads(l) for l in fh]


def load_snli(split):
    out = []
    for r in load_jsonl(ESNLI):
        if r["split"] == split:
            out.append({"question": "", "answer": r["hypothesis"], "evidence": [r["premise"]],
                        "label": 1 if r["label"] == "entailment" else 0, "kind": "snli_" + r["label"],
                        "source": "snli-" + split})
    return out


def get_tokenizer(path=None):
    from tokenizers import Tokenizer
    tok = Tokenizer.from_file(path or os.path.join(FCS, "tokenizer.json"))
    tok.enable_truncation(max_length=MAX_LEN, strategy="longest_first")
    tok.no_padding()
    return tok


def encode(tok, exs):
    enc = tok.encode_batch([pair_text(e) for e in exs])
    return [(e.ids, e.type_ids) for e in enc]


def pad_batch(items):
    import numpy as np
    L = max(len(i) for i, _ in items)
    ids = np.zeros((len(items), L), dtype=np.int64)
    tt = np.zeros((len(items), L), dtype=np.int64)
    am = np.zeros((len(items), L), dtype=np.int64)
    for r, (i, t) in enumerate(items):
        ids[r, :len(i)] = i; tt[r, :len(t)] = t; am[r, :len(i)] = 1
    return ids, am, tt


def save_checkpoint(path, model, opt, step, epoch, pos, args):
    """Model, optimiser and sampler position, written atomically so a killed run resumes cleanly."""
    import torch
    torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step, "epoch": epoch,
                "pos": pos, "torch_rng": torch.get_rng_state(), "args": vars(args)}, path + ".tmp")
    os.replace(path + ".tmp", path)


def resume_checkpoint(path, model, opt):
    """(step, epoch, pos) from a checkpoint written by save_checkpoint, or zeros when there is none."""
    import torch
    if not os.path.exists(path):
        return 0, 0, 0
    st = torch.load(path, weights_only=False)
    model.load_state_dict(st["model"]); opt.load_state_dict(st["opt"])
    torch.set_rng_state(st["torch_rng"])
    print(f"resumed at step {st['step']} (epoch {st['epoch']}, batch {st['pos']})", flush=True)
    return st["step"], st["epoch"], st["pos"]
