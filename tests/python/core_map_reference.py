#!/usr/bin/python3
"""The independent reference of nanotrn's CORE map (src/forecast/core_map.h): reads the pairs file
(configs/forecast/core_vs_bpb.json) named on the command line and prints numpy's least-squares line of CORE on
val_bpb (numpy.polyfit, degree 1) and its leave-one-out errors (each pair predicted by the line fitted without it)."""
import json
import sys

import numpy as np

pairs = json.load(open(sys.argv[1]))["pairs"]
x = np.array([p["val_bpb"] for p in pairs])
y = np.array([p["core"] for p in pairs])
slope, intercept = np.polyfit(x, y, 1)
loo = []
for i in range(len(x)):
    keep = np.arange(len(x)) != i
    s, c = np.polyfit(x[keep], y[keep], 1)
    loo.append(float(c + s * x[i] - y[i]))
print(json.dumps({"intercept": float(intercept), "slope": float(slope), "loo": loo,
                  "loo_rms": float(np.sqrt(np.mean(np.square(loo))))}))
