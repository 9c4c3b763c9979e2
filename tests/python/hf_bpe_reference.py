#!/usr/bin/env python3
"""An independent writer and encoder of Hugging Face byte-level BPE tokenizer.json files (the `tokenizers` library's
format), for tests/tokenizer/hf_tokenizer_json_test.cpp. Standard library and python3-regex only; nothing from
nanotrn.

Input (JSON on stdin): {"train": text, "merges": n, "texts": [...], "form": "byte_level" | "split"}, or
{"tokenizer_json": a file's text, "texts": [...]} to encode with a given file (prints {"ids": ...}).
It trains n merges on `train` the textbook way (GPT-2's pre-split, pairs counted over chunk frequencies, the most
frequent pair merged, ties to the pair first seen), makes the tokenizer.json (byte-level alphabet, ids 0..255 for the
bytes in bytes_to_unicode order, then one id per merge, "<|endoftext|>" as the added token after them), and prints
{"tokenizer_json": the file's text, "ids": [[...] per text]}: each text encoded by the library's algorithm, which applies merges by their list
priority (not by rank), chunk by chunk.
"""
import json
import sys

import regex

GPT2 = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""


def bytes_to_unicode():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(bs, cs)}


B2U = bytes_to_unicode()


def chunks(text):
    return [''.join(B2U[b] for b in m.encode("utf-8")) for m in regex.findall(GPT2, text)]


def train(text, n_merges):
    freq = {}
    for c in chunks(text):
        freq[c] = freq.get(c, 0) + 1
    words = {c: list(c) for c in freq}
    merges = []
    for _ in range(n_merges):
        counts, first = {}, {}
        for c, f in freq.items():
            w = words[c]
            for i in range(len(w) - 1):
                p = (w[i], w[i + 1])
                counts[p] = counts.get(p, 0) + f
                first.setdefault(p, len(first))
        if not counts:
            break
        best = max(counts, key=lambda p: (counts[p], -first[p]))
        merges.append(best)
        for c in words:
            w, out, i = words[c], [], 0
            while i < len(w):
                if i + 1 < len(w) and (w[i], w[i + 1]) == best:
                    out.append(w[i] + w[i + 1])
                    i += 2
                else:
                    out.append(w[i])
                    i += 1
            words[c] = out
    return merges


def encode_chunk(chunk, priority, vocab):
    w = list(chunk)
    while len(w) > 1:
        pairs = [(priority.get((w[i], w[i + 1])), i) for i in range(len(w) - 1)]
        pairs = [p for p in pairs if p[0] is not None]
        if not pairs:
            break
        rank, _ = min(pairs)
        pair, out, i = None, [], 0
        while i < len(w):
            if i + 1 < len(w) and priority.get((w[i], w[i + 1])) == rank:
                out.append(w[i] + w[i + 1])
                i += 2
            else:
                out.append(w[i])
                i += 1
        w = out
    return [vocab[t] for t in w]


def encode_file(doc, texts):
    """The library's encoding of a byte-level tokenizer.json given as text: the Split pattern (or GPT-2's under a
    ByteLevel with use_regex), ignore_merges honoured, then the merges by priority."""
    doc = json.loads(doc)
    pre = doc["pre_tokenizer"]
    pattern = pre["pretokenizers"][0]["pattern"]["Regex"] if pre["type"] == "Sequence" else GPT2
    model = doc["model"]
    vocab = model["vocab"]
    priority = {}
    for i, m in enumerate(model["merges"]):
        a, b = m.split(" ") if isinstance(m, str) else m
        priority[(a, b)] = i
    out = []
    for text in texts:
        ids = []
        for m in regex.findall(pattern, text):
            chunk = ''.join(B2U[b] for b in m.encode("utf-8"))
            if model.get("ignore_merges") and chunk in vocab:
                ids.append(vocab[chunk])
            else:
                ids.extend(encode_chunk(chunk, priority, vocab))
        out.append(ids)
    return out


def main():
    q = json.load(sys.stdin)
    if "tokenizer_json" in q:  # encode with a given file (nanotrn's export, tested as the library would read it)
        print(json.dumps({"ids": encode_file(q["tokenizer_json"], q["texts"])}))
        return
    vocab, merges = {}, []
    for b in B2U.values():
        vocab[b] = len(vocab)
    for a, b in train(q["train"], q["merges"]):
        if a + b not in vocab:  # a product made twice is listed once, as the library's trainer lists it
            vocab[a + b] = len(vocab)
            merges.append((a, b))
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    if q["form"] == "split":
        pre = {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": GPT2}, "behavior": "Isolated", "invert": False},
            dict(byte_level, use_regex=False)]}
    else:
        pre = byte_level
    doc = {"version": "1.0", "truncation": None, "padding": None,
           "added_tokens": [{"id": len(vocab), "content": "<|endoftext|>", "single_word": False, "lstrip": False,
                             "rstrip": False, "normalized": False, "special": True}],
           "normalizer": None, "pre_tokenizer": pre, "post_processor": None,
           "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
           "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                     "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "vocab": vocab,
                     "merges": [a + " " + b for a, b in merges]}}
    priority = {m: i for i, m in enumerate(merges)}
    ids = [[t for c in chunks(text) for t in encode_chunk(c, priority, vocab)] for text in q["texts"]]
    print(json.dumps({"tokenizer_json": json.dumps(doc, ensure_ascii=False), "ids": ids,
                      "vocab_size": len(vocab) + 1, "merges": len(merges)}))


if __name__ == "__main__":
    main()
