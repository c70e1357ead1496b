"""Cross-validation on TRAIN with the folds of ``tsattn bench classify --cv 3``: for every fold one
default TSClassifier(bn_sh, random_state=0) fit (the p05 rows), scored without and with test-time
augmentation (TTA): the mean of predict_proba over the series as given and K augmented views
(SliceAndScale of the training augmentation, fixed seeds). One row per (dataset, fold), resumable.

    python docs/results/classify_cv/tta_cv.py OUT.csv DATASET...

Variants: crop share, scale deviation, K views, weight of the series as given (None: one
view among K + 1). Dataset names resolve as in ``tsattn bench classify``; set TSATTN_DATA_DIR.
"""
import sys
import time

import numpy as np
import torch

import _rows
from tsattn import TSClassifier
from tsattn.benchmarks.classify import _cv_split, _load, resolve_datasets
from tsattn.training import SliceAndScale
from tsattn.training.data import TensorData

torch.set_num_threads(1)
out, names = sys.argv[1], sys.argv[2:]
VARIANTS = {  # name: (crop, scale, K views, weight of the series as given)
    "sc4": (0.8, 0.1, 4, None),
    "sc8": (0.8, 0.1, 8, None),
    "sc16": (0.8, 0.1, 16, None),
    "s8": (0.8, 0.0, 8, None),
    "c8": (1.0, 0.1, 8, None),
    "sc8_half": (0.8, 0.1, 8, 0.5),
    "sc8_09": (0.9, 0.1, 8, None),
}


def views(clf, Xh, crop, scale, k):
    data = clf._to_tensors(clf._check_X_predict(Xh))
    n = data.x.shape[1]
    mask = torch.arange(n)[None, :] < data.lengths[:, None]
    transform = SliceAndScale(crop, scale, 1.0)
    probs = []
    for v in range(k):
        torch.manual_seed(1000 + v)
        x = transform(data.x, None if bool(mask.all()) else mask)
        out = clf._predict_tensor(TensorData(x, data.lengths), fixed_len=False)
        probs.append(torch.softmax(out.double(), dim=1).numpy())
    return probs


done = _rows.done(out)
for archive, name in resolve_datasets(names, cached_only=True):
    X, y, _, _ = _load(archive, name)
    for fold in range(3):
        if (name, fold) in done:
            continue
        Xf, yf, Xh, yh = _cv_split(X, y, 3, fold, True)
        start = time.perf_counter()
        clf = TSClassifier(attention="bn_sh", random_state=0).fit(Xf, yf)
        fit_s = time.perf_counter() - start
        base = clf.predict_proba(Xh)
        acc = lambda p: float(np.mean(clf.classes_[p.argmax(1)] == yh))  # noqa: E731
        row = dict(dataset=name, archive=archive, fold=fold, base=acc(base), fit_s=fit_s)
        start = time.perf_counter()
        cache = {}
        for key, (crop, scale, k, w) in VARIANTS.items():
            ck = (crop, scale)
            if ck not in cache or len(cache[ck]) < k:
                cache[ck] = views(clf, Xh, crop, scale, max(k, 16 if ck == (0.8, 0.1) else k))
            v = np.mean(cache[ck][:k], axis=0)
            p = base / (k + 1) + v * k / (k + 1) if w is None else w * base + (1 - w) * v
            row[key] = acc(p)
        row["tta_s"] = time.perf_counter() - start
        _rows.append(out, row)
