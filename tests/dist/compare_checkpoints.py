#!/usr/bin/env python3
"""Compares two nanotrn checkpoints tensor by tensor (stdlib only).

Usage: compare_checkpoints.py A.safetensors B.safetensors [--rel TOL]
Without --rel every tensor (model weights, optimiser state, EMA) must have the same shape and the same bytes, and the
progress records the same step, token count and data position; with --rel the weights may differ by at most TOL
relative to the largest weight magnitude of each tensor. Prints one line per verdict; exits 1 on a difference.
"""
import json
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from safetensors_raw import read  # noqa: E402


def floats(raw):
    return struct.unpack("<%df" % (len(raw) // 4), raw)


def main():
    args = sys.argv[1:]
    rel = None
    if "--rel" in args:
        i = args.index("--rel")
        rel = float(args[i + 1])
        del args[i:i + 2]
    a, meta_a = read(args[0])
    b, meta_b = read(args[1])
    bad = []
    if sorted(a) != sorted(b):
        bad.append("tensor names differ: only in A %s, only in B %s" % (sorted(set(a) - set(b)), sorted(set(b) - set(a))))
    worst = 0.0
    for name in sorted(set(a) & set(b)):
        (da, sa, ra), (db, sb, rb) = a[name], b[name]
        if (da, sa) != (db, sb):
            bad.append("%s: %s %s vs %s %s" % (name, da, sa, db, sb))
        elif rel is None:
            if ra != rb:
                fa, fb = floats(ra), floats(rb)
                k = next(i for i in range(len(fa)) if fa[i] != fb[i] and not (fa[i] != fa[i] and fb[i] != fb[i]))
                bad.append("%s: element %d differs: %r vs %r" % (name, k, fa[k], fb[k]))
        elif name.startswith("model."):
            fa, fb = floats(ra), floats(rb)
            scale = max(max(abs(x) for x in fa), 1e-30)
            d = max(abs(x - y) for x, y in zip(fa, fb)) / scale
            worst = max(worst, d)
            if d > rel:
                bad.append("%s: max difference %.3g of the largest weight (tolerance %.3g)" % (name, d, rel))
    pa, pb = json.loads(meta_a.get("progress", "{}")), json.loads(meta_b.get("progress", "{}"))
    for key in ("step", "tokens", "train_position"):
        if pa.get(key) != pb.get(key):
            bad.append("progress %s: %r vs %r" % (key, pa.get(key), pb.get(key)))
    for line in bad:
        print("DIFFERENT " + line)
    if bad:
        return 1
    what = "bit-identical" if rel is None else "weights within %.3g (worst %.3g)" % (rel, worst)
    print("checkpoints %s: %d tensors, step %s" % (what, len(a), pa.get("step")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
