"""FCS v3 training on the real-data set of build_dataset_v3.py, on this machine's CPU, in resumable chunks.

Options (issue 41), cheapest first:
  --model student   (a) the shipped MiniLM-L6 DeBERTa-v2 graph (config.json here), initialised from the shipped
                        weights (--init onnx: model.fp32-dequant.onnx, made by recipe/dequantize_int8.py) or from
                        the MiniLM transplant (--init transplant), fine-tuned on the v3 pairs; the same runtime cost.
                        With --teacher-logits it is (b)'s student: loss = (1-alpha) BCE(label) + alpha KL(teacher).
  --model teacher   (b) all-mpnet-base-v2 (scripts/install-mpnet.sh) with a new 2-way head, as a cross-encoder.
  label             writes the teacher's logits over the v3 train set, for the student's distillation.

Input per row: text_a = question + answer, text_b = the evidence window that shares most words with the answer
(sentence windows of about --window-words words), truncated to --max-tokens (128 = the runtime's window).

Checkpoints outside git: $RAG_IMMUNE_TOOLS_DIR/fcs-train/<run>/last.pt (model, optimiser, sampler position,
RNG); --resume continues; --max-minutes stops cleanly (run it in chunks of <= 15 minutes). A tqdm bar shows
steps done and time left. Run only under the bench lock, 2 threads, niced:

  flock /tmp/bench.lock nice -n 10 models/fcs/.venv/bin/python models/fcs/recipe/train_v3.py \
      --model student --run a1 --epochs 1 --max-minutes 14 --resume
  ... --model student --run a1 --prepare          # encode once, niced, WITHOUT the lock (minutes)
  ... --model student --run a1 --throughput 10     # measure only: 10 steps, prints the CPU-hours plan
  ... --model student --run a1 --eval              # balanced accuracy per set on v3 dev.jsonl (FP32)
"""
import argparse, hashlib, json, math, os, random, re, sys, time
import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import FCS, resume_checkpoint, save_checkpoint

TOOLS = os.environ.get("RAG_IMMUNE_TOOLS_DIR", os.path.expanduser("~/.cache/rag-immune-tools"))
DATA = os.path.join(TOOLS, "fcs-data", "v3")
TRAIN_DIR = os.path.join(TOOLS, "fcs-train")
MPNET = os.path.join(TOOLS, "models", "all-mpnet-base-v2-0.0.1", "all-mpnet-base-v2")
# Per-set loss weight: real human/NLI labels carry the task; SNLI and the synthetic Debian triples keep what the
# v2 model knows (short NLI, the reference RAG's package facts) from being forgotten.
SET_WEIGHT = {"snli": 0.5, "synthetic": 0.5}
WORD = re.compile(r"[a-z0-9]+")
SENT = re.compile(r"(?<=[.!?])\s+|\n+")


def words(s):
    return WORD.findall(s.lower())


def best_window(answer, evidence, budget):
    """The run of consecutive evidence sentences (about `budget` words) sharing most word types with the answer:
    a cheap stand-in for the runtime's chunk ranking, so long documents are not just cut at their head."""
    text = "\n".join(evidence)
    if len(text.split()) <= budget:
        return text
    sents = [s for s in SENT.split(text) if s.strip()]
    aw = set(words(answer))
    lens = [len(s.split()) for s in sents]
    best, best_i, best_j = -1.0, 0, 1
    for i in range(len(sents)):
        n, j, cover = 0, i, set()
        while j < len(sents) and (n == 0 or n + lens[j] <= budget):
            n += lens[j]; cover |= set(words(sents[j])); j += 1
        score = len(aw & cover) / max(1, len(aw))
        if score > best:
            best, best_i, best_j = score, i, j
    return " ".join(sents[best_i:best_j])


def dev_part(row_id):
    """'fit' or 'train': the same split of a factcheck dev id as `devPart` in packages/fcs/scripts/real-eval.ts
    (a WiCE claim and its oracle twin on the same side), so the combination can be fitted on the 'fit' part
    the model never trained on (--hold-out-fit), the way V2.md's v2.1 candidate was."""
    claim = re.sub(r"^wice_oracle-", "wice-", row_id)
    return "fit" if int(hashlib.sha1(f"fcs-dev-part:{claim}".encode()).hexdigest()[:2], 16) < 52 else "train"


def load_rows(split, exclude, hold_out_fit=False):
    rows = []
    with open(os.path.join(DATA, f"{split}.jsonl"), encoding="utf-8") as fh:
        for line in fh:
            r = json.loads(line)
            if any(r["set"].startswith(p) for p in exclude):
                continue
            if hold_out_fit and r["set"].startswith(("factcheck_", "snli")) and dev_part(r["id"]) == "fit":
                continue
            rows.append(r)
    return rows


def build_model(a):
    if a.model == "teacher":
        from transformers import AutoTokenizer, MPNetConfig, MPNetForSequenceClassification
        if not os.path.exists(os.path.join(MPNET, "model.safetensors")):
            sys.exit(f"train_v3: {MPNET} missing; run scripts/install-mpnet.sh first")
        cfg = MPNetConfig.from_pretrained(MPNET, num_labels=2)
        model = MPNetForSequenceClassification.from_pretrained(MPNET, config=cfg)  # encoder pretrained, head new
        tok = AutoTokenizer.from_pretrained(MPNET)
        return model, lambda a_, b_, n: tok(a_, b_, truncation="longest_first", max_length=n)
    from common import get_tokenizer
    if a.init == "onnx":
        from onnx_weights import load_from_onnx
        model = load_from_onnx(os.path.join(FCS, "model.fp32-dequant.onnx"), FCS)
    else:
        from transplant import transplant
        model, _ = transplant(seed=a.seed)
    for p in model.deberta.embeddings.word_embeddings.parameters():
        p.requires_grad = False  # keeps the pretrained vocabulary geometry (as train.py / train_real.py)
    tok = get_tokenizer()

    def enc(a_, b_, n):
        tok.enable_truncation(max_length=n, strategy="longest_first")
        e = tok.encode(a_, b_)
        return {"input_ids": e.ids, "token_type_ids": e.type_ids}
    return model, enc


def encode_rows(rows, enc, a):
    out = []
    for r in rows:
        ans = (r["question"] + " " + r["answer"]).strip()
        e = enc(ans, best_window(r["answer"], r["evidence"], a.window_words), a.max_tokens)
        out.append((e["input_ids"], e.get("token_type_ids") or [0] * len(e["input_ids"])))
    return out


def cached_encoding(rows, enc_fn, a):
    """Encoding 64k rows (window choice + tokenizer) takes minutes on a loaded machine: do it once (--prepare,
    outside the bench lock) and keep it beside the checkpoints, keyed by the data file and the input settings."""
    h = hashlib.sha256()
    with open(os.path.join(DATA, "train.jsonl"), "rb") as fh:
        for blk in iter(lambda: fh.read(1 << 20), b""):
            h.update(blk)
    key = [a.model, a.max_tokens, a.window_words, a.exclude_sets] + (["hold-out-fit"] if a.hold_out_fit else [])
    h.update(json.dumps(key).encode())
    p = os.path.join(TRAIN_DIR, f"enc-{a.model}-{h.hexdigest()[:16]}.pt")
    if os.path.exists(p):
        return torch.load(p)
    enc = encode_rows(rows, enc_fn, a)
    torch.save(enc, p + ".tmp"); os.replace(p + ".tmp", p)
    return enc


# The settings that decide which rows, in which order, at which step: a resumed run must use the checkpoint's, or
# its saved sampler position would point into a different batch list (and its schedule into a different length).
RESUME_KEYS = ("model", "init", "exclude_sets", "hold_out_fit", "epochs", "bs", "lr", "warmup", "max_tokens",
               "window_words", "seed", "teacher_logits", "alpha")


def resume_mismatch(saved, current):
    """The RESUME_KEYS whose values differ between a checkpoint's saved args and this run's (as 'key: saved != now')."""
    return [f"--{k.replace('_', '-')}: {saved.get(k)!r} in the checkpoint, {current.get(k)!r} now"
            for k in RESUME_KEYS if saved.get(k) != current.get(k)]


def pad(items, pad_id):
    L = max(len(i) for i, _ in items)
    ids = torch.full((len(items), L), pad_id, dtype=torch.long)
    tt = torch.zeros((len(items), L), dtype=torch.long); am = torch.zeros((len(items), L), dtype=torch.long)
    for r, (i, t) in enumerate(items):
        ids[r, :len(i)] = torch.tensor(i); tt[r, :len(t)] = torch.tensor(t); am[r, :len(i)] = 1
    return ids, am, tt


def forward(model, a, items):
    ids, am, tt = pad(items, 1 if a.model == "teacher" else 0)
    if a.model == "teacher":  # MPNet has no token types
        return model(input_ids=ids, attention_mask=am).logits
    return model(input_ids=ids, attention_mask=am, token_type_ids=tt).logits


def batches(enc, bs, rng):
    """Shuffled, then length-sorted inside blocks of 64 batches (dynamic padding), then the batches shuffled."""
    idx = list(range(len(enc))); rng.shuffle(idx)
    out = []
    for c in range(0, len(idx), bs * 64):
        part = sorted(idx[c:c + bs * 64], key=lambda i: len(enc[i][0]))
        out += [part[k:k + bs] for k in range(0, len(part), bs)]
    rng.shuffle(out)
    return out


def balanced_accuracy(y, p, thr=0.5):
    y = np.asarray(y); pr = (np.asarray(p) >= thr).astype(int)
    rec = [((pr == c) & (y == c)).sum() / max(1, (y == c).sum()) for c in (0, 1) if (y == c).any()]
    return float(np.mean(rec))


@torch.no_grad()
def predict(model, a, enc, bs=32):
    model.eval()
    out = []
    order = sorted(range(len(enc)), key=lambda i: len(enc[i][0]))
    for k in range(0, len(order), bs):
        lo = forward(model, a, [enc[i] for i in order[k:k + bs]])
        out += list(zip(order[k:k + bs], lo.tolist()))
    model.train()
    return [l for _, l in sorted(out)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", choices=["student", "teacher"], default="student")
    ap.add_argument("--init", choices=["onnx", "transplant"], default="onnx")
    ap.add_argument("--run", required=True, help="checkpoint folder name under fcs-train/")
    ap.add_argument("--exclude-sets", default="", help="comma-separated set-name prefixes to leave out "
                    "(e.g. factcheck_ to keep the factcheck dev splits for evaluation)")
    ap.add_argument("--hold-out-fit", action="store_true", help="leave out the factcheck and SNLI dev rows of the "
                    "'fit' part (real-eval.ts devPart), so the key-fact combination is fitted on triples not trained on")
    ap.add_argument("--epochs", type=float, default=1.0)
    ap.add_argument("--bs", type=int, default=16)
    ap.add_argument("--lr", type=float, default=None, help="default 3e-5 student, 2e-5 teacher")
    ap.add_argument("--warmup", type=float, default=0.06)
    ap.add_argument("--max-tokens", type=int, default=128)
    ap.add_argument("--window-words", type=int, default=80)
    ap.add_argument("--teacher-logits", default=None, help="student: distil from this file (from `--label`)")
    ap.add_argument("--alpha", type=float, default=0.5, help="weight of the teacher term when distilling")
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--ckpt-every", type=int, default=100)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--max-minutes", type=float, default=14.0)
    ap.add_argument("--throughput", type=int, default=0, help="run this many steps, report the plan, save nothing")
    ap.add_argument("--prepare", action="store_true", help="encode the train set into the cache, then exit "
                    "(run it niced before taking the bench lock)")
    ap.add_argument("--eval", action="store_true", help="balanced accuracy per set on v3 dev.jsonl, then exit")
    ap.add_argument("--limit", type=int, default=0, help="--eval / --label: only the first N rows (a smoke check)")
    ap.add_argument("--label", action="store_true", help="teacher: write its logits over train.jsonl, then exit")
    a = ap.parse_args()
    from tqdm import tqdm
    torch.set_num_threads(a.threads)
    random.seed(a.seed); np.random.seed(a.seed); torch.manual_seed(a.seed)
    lr = a.lr or (2e-5 if a.model == "teacher" else 3e-5)
    run_dir = os.path.join(TRAIN_DIR, a.run)
    os.makedirs(run_dir, exist_ok=True)
    ck = os.path.join(run_dir, "last.pt")
    exclude = [p for p in a.exclude_sets.split(",") if p]

    model, enc_fn = build_model(a)
    if a.eval or a.label:
        if os.path.exists(ck):
            model.load_state_dict(torch.load(ck, weights_only=False)["model"])
            print(f"loaded {ck}", flush=True)
        rows = load_rows("dev" if a.eval else "train", exclude, a.hold_out_fit)
        rows = rows[:a.limit] if a.limit else rows
        t0 = time.time()
        lo = np.array(predict(model, a, encode_rows(rows, enc_fn, a)))
        if a.label:
            p = os.path.join(run_dir, "teacher-logits.jsonl")
            with open(p, "w") as fh:
                for r, l in zip(rows, lo):
                    fh.write(json.dumps({"id": r["id"], "logits": [round(float(x), 4) for x in l]}) + "\n")
            print(f"wrote {p} ({len(rows)} rows, {time.time() - t0:.0f} s)")
            return
        pc = torch.softmax(torch.tensor(lo), -1)[:, 1].numpy()
        res = {}
        for s in sorted({r["set"] for r in rows}):
            m = [i for i, r in enumerate(rows) if r["set"] == s]
            res[s] = {"n": len(m), "ba": round(100 * balanced_accuracy([rows[i]["label"] for i in m], pc[m]), 1)}
        res["all"] = {"n": len(rows), "ba": round(100 * balanced_accuracy([r["label"] for r in rows], pc), 1)}
        print(json.dumps(res, indent=1))
        if not a.limit:
            json.dump(res, open(os.path.join(run_dir, "eval-dev.json"), "w"), indent=1)
        return

    rows = load_rows("train", exclude, a.hold_out_fit)
    teacher = None
    if a.teacher_logits:
        tl = {}
        for line in open(a.teacher_logits):
            r = json.loads(line); tl[r["id"]] = r["logits"]
        teacher = [tl.get(r["id"]) for r in rows]
    t_enc = time.time()
    enc = cached_encoding(rows, enc_fn, a)
    if a.prepare:
        print(f"prepared {len(enc)} encoded rows in {time.time() - t_enc:.0f} s", flush=True)
        return
    labels = [r["label"] for r in rows]
    weights = [SET_WEIGHT.get(r["set"], 1.0) for r in rows]
    per_epoch = math.ceil(len(enc) / a.bs)
    steps = max(1, int(a.epochs * per_epoch))
    mean_tok = float(np.mean([len(i) for i, _ in enc]))
    print(json.dumps({"rows": len(rows), "mean_tokens": round(mean_tok, 1), "steps": steps,
                      "steps_per_epoch": per_epoch, "encode_s": round(time.time() - t_enc, 1)}), flush=True)

    named = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    nd = lambda n: n.endswith("bias") or "LayerNorm" in n
    opt = torch.optim.AdamW([
        {"params": [p for n, p in named if not nd(n)], "weight_decay": 0.01},
        {"params": [p for n, p in named if nd(n)], "weight_decay": 0.0}], lr=lr, betas=(0.9, 0.98), eps=1e-6)
    warm = max(1, int(a.warmup * steps))
    sched = lambda s: min(1.0, (s + 1) / warm) * max(0.0, (steps - s) / max(1, steps - warm))
    if a.resume and not a.throughput and os.path.exists(ck):
        bad = resume_mismatch(torch.load(ck, weights_only=False)["args"], vars(a))
        if bad:
            sys.exit("train_v3: --resume with other settings than the checkpoint's:\n  " + "\n  ".join(bad))
    step, epoch, pos = resume_checkpoint(ck, model, opt) if a.resume and not a.throughput else (0, 0, 0)
    model.train()
    order = batches(enc, a.bs, random.Random(a.seed + epoch))
    log = open(os.path.join(run_dir, "train_log.jsonl"), "a")
    end = min(steps, step + a.throughput) if a.throughput else steps
    bar = tqdm(total=end, initial=step, unit="step", dynamic_ncols=True, mininterval=5)
    t0 = time.time(); c0 = time.process_time(); step0 = step; tl_, tn = 0.0, 0
    while step < end:
        if pos >= len(order):
            epoch += 1; pos = 0; order = batches(enc, a.bs, random.Random(a.seed + epoch))
        b = order[pos]; pos += 1
        for g in opt.param_groups:
            g["lr"] = lr * sched(step)
        lo = forward(model, a, [enc[i] for i in b])
        y = torch.tensor([labels[i] for i in b])
        w = torch.tensor([weights[i] for i in b])
        loss = torch.nn.functional.cross_entropy(lo, y, reduction="none")
        if teacher is not None:
            have = torch.tensor([teacher[i] is not None for i in b])
            if have.any():
                tp = torch.softmax(torch.tensor([teacher[i] or [0.0, 0.0] for i in b]), -1)
                kl = (tp * (torch.log(tp + 1e-9) - torch.log_softmax(lo, -1))).sum(-1)
                loss = torch.where(have, (1 - a.alpha) * loss + a.alpha * kl, loss)
        loss = (loss * w).sum() / w.sum()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step(); opt.zero_grad(set_to_none=True)
        step += 1; bar.update(1)
        tl_ += loss.item(); tn += 1
        if step % 20 == 0:
            el = time.time() - t0
            rec = {"step": step, "epoch": epoch, "loss": round(tl_ / tn, 4), "lr": opt.param_groups[0]["lr"],
                   "s_per_step": round(el / (step - step0), 3),
                   "cpu_s_per_step": round((time.process_time() - c0) / (step - step0), 3),
                   "load_1m": round(os.getloadavg()[0], 2), "utc": time.strftime("%H:%M:%S", time.gmtime())}
            bar.set_postfix(loss=rec["loss"]); log.write(json.dumps(rec) + "\n"); log.flush(); tl_, tn = 0.0, 0
        stop = (time.time() - t0) > a.max_minutes * 60
        if not a.throughput and (step % a.ckpt_every == 0 or step == steps or stop):
            save_checkpoint(ck, model, opt, step, epoch, pos, a)
        if stop and a.throughput:
            break  # a measurement cut short still reports what it measured
        if stop:
            bar.close()
            print(f"time budget reached at step {step}/{steps}; continue with --resume", flush=True)
            return
    bar.close()
    el = time.time() - t0
    if a.throughput:
        # Wall time depends on what else runs (8 sessions share 2 cores); CPU time per step does not, so the
        # plan is stated in CPU hours and, for an idle machine, wall hours = CPU hours / threads.
        n = max(1, step - step0)
        s_step, cpu_step = el / n, (time.process_time() - c0) / n
        plan = {"model": a.model, "threads": a.threads, "bs": a.bs, "max_tokens": a.max_tokens,
                "mean_tokens": round(mean_tok, 1), "measured_steps": n, "wall_s_per_step": round(s_step, 3),
                "cpu_s_per_step": round(cpu_step, 3), "rows_per_cpu_s": round(a.bs / cpu_step, 2),
                "rows": len(rows), "steps_per_epoch": per_epoch,
                "cpu_hours_per_epoch": round(per_epoch * cpu_step / 3600, 2),
                "wall_hours_per_epoch_idle_machine": round(per_epoch * cpu_step / a.threads / 3600, 2),
                "wall_hours_per_epoch_as_measured": round(per_epoch * s_step / 3600, 2),
                "chunks_of_14_min_per_epoch_as_measured": math.ceil(per_epoch * s_step / (14 * 60)),
                "load_1m_at_end": round(os.getloadavg()[0], 1)}
        print(json.dumps(plan), flush=True)
        json.dump(plan, open(os.path.join(run_dir, f"throughput-{a.model}.json"), "w"), indent=1)
        return
    print(json.dumps({"done": True, "step": step, "seconds_this_run": round(el)}), flush=True)


if __name__ == "__main__":
    main()
