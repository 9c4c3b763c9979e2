#!/usr/bin/env python3
"""Projects a data-parallel step to N machines from measured per-machine numbers (docs/PERFORMANCE.md).

Usage: dp_projection.py --microbatch-s T --accum A --params P [--link NAME:GBPS:LATENCY_US ...]

Model (each term stated, nothing fitted):
- compute per step = T x ceil(A / N): a machine trains whole micro-batches, so N > A adds nothing (the granularity
  limit of a fixed global batch);
- gradient all-reduce, ring: 2 (N-1)/N x 4P bytes / bandwidth + 2 (N-1) x latency;
- ZeRO-1 parameter broadcast from the owners: (N-1)/N x 4P bytes / bandwidth + (N-1) x latency (each machine
  receives the parameters it does not own);
- overlap: the all-reduce runs under the backward of the last micro-batch, about 2/3 of T (backward = 2 x forward);
  the broadcast follows the optimiser step and is not hidden.
Prints one table per link: N, compute, all-reduce, exposed communication, step, speed-up and efficiency over N = 1.
"""
import argparse
import math


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--microbatch-s", type=float, required=True)
    ap.add_argument("--accum", type=int, required=True)
    ap.add_argument("--params", type=float, required=True)
    ap.add_argument("--link", action="append", default=[])
    a = ap.parse_args()
    links = a.link or ["10GbE (assumed 1.1 GB/s, 30 us):1.1:30", "EFA 100 Gb/s (assumed 11 GB/s, 15 us):11:15"]
    grad_bytes = 4 * a.params
    base = a.microbatch_s * a.accum
    for spec in links:
        name, gbps, lat = spec.rsplit(":", 2)
        bw, lat = float(gbps) * 1e9, float(lat) * 1e-6
        print("%s: gradients %.1f MB per step" % (name, grad_bytes / 1e6))
        print("%4s %10s %12s %12s %10s %9s %7s" % ("N", "compute s", "all-reduce s", "exposed s", "step s", "speed-up",
                                                  "eff."))
        for n in (1, 2, 4, 8, 16, 32, 64):
            compute = a.microbatch_s * math.ceil(a.accum / n)
            ar = 0.0 if n == 1 else 2 * (n - 1) / n * grad_bytes / bw + 2 * (n - 1) * lat
            bc = 0.0 if n == 1 else (n - 1) / n * grad_bytes / bw + (n - 1) * lat
            exposed = max(0.0, ar - 2.0 / 3.0 * a.microbatch_s) + bc
            step = compute + exposed
            print("%4d %10.3f %12.3f %12.3f %10.3f %8.2fx %6.0f%%" % (n, compute, ar, exposed, step, base / step,
                                                                      100 * base / step / n))
        print()


if __name__ == "__main__":
    main()
