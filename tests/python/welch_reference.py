#!/usr/bin/python3
"""The independent reference of nanotrn's sweep statistics (src/sweep/stats.h): reads a JSON list of
[a, b] sample pairs on stdin and prints, per pair, scipy's Welch t-test (scipy.stats.ttest_ind with
equal_var=False, two-sided), the Welch-Satterthwaite degrees of freedom computed here from numpy's sample
variances, and each side's mean and sample standard deviation (ddof=1), as a JSON list."""
import json
import sys

import numpy as np
from scipy import stats


def welch_df(a, b):
    va, vb = np.var(a, ddof=1) / len(a), np.var(b, ddof=1) / len(b)
    return (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))


out = []
for a, b in json.load(sys.stdin):
    r = stats.ttest_ind(a, b, equal_var=False)
    out.append({"t": float(r.statistic), "p": float(r.pvalue), "df": float(welch_df(a, b)),
                "mean_a": float(np.mean(a)), "sd_a": float(np.std(a, ddof=1)),
                "mean_b": float(np.mean(b)), "sd_b": float(np.std(b, ddof=1))})
json.dump(out, sys.stdout)
