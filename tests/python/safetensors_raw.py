"""A safetensors file read without any library: {name: (dtype, shape, raw bytes)} and the metadata dict.

Shared by the test scripts (gpt_parity.py turns the bytes into torch tensors; tests/dist/compare_checkpoints.py
compares them byte for byte). The format: an 8-byte little-endian header length, the JSON header, the data.
"""
import json
import struct


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    meta = header.pop("__metadata__", {})
    base = 8 + n
    tensors = {}
    for name, info in header.items():
        b, e = info["data_offsets"]
        tensors[name] = (info["dtype"], tuple(info["shape"]), data[base + b:base + e])
    return tensors, meta
