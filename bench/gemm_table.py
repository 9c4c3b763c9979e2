#!/usr/bin/env python3
"""Turns Google Benchmark JSON from bench/gemm_bench_* into the markdown tables of docs/PERFORMANCE.md.

Input: runs with --benchmark_repetitions=N (per-repetition results kept, i.e. without
--benchmark_report_aggregates_only). The machine is shared, so every repetition carries an `others_cpu` counter
(fraction of all CPUs used by other processes while it ran); repetitions above --max-others (default 0.03) are
dropped and each cell is the median GFLOP/s of the remaining ("clean") repetitions. Cells with fewer than 3 clean
repetitions are marked "?" and should be re-run. Not here: running the benchmarks.

Usage: gemm_table.py [--max-others F] [--shapes s1,s2,...] [--variants v1,v2,...] [--spread] FILE.json...
"""
import argparse
import json
import statistics


def load(files, max_others):
    reps = {}  # (variant, shape, threads) -> list of (gflops, pct, others)
    order_v, order_s = [], []
    for f in files:
        for b in json.load(open(f))["benchmarks"]:
            if b.get("run_type") != "iteration" or "GFLOP" not in b:
                continue
            variant, shape, t = b["run_name"].split("/")[:3]
            reps.setdefault((variant, shape, int(t[1:])), []).append((b["GFLOP"], b["pct_of_peak"], b["others_cpu"]))
            if variant not in order_v:
                order_v.append(variant)
            if shape not in order_s:
                order_s.append(shape)
    # Canonical column order (Google Benchmark's random interleaving scrambles the file order).
    canon = ["sq512", "sq1024", "sq2048"] + [f"d{d}_{g}" for d in (256, 512, 768)
                                              for g in ("fwd_NN", "fwd_NT", "bwdX_NN", "bwdW_TN", "bwdWt_TN")]
    order_s.sort(key=lambda s: canon.index(s) if s in canon else len(canon))
    cells = {}
    for key, rs in reps.items():
        clean = [r for r in rs if r[2] <= max_others]
        use = clean if clean else rs
        g = statistics.median(r[0] for r in use)
        p = statistics.median(r[1] for r in use)
        cells[key] = dict(g=g, p=p, n_clean=len(clean), n=len(rs), lo=min(r[0] for r in use), hi=max(r[0] for r in use))
    return cells, order_v, order_s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--max-others", type=float, default=0.03)
    ap.add_argument("--shapes")
    ap.add_argument("--variants")
    ap.add_argument("--spread", action="store_true", help="add [min-max] of the clean repetitions")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    cells, variants, shapes = load(a.files, a.max_others)
    if a.shapes:
        shapes = [s for s in a.shapes.split(",") if s in shapes]
    if a.variants:
        variants = [v for v in a.variants.split(",") if v in variants]
    for threads in (1, 2):
        print(f"\n{threads} thread{'s' if threads > 1 else ''}: GFLOP/s (% of measured peak)\n")
        print("| shape | " + " | ".join(variants) + " |")
        print("|---" * (len(variants) + 1) + "|")
        pcts = {v: [] for v in variants}
        for s in shapes:
            row = []
            for v in variants:
                e = cells.get((v, s, threads))
                if not e:
                    row.append("-")
                    continue
                cell = f"{e['g']:.0f} ({e['p']:.0f}%)"
                if a.spread:
                    cell += f" [{e['lo']:.0f}-{e['hi']:.0f}]"
                if e["n_clean"] < 3:
                    cell += f" ?{e['n_clean']}/{e['n']}"
                row.append(cell)
                pcts[v].append(e["p"])
            print(f"| {s} | " + " | ".join(row) + " |")
        print("| **median over shapes** | " +
              " | ".join(f"**{statistics.median(pcts[v]):.0f}%**" if pcts[v] else "-" for v in variants) + " |")
        print("| worst shape | " + " | ".join(f"{min(pcts[v]):.0f}%" if pcts[v] else "-" for v in variants) + " |")
    dirty = sorted(k for k, e in cells.items() if e["n_clean"] < 3)
    if dirty:
        print(f"\n{len(dirty)} cells with < 3 clean repetitions (re-run): " + " ".join(f"{v}/{s}/t{t}" for v, s, t in dirty))


if __name__ == "__main__":
    main()
