#!/usr/bin/python3
"""Checks a sweep's leaderboard (`nanotrn sweep report DIR --json`) against an independent computation from its
trials.jsonl: per variant the val_bpb values of its done trials, their mean and sample standard deviation (numpy,
ddof=1), the difference to the baseline's mean and Welch's two-sided p (scipy.stats.ttest_ind, equal_var=False).
Usage: sweep_leaderboard_check.py TRIALS_JSONL LEADERBOARD_JSON BASELINE. Exit 0 and "leaderboard matches" when
every number agrees to 1e-9; 1 with the differences listed."""
import json
import math
import sys

import numpy as np
from scipy import stats

trials_path, board_path, baseline = sys.argv[1:4]
values = {}
for line in open(trials_path):
    t = json.loads(line)
    if t["status"] == "done":
        values.setdefault(t["variant"], []).append(t["metrics"]["val_bpb"])
board = json.load(open(board_path))
problems = []


def close(a, b):
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


base = values[baseline]
for row in board["rows"]:
    v = values.get(row["variant"], [])
    if sorted(v) != sorted(row["val_bpb"]):
        problems.append(f"{row['variant']}: values {row['val_bpb']} != trials.jsonl {v}")
        continue
    mean = float(np.mean(v))
    sd = float(np.std(v, ddof=1)) if len(v) > 1 else None
    p = float(stats.ttest_ind(v, base, equal_var=False).pvalue) if len(v) > 1 and len(base) > 1 else None
    if p is not None and math.isnan(p):
        p = None
    for name, want, got in [("mean", mean, row["mean"]), ("sd", sd, row["sd"]),
                            ("diff", mean - float(np.mean(base)), row["diff"]), ("p", p, row["p"])]:
        if not close(want, got):
            problems.append(f"{row['variant']}: {name} {got} != {want}")
if problems:
    print("\n".join(problems))
    sys.exit(1)
print(f"leaderboard matches: {len(board['rows'])} variants, means, sds, diffs and Welch p from scipy")
