#!/usr/bin/env python3
"""Functions in src/ longer than a limit (80 lines), each of which must be listed with its reason in
docs/ARCHITECTURE.md's table "Functions over 80 lines, and why" (rows: | `name` | `src/path` | reason |).

    python3 scripts/long_functions.py            # list the long functions
    python3 scripts/long_functions.py --check    # fail naming each long function without a row, and each stale row

The scan is lexical, not a C++ parser: a definition is a line at indentation 0 or 2 that names a function and opens
its body within the next lines; its length runs to the matching brace (strings, characters and // comments are
ignored when counting braces). Raw string literals with unbalanced braces would fool it: none are in src/.
"""
import os
import re
import sys

LIMIT = 80
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
DEFINITION = re.compile(r"^( {0,2})(?:[A-Za-z_][\w:<>,*&~\[\] ]*[\s*&])?([A-Za-z_~][\w:~]*)\(")
NOT_A_DEFINITION = ("return", "if", "for", "while", "switch", "//", "#", "else", "case", "do")


def code_of(line):
    line = re.sub(r'"([^"\\]|\\.)*"', '""', line)
    line = re.sub(r"'([^'\\]|\\.)*'", "''", line)
    return line.split("//")[0]


def long_functions(src):
    found = []
    for folder, _, files in os.walk(src):
        for name in sorted(files):
            if not name.endswith((".cpp", ".h")):
                continue
            path = os.path.join(folder, name)
            lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
            i = 0
            while i < len(lines):
                m = DEFINITION.match(lines[i])
                if not m or lines[i].strip().startswith(NOT_A_DEFINITION) or lines[i].rstrip().endswith(";"):
                    i += 1
                    continue
                opening = None
                for j in range(i, min(i + 8, len(lines))):
                    if "{" in code_of(lines[j]):
                        opening = j
                        break
                    if code_of(lines[j]).rstrip().endswith(";"):
                        break
                if opening is None:
                    i += 1
                    continue
                depth, k = 0, opening
                while k < len(lines):
                    code = code_of(lines[k])
                    depth += code.count("{") - code.count("}")
                    if depth <= 0:
                        break
                    k += 1
                length = k - i + 1
                if length > LIMIT:
                    rel = os.path.relpath(path, os.path.dirname(src))
                    found.append((m.group(2).split("::")[-1], rel, length, i + 1))
                i = k + 1
    return found


def reasons(doc):
    rows, inside = {}, False
    for line in open(doc, encoding="utf-8").read().split("\n"):
        if line.startswith("#"):
            inside = "Functions over 80 lines" in line
            continue
        m = re.match(r"^\| `([\w~]+)` \| `([\w/.]+)` \| (.+) \|$", line) if inside else None
        if m:
            rows[(m.group(1), m.group(2))] = m.group(3).strip()
    return rows


def main():
    src = os.path.join(ROOT, "src")
    found = long_functions(src)
    if "--check" not in sys.argv:
        for name, rel, length, line in sorted(found, key=lambda f: -f[2]):
            print(f"{length:5d} {rel}:{line} {name}")
        return 0
    doc = os.path.join(ROOT, "docs", "ARCHITECTURE.md")
    listed = reasons(doc)
    faults = []
    for name, rel, length, line in found:
        if (name, rel) not in listed:
            faults.append(f"{rel}:{line}: {name} is {length} lines (over {LIMIT}) and has no reason in "
                          "docs/ARCHITECTURE.md, \"Functions over 80 lines, and why\": split it into named steps, "
                          "or add its row")
    long_now = {(name, rel) for name, rel, _, _ in found}
    for key in listed:
        if key not in long_now:
            faults.append(f"docs/ARCHITECTURE.md: {key[0]} ({key[1]}) is listed as over {LIMIT} lines but is not "
                          "(remove its row)")
    for f in faults:
        print(f)
    print(f"long functions: {len(found)}, each with its reason" if not faults else f"FAIL: {len(faults)} fault(s)")
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main())
