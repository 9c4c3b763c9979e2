#!/usr/bin/env bash
# CORE scoring speed, nanotrn against its PyTorch peer, measured in the same run on the same checkpoint, bundle,
# examples and threads (docs/PERFORMANCE.md; the peer-benchmark rules of shared/bench: a ratio to a peer measured
# beside it, the physical limit next to it).
#   nanotrn: `nanotrn eval core` (each example's shared prefix once through a KV cache, head only at scored positions)
#   PyTorch: tests/python/core_reference.py (nanochat's way: one right-padded batch of all rows per example, no cache)
# Both forwards are fp32. tests/python/core_compare.py checks the two agree (rows, spans, losses to 1e-4, verdicts, CORE).
#
# Usage: bench/core_vs_pytorch.sh [--recipe R] [--threads N] [--max-per-task N] [--bundle DIR] [--shots-like-core]
#                                 [--scratch DIR] [--fresh]
#   or the same through the environment: RECIPE, THREADS, MAX_PER_TASK, BUNDLE, SHOTS_LIKE_CORE=1, SCRATCH, FRESH=1.
#   --recipe          a shipped recipe's name or a recipe file (default autoresearch-d8)
#   --threads         threads for both scorers (default: all cores, nproc)
#   --max-per-task    examples per task after the seeded shuffle (default 40 = all of brown-core; 0 = all)
#   --bundle          eval bundle (default eval_bundles/brown-core)
#   --shots-like-core also score a derived bundle (SCRATCH/bundle-10shot: the same data, num_fewshot 10 for every
#                     multiple_choice and language_modeling task, as most tasks of the real 22-task CORE bundle), where
#                     sharing the prefix matters more; both bundles are reported
#   --scratch         work folder (default out/bench/core/<recipe name>; out/ is git-ignored)
#   --fresh           rebuild the checkpoint even if the scratch folder holds one
# What it does: `nanotrn data setup` for the recipe (tokenizer + shards; skips what is valid; minutes for an 8k
# tokenizer the first time), a checkpoint of the recipe's shape from ONE training step with a 1-row batch (weights after
# one step are fine for timing; batch.seq_len, the scorers' maximum length, is the recipe's), then both scorers.
# Timing: each tool's own seconds (its sum of per-task seconds: prompts, tokenizing, forwards, scoring; and its total)
# and the wall time of the whole process (start-up and model load included). others_cpu = the share of all CPUs that
# other processes used during the run (/proc/stat minus the scorer's own CPU time): above ~0.03 the run was not quiet.
# Needs build/release/nanotrn (NANOTRN_BIN to override) and /usr/bin/python3 with torch, regex, yaml, jinja2.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

RECIPE=${RECIPE:-autoresearch-d8}
THREADS=${THREADS:-$(nproc)}
MAX_PER_TASK=${MAX_PER_TASK:-40}
BUNDLE=${BUNDLE:-eval_bundles/brown-core}
SHOTS_LIKE_CORE=${SHOTS_LIKE_CORE:-0}
SCRATCH=${SCRATCH:-}
FRESH=${FRESH:-0}
usage() { sed -n '/^# Usage:/,/^# Needs/p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case $1 in
    --recipe) RECIPE=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --max-per-task) MAX_PER_TASK=$2; shift 2 ;;
    --bundle) BUNDLE=$2; shift 2 ;;
    --scratch) SCRATCH=$2; shift 2 ;;
    --shots-like-core) SHOTS_LIKE_CORE=1; shift ;;
    --fresh) FRESH=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "core_vs_pytorch: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

BIN=${NANOTRN_BIN:-build/release/nanotrn}
PY=/usr/bin/python3
[ -x "$BIN" ] || { echo "core_vs_pytorch: $BIN not found; build first: cmake --preset release && cmake --build --preset release" >&2; exit 1; }
BIN=$(realpath "$BIN")
[ -f "$BUNDLE/core.yaml" ] || { echo "core_vs_pytorch: $BUNDLE/core.yaml not found" >&2; exit 1; }
BUNDLE=$(realpath "$BUNDLE")
name=$(basename "$RECIPE" .json)
SCRATCH=${SCRATCH:-out/bench/core/$name}
mkdir -p "$SCRATCH"
SCRATCH=$(realpath "$SCRATCH")

# Machine line.
isa=$(grep -q -w avx512f /proc/cpuinfo && echo avx512 || echo avx2)
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'); nproc $(nproc);" \
  "ISA: $(grep -o -w -E 'avx512f|avx512_bf16|avx2' /proc/cpuinfo | sort -u | tr '\n' ' ')"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"

# 1. The recipe's data (tokenizer + shards), then a checkpoint of its shape.
echo "== nanotrn data setup --recipe $RECIPE"
"$BIN" data setup --recipe "$RECIPE" 2>&1 | tail -3
TOKENIZER=$("$BIN" recipe show "$RECIPE" | sed -n 's/^data\.tokenizer = "\([^"]*\)".*/\1/p')
SEQ_LEN=$("$BIN" recipe show "$RECIPE" | sed -n 's/^batch\.seq_len = \([0-9]*\).*/\1/p')
[ -n "$TOKENIZER" ] && [ -n "$SEQ_LEN" ] || { echo "core_vs_pytorch: cannot read data.tokenizer / batch.seq_len of $RECIPE" >&2; exit 1; }
CKPT=$SCRATCH/ckpt_run/checkpoint.safetensors
if [ "$FRESH" = 1 ] || [ ! -f "$CKPT" ]; then
  echo "== one training step for a checkpoint of $RECIPE's shape (1 row x $SEQ_LEN tokens)"
  "$BIN" train --recipe "$RECIPE" --set train.steps=1 --set train.budget=0 --set batch.rows=1 \
    --set 'batch.phases=[{"from":0,"accum":1,"lr_scale":1}]' --set eval.rows=1 --set eval.tokens="$SEQ_LEN" \
    --set train.checkpoint_every=0 --set train.threads="$THREADS" \
    --out "$SCRATCH/ckpt_run" --overwrite --quiet >/dev/null
else
  echo "== reusing $CKPT (--fresh to rebuild)"
fi

# 2. Optionally the 10-shot bundle: same data files, num_fewshot 10 for multiple_choice and language_modeling.
bundles=("$BUNDLE")
if [ "$SHOTS_LIKE_CORE" = 1 ]; then
  D=$SCRATCH/bundle-10shot
  rm -rf "$D" && mkdir -p "$D"
  cp "$BUNDLE/eval_meta_data.csv" "$D/"
  cp -r "$BUNDLE/eval_data" "$D/eval_data"  # a copy: a bundle's files must lie inside it (links out are refused)
  $PY - "$BUNDLE/core.yaml" "$D/core.yaml" <<'PY'
import sys, yaml
cfg = yaml.safe_load(open(sys.argv[1]))
for t in cfg["icl_tasks"]:
    if t["icl_task_type"] in ("multiple_choice", "language_modeling"):
        t["num_fewshot"] = [10]
with open(sys.argv[2], "w") as f:
    f.write("# derived by bench/core_vs_pytorch.sh --shots-like-core: num_fewshot 10 for multiple_choice and LM\n")
    yaml.safe_dump(cfg, f, sort_keys=False, allow_unicode=True)
PY
  bundles+=("$D")
  if [ "$MAX_PER_TASK" -gt 0 ] && [ "$MAX_PER_TASK" -le 10 ]; then
    echo "note: --max-per-task $MAX_PER_TASK leaves each example $((MAX_PER_TASK - 1)) others, so the 10-shot bundle" \
      "runs with at most $((MAX_PER_TASK - 1)) shots (recipe-spec §12)"
  fi
fi

# Runs a command, writes {"wall", "cpu" (its own, children included), "others_cpu"} to $1.
timed() {
  local out=$1; shift
  $PY - "$out" "$@" <<'PY'
import json, os, resource, subprocess, sys, time
def busy():
    f = open("/proc/stat").readline().split()[1:9]
    v = [float(x) for x in f]
    return (sum(v) - v[3] - v[4]) / os.sysconf("SC_CLK_TCK")  # all but idle and iowait
b0, t0 = busy(), time.monotonic()
rc = subprocess.call(sys.argv[2:])
wall, b1 = time.monotonic() - t0, busy()
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = ru.ru_utime + ru.ru_stime
others = max(0.0, (b1 - b0 - cpu) / (wall * os.cpu_count()))
json.dump({"wall": wall, "cpu": cpu, "others_cpu": others}, open(sys.argv[1], "w"))
sys.exit(rc)
PY
}

# 3. Both scorers on each bundle.
for b in "${bundles[@]}"; do
  tag=$( [ "$b" = "$BUNDLE" ] && echo base || echo 10shot )
  W=$SCRATCH/$tag
  mkdir -p "$W"
  echo "== $tag bundle $b: max-per-task $MAX_PER_TASK, threads $THREADS"
  echo "   nanotrn eval core (OMP_WAIT_POLICY=passive)"
  timed "$W/nanotrn.time.json" env OMP_WAIT_POLICY=passive "$BIN" eval core --ckpt "$CKPT" --bundle "$b" \
    --max-per-task "$MAX_PER_TASK" --tokenizer "$TOKENIZER" --set train.threads="$THREADS" \
    --records "$W/nanotrn.records.json" --json --quiet >"$W/nanotrn.json"
  echo "   core_reference.py (ATEN_CPU_CAPABILITY=$isa OMP_WAIT_POLICY=passive OPENBLAS_NUM_THREADS=$THREADS)"
  timed "$W/torch.time.json" env ATEN_CPU_CAPABILITY=$isa OMP_WAIT_POLICY=passive OPENBLAS_NUM_THREADS="$THREADS" \
    $PY tests/python/core_reference.py --ckpt "$CKPT" --tokenizer "$TOKENIZER" --bundle "$b" \
    --max-per-task "$MAX_PER_TASK" --threads "$THREADS" --out "$W/torch.json" --quiet
  echo "   core_compare.py"
  $PY tests/python/core_compare.py "$W/nanotrn.records.json" "$W/torch.json" | sed 's/^/     /'
done

# 4. Peak (the physical limit): bench/peak_flops if built, on min(threads, 2) threads (it measures 1 and 2).
PEAK_TXT=$SCRATCH/peak.txt
PEAK_BIN=$(dirname "$BIN")/bench/peak_flops
if [ -x "$PEAK_BIN" ]; then "$PEAK_BIN" 7 >"$PEAK_TXT" 2>&1 || : >"$PEAK_TXT"; else : >"$PEAK_TXT"; fi

# 5. The table.
$PY - "$SCRATCH" "$CKPT" "$THREADS" "$PEAK_TXT" "${#bundles[@]}" <<'PY'
import json, re, struct, sys, os
scratch, ckpt, threads, peak_txt, nb = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5])

# Model shape from the checkpoint header: block matrices (2 FLOP per weight per token), head V x D, query width.
with open(ckpt, "rb") as f:
    n = struct.unpack("<Q", f.read(8))[0]
    hdr = json.loads(f.read(n))
def numel(s):
    p = 1
    for d in s: p *= d
    return p
block = sum(numel(v["shape"]) for k, v in hdr.items()
            if re.fullmatch(r"model\.blocks\.\d+\.(attn\.c_(q|k|v|proj)|mlp\.c_(fc|proj))", k))
V, D = hdr["model.lm_head"]["shape"]
layers = len({k.split(".")[2] for k in hdr if k.startswith("model.blocks.")})
dq = hdr["model.blocks.0.attn.c_q"]["shape"][0]

def lcp(rows):
    m = min(len(r) for r in rows)
    for i in range(m):
        if any(r[i] != rows[0][i] for r in rows): return i
    return m

def work(records):
    """Tokens each scorer runs through the model (padding included) and the minimal fp32 matmul FLOPs of scoring."""
    tok_nt = tok_pt = 0
    flop = 0.0
    for task in records["tasks"]:
        for e in task["records"]:
            rows, st, en = e["rows"], e["start"], e["end"]
            R = len(rows)
            tok_pt += R * max(len(r) for r in rows)          # one padded batch of the full rows
            L = min([lcp(rows)] + st)                         # nanotrn: shared prefix once, then the rest padded
            M = max(x - 1 - L for x in en)
            tok_nt += L + R * max(M, 0)
            # minimal work: prefix once, each row's own positions up to end-2, causal attention, head where scored
            ctx = L * (L + 1) // 2 + sum(sum(p + 1 for p in range(L, x - 1)) for x in en)
            toks = L + sum(max(0, x - 1 - L) for x in en)
            scored = sum(x - s for s, x in zip(st, en))
            flop += 2.0 * block * toks + 4.0 * dq * layers * ctx + 2.0 * V * D * scored
    return tok_nt, tok_pt, flop

peak, peak_what = None, ""
lines = open(peak_txt).read().splitlines()
if lines:
    quiet = not any("NOT QUIET" in l for l in lines)
    pt = min(threads, 2)
    cand = [l for l in lines if re.match(r"^%d\s+fp32 " % pt, l)]
    if cand:
        best = max(cand, key=lambda l: float(l.split("GFLOP/s")[0].split()[-1]))
        g = float(best.split("GFLOP/s")[0].split()[-1])
        kern = " ".join(best.split("GFLOP/s")[0].split()[1:-1])
        peak = g * threads / pt
        peak_what = (f"{kern}, measured on {pt} thread{'s' if pt > 1 else ''}"
                     + (f", x {threads}/{pt}" if threads != pt else "") + ("" if quiet else "; peak_flops: NOT QUIET"))

print()
print(f"model: {layers} layers, D {D}, query width {dq}, V {V}, {block / 1e6:.2f}M block weights; threads {threads}")
if peak: print(f"fp32 peak used for the limit: {peak:.1f} GFLOP/s ({peak_what})")
for tag in (["base", "10shot"][:nb]):
    W = os.path.join(scratch, tag)
    nt, pt_ = json.load(open(f"{W}/nanotrn.json")), json.load(open(f"{W}/torch.json"))
    tn, tp = json.load(open(f"{W}/nanotrn.time.json")), json.load(open(f"{W}/torch.time.json"))
    rec = json.load(open(f"{W}/nanotrn.records.json"))
    ex = sum(t["examples"] for t in nt["tasks"])
    ex_pt = sum(len(t["examples"]) for t in pt_["tasks"])
    shots = ",".join(str(t["num_fewshot"]) for t in nt["tasks"])
    tok_nt, tok_pt, flop = work(rec)
    tasks_n, tasks_p = sum(t["seconds"] for t in nt["tasks"]), sum(t["seconds"] for t in pt_["tasks"])
    print()
    print(f"### {tag} bundle: {len(nt['tasks'])} tasks, shots {shots}; {ex} examples; "
          f"minimal scoring work {flop / 1e9:.1f} GFLOP (fp32 matmuls)")
    print("| scorer | examples | scoring s (sum of tasks) | tool total s | wall s | examples/s (scoring) | examples/s (wall) "
          "| tokens through the model | GFLOP/s of minimal work (% of peak) | CORE | others_cpu |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for label, e, ts, tot, t, tok, core in (("nanotrn eval core", ex, tasks_n, nt["seconds"], tn, tok_nt, nt["core"]),
                                            ("PyTorch core_reference.py", ex_pt, tasks_p, pt_["seconds"], tp, tok_pt, pt_["core"])):
        g = flop / ts / 1e9
        pc = f" ({100 * g / peak:.0f}%)" if peak else ""
        print(f"| {label} | {e} | {ts:.2f} | {tot:.2f} | {t['wall']:.2f} | {e / ts:.2f} | {e / t['wall']:.2f} | {tok} "
              f"| {g:.1f}{pc} | {core:.6f} | {t['others_cpu']:.3f} |")
    print(f"| **ratio nanotrn / PyTorch (throughput)** | | {tasks_p / tasks_n:.2f}x | {pt_['seconds'] / nt['seconds']:.2f}x "
          f"| {tp['wall'] / tn['wall']:.2f}x | | | {tok_nt / tok_pt:.2f} of the tokens | | | |")
    if peak:
        print(f"physical limit: {flop / 1e9 / peak:.3f} s of scoring at the fp32 peak "
              f"({ex / (flop / 1e9 / peak):.1f} examples/s)")
print()
print("tokens through the model: computed from the records with each scorer's algorithm (padding included); "
      "nanotrn: shared prefix once + the rows' rest padded to the longest; PyTorch: every row padded to the longest. "
      "Minimal work: prefix once, each row's own tokens, causal attention, the head only at scored positions.")
PY
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
