"""Scratch lab: k-fold CV on TRAIN splits across many datasets for classifier design choices.

Never reads TEST. Usage: python cvlab.py --name NAME --cfg key=value ... --datasets ...
Writes one JSON line per (dataset, fold) to /work/exp/out/NAME.jsonl (resumable).
"""
import argparse, json, math, os, sys, time, warnings
from pathlib import Path

os.environ.setdefault("TSATTN_DATA_DIR", "/work/shared/datasets")
sys.path.insert(0, "/work/exp/oldcode")
import numpy as np

OUT = Path("/work/exp/out")
UEA = ["ArticularyWordRecognition", "BasicMotions", "Epilepsy", "Handwriting", "JapaneseVowels",
       "NATOPS", "PenDigits", "UWaveGestureLibrary"]
UCR = sorted({p.name.rsplit("_", 1)[0] for p in Path("/work/shared/datasets/ucr").glob("*_TRAIN.ts")})
SCREEN = ["ArticularyWordRecognition", "BasicMotions", "Epilepsy", "Handwriting", "JapaneseVowels",
          "NATOPS", "UWaveGestureLibrary", "Adiac", "Beef", "CBF", "ECG200", "FiftyWords", "Lightning2",
          "MedicalImages", "OSULeaf", "Worms", "SwedishLeaf", "ToeSegmentation1", "Ham", "ItalyPowerDemand"]

DEFAULT = dict(attention="bn_sh", d_model=64, n_heads=8, n_layers=3, ff=256, dropout=0.1,
               stem="linear", max_tokens=64, inorm="channel", steps=1500, min_epochs=0, lr=1e-3,
               wd=0.05, warmup=0.1, schedule="cosine", bs=32, overlap=1, pos="sin", head="meanmax",
               conv_k=3, aug="none", ema=0, hier_w="half")


def load(name):
    from tsattn.datasets import load_uea, load_ucr
    from tsattn._input import to_series_batch
    fn = load_uea if name in UEA else load_ucr
    X, y = fn(name, split="train")
    b = to_series_batch(X)
    return b.values.astype(np.float64), b.lengths, np.asarray(y).astype(str)


def build(cfg, C, N, n_classes):
    import torch
    from torch import nn
    from tsattn.attention import build_attention
    from tsattn.nn.encoder import EncoderLayer, SinusoidalPositionalEncoding, TransformerEncoder
    from tsattn.nn.heads import PoolingHead
    from tsattn.nn.norm import MaskedBatchNorm1d
    d = cfg["d_model"]
    S = max(1, math.ceil(N / cfg["max_tokens"])) if cfg["stem"] != "linear" else 1
    if cfg["stem"] == "hier":
        levels = max(0, math.ceil(math.log2(N / cfg["max_tokens"]))) if N > cfg["max_tokens"] else 0
        S = 2 ** levels

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.S = S
            if cfg["stem"] in ("linear", "patch"):
                k = S * cfg["overlap"] if S > 1 else 1
                self.embed = nn.Conv1d(C, d, kernel_size=k, stride=S, padding=(k - S) // 2)
                self.conv = None
            elif cfg["stem"] == "conv":
                k = max(cfg["conv_k"], S * cfg["overlap"] + (1 - (S * cfg["overlap"]) % 2))
                self.embed = nn.Conv1d(C, d, kernel_size=k, stride=S, padding=k // 2)
                self.bn0 = MaskedBatchNorm1d(d)
                self.conv = nn.Conv1d(d, d, kernel_size=cfg["conv_k"], padding=cfg["conv_k"] // 2)
                self.bn1 = MaskedBatchNorm1d(d)
            elif cfg["stem"] == "hier":
                mods, c_in = [], C
                widths = [d if cfg["hier_w"] == "full" else max(16, d // 2 ** (levels - 1 - l)) for l in range(levels)]
                for w in widths:
                    mods += [nn.Conv1d(c_in, w, cfg["conv_k"], stride=2, padding=cfg["conv_k"] // 2), nn.BatchNorm1d(w), nn.GELU()]
                    c_in = w
                mods += [nn.Conv1d(c_in, d, 3, padding=1), nn.BatchNorm1d(d), nn.GELU()]
                self.embed = nn.Sequential(*mods)
                self.conv = None
            self.pos = SinusoidalPositionalEncoding(d, cfg["dropout"]) if cfg["pos"] == "sin" else None
            layers = [EncoderLayer(build_attention(cfg["attention"], d, cfg["n_heads"]), d, cfg["ff"],
                                   cfg["dropout"], "batch") for _ in range(cfg["n_layers"])]
            self.encoder = TransformerEncoder(layers)
            self.head = PoolingHead(d, n_classes, cfg["dropout"], cfg["head"] == "meanmax")

        def forward(self, x, lengths):
            # x (B, N, C)
            n_tok = (lengths + self.S - 1) // self.S
            h = self.embed(x.transpose(1, 2)).transpose(1, 2)
            h = h[:, : int(n_tok.max())]
            mask = torch.arange(h.shape[1])[None] < n_tok[:, None]
            m = None if bool(mask.all()) else mask
            if self.conv is not None:
                h = torch.nn.functional.gelu(self.bn0(h, m))
                h = h + torch.nn.functional.gelu(self.bn1(self.conv(h.transpose(1, 2)).transpose(1, 2), m))
            if self.S == 1 and self.conv is None and cfg["stem"] != "hier":
                h = h * math.sqrt(d)
            if self.pos is not None:
                h = self.pos(h)
            h = self.encoder(h, m)
            return self.head(h, m)

    return Net()


def fit_eval(cfg, Xtr, Ltr, ytr, Xva, Lva, yva, seed):
    import torch
    import torch.nn.functional as F
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    classes = np.unique(ytr)
    ytr_i = np.searchsorted(classes, ytr)
    # normalise
    def norm(X, L):
        X = X.copy()
        real = np.arange(X.shape[1])[None, :] < L[:, None]
        if cfg["inorm"] == "instance":
            w = real[..., None]
            mu = (X * w).sum(1, keepdims=True) / L[:, None, None]
            sd = np.sqrt((((X - mu) * w) ** 2).sum(1, keepdims=True) / L[:, None, None])
            X = (X - mu) / np.where(sd > 1e-8, sd, 1.0)
        X[~real] = 0
        return X
    real = np.arange(Xtr.shape[1])[None, :] < Ltr[:, None]
    Xn_tr = norm(Xtr, Ltr); Xn_va = norm(Xva, Lva)
    if cfg["inorm"] == "channel":
        mu = Xtr[real].mean(0); sd = Xtr[real].std(0); sd = np.where(sd > 1e-12, sd, 1)
        Xn_tr = np.where(real[..., None], (Xtr - mu) / sd, 0)
        rv = np.arange(Xva.shape[1])[None, :] < Lva[:, None]
        Xn_va = np.where(rv[..., None], (Xva - mu) / sd, 0)
    N = max(Xtr.shape[1], Xva.shape[1])
    def pad(X):
        return np.pad(X, ((0, 0), (0, N - X.shape[1]), (0, 0)))
    xt = torch.tensor(pad(Xn_tr), dtype=torch.float32); lt = torch.tensor(Ltr)
    xv = torch.tensor(pad(Xn_va), dtype=torch.float32); lv = torch.tensor(Lva)
    yt = torch.tensor(ytr_i)
    net = build(cfg, xt.shape[2], N, len(classes))
    n = len(xt)
    bs = min(cfg["bs"], n)
    spe = math.ceil(n / bs)
    T = max(cfg["steps"], cfg["min_epochs"] * spe)
    opt = torch.optim.AdamW(net.parameters(), lr=cfg["lr"], weight_decay=cfg["wd"])
    W = int(cfg["warmup"] * T)
    def lr_at(s):
        if s < W:
            return (s + 1) / W
        if cfg["schedule"] == "cosine":
            return 0.5 * (1 + math.cos(math.pi * (s - W) / max(1, T - W)))
        return 1.0
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_at)
    ema = None
    if cfg["ema"]:
        ema = torch.optim.swa_utils.AveragedModel(net, multi_avg_fn=torch.optim.swa_utils.get_ema_multi_avg_fn(cfg["ema"]))
    t0 = time.perf_counter()
    step = 0
    net.train()
    while step < T:
        perm = rng.permutation(n)
        for i in range(0, n, bs):
            idx = perm[i:i + bs]
            if len(idx) < 2:
                continue
            li = lt[idx]; nb = int(li.max())
            xb = xt[idx, :nb]
            augs = cfg["aug"].split("+")
            if "scale" in augs:
                xb = xb * torch.exp(0.1 * torch.randn(len(idx), 1, xb.shape[2]))
            if "jitter" in augs:
                xb = xb + 0.05 * torch.randn_like(xb)
            sl = [a for a in augs if a.startswith("slice")]
            if sl and nb > 8:
                # random crop of lo-100% of the steps, stretched back to nb steps (window slicing)
                lo = 0.8 if sl[0] == "slice" else int(sl[0][5:]) / 100
                frac = float(torch.empty(1).uniform_(lo, 1.0))
                w = max(2, int(round(frac * nb))); st = int(torch.randint(0, nb - w + 1, (1,)))
                xb = F.interpolate(xb[:, st:st + w].transpose(1, 2), size=nb, mode="linear", align_corners=False).transpose(1, 2)
            target = F.one_hot(yt[idx], len(classes)).float()
            if "mixup" in augs:
                lam = float(np.random.default_rng(step).beta(0.4, 0.4))
                perm_b = torch.randperm(len(idx))
                xb = lam * xb + (1 - lam) * xb[perm_b]
                target = lam * target + (1 - lam) * target[perm_b]
                li = torch.maximum(li, li[perm_b])
            if "ls" in augs:
                target = target * 0.9 + 0.1 / len(classes)
            out = net(xb, li)
            loss = F.cross_entropy(out, target)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step(); sched.step()
            if ema is not None:
                ema.update_parameters(net)
            step += 1
            if step >= T:
                break
    fit_s = time.perf_counter() - t0
    model = ema.module if ema is not None else net
    model.eval()
    with torch.inference_mode():
        outs = []
        for i in range(0, len(xv), 256):
            li = lv[i:i + 256]; nb = int(li.max())
            outs.append(model(xv[i:i + 256, :nb], li))
        logits = torch.cat(outs).double()
    prob = torch.softmax(logits, 1).numpy()
    known = np.isin(yva, classes)
    yv_i = np.searchsorted(classes, yva)
    pred = classes[prob.argmax(1)]
    acc = float((pred == yva).mean())
    p_true = np.where(known, prob[np.arange(len(yva)), np.minimum(yv_i, len(classes) - 1)], 1e-6)
    ll = float(-np.log(np.clip(p_true, 1e-6, 1)).mean())
    return dict(acc=acc, logloss=ll, fit_s=fit_s, steps=T, tokens=math.ceil(N / net.S))


def minirocket_eval(Xtr, Ltr, ytr, Xva, Lva, yva, seed):
    from aeon.classification.convolution_based import MiniRocketClassifier
    def aslist(X, L):
        out = [X[i, : max(L[i], 9)].T for i in range(len(X))]
        return out
    N = max(Xtr.shape[1], Xva.shape[1], 9)
    def pad(X):
        return np.pad(X, ((0, 0), (0, N - X.shape[1]), (0, 0))).transpose(0, 2, 1)
    t0 = time.perf_counter()
    if (Ltr == Xtr.shape[1]).all() and (Lva == Xva.shape[1]).all() and Xtr.shape[1] >= 9:
        clf = MiniRocketClassifier(random_state=seed, n_jobs=1).fit(pad(Xtr), ytr)
        pred = clf.predict(pad(Xva))
    else:
        clf = MiniRocketClassifier(random_state=seed, n_jobs=1).fit(pad(Xtr), ytr)
        pred = clf.predict(pad(Xva))
    return dict(acc=float((pred == yva).mean()), logloss=float("nan"), fit_s=time.perf_counter() - t0)


def folds(y, k, seed):
    from sklearn.model_selection import StratifiedKFold
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return list(StratifiedKFold(k, shuffle=True, random_state=seed).split(np.zeros(len(y)), y))


def job(name, fold, cfg, k, seed, model):
    import torch
    torch.set_num_threads(1)
    warnings.simplefilter("ignore")
    X, L, y = load(name)
    tr, va = folds(y, k, 0)[fold]
    args = (X[tr], L[tr], y[tr], X[va], L[va], y[va], seed)
    try:
        res = minirocket_eval(*args) if model == "minirocket" else fit_eval(cfg, *args)
    except Exception as e:  # noqa
        res = dict(error=repr(e))
    return dict(dataset=name, fold=fold, seed=seed, **res)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--name", required=True)
    ap.add_argument("--cfg", nargs="*", default=[])
    ap.add_argument("--datasets", nargs="*", default=["screen"])
    ap.add_argument("--k", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--model", default="tsattn")
    a = ap.parse_args()
    cfg = dict(DEFAULT)
    for kv in a.cfg:
        key, val = kv.split("=", 1)
        cur = DEFAULT[key]
        cfg[key] = type(cur)(val) if not isinstance(cur, str) else val
    names = []
    for d in a.datasets:
        names += {"screen": SCREEN, "uea": UEA, "ucr": UCR, "all": UEA + UCR}.get(d, [d])
    OUT.mkdir(exist_ok=True)
    path = OUT / f"{a.name}.jsonl"
    done = set()
    if path.exists():
        for line in path.read_text().splitlines():
            r = json.loads(line); done.add((r["dataset"], r["fold"]))
    todo = [(n, f) for n in names for f in range(a.k) if (n, f) not in done]
    from joblib import Parallel, delayed
    with open(path, "a") as fh:
        for r in Parallel(n_jobs=a.jobs, return_as="generator_unordered")(
                delayed(job)(n, f, cfg, a.k, a.seed, a.model) for n, f in todo):
            r["cfg"] = cfg
            fh.write(json.dumps(r) + "\n"); fh.flush()
            print(r["dataset"], r["fold"], r.get("acc"), r.get("fit_s"), r.get("error", ""), flush=True)


if __name__ == "__main__":
    main()
