#!/usr/bin/python3
"""An independent reference implementation of the CORE in-context evaluation (DCLM, as nanochat computes it), for
testing and benchmarking nanotrn's C++ scorer. Written from recipe-spec §5.2 and §12, not from nanotrn's C++.
Needs only Debian's python3 with torch, regex, yaml and jinja2.

Usage:
  core_reference.py --ckpt C.safetensors --tokenizer DIR --bundle DIR [--tasks a,b] [--max-per-task N]
                    [--threads N] --out OUT.json
  core_reference.py --random-init SEED --recipe RECIPE.json ...   (instead of --ckpt: fp32 weights drawn at random,
                    for timing only; RECIPE is a nanotrn recipe file, its "model" and "batch.seq_len" are read)

The pieces:
  - Model: gpt_parity.Gpt (the independent PyTorch GPT of the parity test), fp32, on the CPU. The model config is the
    checkpoint recipe's "model" (derived fields filled in as nanotrn's model/config.cpp resolves them); the maximum
    length is the recipe's batch.seq_len.
  - Tokenizer: nanotrn's byte-level BPE folder (tokenizer.tiktoken + tokenizer.json): the pre-split regex from
    tokenizer.json (run with the `regex` module), then tiktoken's merge (lowest-rank adjacent pair, leftmost on ties);
    BOS = the first special of tokenizer.json. Prompts are encoded without specials, BOS prepended.
  - Bundle: core.yaml (icl_tasks), eval_meta_data.csv ("Eval Task" -> "Random baseline", in percent),
    eval_data/<dataset_uri> (JSONL).
Per task (recipe-spec §5.2): shuffle the lines with random.Random(1337), keep the first --max-per-task (all when
absent or <= 0); example idx draws its few-shot examples with random.Random(1234 + idx).sample(others, k) from the
other examples of that truncated list; prompts are rendered by Jinja2 templates equivalent to nanochat's; rows longer
than the maximum length are cropped from the left (indices shifted); one forward per example over its rows,
right-padded with BOS; MC/schema: mean CE over the answer span, argmin (first on ties) == gold; LM: greedy argmax
equals the continuation at every position. centered = (acc - 0.01 rb) / (1 - 0.01 rb); CORE = mean of the centered
accuracies of the tasks evaluated.

Deliberate deviation from nanochat: when a task has fewer other examples than its shot count (max_per_task at or
below num_fewshot), k = the number available instead of crashing in random.sample (recipe-spec §12).
Nanochat's behaviour kept on purpose: an MC/schema row whose answer span is empty (a choice that is a token prefix of
another, identical options) has loss NaN (mean of an empty slice) and the prediction is Python's
`losses.index(min(losses))` (a NaN in row 0 wins, a NaN elsewhere never does); NaN is written as null in OUT.json.

OUT.json: {"core", "seconds", "tasks": [{"label", "type", "num_fewshot", "random_baseline", "accuracy", "centered",
"seconds", "examples": [{"index", "rows", "start", "end", "losses", "correct"}]}]}, tasks in core.yaml order.
Errors (bad arguments, missing files, malformed lines as FILE:LINE, unknown task types, gold out of range, an LM
prompt whose "without" tokens are not a prefix of its "with" tokens) print "core_reference: error: ..." and exit 1.
"""
import argparse
import base64
import csv
import json
import math
import os
import random
import struct
import sys
import time

import regex
import torch
import torch.nn.functional as F
import yaml
from jinja2 import Environment, StrictUndefined

DEFAULT_THREADS = torch.get_num_threads()  # before gpt_parity's import sets 1
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpt_parity  # noqa: E402

TASK_TYPES = ("multiple_choice", "schema", "language_modeling")


class Fail(Exception):
    pass


# ---------------------------------------------------------------------------------------------------------------------
# Tokenizer

class Tokenizer:
    def __init__(self, folder):
        rank_path = os.path.join(folder, "tokenizer.tiktoken")
        meta_path = os.path.join(folder, "tokenizer.json")
        for p in (rank_path, meta_path):
            if not os.path.isfile(p):
                raise Fail(f"{p}: no such file (a tokenizer folder holds tokenizer.tiktoken and tokenizer.json)")
        self.ranks = {}
        with open(rank_path, "rb") as f:
            for n, line in enumerate(f, 1):
                parts = line.rstrip(b"\n").split(b" ")
                try:
                    if len(parts) != 2:
                        raise ValueError("expected '<base64> <rank>'")
                    token, rank = base64.b64decode(parts[0], validate=True), int(parts[1])
                except ValueError as e:
                    raise Fail(f"{rank_path}:{n}: malformed line ({e})")
                if token in self.ranks:
                    raise Fail(f"{rank_path}:{n}: token repeated")
                self.ranks[token] = rank
        if sorted(self.ranks.values()) != list(range(len(self.ranks))):
            raise Fail(f"{rank_path}: ranks are not 0..{len(self.ranks) - 1}, each once")
        try:
            with open(meta_path, encoding="utf-8") as f:
                meta = json.load(f)
            pattern, specials = meta["pattern"], meta["specials"]
        except (ValueError, KeyError, TypeError) as e:
            raise Fail(f"{meta_path}: malformed tokenizer metadata ({e!r})")
        if not specials:
            raise Fail(f"{meta_path}: no special tokens, so no BOS")
        self.split = regex.compile(pattern)
        self.n_ranks = len(self.ranks)
        self.vocab_size = self.n_ranks + len(specials)
        self.bos = self.n_ranks  # the first special
        self.cache = {}

    def _merge(self, piece):  # tiktoken's byte-pair merge of one pre-split chunk
        r = self.ranks.get(piece)
        if r is not None:
            return [r]
        parts = [piece[i:i + 1] for i in range(len(piece))]
        while len(parts) > 1:
            best, at = None, -1
            for i in range(len(parts) - 1):
                r = self.ranks.get(parts[i] + parts[i + 1])
                if r is not None and (best is None or r < best):
                    best, at = r, i
            if best is None:
                break
            parts[at:at + 2] = [parts[at] + parts[at + 1]]
        return [self.ranks[p] for p in parts]

    def encode(self, text):  # no specials, no BOS
        ids = []
        for m in self.split.finditer(text):
            piece = m.group(0)
            got = self.cache.get(piece)
            if got is None:
                got = self._merge(piece.encode("utf-8"))
                self.cache[piece] = got
            ids.extend(got)
        return ids


# ---------------------------------------------------------------------------------------------------------------------
# Model

def read_model_tensors(path):
    """The "model.<name>" tensors (as fp32) and the metadata of a safetensors file."""
    dtypes = {"F32": torch.float32, "BF16": torch.bfloat16, "F16": torch.float16}
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise Fail(f"{path}: cannot read the checkpoint ({e.strerror})")
    try:
        (n,) = struct.unpack("<Q", data[:8])
        header = json.loads(data[8:8 + n])
    except (struct.error, ValueError):
        raise Fail(f"{path}: not a safetensors file")
    meta = header.pop("__metadata__", {}) or {}
    out = {}
    for name, info in header.items():
        if not name.startswith("model."):
            continue
        if info["dtype"] not in dtypes:
            raise Fail(f"{path}: tensor {name} has dtype {info['dtype']}, expected F32, BF16 or F16")
        b, e = info["data_offsets"]
        buf = bytearray(data[8 + n + b:8 + n + e])
        t = torch.frombuffer(buf, dtype=dtypes[info["dtype"]]) if buf else torch.zeros(0)
        out[name[len("model."):]] = t.reshape(info["shape"]).to(torch.float32)
    return out, meta


MODEL_DEFAULTS = {  # nanotrn's GptConfig defaults (src/model/config.h), for a recipe file that omits a key
    "vocab_size": 8192, "depth": 8, "aspect_ratio": 64, "head_dim": 128, "model_dim": 0, "n_head": 0, "n_kv_head": 0,
    "mlp_mult": 4, "activation": "relu2", "leaky_slope": 0.5, "rotary_base": 10000.0, "qk_norm": True, "qk_gain": 1.0,
    "window": 0, "softcap": 15.0, "value_embeds": "alternating", "ve_gate_channels": 32, "ve_gate_max": 2.0,
    "resid_lambda_init": 1.0, "x0_lambda_init": 0.1}


def resolve_model(model):
    c = dict(MODEL_DEFAULTS)
    c.update(model)
    if not c["model_dim"]:
        c["model_dim"] = (c["depth"] * c["aspect_ratio"] + c["head_dim"] - 1) // c["head_dim"] * c["head_dim"]
    if not c["n_head"]:
        c["n_head"] = c["model_dim"] // c["head_dim"]
    if not c["n_kv_head"]:
        c["n_kv_head"] = c["n_head"]
    if c["window"]:
        raise Fail(f"model.window = {c['window']}: sliding-window attention is not implemented by this reference")
    return c


def random_weights(c, seed):
    g = torch.Generator().manual_seed(seed)
    d, V, D, H, Hkv = c["model_dim"], c["vocab_size"], c["head_dim"], c["n_head"], c["n_kv_head"]
    hid = c["mlp_mult"] * d

    def mat(rows, cols, std):
        return torch.randn(rows, cols, generator=g) * std

    s = d ** -0.5
    w = {"wte": mat(V, d, 1.0), "lm_head": mat(V, d, 0.02),
         "resid_lambdas": torch.full((c["depth"],), float(c["resid_lambda_init"])),
         "x0_lambdas": torch.full((c["depth"],), float(c["x0_lambda_init"]))}
    for i in range(c["depth"]):
        p = f"blocks.{i}."
        w[p + "attn.c_q"], w[p + "attn.c_k"], w[p + "attn.c_v"] = mat(H * D, d, s), mat(Hkv * D, d, s), mat(Hkv * D, d, s)
        w[p + "attn.c_proj"], w[p + "mlp.c_fc"], w[p + "mlp.c_proj"] = mat(d, H * D, s), mat(hid, d, s), mat(d, hid, s)
        if c["value_embeds"] == "alternating" and i % 2 == (c["depth"] - 1) % 2:
            w[f"value_embeds.{i}"] = mat(V, Hkv * D, s)
            w[p + "attn.ve_gate"] = mat(Hkv, c["ve_gate_channels"], 0.1)
    return w


class Model:
    def __init__(self, cfg, weights, max_len):
        self.gpt = gpt_parity.Gpt(cfg, weights)
        for t in self.gpt.w.values():
            t.requires_grad_(False)
        self.vocab_size, self.max_len = cfg["vocab_size"], max_len

    @torch.no_grad()
    def forward(self, rows, pad):
        """rows: lists of ids -> (per-position CE of the next token [B, T-1] fp32, argmax [B, T-1])."""
        T = max(len(r) for r in rows)
        ids = torch.full((len(rows), T), pad, dtype=torch.long)
        for i, r in enumerate(rows):
            ids[i, :len(r)] = torch.tensor(r, dtype=torch.long)
        z = self.gpt.logits(ids).float()[:, :-1]
        ce = F.cross_entropy(z.reshape(-1, z.shape[-1]), ids[:, 1:].reshape(-1), reduction="none").view(len(rows), T - 1)
        return ce, z.argmax(dim=-1), ids


def load_model(args):
    if args.ckpt:
        weights, meta = read_model_tensors(args.ckpt)
        if "recipe" not in meta:
            raise Fail(f"{args.ckpt}: not a nanotrn checkpoint (metadata 'recipe' is missing)")
        recipe = json.loads(meta["recipe"])
    else:
        try:
            with open(args.recipe, encoding="utf-8") as f:
                recipe = json.load(f)
        except (OSError, ValueError) as e:
            raise Fail(f"{args.recipe}: cannot read the recipe ({e})")
        weights = None
    cfg = resolve_model(recipe.get("model", {}))
    max_len = int(recipe.get("batch", {}).get("seq_len", 0))
    if max_len < 2:
        raise Fail("the recipe's batch.seq_len must be >= 2")
    if weights is None:
        weights = random_weights(cfg, args.random_init)
    return Model(cfg, weights, max_len)


# ---------------------------------------------------------------------------------------------------------------------
# Bundle and prompts

ENV = Environment(undefined=StrictUndefined, autoescape=False, keep_trailing_newline=True)
SHOTS = "{%- for ex in shots -%}"
TEMPLATES = {  # each few-shot example rendered like the query with its gold answer, then a blank line
    "multiple_choice": ENV.from_string(
        SHOTS + "{{ ex.query }}{{ delim }}{{ ex.choices[ex.gold] }}\n\n{% endfor -%}"
        "{{ item.query }}{{ delim }}{{ answer }}"),
    "schema": ENV.from_string(
        SHOTS + "{{ ex.context_options[ex.gold] }}{{ delim }}{{ ex.continuation }}\n\n{% endfor -%}"
        "{{ option }}{{ delim }}{{ item.continuation }}"),
    "language_modeling": ENV.from_string(
        SHOTS + "{{ ex.context | trim }}{{ delim }}{{ ex.continuation }}\n\n{% endfor -%}"
        "{{ item.context | trim }}{{ delim }}{% if with_continuation %}{{ item.continuation }}{% endif %}"),
}


def render(task_type, item, shots, delim):
    """The prompts of one example: one per choice (MC) or option (schema); LM: [without, with] continuation."""
    t = TEMPLATES[task_type]
    if task_type == "multiple_choice":
        return [t.render(shots=shots, item=item, delim=delim, answer=a) for a in item["choices"]]
    if task_type == "schema":
        return [t.render(shots=shots, item=item, delim=delim, option=o) for o in item["context_options"]]
    return [t.render(shots=shots, item=item, delim=delim, with_continuation=False).strip(),
            t.render(shots=shots, item=item, delim=delim, with_continuation=True)]


def is_str_list(v):
    return isinstance(v, list) and len(v) > 0 and all(isinstance(s, str) for s in v)


def check_item(task_type, item, where):
    if not isinstance(item, dict):
        raise Fail(f"{where}: malformed line (expected a JSON object)")

    def need(key, ok, what):
        if key not in item:
            raise Fail(f"{where}: malformed line ('{key}' is missing)")
        if not ok(item[key]):
            raise Fail(f"{where}: malformed line ('{key}' must be {what})")

    is_int = lambda v: isinstance(v, int) and not isinstance(v, bool)  # noqa: E731
    if task_type == "multiple_choice":
        need("query", lambda v: isinstance(v, str), "a string")
        need("choices", is_str_list, "a non-empty list of strings")
        need("gold", is_int, "an integer")
        options = item["choices"]
    elif task_type == "schema":
        need("context_options", is_str_list, "a non-empty list of strings")
        need("continuation", lambda v: isinstance(v, str), "a string")
        need("gold", is_int, "an integer")
        options = item["context_options"]
    else:
        need("context", lambda v: isinstance(v, str), "a string")
        need("continuation", lambda v: isinstance(v, str), "a string")
        return
    if not 0 <= item["gold"] < len(options):
        raise Fail(f"{where}: gold {item['gold']} is out of range (the example has {len(options)} options)")


def read_jsonl(path, task_type):
    """[(item, line number)] in file order."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise Fail(f"{path}: cannot read the task's data ({e.strerror})")
    lines = raw.split(b"\n")
    if lines[-1] == b"":
        lines.pop()  # after the final newline
    out = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            raise Fail(f"{path}:{n}: malformed line (empty)")
        try:
            item = json.loads(line.decode("utf-8"))
        except UnicodeDecodeError:
            raise Fail(f"{path}:{n}: malformed line (not valid UTF-8)")
        except ValueError as e:
            raise Fail(f"{path}:{n}: malformed line ({e})")
        check_item(task_type, item, f"{path}:{n}")
        out.append((item, n))
    if not out:
        raise Fail(f"{path}: no examples")
    return out


def read_bundle(bundle, wanted):
    yaml_path, csv_path = os.path.join(bundle, "core.yaml"), os.path.join(bundle, "eval_meta_data.csv")
    try:
        with open(yaml_path, encoding="utf-8") as f:
            config = yaml.safe_load(f)
    except OSError as e:
        raise Fail(f"{yaml_path}: cannot read ({e.strerror})")
    except yaml.YAMLError as e:
        raise Fail(f"{yaml_path}: malformed YAML ({e})")
    if not isinstance(config, dict) or not isinstance(config.get("icl_tasks"), list):
        raise Fail(f"{yaml_path}: expected a mapping with an 'icl_tasks' list")
    baselines = {}
    try:
        with open(csv_path, encoding="utf-8", newline="") as f:
            reader = csv.DictReader(f)
            for col in ("Eval Task", "Random baseline"):
                if col not in (reader.fieldnames or []):
                    raise Fail(f"{csv_path}: the header has no '{col}' column")
            for row in reader:
                try:
                    baselines[row["Eval Task"]] = float(row["Random baseline"])
                except (TypeError, ValueError):
                    raise Fail(f"{csv_path}:{reader.line_num}: 'Random baseline' {row['Random baseline']!r} "
                               "is not a number")
    except OSError as e:
        raise Fail(f"{csv_path}: cannot read ({e.strerror})")
    tasks = []
    for i, t in enumerate(config["icl_tasks"]):
        where = f"{yaml_path}: icl_tasks[{i}]"
        if not isinstance(t, dict):
            raise Fail(f"{where}: expected a mapping")
        for key in ("label", "dataset_uri", "num_fewshot", "icl_task_type"):
            if key not in t:
                raise Fail(f"{where}: '{key}' is missing")
        label = str(t["label"])
        if wanted is not None and label not in wanted:
            continue
        if t["icl_task_type"] not in TASK_TYPES:
            raise Fail(f"{where} ({label}): unknown icl_task_type {t['icl_task_type']!r} "
                       f"(known: {', '.join(TASK_TYPES)})")
        shots = t["num_fewshot"]
        if not (isinstance(shots, list) and shots and isinstance(shots[0], int) and shots[0] >= 0):
            raise Fail(f"{where} ({label}): num_fewshot must be a list whose first element is an integer >= 0")
        if label not in baselines:
            raise Fail(f"{csv_path}: no row with Eval Task = {label!r}")
        if baselines[label] >= 100:
            raise Fail(f"{csv_path}: {label}: random baseline {baselines[label]} % leaves nothing to center")
        delim = t.get("continuation_delimiter", " ")
        if not isinstance(delim, str):
            raise Fail(f"{where} ({label}): continuation_delimiter must be a string")
        tasks.append({"label": label, "type": t["icl_task_type"], "num_fewshot": shots[0], "delim": delim,
                      "path": os.path.join(bundle, "eval_data", str(t["dataset_uri"])),
                      "random_baseline": baselines[label]})
    if wanted is not None:
        missing = [w for w in wanted if w not in {t["label"] for t in tasks}]
        if missing:
            raise Fail(f"{yaml_path}: no task labelled {', '.join(missing)}")
    if not tasks:
        raise Fail(f"{yaml_path}: no tasks to evaluate")
    return tasks


# ---------------------------------------------------------------------------------------------------------------------
# Scoring

def common_prefix(seqs):
    n = min(len(s) for s in seqs)
    for i in range(n):
        if any(s[i] != seqs[0][i] for s in seqs):
            return i
    return n


def common_suffix(seqs):
    n = min(len(s) for s in seqs)
    for i in range(n):
        if any(s[-1 - i] != seqs[0][-1 - i] for s in seqs):
            return i
    return n


def python_argmin(values):  # losses.index(min(losses)), NaN semantics included
    best = 0
    for i in range(1, len(values)):
        if values[i] < values[best]:
            best = i
    return best


def select(data, max_per_task):
    data = list(data)
    random.Random(1337).shuffle(data)
    return data[:max_per_task] if max_per_task > 0 else data


def evaluate_task(task, data, model, tok, log):
    t0 = time.time()
    kind, delim = task["type"], task["delim"]
    examples, n_correct = [], 0
    for idx, (item, line) in enumerate(data):
        where = f"{task['path']}:{line}"
        shots = []
        if task["num_fewshot"] > 0:
            available = [i for i in range(len(data)) if i != idx]
            k = min(task["num_fewshot"], len(available))  # nanochat would crash when k > len(available)
            shots = [data[i][0] for i in random.Random(1234 + idx).sample(available, k)]
        prompts = render(kind, item, shots, delim)
        try:
            rows = [[tok.bos] + tok.encode(p) for p in prompts]
        except UnicodeEncodeError:
            raise Fail(f"{where}: the text is not encodable as UTF-8 (a lone surrogate?)")
        if kind == "multiple_choice":
            s = common_prefix(rows)
            start, end = [s] * len(rows), [len(r) for r in rows]
        elif kind == "schema":
            s = common_suffix(rows)
            end = [len(r) for r in rows]
            start = [e - s for e in end]
        else:
            without, with_ = rows
            if not (len(without) < len(with_) and with_[:len(without)] == without):
                raise Fail(f"{where}: the tokens of the prompt without the continuation are not a proper prefix of "
                           "the tokens with it")
            rows, start, end = [with_], [len(without)], [len(with_)]
        for i, r in enumerate(rows):
            crop = len(r) - model.max_len
            if crop > 0:
                if start[i] - crop < (1 if kind == "language_modeling" else 0):  # where nanochat fails
                    raise Fail(f"{where}: the answer span does not fit the model's maximum length {model.max_len}")
                rows[i], start[i], end[i] = r[crop:], start[i] - crop, end[i] - crop
        ce, pred, ids = model.forward(rows, tok.bos)
        if kind == "language_modeling":
            si, ei = start[0], end[0]
            correct = bool(torch.equal(pred[0, si - 1:ei - 1], ids[0, si:ei]))
            losses = []
        else:
            # start 0 (identical schema options, or a crop up to the span): nanochat's slice [-1:e-1] is empty
            losses = [(ce[i, si - 1:ei - 1] if si > 0 else ce[i, :0]).mean().item()
                      for i, (si, ei) in enumerate(zip(start, end))]
            correct = python_argmin(losses) == item["gold"]
        n_correct += correct
        examples.append({"index": idx, "rows": rows, "start": start, "end": end,
                         "losses": [None if math.isnan(x) else x for x in losses], "correct": correct})
    acc = n_correct / len(data)
    rb = task["random_baseline"]
    centered = (acc - 0.01 * rb) / (1.0 - 0.01 * rb)
    seconds = time.time() - t0
    log(f"{task['label']}: {len(data)} examples ({task['num_fewshot']}-shot, {kind}), accuracy {acc:.4f}, "
        f"centered {centered:.4f}, {seconds:.2f} s ({len(data) / max(seconds, 1e-9):.1f} examples/s)")
    return {"label": task["label"], "type": kind, "num_fewshot": task["num_fewshot"], "random_baseline": rb,
            "accuracy": acc, "centered": centered, "seconds": seconds, "examples": examples}


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--ckpt", help="nanotrn checkpoint (.safetensors)")
    src.add_argument("--random-init", type=int, metavar="SEED", help="random fp32 weights (timing only); needs --recipe")
    ap.add_argument("--recipe", help="recipe JSON file for --random-init")
    ap.add_argument("--tokenizer", required=True, help="tokenizer folder (tokenizer.tiktoken, tokenizer.json)")
    ap.add_argument("--bundle", required=True, help="eval bundle folder (core.yaml, eval_meta_data.csv, eval_data/)")
    ap.add_argument("--tasks", help="comma-separated labels (default: every task of core.yaml)")
    ap.add_argument("--max-per-task", type=int, default=-1, help="examples per task after the shuffle (<= 0: all)")
    ap.add_argument("--threads", type=int, default=DEFAULT_THREADS, help="torch threads (default: torch's default)")
    ap.add_argument("--out", required=True, help="output JSON")
    ap.add_argument("--quiet", action="store_true", help="no per-task lines on stderr")
    args = ap.parse_args(argv)
    if args.random_init is not None and not args.recipe:
        ap.error("--random-init needs --recipe")
    if args.threads < 1:
        ap.error("--threads must be >= 1")
    torch.set_num_threads(args.threads)
    log = (lambda m: None) if args.quiet else (lambda m: print(m, file=sys.stderr, flush=True))

    t0 = time.time()
    wanted = None
    if args.tasks is not None:
        wanted = [w for w in (s.strip() for s in args.tasks.split(",")) if w]
        if not wanted:
            raise Fail("--tasks names no task")
    tasks = read_bundle(args.bundle, wanted)
    datas = [select(read_jsonl(t["path"], t["type"]), args.max_per_task) for t in tasks]  # every file checked first
    tok = Tokenizer(args.tokenizer)
    model = load_model(args)
    if tok.vocab_size > model.vocab_size:
        raise Fail(f"the tokenizer has {tok.vocab_size} ids, the model only {model.vocab_size}")
    results = [evaluate_task(t, d, model, tok, log) for t, d in zip(tasks, datas)]
    core = sum(r["centered"] for r in results) / len(results)
    out = {"core": core, "seconds": time.time() - t0, "tasks": results}
    log(f"CORE {core:.6f} over {len(results)} tasks, {out['seconds']:.2f} s")
    try:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(out, f, allow_nan=False)
            f.write("\n")
    except OSError as e:
        raise Fail(f"{args.out}: cannot write ({e.strerror})")


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except Fail as e:
        print(f"core_reference: error: {e}", file=sys.stderr)
        sys.exit(1)
