import csv,glob,sys,math
def load(pats):
    d={}
    for pat in pats:
        for f in glob.glob(pat):
            for r in csv.DictReader(open(f)):
                if r['model']=='tsattn': d[(r['market'],r['setting'],r['seed'])]=r
    return d
base=load(['docs/results/panels/epf_unseen/val/*/results.csv','docs/results/panels/epf_unseen/scale_check/base1/results.csv'])
for name,pats in [('abs',['docs/results/panels/epf_unseen/scale_check/abs_*/results.csv','docs/results/panels/epf_unseen/scale_check/abs1_*/results.csv']),('both',['docs/results/panels/epf_unseen/scale_check/both_*/results.csv','docs/results/panels/epf_unseen/scale_check/both1/results.csv'])]:
    c=load(pats); rat=[]; wins=0
    print('==',name)
    for k in sorted(c):
        if k not in base: continue
        r=float(c[k]['mse'])/float(base[k]['mse']); rat.append(r); wins+=r<1
        print(' %-4s %-14s s%s %+.1f%%  net %.4f/%.4f'%(*k,100*(r-1),float(c[k]['net_mse']),float(base[k]['net_mse'])))
    if rat: print(' lower %d/%d, geo mean change %+.2f%%'%(wins,len(rat),100*(math.exp(sum(map(math.log,rat))/len(rat))-1)))
print('== pair means (2 seeds)')
import collections
for name,pats in [('abs',['docs/results/panels/epf_unseen/scale_check/abs_*/results.csv','docs/results/panels/epf_unseen/scale_check/abs1_*/results.csv']),('both',['docs/results/panels/epf_unseen/scale_check/both_*/results.csv','docs/results/panels/epf_unseen/scale_check/both1/results.csv'])]:
    c=load(pats); pairs=collections.defaultdict(list)
    for k in c:
        if k in base: pairs[k[:2]].append((float(c[k]['mse']),float(base[k]['mse'])))
    rows=[(p,sum(a for a,_ in v)/len(v),sum(b for _,b in v)/len(v)) for p,v in sorted(pairs.items())]
    w=sum(a<b for _,a,b in rows)
    g=math.exp(sum(math.log(a/b) for _,a,b in rows)/len(rows))-1
    print(name,'lower on %d/%d pairs, geo %+.2f%%'%(w,len(rows),100*g),' '.join('%s/%s %+.1f'%(p[0],p[1][:3],100*(a/b-1)) for p,a,b in rows))
