"""Cross-validation on TRAIN with the folds of ``tsattn bench classify --cv 3``: for every fold, two
default TSClassifier(bn_sh, max_steps=STEPS) fits (random_state 0 and 1), each member's accuracy and
that of their soft vote (mean of predict_proba); one row per (dataset, fold) appended to OUT.csv,
resumable. Run from the repository root (it reads the archive of each set from this folder's
results.csv) with TSATTN_DATA_DIR set:

    python docs/results/classify_cv/ensemble_cv.py OUT.csv 500 DATASET...
"""
import sys, time, csv, os
import numpy as np, pandas as pd, torch
torch.set_num_threads(1)
from tsattn import TSClassifier
from tsattn.benchmarks.classify import _load, _cv_split
out, steps, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
arch = pd.read_csv('docs/results/classify_cv/results.csv').groupby('dataset').archive.first()
done = set()
if os.path.exists(out):
    done = {(r['dataset'], int(r['fold'])) for r in csv.DictReader(open(out))}
for name in names:
    X, y, _, _ = _load(arch[name], name)
    for fold in range(3):
        if (name, fold) in done: continue
        Xf, yf, Xh, yh = _cv_split(X, y, 3, fold, True)
        probs, accs, secs = [], [], []
        for s in (0, 1):
            t = time.perf_counter()
            clf = TSClassifier(attention='bn_sh', random_state=s, max_steps=steps).fit(Xf, yf)
            secs.append(time.perf_counter() - t)
            p = clf.predict_proba(Xh); probs.append(p)
            accs.append(float(np.mean(clf.classes_[p.argmax(1)] == yh)))
        ens = float(np.mean(clf.classes_[(probs[0] + probs[1]).argmax(1)] == yh))
        row = dict(dataset=name, archive=arch[name], fold=fold, steps=steps, acc_seed0=accs[0], acc_seed1=accs[1],
                   acc_ens=ens, fit_s0=secs[0], fit_s1=secs[1])
        new = not os.path.exists(out)
        with open(out, 'a', newline='') as f:
            w = csv.DictWriter(f, fieldnames=list(row)); 
            if new: w.writeheader()
            w.writerow(row)
        print(row, flush=True)
