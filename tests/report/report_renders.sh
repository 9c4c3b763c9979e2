#!/usr/bin/env bash
# The HTML run report end to end, on the speedrun fixture's folder (cli.speedrun_tiny): the speedrun's own
# report.html and `nanotrn report RUN_DIR` of the same run each (1) render in headless Chromium with no console
# error, no network request and no blank plot (chromium_render.py), and (2) show the numbers of metrics.jsonl,
# core.json and of `nanotrn predict --json` for trn2 and trn3 at the challenge's 30 minutes (report_numbers.py).
# Then `nanotrn plot` writes an SVG that renders too.
# Usage: report_renders.sh NANOTRN SPEEDRUN_ROOT OUT_DIR
set -euo pipefail
nanotrn=$1 root=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
run=$root/speedrun/run
rm -rf "$out" && mkdir -p "$out"
plots=loss_vs_step,loss_vs_time,val_bpb,throughput,schedules,core_tasks
plots+=,predict_trn2_groups,predict_trn2_engines,predict_trn3_groups,predict_trn3_engines

# the run's own recipe, as the report prices it
$py -c 'import json,sys
for line in open(sys.argv[1]):
    j = json.loads(line) if line.strip() else {}
    if j.get("event") == "start": recipe = j["recipe"]
json.dump(recipe, open(sys.argv[2], "w"))' "$run/metrics.jsonl" "$out/recipe.json"
for d in trn2 trn3; do
  "$nanotrn" predict --recipe "$out/recipe.json" --set train.budget=30m --set train.steps=0 --device $d --json \
    > "$out/predict_$d.json"
done

check_page() {  # check_page HTML PNG
  $py "$here/chromium_render.py" --html "$1" --png "$2" --expect-plots "$plots" > "$2.json"
  echo "rendered $1: no console error, no network request, no blank plot"
  $py "$here/report_numbers.py" --html "$1" --metrics "$run/metrics.jsonl" --core "$run/core.json" \
    --prediction trn2="$out/predict_trn2.json" --prediction trn3="$out/predict_trn3.json"
}

check_page "$root/speedrun/report.html" "$out/speedrun.png"
"$nanotrn" report "$run" -o "$out/report.html"
check_page "$out/report.html" "$out/report.png"

# the number check can fail: one changed value and one dropped plot point are each caught
$py - "$out/report.html" "$out/wrong_value.html" "$out/dropped_point.html" <<'PY'
import re, sys
page = open(sys.argv[1]).read()
steps = re.search(r'data-key="run.steps" data-value="([0-9]+)"', page)
open(sys.argv[2], "w").write(page.replace(steps.group(0), steps.group(0).replace(
    steps.group(1), str(int(steps.group(1)) + 1))))
pts = re.search(r'data-series="train" data-points="([^"]*)"', page)
open(sys.argv[3], "w").write(page.replace(pts.group(0), pts.group(0).replace(pts.group(1), pts.group(1).rsplit(" ", 1)[0])))
PY
for bad in wrong_value dropped_point; do
  if $py "$here/report_numbers.py" --html "$out/$bad.html" --metrics "$run/metrics.jsonl" > "$out/$bad.txt" 2>&1; then
    echo "report_numbers.py accepted $bad.html" >&2
    exit 1
  fi
  echo "report numbers rejects $bad.html: $(grep -m1 FAIL "$out/$bad.txt")"
done

"$nanotrn" plot "$run/metrics.jsonl" -o "$out/loss.svg" --y loss --x charged_seconds
$py "$here/chromium_render.py" --html "$out/loss.svg" --png "$out/loss.png" --expect-plots loss > "$out/loss.json"
echo "report renders: both pages and the plot passed"
