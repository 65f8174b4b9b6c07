#!/usr/bin/python3
"""Granite matmul split analysis: a few candidate mechanisms, as closed-form times,
fitted to the measured splits and checked on held-out rows (fit on prefill, check on
decode). A research tool for the fidelity work (docs/calibration.md, "Leads"), not
the simulator: the simulator's time comes from its SystemC model, never from this.

Run:  scripts/analyze_splits.py [--rows]   (Debian's python3 with numpy, ~1 min)

Data: models/calibration/granite_matmul/splits.csv (263 rows, 236 at lx 0.2, 27 at 0.8).
Layouts used (from the SDSCs' allocate nodes / start addresses, innermost-first layoutDimOrder_):
  projections  A [M][K/64][64] (row-major)   W [N/64][K][64] (stick-column-major)   C [M][N/64][64]
  bmm          A [M][K/64][B][64]            W [K][N/64][B][64]                        C [M][N/64][B][64]
  (a core's W slice of a projection is n/64 runs of k*128 B, NOT K rows of n*2 B.)

Model (per row; per-core m=M/sm, n=N/sn, k=K/sk, b=B/sb; tc = b*m*n*k/(1024 MAC/cyc * 1.5 GHz)):
  T = smax_p( T_pe, T_core|T_wstream, T_dram, T_out ),  smax_p(x)=(sum x^p)^(1/p), p=4
  T_dram   = [distinct A+W+C bytes + (sk-1)*M*N*4 B of K-split partials] / BW
  projections:
    T_pe   = tc / eta * 2^(hK+hM)
             hK = [sk>1]                      (K-split kernels compute at half rate)
             hM = [m>=256 & n>=128 & sk=1] or [m>=512 & n>=256]   (large row block: half rate)
    T_core = (A_core + W_core) / r_core         (per-core DMA stream cap; = 'shared delivery' x32)
  bmm:
    T_pe      = tc / eta
    T_wstream = W_core * ceil(m/g) / min(r_core, kappa*run)   (W re-streamed from HBM per g-row PE pass;
                run = bt*128 B, bt = batch elements per LX tile = clamp(floor(L/(k*n*2+g*k*2+g*n*4)),1,b),
                L = lx_fraction * 2 MiB; Little's law: rate grows with run length until the per-core cap)
    T_out     = (b*m*n/64/sk) * c_o * min(1,k/128) * (0.2/lx)   (output-stick drain, ~1/LX budget)
Fitted parameters: eta, r_core, BW, c_o, kappa.  Structural: g=8, p=4.
"""
import csv, math, os, sys
import numpy as np

CSV = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'models', 'calibration', 'granite_matmul',
                   'splits.csv')


def ranks(x):
    """Ranks with ties sharing their mean rank."""
    x = np.asarray(x, dtype=float)
    order = np.argsort(x, kind='mergesort')
    r = np.empty(len(x))
    i = 0
    while i < len(x):
        j = i
        while j + 1 < len(x) and x[order[j + 1]] == x[order[i]]:
            j += 1
        r[order[i:j + 1]] = (i + j) / 2.0
        i = j + 1
    return r


def spearman(a, b):
    ra, rb = ranks(a), ranks(b)
    return float(np.corrcoef(ra, rb)[0, 1])


def least_squares(residuals, x0, iterations=200):
    """Levenberg-Marquardt on a few parameters with a numeric Jacobian."""
    x = np.array(x0, dtype=float)
    r = residuals(x)
    lam = 1e-3
    for _ in range(iterations):
        J = np.empty((len(r), len(x)))
        for i in range(len(x)):
            step = 1e-6 * max(1.0, abs(x[i]))
            xi = x.copy()
            xi[i] += step
            J[:, i] = (residuals(xi) - r) / step
        A = J.T @ J
        g = J.T @ r
        improved = False
        while lam < 1e12:
            dx = np.linalg.solve(A + lam * np.diag(np.diag(A) + 1e-12), -g)
            r_new = residuals(x + dx)
            if r_new @ r_new < r @ r:
                x, r, lam, improved = x + dx, r_new, lam / 3, True
                break
            lam *= 4
        if not improved or np.linalg.norm(dx) < 1e-10 * (1 + np.linalg.norm(x)):
            break
    return x
LXB = 2 ** 21
PEAK_MAC_PER_US = 1024 * 1500.0


def load():
    rows = []
    for r in csv.DictReader(open(CSV)):
        d = {k: r[k] for k in ('phase', 'op', 'kernel')}
        for k in ('B', 'M', 'N', 'K', 'split_b', 'split_m', 'split_n', 'split_k'):
            d[k] = int(r[k])
        d['lx'] = float(r['lx_fraction']); d['t'] = float(r['measured_us'])
        d['b'] = d['B'] // d['split_b']; d['m'] = d['M'] // d['split_m']
        d['n'] = d['N'] // d['split_n']; d['k'] = d['K'] // d['split_k']
        d['sb'], d['sm'], d['sn'], d['sk'] = d['split_b'], d['split_m'], d['split_n'], d['split_k']
        d['split'] = '%d_%d_%d_%d' % (d['sb'], d['sm'], d['sn'], d['sk'])
        d['shape'] = d['phase'] + ' ' + d['op']
        b, m, n, k = d['b'], d['m'], d['n'], d['k']
        d['A'] = b * m * k * 2; d['W'] = b * k * n * 2; d['C'] = b * m * n * 2
        d['dist'] = (d['B'] * d['M'] * d['K'] + d['B'] * d['K'] * d['N'] + d['B'] * d['M'] * d['N']) * 2
        d['tc'] = b * m * n * k / PEAK_MAC_PER_US
        rows.append(d)
    return rows


ROWS = load()

DEFAULT = dict(p=4, g=8, psum='sm1', psum_bytes=4, hK=True, hM='v3', co_k=128, co_lx=True,
               resident=None, out_runs=False, ring=False, streams=False, wrun='lx', wshare=False, out_sk=1.0)


def smax(ts, p):
    ts = [t for t in ts if t > 0]
    return sum(t ** p for t in ts) ** (1.0 / p)


def components(r, P, o):
    b, m, n, k, sk = r['b'], r['m'], r['n'], r['k'], r['sk']
    L = r['lx'] * LXB
    c = {}
    fsk = {'lin': sk, 'sm1': sk - 1, 'one': 1, 'log': math.log2(sk) if sk > 1 else 0}[o['psum']]
    part = o['psum_bytes'] * r['B'] * r['M'] * r['N'] * fsk if (sk > 1 and r['B'] == 1) else 0
    eff = 1.0 / (1.0 + r['sn'] * r['sk'] * r['sb'] / P.get('S', 1e30)) if o['streams'] else 1.0
    c['dram'] = (r['dist'] + part) / (P['bw'] * eff) / 1e3
    if r['B'] == 1:
        h = 0
        if o['hK'] and sk > 1:
            h += 1
        if o['hM'] == 'v3' and ((m >= 256 and n >= 128 and sk == 1) or (m >= 512 and n >= 256)):
            h += 1
        if o['hM'] == 'v2' and m >= 256 and n >= 128:
            h += 1
        c['pe'] = r['tc'] / P['eta'] * 2 ** h
        c['core'] = (r['A'] + r['W']) / P['r_core'] / 1e3
    else:
        g = o['g']
        passes = math.ceil(m / g)
        if o['resident'] and o['resident'](r, L):
            passes = 1
        tile = k * n * 2 + g * k * 2 + g * n * 4
        bt = max(1, min(b, int(L // tile))) if o['wrun'] == 'lx' else 1
        rate = min(P['r_core'], P['kappa'] * bt * 128)
        c['wstream'] = r['W'] * passes / rate / 1e3
        if o['wshare']:
            # The re-streamed W bytes, counted once per group of split_m cores that read
            # them in step (they share b, n and k), through one fitted rate R.
            c['wshare'] = r['W'] * passes * r['sb'] * r['sn'] * r['sk'] / P['R'] / 1e3
        nout = b * m * n / 64 / sk ** o['out_sk']
        if o['out_runs']:
            nout /= bt
        co = P['c_o'] * ((0.2 / r['lx']) if o['co_lx'] else 1.0)
        if o['co_k']:
            co *= min(1.0, k / o['co_k'])
        c['out'] = nout * co / 1e3
        c['pe'] = r['tc'] / P['eta']
    if o['ring'] and sk > 1:
        c['red'] = ((sk - 1) / sk * b * m * n * 4 / P['ring'] + (sk - 1) * P['hop'] * 1e3) / 1e3
    return c


def predict(r, P, o):
    c = components(r, P, o)
    red = c.pop('red', 0.0)
    return smax(list(c.values()), o['p']) + red


X0 = dict(eta=0.6, r_core=40.0, bw=150.0, c_o=500.0, kappa=0.05, S=100.0, ring=30.0, hop=1.0, R=300.0)
FREE = ['eta', 'r_core', 'bw', 'c_o', 'kappa']


def fit(rows, o, free=FREE, fixed=None):
    x0 = dict(X0, **(fixed or {}))
    y = np.log([r['t'] for r in rows])

    def unpack(lp):
        P = dict(x0)
        for i, kn in enumerate(free):
            P[kn] = math.exp(max(-50, min(50, lp[i])))
        return P

    res = lambda lp: np.log([predict(r, unpack(lp), o) for r in rows]) - y
    return unpack(least_squares(res, [math.log(x0[kn]) for kn in free]))


def metrics(rows, P, o):
    y = np.array([r['t'] for r in rows]); p = np.array([predict(r, P, o) for r in rows]); e = p / y - 1
    out = dict(n=len(rows), med=float(np.median(abs(e))), w25=float(np.mean(abs(e) < .25)))
    sp, pick, best, per = [], 0.0, 0.0, {}
    for s in sorted(set(r['shape'] for r in rows)):
        idx = [i for i, r in enumerate(rows) if r['shape'] == s and r['lx'] == 0.2]
        if len(idx) < 3:
            continue
        t = y[idx]; q = p[idx]
        rho = spearman(t, q)
        sp.append(rho)
        ip = idx[int(np.argmin(q))]
        pick += y[ip]; best += t.min()
        per[s] = (rho, rows[ip]['split'], y[ip], t.min(), float(np.median(abs(e[idx]))))
    out['sp'] = float(np.median(sp)) if sp else float('nan')
    out['regret'] = pick / best - 1 if best else float('nan')
    out['per'] = per
    return out, e, p


def fmt(m):
    return 'n=%3d  median|err| %5.1f%%  within25 %3.0f%%  medSpearman %+.2f  top1-regret %+5.1f%%' % (
        m['n'], 100 * m['med'], 100 * m['w25'], m['sp'], 100 * m['regret'])


PRE = [r for r in ROWS if r['phase'] == 'prefill']
DEC = [r for r in ROWS if r['phase'] == 'decode']
BMM = [r for r in ROWS if r['B'] > 1]
PROJ = [r for r in ROWS if r['B'] == 1]


def evaluate(label, o, free=FREE, verbose=True):
    Pall = fit(ROWS, o, free); Ppre = fit(PRE, o, free); Pdec = fit(DEC, o, free)
    Pdec_eta = fit(DEC, o, [f for f in free if f != 'eta'], fixed=dict(eta=X0['eta']))
    R = {'all (fit all)': metrics(ROWS, Pall, o)[0],
         'proj (fit all)': metrics(PROJ, Pall, o)[0],
         'bmm (fit all)': metrics(BMM, Pall, o)[0],
         'DECODE held out (fit prefill)': metrics(DEC, Ppre, o)[0],
         'PREFILL held out (fit decode)': metrics(PRE, Pdec, o)[0],
         'PREFILL held out (fit decode, eta=0.6 prior)': metrics(PRE, Pdec_eta, o)[0]}
    if verbose:
        print('\n== %s' % label)
        for kk, v in R.items():
            print('  %-46s %s' % (kk, fmt(v)))
        for nm, P in (('fit all', Pall), ('fit prefill', Ppre), ('fit decode', Pdec), ('fit decode eta fixed', Pdec_eta)):
            print('  params %-22s %s' % (nm, ', '.join('%s=%.3g' % (k, P[k]) for k in free)))
    return R, Pall, Ppre


def main():
    o = dict(DEFAULT)
    R, Pall, Ppre = evaluate('RECOMMENDED MODEL', o)
    m, e, p = metrics(ROWS, Pall, o)
    print('\n  per shape at lx 0.2 (fit all): Spearman, model pick, measured(pick) vs best, median|err|')
    for s, (rho, sp_, tp, tb, me) in m['per'].items():
        print('   %-18s rho %+.2f  pick %-9s %8.1f vs %8.1f (+%4.1f%%)  med %4.1f%%' % (s, rho, sp_, tp, tb, 100 * (tp / tb - 1), 100 * me))
    md, ed, pd = metrics(DEC, Ppre, o)
    print('\n  decode held out, per shape (params fit on prefill only):')
    for s, (rho, sp_, tp, tb, me) in md['per'].items():
        print('   %-18s rho %+.2f  pick %-9s %8.1f vs %8.1f (+%4.1f%%)  med %4.1f%%' % (s, rho, sp_, tp, tb, 100 * (tp / tb - 1), 100 * me))
    print('\n  rows still wrong by >40%% (fit all):')
    for r, ee, pp in sorted(zip(ROWS, e, p), key=lambda z: -abs(z[1])):
        if abs(ee) < 0.40:
            break
        c = components(r, Pall, o)
        print('   %-16s %-9s lx%.1f meas %7.1f pred %7.1f %+4.0f%%  [%s]' % (
            r['shape'], r['split'], r['lx'], r['t'], pp, 100 * ee, ' '.join('%s %.0f' % kv for kv in c.items())))
    if '--rows' in sys.argv:
        print('\n  all rows:')
        for r, ee, pp in zip(ROWS, e, p):
            print('   %-16s %-9s lx%.1f meas %8.1f pred %8.1f %+5.0f%%' % (r['shape'], r['split'], r['lx'], r['t'], pp, 100 * ee))

    # ---- hypotheses: each variant refit with the same protocol ----
    print('\n\n######## alternative / rejected hypotheses (same fit protocol) ########')
    variants = [
        ('doc: K-split = fp32 partials written+read through DRAM (4B x2 x sk), no half-rate', dict(o, hK=False, psum='lin', psum_bytes=8)),
        ('K-split: no half-rate, partial traffic only', dict(o, hK=False)),
        ('no large-row-block mode (hM off)', dict(o, hM='none')),
        ('hM = [m>=256 & n>=128] for all sk', dict(o, hM='v2')),
        ('partials via core ring (fitted BW+hop) instead of DRAM', dict(o, psum_bytes=0, ring=True)),
        ('no partial traffic at all', dict(o, psum_bytes=0)),
        ('DRAM efficiency falls with #distinct streams', dict(o, streams=True)),
        ('bmm: W resident when W_core <= 2*LX budget', dict(o, resident=lambda r, L: r['W'] <= 2 * L)),
        ('bmm: output cost per write run (bt sticks/run)', dict(o, out_runs=True)),
        ('bmm: output-stick cost independent of LX', dict(o, co_lx=False)),
        ('bmm: output-stick cost independent of k', dict(o, co_k=0)),
        ('bmm: W pass = 4 rows', dict(o, g=4)),
        ('bmm: W runs always one stick (bt=1)', dict(o, wrun='one')),
        ('bmm: W re-streams shared by the split_m cores, at a fitted rate R', dict(o, wshare=True)),
        ('bmm: the same, and a K split divides the output cost by sqrt(sk), not sk', dict(o, wshare=True, out_sk=0.5)),
    ]
    for lab, ov in variants:
        free = FREE + (['ring', 'hop'] if ov.get('ring') else []) + (['S'] if ov.get('streams') else []) + (
            ['R'] if ov.get('wshare') else [])
        R, P, _ = evaluate(lab, ov, free=free, verbose=False)
        print('\n-- %s' % lab)
        for kk in ('all (fit all)', 'proj (fit all)', 'bmm (fit all)', 'DECODE held out (fit prefill)'):
            print('   %-32s %s' % (kk, fmt(R[kk])))
        extra = [x for x in free if x not in FREE]
        if extra:
            print('   extra params: ' + ', '.join('%s=%.3g' % (x, P[x]) for x in extra))

    # ---- key rows that reject specific hypotheses ----
    print('\n\n######## rows behind the rejections ########')
    look = lambda ph, op, sp: [r for r in ROWS if r['phase'] == ph and r['op'] == op and r['split'] == sp and r['lx'] == 0.2][0]
    for ph, op, a, b_ in [('prefill', 'Q/O proj', '1_4_8_1', '1_4_4_2'), ('prefill', 'MLP down', '1_4_8_1', '1_4_4_2'),
                          ('prefill', 'MLP up', '1_4_8_1', '1_4_4_2'), ('prefill', 'K/V proj', '1_4_8_1', '1_4_4_2')]:
        ra, rb = look(ph, op, a), look(ph, op, b_)
        part = rb['M'] * rb['N'] * 4 * 2 * 2 / 150e3
        print('  %s %s: %s %.0f -> %s %.0f us: +%.0f us; fp32 partials w+r @150GB/s predict +%.0f; tc ratio %.2f -> %.2f' % (
            ph, op, a, ra['t'], b_, rb['t'], rb['t'] - ra['t'], part, ra['t'] / ra['tc'], rb['t'] / rb['tc']))
    for sp_ in ('1_4_8_1', '1_1_1_32', '1_2_1_16'):
        r = look('decode', 'Q/O proj', sp_)
        print('  decode Q/O %s %.0f us; fp32 partials (4B x sk x M x N, w+r) @150 GB/s alone would add %.0f us' % (
            sp_, r['t'], r['M'] * r['N'] * 4 * 2 * r['sk'] / 150e3))
    for ph, op, sp_ in [('prefill', 'K/V proj', '1_2_16_1'), ('prefill', 'K/V proj', '1_4_8_1'), ('prefill', 'Q/O proj', '1_2_16_1'),
                        ('prefill', 'Q/O proj', '1_4_8_1'), ('prefill', 'Q/O proj', '1_1_32_1')]:
        r = look(ph, op, sp_)
        print('  %s %s %s: n=%d, W slice = %d runs of %d KiB, t/tc = %.2f' % (ph, op, sp_, r['n'], r['n'] // 64, r['k'] * 128 // 1024, r['t'] / r['tc']))


if __name__ == '__main__':
    main()
