"""Cross-validation on TRAIN with the folds of ``tsattn bench classify --cv 3``: for every fold, two
default TSClassifier(bn_sh, max_steps=STEPS) fits (random_state 0 and 1), each member's accuracy and
that of their soft vote (mean of predict_proba); one row per (dataset, fold) appended to OUT.csv,
resumable. Dataset names (or suites) resolve as in ``tsattn bench classify``; set TSATTN_DATA_DIR:

    python docs/results/classify_cv/ensemble_cv.py OUT.csv 500 DATASET...
"""
import sys
import time

import numpy as np
import torch

import _rows
from tsattn import TSClassifier
from tsattn.benchmarks.classify import _cv_split, _load, resolve_datasets

torch.set_num_threads(1)
out, steps, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
done = _rows.done(out)
for archive, name in resolve_datasets(names, cached_only=True):
    X, y, _, _ = _load(archive, name)
    for fold in range(3):
        if (name, fold) in done:
            continue
        Xf, yf, Xh, yh = _cv_split(X, y, 3, fold, True)
        probs, accs, secs = [], [], []
        for seed in (0, 1):
            start = time.perf_counter()
            clf = TSClassifier(attention="bn_sh", random_state=seed, max_steps=steps).fit(Xf, yf)
            secs.append(time.perf_counter() - start)
            probs.append(clf.predict_proba(Xh))
            accs.append(float(np.mean(clf.classes_[probs[-1].argmax(1)] == yh)))
        vote = float(np.mean(clf.classes_[(probs[0] + probs[1]).argmax(1)] == yh))
        row = dict(dataset=name, archive=archive, fold=fold, steps=steps, acc_seed0=accs[0],
                   acc_seed1=accs[1], acc_ens=vote, fit_s0=secs[0], fit_s1=secs[1])
        _rows.append(out, row)
