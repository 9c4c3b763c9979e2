#!/usr/bin/python3
"""The independent reference of the forecast's ladder CORE line (src/forecast/ladder_core.h) and of Student's t
quantile (src/sweep/stats.h): reads {"ladders": [{"x", "y", "at", "low", "high", "coverage"}, ...], "quantiles":
[[q, df], ...]} on stdin and prints, per ladder, scipy.stats.linregress's line and two-sided p-value of the slope,
the leave-one-out RMS (numpy.polyfit without each point) and the prediction interval for one new observation,
yhat +- t.ppf((1 + coverage) / 2, n - 2) * s * sqrt(1 + 1/n + (x - xbar)^2 / Sxx), taken at at, low and high (their
union); and scipy.stats.t.ppf(q, df) per quantile."""
import json
import sys

import numpy as np
from scipy import stats

req = json.load(sys.stdin)
ladders = []
for lad in req["ladders"]:
    x, y = np.array(lad["x"]), np.array(lad["y"])
    n = len(x)
    r = stats.linregress(x, y)
    resid = y - (r.intercept + r.slope * x)
    s = np.sqrt(np.sum(resid ** 2) / (n - 2))
    sxx = np.sum((x - x.mean()) ** 2)
    t = stats.t.ppf((1 + lad["coverage"]) / 2, n - 2)
    lows, highs = [], []
    for b in (lad["at"], lad["low"], lad["high"]):
        half = t * s * np.sqrt(1 + 1 / n + (b - x.mean()) ** 2 / sxx)
        lows.append(r.intercept + r.slope * b - half)
        highs.append(r.intercept + r.slope * b + half)
    loo = []
    for i in range(n):
        keep = np.arange(n) != i
        sl, ic = np.polyfit(x[keep], y[keep], 1)
        loo.append(ic + sl * x[i] - y[i])
    ladders.append({"intercept": float(r.intercept), "slope": float(r.slope), "p": float(r.pvalue),
                    "rms": float(np.sqrt(np.mean(resid ** 2))), "loo_rms": float(np.sqrt(np.mean(np.square(loo)))),
                    "core": float(r.intercept + r.slope * lad["at"]), "low": float(min(lows)),
                    "high": float(max(highs))})
quantiles = [float(stats.t.ppf(q, df)) for q, df in req["quantiles"]]
json.dump({"ladders": ladders, "quantiles": quantiles}, sys.stdout)
