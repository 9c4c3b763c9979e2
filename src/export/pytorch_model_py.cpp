// model.py, the PyTorch side of `nanotrn export --pytorch`. See pytorch_export.h.
#include "export/pytorch_export.h"

namespace nanotrn::exporting {

const std::string& pytorch_model_py() {
  static const std::string text = R"PY(#!/usr/bin/env python3
"""A model exported by nanotrn (`nanotrn export --pytorch`), self-contained: PyTorch only.

    from model import load_for_eval
    model = load_for_eval("EXPORT_DIR", "cpu")     # or EXPORT_DIR/model.safetensors; any torch device
    logits = model(ids)                             # ids: int [B, T]; logits: float32 [B, T, vocab]

The forward is a pure causal function of the tokens (no state, no dependence on the batch, the world size or the
rank; training and evaluation share it). It follows nanotrn's recipe-spec: token embedding and RMSNorm; per layer a
mix of the residual and the embedding through learned scalars, causal attention with rotary embeddings, QK-norm,
grouped key/value heads, a sliding window when set and value embeddings with a sigmoid gate on alternating layers,
an MLP with relu^2 (or leaky relu^2); a final RMSNorm, an untied head and a tanh logit softcap. RMSNorm has no gain
and eps = float32 machine epsilon. `python3 model.py EXPORT_DIR` recomputes check.safetensors' logits and compares
them with nanotrn's, and checks that a row's logits do not depend on the rows batched with it.
"""
import json
import math
import os
import struct
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

_DTYPES = {"F32": torch.float32, "I32": torch.int32, "BF16": torch.bfloat16, "F16": torch.float16}


def read_safetensors(path):
    """The tensors of a safetensors file (the format's JSON header, then the raw little-endian data)."""
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        raw = bytearray(data[8 + n + begin:8 + n + end])
        t = torch.frombuffer(raw, dtype=_DTYPES[info["dtype"]]) if raw else torch.zeros(0, dtype=_DTYPES[info["dtype"]])
        out[name] = t.reshape(info["shape"]).clone()
    return out


def rms_norm(x):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + torch.finfo(torch.float32).eps)


def rotary(x, base):
    """x [B, T, H, D]: the pairs (j, j + D/2) rotated by position t at frequency base^(-2j/D)."""
    T, D = x.shape[1], x.shape[3]
    inv = base ** (-2.0 * torch.arange(D // 2, dtype=torch.float64) / D)
    ang = torch.arange(T, dtype=torch.float64)[:, None] * inv[None, :]
    cos = ang.cos().to(x.dtype).to(x.device)[None, :, None, :]
    sin = ang.sin().to(x.dtype).to(x.device)[None, :, None, :]
    x1, x2 = x[..., :D // 2], x[..., D // 2:]
    return torch.cat([x1 * cos + x2 * sin, -x1 * sin + x2 * cos], dim=-1)


class Attention(nn.Module):
    def __init__(self, c, with_value_embed):
        super().__init__()
        d, hd = c["model_dim"], c["head_dim"]
        self.c_q = nn.Parameter(torch.empty(c["n_head"] * hd, d))
        self.c_k = nn.Parameter(torch.empty(c["n_kv_head"] * hd, d))
        self.c_v = nn.Parameter(torch.empty(c["n_kv_head"] * hd, d))
        self.c_proj = nn.Parameter(torch.empty(d, c["n_head"] * hd))
        if with_value_embed:
            self.ve_gate = nn.Parameter(torch.empty(c["n_kv_head"], c["ve_gate_channels"]))


class Mlp(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c_fc = nn.Parameter(torch.empty(c["mlp_hidden"], c["model_dim"]))
        self.c_proj = nn.Parameter(torch.empty(c["model_dim"], c["mlp_hidden"]))


class Block(nn.Module):
    def __init__(self, c, with_value_embed):
        super().__init__()
        self.attn = Attention(c, with_value_embed)
        self.mlp = Mlp(c)


class NanotrnGPT(nn.Module):
    def __init__(self, config):
        super().__init__()
        c = self.c = config
        V, d = c["vocab_size"], c["model_dim"]
        self.ve_layers = [i for i in range(c["depth"])
                          if c["value_embeds"] == "alternating" and i % 2 == (c["depth"] - 1) % 2]
        self.wte = nn.Parameter(torch.empty(V, d))
        self.blocks = nn.ModuleList([Block(c, i in self.ve_layers) for i in range(c["depth"])])
        self.value_embeds = nn.ParameterDict(
            {str(i): nn.Parameter(torch.empty(V, c["n_kv_head"] * c["head_dim"])) for i in self.ve_layers})
        self.lm_head = nn.Parameter(torch.empty(V, d))
        self.resid_lambdas = nn.Parameter(torch.empty(c["depth"]))
        self.x0_lambdas = nn.Parameter(torch.empty(c["depth"]))

    def forward(self, ids):
        c = self.c
        ids = ids.long()
        B, T = ids.shape
        H, Hkv, D = c["n_head"], c["n_kv_head"], c["head_dim"]
        pos = torch.arange(T, device=ids.device)
        visible = pos[None, :] <= pos[:, None]  # [query, key]: causal
        if c["window"] > 0:
            visible = visible & (pos[:, None] - pos[None, :] < c["window"])
        x0 = rms_norm(F.embedding(ids, self.wte))
        x = x0
        for i, block in enumerate(self.blocks):
            a = block.attn
            x = self.resid_lambdas[i] * x + self.x0_lambdas[i] * x0
            h = rms_norm(x)
            q = (h @ a.c_q.T).view(B, T, H, D)
            k = (h @ a.c_k.T).view(B, T, Hkv, D)
            v = (h @ a.c_v.T).view(B, T, Hkv, D)
            if i in self.ve_layers:
                ve = F.embedding(ids, self.value_embeds[str(i)]).view(B, T, Hkv, D)
                gate = c["ve_gate_max"] * torch.sigmoid(h[..., :c["ve_gate_channels"]] @ a.ve_gate.T)
                v = v + gate.unsqueeze(-1) * ve
            q, k = rotary(q, c["rotary_base"]), rotary(k, c["rotary_base"])
            if c["qk_norm"]:
                q, k = rms_norm(q), rms_norm(k)
            k = k.repeat_interleave(H // Hkv, dim=2)
            v = v.repeat_interleave(H // Hkv, dim=2)
            s = torch.einsum("bthd,bshd->bhts", q, k) * (c["qk_gain"] / math.sqrt(D))
            s = s.masked_fill(~visible, float("-inf"))
            o = torch.einsum("bhts,bshd->bthd", torch.softmax(s, dim=-1), v).reshape(B, T, H * D)
            x = x + o @ a.c_proj.T
            f = rms_norm(x) @ block.mlp.c_fc.T
            f = F.relu(f).square() if c["activation"] == "relu2" else F.leaky_relu(f, c["leaky_slope"]).square()
            x = x + f @ block.mlp.c_proj.T
        z = rms_norm(x) @ self.lm_head.T
        if c["softcap"] > 0:
            z = c["softcap"] * torch.tanh(z / c["softcap"])
        return z


def load_for_eval(checkpoint_path, device="cpu"):
    """The exported model on `device`, in eval mode, its weights loaded strictly (every tensor, no other)."""
    folder = checkpoint_path if os.path.isdir(checkpoint_path) else os.path.dirname(os.path.abspath(checkpoint_path))
    weights = os.path.join(folder, "model.safetensors") if os.path.isdir(checkpoint_path) else checkpoint_path
    with open(os.path.join(folder, "config.json")) as f:
        config = json.load(f)
    if config.get("format") != "nanotrn-pytorch-export" or config.get("version") != 1:
        raise ValueError(folder + "/config.json is not a version-1 nanotrn export")
    model = NanotrnGPT(config["model"])
    model.load_state_dict(read_safetensors(weights), strict=True)
    return model.to(device).eval()


def _check(folder):
    torch.set_num_threads(max(1, min(4, os.cpu_count() or 1)))
    model = load_for_eval(folder, "cpu")
    ref = read_safetensors(os.path.join(folder, "check.safetensors"))
    ids, want = ref["ids"], ref["logits"]
    with torch.no_grad():
        got = model(ids)
        alone = model(ids[:1])
        shorter = model(ids[:, : ids.shape[1] // 2])
    scale = want.abs().max().item()
    err = (got - want).abs().max().item()
    batch = (alone[0] - got[0]).abs().max().item()
    causal = (shorter - got[:, : ids.shape[1] // 2]).abs().max().item()
    print(f"rows {ids.shape[0]} x {ids.shape[1]} tokens, vocab {want.shape[-1]}: max |logit| {scale:.4f}")
    print(f"max |PyTorch - nanotrn| {err:.3e} (bound 1e-4 x 15)")
    print(f"max |alone - batched| {batch:.3e}, max |prefix - full| {causal:.3e} (bound 1e-5 x 15)")
    ok = err <= 1.5e-3 and batch <= 1.5e-4 and causal <= 1.5e-4
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: python3 model.py EXPORT_DIR", file=sys.stderr)
        sys.exit(2)
    sys.exit(_check(sys.argv[1]))
)PY";
  return text;
}

}  // namespace nanotrn::exporting
