#!/usr/bin/python3
"""The independent reference of nanotrn's scaling-law fit (src/forecast/scaling_law.h): reads {"runs": [[N, D, L],
...], "at": [[N, D], ...]} on stdin, fits L(N, D) = E + A / N^alpha + B / D^beta by least squares with scipy's
trust-region reflective solver (scipy.optimize.least_squares, analytic-free: its own finite differences) over the same
parameters and bounds (E in [0, min L], log A and log B in [-30, 60], alpha and beta in [0.02, 1]) from the same 27
starts, and prints the best fit's cost (sum of squared residuals / 2) and its values at the requested points."""
import json
import sys

import numpy as np
from scipy.optimize import least_squares

q = json.load(sys.stdin)
n, d, y = (np.array(c, dtype=float) for c in zip(*q["runs"]))


def law(u, nn, dd):
    E, la, a, lb, b = u
    return E + np.exp(la - a * np.log(nn)) + np.exp(lb - b * np.log(dd))


def start(E, a, b):
    x1, x2 = n ** -a, d ** -b
    M = np.vstack([x1, x2]).T
    A, B = np.linalg.lstsq(M, y - E, rcond=None)[0]
    excess = max(np.mean(y - E), 1e-3)
    if not A > 0:
        A = 0.5 * excess * n[0] ** a
    if not B > 0:
        B = 0.5 * excess * d[0] ** b
    return [E, np.log(A), a, np.log(B), b]


lo, hi = [0, -30, 0.02, -30, 0.02], [y.min(), 60, 1, 60, 1]
best = None
for e in (0.0, 0.5, 0.8):
    for a in (0.15, 0.4, 0.9):
        for b in (0.15, 0.4, 0.9):
            s = np.clip(start(e * y.min(), a, b), lo, hi)
            r = least_squares(lambda u: law(u, n, d) - y, s, bounds=(lo, hi), xtol=1e-15, ftol=1e-15, gtol=1e-15,
                              max_nfev=20000)
            if best is None or r.cost < best.cost:
                best = r
print(json.dumps({"cost": float(best.cost), "u": [float(v) for v in best.x],
                  "at": [float(law(best.x, a, b)) for a, b in q["at"]]}))
