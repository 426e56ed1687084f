"""Fine-tune the MiniLM->DeBERTa-v2 transplant (recipe/transplant.py) as a binary FCS classifier.

CPU, 1 thread (run under `nice -n 15`, OMP_NUM_THREADS=1).  Data: models/fcs/data/train.jsonl
(FCS triples) + SNLI `dev` split binarised (entailment=1).  Dynamic padding with length-sorted
buckets.  Checkpoints (model + optimiser + sampler position) every --ckpt-every steps into
--ckpt-dir/last.pt; `--resume` continues from there.  The final model is saved with
save_pretrained() into --ckpt-dir/final.

Example (what produced the committed model):
  OMP_NUM_THREADS=1 nice -n 15 python recipe/train.py --steps 700 --snli 3000
"""
import argparse, json, math, os, random, sys, time
import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import FCS, load_jsonl, load_snli, get_tokenizer, encode, pad_batch, resume_checkpoint, save_checkpoint
from transplant import transplant


def batches(items, bs, rng, chunk=64):
    idx = list(range(len(items)))
    rng.shuffle(idx)
    out = []
    for c in range(0, len(idx), bs * chunk):
        part = sorted(idx[c:c + bs * chunk], key=lambda i: len(items[i][0]))
        out += [part[j:j + bs] for j in range(0, len(part), bs)]
    rng.shuffle(out)
    return out


@torch.no_grad()
def predict(model, enc, bs=32):
    model.eval()
    order = sorted(range(len(enc)), key=lambda i: len(enc[i][0]))
    probs = np.zeros(len(enc), dtype=np.float32)
    for j in range(0, len(order), bs):
        b = order[j:j + bs]
        ids, am, tt = pad_batch([enc[i] for i in b])
        lo = model(input_ids=torch.from_numpy(ids), attention_mask=torch.from_numpy(am),
                   token_type_ids=torch.from_numpy(tt)).logits
        probs[b] = torch.softmax(lo, -1)[:, 1].numpy()
    model.train()
    return probs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=700)
    ap.add_argument("--bs", type=int, default=16)
    ap.add_argument("--lr", type=float, default=6e-5)
    ap.add_argument("--new-lr-mult", type=float, default=3.0, help="LR multiplier for newly initialised params")
    ap.add_argument("--warmup", type=float, default=0.06)
    ap.add_argument("--snli", type=int, default=3000, help="SNLI dev pairs mixed into training")
    ap.add_argument("--max-train-tokens", type=int, default=200, help="truncate training inputs (inference uses 256)")
    ap.add_argument("--layers", type=int, default=None)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--ckpt-dir", default=os.path.join(FCS, "ckpt"))
    ap.add_argument("--ckpt-every", type=int, default=50)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--max-minutes", type=float, default=0, help="stop (and checkpoint) after this wall time")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    random.seed(a.seed); np.random.seed(a.seed); torch.manual_seed(a.seed)
    os.makedirs(a.ckpt_dir, exist_ok=True)
    log = open(os.path.join(a.ckpt_dir, "train_log.jsonl"), "a")

    tok = get_tokenizer()
    tok.enable_truncation(max_length=a.max_train_tokens, strategy="longest_first")
    fcs = load_jsonl(os.path.join(FCS, "data", "train.jsonl"))
    snli = load_snli("dev")
    random.Random(a.seed).shuffle(snli)
    data = fcs + snli[:a.snli]
    enc = encode(tok, data)
    labels = [e["label"] for e in data]
    print(f"train examples: fcs {len(fcs)} + snli {min(a.snli, len(snli))} = {len(data)}; "
          f"mean tokens {np.mean([len(i) for i, _ in enc]):.1f}", flush=True)

    model, info = transplant(a.layers, seed=a.seed)
    for p in model.deberta.embeddings.word_embeddings.parameters():
        p.requires_grad = False  # frozen: keeps the pretrained vocabulary geometry, saves time
    new = set(info["randomly_initialised"]) | set(info["zero_initialised"])
    named = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    nd = lambda n: n.endswith("bias") or "LayerNorm" in n
    groups = [
        {"params": [p for n, p in named if n not in new and not nd(n)], "weight_decay": 0.01, "lr": a.lr},
        {"params": [p for n, p in named if n not in new and nd(n)], "weight_decay": 0.0, "lr": a.lr},
        {"params": [p for n, p in named if n in new], "weight_decay": 0.0, "lr": a.lr * a.new_lr_mult},
    ]
    for g in groups:
        g["base_lr"] = g["lr"]
    opt = torch.optim.AdamW(groups, betas=(0.9, 0.98), eps=1e-6)
    warm = max(1, int(a.warmup * a.steps))
    sched = lambda s: min(1.0, (s + 1) / warm) * max(0.0, (a.steps - s) / max(1, a.steps - warm))

    ck = os.path.join(a.ckpt_dir, "last.pt")
    step, epoch, pos = resume_checkpoint(ck, model, opt) if a.resume else (0, 0, 0)
    model.train()
    order = batches(enc, a.bs, random.Random(a.seed + epoch))
    t0 = time.time(); tl, tn, tc = 0.0, 0, 0; step0 = step
    while step < a.steps:
        if pos >= len(order):
            epoch += 1; pos = 0; order = batches(enc, a.bs, random.Random(a.seed + epoch))
        b = order[pos]; pos += 1
        ids, am, tt = pad_batch([enc[i] for i in b])
        y = torch.tensor([labels[i] for i in b])
        for g in opt.param_groups:
            g["lr"] = g["base_lr"] * sched(step)
        out = model(input_ids=torch.from_numpy(ids), attention_mask=torch.from_numpy(am),
                    token_type_ids=torch.from_numpy(tt), labels=y)
        out.loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step(); opt.zero_grad(set_to_none=True)
        step += 1
        tl += out.loss.item() * len(b); tn += len(b); tc += (out.logits.argmax(-1) == y).sum().item()
        if step % 10 == 0:
            el = time.time() - t0
            rec = {"step": step, "epoch": epoch, "loss": tl / tn, "acc": tc / tn, "lr": opt.param_groups[0]["lr"],
                   "elapsed_s": round(el, 1), "s_per_step": round(el / max(1, step - step0), 2)}
            print(json.dumps(rec), flush=True); log.write(json.dumps(rec) + "\n"); log.flush()
            tl, tn, tc = 0.0, 0, 0
        stop = a.max_minutes and (time.time() - t0) > a.max_minutes * 60
        if step % a.ckpt_every == 0 or step == a.steps or stop:
            save_checkpoint(ck, model, opt, step, epoch, pos, a)
        if stop:
            print(f"time budget reached at step {step}; resume with --resume", flush=True)
            return
    train_s = time.time() - t0
    final = os.path.join(a.ckpt_dir, "final")
    model.save_pretrained(final)
    # quick dev check (PyTorch FP32)
    dev = load_jsonl(os.path.join(FCS, "data", "dev.jsonl"))
    tok.enable_truncation(max_length=256, strategy="longest_first")
    p = predict(model, encode(tok, dev))
    yy = np.array([e["label"] for e in dev]); pr = (p >= 0.5).astype(int)
    tp = ((pr == 1) & (yy == 1)).sum(); f1 = 2 * tp / max(1, (pr == 1).sum() + (yy == 1).sum())
    summ = {"final_step": step, "train_seconds_this_run": round(train_s, 1), "dev_acc": float((pr == yy).mean()),
            "dev_f1_consistent": float(f1), "n_train_examples": len(data), "epochs_seen": step * a.bs / len(data)}
    print(json.dumps(summ), flush=True)
    json.dump(summ, open(os.path.join(final, "train_summary.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
