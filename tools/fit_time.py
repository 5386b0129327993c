#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Fits the decode step's constants (model/plan/timeconstants.cpp) to measured rows.

Reads tests/data/latency-rows.csv (each row cited in its `source` column), runs
`headroom plan --json` for every row at its sessions and mean resident context
(prompt + output, --output-tokens the output) with both fractions at 1 (so the plan's itl_terms give
raw memory and compute times), and fits per engine the bandwidth fraction, the
per-layer, per-MoE-layer and per-step costs, with the compute fraction and the
collective latency shared by all engines, by coordinate search on the mean
|log(predicted / measured)| of the rows whose `set` is "fit". Prints every row
(measured, predicted, error), the error on the rows held out, and the band: the
5th and 95th percentiles of measured / predicted on the held-out rows.

Usage: tools/fit_time.py BUILD/app/headroom tests/data/latency-rows.csv [--check]
With --check, fits nothing: runs every row with the constants built in and prints the plan's own
itl_ms and band against the measured figure, and measured / predicted TTFT at 8 sessions or fewer
(a TTFT under more load holds queueing the plan's unloaded figure leaves out).
"""
import csv, json, math, os, subprocess, sys, tempfile

HEADROOM, ROWS = sys.argv[1], sys.argv[2]
CHECK = '--check' in sys.argv[3:]
ENGINES = ['vllm', 'sglang', 'trtllm', 'llamacpp', 'plain']
PER_ENGINE = ['bw', 'layer', 'moe', 'step']
SHARED = ['compute', 'coll']


def terms(row, home):
    ctx = max(1, int(row['isl']) + int(row['osl']))
    args = [HEADROOM, 'plan', '--json', '--gpu', row['gpu'], '--tp', row['tp'], '--engine', row['engine'],
            '--sessions', row['sessions'], '--context', str(ctx), '--output-tokens', row['osl'], '--weights-dtype', row['weights'],
            '--kv-dtype', row['kv']]
    if not CHECK:
        args += ['--bandwidth-efficiency', '1', '--compute-utilization', '1']
    if row['model'].startswith('tinyllama'):
        args += ['--layers', '22', '--heads', '32', '--kv-heads', '4', '--head-dim', '64', '--params', '1100048384']
    else:
        args += ['--model', row['model']]
    if int(row['ep']) > 1:
        args += ['--ep', row['ep']]
    if row.get('extra'):
        args += row['extra'].split()
    env = dict(os.environ, HOME=home, XDG_DATA_HOME=os.path.join(home, 'data'), XDG_CONFIG_HOME=os.path.join(home, 'config'))
    out = subprocess.run(args, capture_output=True, text=True, env=env)
    if out.returncode != 0 and not out.stdout.startswith('{'):
        raise SystemExit('%s: %s' % (row['id'], out.stderr.strip()))
    plan = json.loads(out.stdout)
    t = plan['itl_terms']
    return dict(itl=plan['itl_ms'], low=plan['itl_ms_low'], high=plan['itl_ms_high'], ttft=plan['ttft_ms'],
                mem=t['memory_ms'], comp=t['compute_ms'], layers=t['layers_per_stage'], moe=t['moe'], stages=t['stages'],
                coll=t['collectives'], collbytes=t['collective_bytes'], link=t['link_bytes_per_s'])


def predict(t, engine, p):
    e = p[engine]
    ms = max(t['mem'] / e['bw'], t['comp'] / p['compute'])
    ms += (t['layers'] * (e['layer'] + (e['moe'] if t['moe'] else 0)) + e['step']) / 1e3
    ms += t['coll'] * p['coll'] / 1e3 + (t['collbytes'] / t['link'] * 1e3 if t['link'] > 0 else 0)
    return ms * t['stages']


def loss(rows, p):
    errs = [abs(math.log(predict(r['t'], r['engine'], p) / float(r['itl_ms']))) for r in rows]
    return sum(errs) / max(1, len(errs))


def fit(rows):
    p = {e: dict(bw=0.8, layer=5.0, moe=5.0, step=200.0) for e in ENGINES}
    p.update(compute=0.5, coll=10.0)
    # Bounds from what engines are known to reach: no more than 95% of peak bandwidth, no fixed
    # cost past 60 us a layer or 1 ms a step (a step of an 8B model at batch 1 on an H100 takes
    # about 6-7 ms in every engine).
    bounds = dict(bw=(0.5, 0.95), layer=(0.0, 60.0), moe=(0.0, 100.0), step=(0.0, 1000.0), compute=(0.05, 1.0), coll=(0.0, 50.0))
    for sweep in range(40):
        for key in SHARED + [(e, k) for e in ENGINES for k in PER_ENGINE]:
            engine, name = (None, key) if isinstance(key, str) else key
            sub = rows if engine is None else [r for r in rows if r['engine'] == engine]
            if not sub:
                continue
            lo, hi = bounds[name]
            box = p if engine is None else p[engine]
            best, bestv = loss(sub if engine else rows, p), box[name]
            for frac in (0.5, 0.7, 0.85, 0.95, 1.05, 1.2, 1.5, 2.0):
                for v in (bestv * frac, bestv + (hi - lo) * (frac - 1) * 0.05):
                    v = min(hi, max(lo, v))
                    box[name] = v
                    l = loss(sub if engine else rows, p)
                    if l < best - 1e-12:
                        best, bestv = l, v
            box[name] = bestv
    # An engine with no rows of its own (plain) takes the mean of the others.
    for e in ENGINES:
        if not any(r['engine'] == e for r in rows):
            have = [x for x in ENGINES if any(r['engine'] == x for r in rows)]
            p[e] = {k: sum(p[x][k] for x in have) / len(have) for k in PER_ENGINE}
    return p


def quantile(xs, q):
    xs = sorted(xs)
    i = q * (len(xs) - 1)
    a, b = int(math.floor(i)), int(math.ceil(i))
    return xs[a] + (xs[b] - xs[a]) * (i - a)


def check(rows):
    for name, sub in (('fit', [r for r in rows if r['set'] == 'fit']), ('held out', [r for r in rows if r['set'] != 'fit'])):
        errs = sorted(abs(r['t']['itl'] / float(r['itl_ms']) - 1) for r in sub)
        inside = sum(1 for r in sub if r['t']['low'] <= float(r['itl_ms']) <= r['t']['high'])
        print('%s: %d rows, median |error| %.1f%%, worst %.1f%%, within 35%% %d, inside band %d' % (
            name, len(sub), 100 * quantile(errs, 0.5), 100 * errs[-1], sum(1 for x in errs if x <= 0.35), inside))
    ttft = [float(r['ttft_ms']) / r['t']['ttft'] for r in rows if r['ttft_ms'] and int(r['sessions']) <= 8 and r['t']['ttft']]
    print('ttft: %d rows at 8 sessions or fewer, measured / predicted median %.2f, 5th %.3f, 95th %.3f' % (
        len(ttft), quantile(ttft, 0.5), quantile(ttft, 0.05), quantile(ttft, 0.95)))
    for r in rows:
        if r['set'] == 'latency.md':
            print('| %s | %s | %s | %s | TP %s | %s | %.2f | %.2f | %.2f-%.2f | %+.1f%% |' % (
                r['id'], r['engine'], r['model'], r['gpu'], r['tp'], r['sessions'], float(r['itl_ms']), r['t']['itl'],
                r['t']['low'], r['t']['high'], 100 * (r['t']['itl'] / float(r['itl_ms']) - 1)))


def main():
    rows = list(csv.DictReader(open(ROWS)))
    with tempfile.TemporaryDirectory() as home:
        # Cards of rows that have no preset: datasheet figures (NVIDIA GA102 whitepaper: RTX
        # 3090 Ti 1,008 GB/s and 80 TFLOPS FP16 tensor with FP32 accumulate, RTX 3080 760 GB/s
        # and 59.5; Turing TU104: RTX 2080 448 GB/s and 40.3; AMD RDNA 3: RX 7900 XTX 960 GB/s
        # and 122.8 TFLOPS FP16 WMMA), added to a scratch preset store.
        env = dict(os.environ, HOME=home, XDG_DATA_HOME=os.path.join(home, 'data'), XDG_CONFIG_HOME=os.path.join(home, 'config'))
        for gpu, name, memory, bandwidth, tflops in (('rtx-3090-ti', 'GeForce RTX 3090 Ti', '24GiB', '1008GB/s', '80'),
                                                     ('rtx-3080', 'GeForce RTX 3080', '10GiB', '760GB/s', '59.5'),
                                                     ('rtx-2080', 'GeForce RTX 2080', '8GiB', '448GB/s', '40.3'),
                                                     ('rx-7900-xtx', 'Radeon RX 7900 XTX', '24GiB', '960GB/s', '122.8')):
            subprocess.run([HEADROOM, 'presets', 'add', 'gpu', gpu, '--name', name, '--memory', memory, '--bandwidth', bandwidth,
                            '--tflops', tflops, '--host-link-bandwidth', '32GB/s'], env=env, check=True, capture_output=True)
        for r in rows:
            r['t'] = terms(r, home)
    if CHECK:
        return check(rows)
    fitrows = [r for r in rows if r['set'] == 'fit']
    held = [r for r in rows if r['set'] != 'fit']
    p = fit(fitrows)
    print(json.dumps({k: v for k, v in p.items()}, indent=1))
    ratios = []
    for r in rows:
        pr = predict(r['t'], r['engine'], p)
        r['pred'] = pr
        r['ratio'] = float(r['itl_ms']) / pr
    lo, hi = quantile([r['ratio'] for r in held], 0.05), quantile([r['ratio'] for r in held], 0.95)
    for name, sub in (('fit', fitrows), ('held out', held)):
        errs = sorted(abs(r['pred'] / float(r['itl_ms']) - 1) for r in sub)
        inside = sum(1 for r in sub if lo * r['pred'] <= float(r['itl_ms']) <= hi * r['pred'])
        print('%s: %d rows, median |error| %.1f%%, worst %.1f%%, within 35%% %d, inside band %d' % (
            name, len(sub), 100 * quantile(errs, 0.5), 100 * errs[-1], sum(1 for x in errs if x <= 0.35), inside))
    print('band: %.3f .. %.3f' % (lo, hi))
    for r in rows:
        if r['set'] != 'fit' and not r['id'].startswith('2'):
            print('%-5s %-7s %-15s %-15s tp%-2s B%-4s measured %8.2f predicted %8.2f band %7.2f-%7.2f error %+6.1f%%' % (
                r['id'], r['engine'], r['model'], r['gpu'], r['tp'], r['sessions'], float(r['itl_ms']), r['pred'],
                r['pred'] * lo, r['pred'] * hi, 100 * (r['pred'] / float(r['itl_ms']) - 1)))


main()
