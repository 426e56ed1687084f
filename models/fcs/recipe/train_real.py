"""FCS v2 model: fine-tune the shipped classifier on real, human-labelled dev data, the way v2 reads it.

Input: the pairs packages/fcs/scripts/training-pairs.ts writes (per triple: claims x ranked evidence chunks,
exactly what the runtime scores). Loss: v2's aggregation made differentiable -- the triple's log-odds is the
min over claims of the max over chunks of the pair log-odds (multiple-instance learning), trained with
binary cross-entropy on the triple's human label. A supported answer needs every claim supported by some
chunk; an unsupported one needs its weakest claim unsupported by every chunk -- nobody labelled which chunk
or which claim, and this loss does not need them to.

Start: the v1 model recovered from its ONNX graph (recipe/onnx_weights.py). CPU, checkpoints every
--ckpt-every steps, --resume continues, --max-minutes stops cleanly.

  .venv/bin/python recipe/train_real.py --pairs ckpt/real-pairs.jsonl --init model.fp32-dequant.onnx \
      --epochs 1 --threads 2 --ckpt-dir ckpt/real
"""
import argparse, json, os, random, sys, time
import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import FCS, resume_checkpoint, save_checkpoint
from onnx_weights import load_from_onnx

# Per-set weight of a triple's loss: the real sets carry the task; SNLI and the synthetic Debian set keep
# what the model already knows (short NLI, the reference RAG's package facts) from being forgotten.
SET_WEIGHT = {"snli": 0.5, "synthetic": 0.5}


def load_triples(path):
    triples = []
    with open(path) as fh:
        for line in fh:
            r = json.loads(line)
            triples.append({"set": r["set"], "label": r["label"], "pairs": r["pairs"],
                            "n": sum(len(c) for c in r["pairs"]),
                            "tokens": max(len(p[0]) for c in r["pairs"] for p in c)})
    return triples


def batches(triples, max_pairs, rng):
    """Triples grouped so a batch holds at most max_pairs pairs, similar lengths together."""
    idx = list(range(len(triples)))
    rng.shuffle(idx)
    out = []
    for c in range(0, len(idx), 512):
        part = sorted(idx[c:c + 512], key=lambda i: triples[i]["tokens"])
        cur, n = [], 0
        for i in part:
            if cur and n + triples[i]["n"] > max_pairs:
                out.append(cur); cur, n = [], 0
            cur.append(i); n += triples[i]["n"]
        if cur:
            out.append(cur)
    rng.shuffle(out)
    return out


def forward_triples(model, triples):
    """Per triple: min over claims of max over chunks of log P(consistent)/P(inconsistent)."""
    flat = [p for t in triples for c in t["pairs"] for p in c]
    L = max(len(p[0]) for p in flat)
    ids = torch.zeros((len(flat), L), dtype=torch.long); tt = torch.zeros_like(ids); am = torch.zeros_like(ids)
    for r, (i, t) in enumerate(flat):
        ids[r, :len(i)] = torch.tensor(i); tt[r, :len(t)] = torch.tensor(t); am[r, :len(i)] = 1
    lo = model(input_ids=ids, attention_mask=am, token_type_ids=tt).logits
    z = lo[:, 1] - lo[:, 0]
    out, k = [], 0
    for t in triples:
        claim_scores = []
        for c in t["pairs"]:
            claim_scores.append(z[k:k + len(c)].max()); k += len(c)
        out.append(torch.stack(claim_scores).min())
    return torch.stack(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", default=os.path.join(FCS, "ckpt", "real-pairs.jsonl"))
    ap.add_argument("--init", default=os.path.join(FCS, "model.fp32-dequant.onnx"))
    ap.add_argument("--epochs", type=float, default=1.0)
    ap.add_argument("--max-pairs", type=int, default=24, help="pairs per optimiser step")
    ap.add_argument("--lr", type=float, default=3e-5)
    ap.add_argument("--warmup", type=float, default=0.06)
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--ckpt-dir", default=os.path.join(FCS, "ckpt", "real"))
    ap.add_argument("--ckpt-every", type=int, default=50)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--max-minutes", type=float, default=0)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    random.seed(a.seed); np.random.seed(a.seed); torch.manual_seed(a.seed)
    os.makedirs(a.ckpt_dir, exist_ok=True)
    log = open(os.path.join(a.ckpt_dir, "train_log.jsonl"), "a")

    triples = load_triples(a.pairs)
    model = load_from_onnx(a.init, FCS)
    for p in model.deberta.embeddings.word_embeddings.parameters():
        p.requires_grad = False  # keeps the pretrained vocabulary geometry; the real sets are small
    per_epoch = len(batches(triples, a.max_pairs, random.Random(0)))
    steps = max(1, int(a.epochs * per_epoch))
    named = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    nd = lambda n: n.endswith("bias") or "LayerNorm" in n
    opt = torch.optim.AdamW([
        {"params": [p for n, p in named if not nd(n)], "weight_decay": 0.01},
        {"params": [p for n, p in named if nd(n)], "weight_decay": 0.0}], lr=a.lr, betas=(0.9, 0.98), eps=1e-6)
    warm = max(1, int(a.warmup * steps))
    sched = lambda s: min(1.0, (s + 1) / warm) * max(0.0, (steps - s) / max(1, steps - warm))
    counts = {}
    for t in triples:
        counts[t["set"]] = counts.get(t["set"], 0) + 1
    print(json.dumps({"triples": len(triples), "per_set": counts, "pairs": sum(t["n"] for t in triples),
                      "steps": steps, "steps_per_epoch": per_epoch}), flush=True)

    ck = os.path.join(a.ckpt_dir, "last.pt")
    step, epoch, pos = resume_checkpoint(ck, model, opt) if a.resume else (0, 0, 0)
    model.train()
    order = batches(triples, a.max_pairs, random.Random(a.seed + epoch))
    t0 = time.time(); tl, tn, tc = 0.0, 0, 0; step0 = step
    while step < steps:
        if pos >= len(order):
            epoch += 1; pos = 0; order = batches(triples, a.max_pairs, random.Random(a.seed + epoch))
        b = [triples[i] for i in order[pos]]; pos += 1
        for g in opt.param_groups:
            g["lr"] = a.lr * sched(step)
        z = forward_triples(model, b)
        y = torch.tensor([float(t["label"]) for t in b])
        w = torch.tensor([SET_WEIGHT.get(t["set"], 1.0) for t in b])
        loss = (torch.nn.functional.binary_cross_entropy_with_logits(z, y, reduction="none") * w).sum() / w.sum()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step(); opt.zero_grad(set_to_none=True)
        step += 1
        tl += loss.item() * len(b); tn += len(b); tc += ((z > 0).float() == y).sum().item()
        if step % 10 == 0:
            el = time.time() - t0
            rec = {"step": step, "of": steps, "epoch": epoch, "loss": round(tl / tn, 4), "acc": round(tc / tn, 3),
                   "lr": opt.param_groups[0]["lr"], "elapsed_s": round(el, 1), "s_per_step": round(el / max(1, step - step0), 2)}
            print(json.dumps(rec), flush=True); log.write(json.dumps(rec) + "\n"); log.flush()
            tl, tn, tc = 0.0, 0, 0
        stop = a.max_minutes and (time.time() - t0) > a.max_minutes * 60
        if step % a.ckpt_every == 0 or step == steps or stop:
            save_checkpoint(ck, model, opt, step, epoch, pos, a)
        if stop:
            print(f"time budget reached at step {step}; resume with --resume", flush=True)
            break
    final = os.path.join(a.ckpt_dir, "final")
    model.save_pretrained(final)
    json.dump({"final_step": step, "planned_steps": steps, "train_seconds_this_run": round(time.time() - t0, 1),
               "triples": len(triples), "per_set": counts, "args": vars(a)},
              open(os.path.join(final, "train_summary.json"), "w"), indent=1)
    print(f"saved {final}", flush=True)


if __name__ == "__main__":
    main()
