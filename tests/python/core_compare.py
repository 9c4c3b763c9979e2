"""Compares `nanotrn eval core --records` with tests/python/core_reference.py's output on the same checkpoint and bundle.

Usage: core_compare.py NANOTRN_RECORDS.json REFERENCE.json

Checks, per task (in order) and per example: identical token rows (after cropping), identical answer spans, identical
verdicts; mean losses within 1e-4 (fp32 forwards summed in different orders; NaN where both spans are empty); and
accuracy and CORE to 1e-9. Prints one line per task and exits 1 naming the first difference.
"""
import json
import math
import sys


def fail(msg):
    print("core_compare: " + msg)
    sys.exit(1)


def main():
    mine = json.load(open(sys.argv[1]))
    ref = json.load(open(sys.argv[2]))
    if [t["label"] for t in mine["tasks"]] != [t["label"] for t in ref["tasks"]]:
        fail("different tasks: %s vs %s" % ([t["label"] for t in mine["tasks"]], [t["label"] for t in ref["tasks"]]))
    worst = 0.0
    for a, b in zip(mine["tasks"], ref["tasks"]):
        label = a["label"]
        ra, rb = a["records"], b["examples"]
        if len(ra) != len(rb):
            fail("%s: %d examples vs %d" % (label, len(ra), len(rb)))
        for x, y in zip(ra, rb):
            where = "%s example %d" % (label, x["index"])
            if x["index"] != y["index"]:
                fail("%s: index %d vs %d" % (where, x["index"], y["index"]))
            if x["rows"] != y["rows"]:
                fail("%s: the token rows differ (%s vs %s tokens)" % (
                    where, [len(r) for r in x["rows"]], [len(r) for r in y["rows"]]))
            if x["start"] != y["start"] or x["end"] != y["end"]:
                fail("%s: spans %s..%s vs %s..%s" % (where, x["start"], x["end"], y["start"], y["end"]))
            la, lb = x.get("losses") or [], y.get("losses") or []
            if len(la) != len(lb):
                fail("%s: %d losses vs %d" % (where, len(la), len(lb)))
            for p, q in zip(la, lb):
                p = float("nan") if p is None else p
                q = float("nan") if q is None else q
                if math.isnan(p) != math.isnan(q):
                    fail("%s: losses %s vs %s" % (where, la, lb))
                if not math.isnan(p):
                    worst = max(worst, abs(p - q))
                    if abs(p - q) > 1e-4:
                        fail("%s: losses %s vs %s" % (where, la, lb))
            if x["correct"] != y["correct"]:
                fail("%s: correct %s vs %s (losses %s vs %s)" % (where, x["correct"], y["correct"], la, lb))
        if abs(a["accuracy"] - b["accuracy"]) > 1e-9 or abs(a["centered"] - b["centered"]) > 1e-9:
            fail("%s: accuracy %r vs %r, centered %r vs %r" % (label, a["accuracy"], b["accuracy"], a["centered"],
                                                               b["centered"]))
        print("%-28s %4d examples identical, accuracy %.4f, centered %+.4f" % (label, len(ra), a["accuracy"],
                                                                            a["centered"]))
    if abs(mine["core"] - ref["core"]) > 1e-9:
        fail("CORE %r vs %r" % (mine["core"], ref["core"]))
    print("CORE %.9f equal to 1e-9; largest loss difference %.2e" % (mine["core"], worst))


if __name__ == "__main__":
    main()
