#!/usr/bin/env python3
"""Two sweeps' trials.jsonl hold the same trials (order aside), field for field, apart from what measures the machine.

Usage: sweep_same_trials.py A.jsonl B.jsonl

Set aside, and only these: metrics.wall_seconds (host wall-clock time) and metrics.ranks (per-rank host timings:
compute, communication and waiting seconds). Everything else -- the overrides, seed, the resolved recipe, the
prediction, steps, tokens, charged seconds, losses, val_bpb to the last bit, the command -- must be equal.
"""
import json
import sys

VOLATILE_METRICS = ("wall_seconds", "ranks")


def trials(path):
    out = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            t = json.loads(line)
            for key in VOLATILE_METRICS:
                t.get("metrics", {}).pop(key, None)
            if t["id"] in out:
                sys.exit(f"{path}:{n}: trial {t['id']} appears twice")
            out[t["id"]] = t
    return out


def differences(a, b, where=""):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                yield f"{where}.{k}: only in {'B' if k not in a else 'A'}"
            else:
                yield from differences(a[k], b[k], f"{where}.{k}")
    elif a != b:
        yield f"{where}: {a!r} != {b!r}"


def main():
    a, b = trials(sys.argv[1]), trials(sys.argv[2])
    if set(a) != set(b):
        sys.exit(f"different trials: only in A {sorted(set(a) - set(b))}, only in B {sorted(set(b) - set(a))}")
    bad = [d for i in sorted(a) for d in differences(a[i], b[i], i)]
    if bad:
        print("\n".join(bad[:20]))
        sys.exit(f"{len(bad)} field(s) differ")
    print(f"same trials: {len(a)} trials, every field equal but {', '.join('metrics.' + k for k in VOLATILE_METRICS)}")


if __name__ == "__main__":
    main()
