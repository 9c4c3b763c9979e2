#!/usr/bin/python3
"""An independent PyTorch implementation of nanotrn's GPT and its Muon + AdamW step, for the parity test
(tests/train/parity_test.cpp). Written from recipe-spec §2.2 and §3.1-§3.2, not from nanotrn's C++; the Llama-family
variants (norm gains, SwiGLU, GELU, tied head, per-layer windows, attention and MLP biases, LayerNorm, learned
positions, attention sinks, clamped SwiGLU, llama3 and yarn rope scaling) from Hugging Face's LlamaForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM,
GPT2LMHeadModel and GptOssForCausalLM modelling code's definitions (RMSNorm(x) * weight,
down(silu(gate x) * up x), q_norm/k_norm before rotary, lm_head = embed_tokens when tied, q/k/v_proj with bias).

Reads  IN.safetensors:  "model.<name>" initial weights, "ids" and "targets" i32 [steps, B, T], metadata "recipe"
                        (nanotrn's resolved recipe JSON) and "steps".
Writes OUT.safetensors: "grad.<name>" (step-0 gradients), "final.<name>" (the weights after the last step), "loss"
                        f32 [steps + 1] (loss before each step and after the last).
Usage: gpt_parity.py IN OUT [IN OUT ...] [--bf16]
  Each pair is one independent run (its own model, optimisers and batch); several pairs share one interpreter, so a
  test that checks many models pays PyTorch's import once (tests/qa/models_parity_test.cpp: 28 instances).
  --bf16: forward and backward under torch.autocast(cpu, bfloat16) (PyTorch's own bf16 mixed precision: matmuls in
          bf16, fp32 weights and optimiser).
"""
import json
import math
import struct
import sys

import torch
import torch.nn.functional as F

import safetensors_raw

torch.set_num_threads(1)
DTYPES = {"F32": torch.float32, "I32": torch.int32}


def read_safetensors(path):
    raw, meta = safetensors_raw.read(path)
    out = {name: torch.frombuffer(bytearray(b), dtype=DTYPES[dtype]).reshape(shape).clone()
           for name, (dtype, shape, b) in raw.items()}
    return out, meta


def write_safetensors(path, tensors):
    header, blobs, offset = {}, [], 0
    for name, t in tensors.items():
        raw = t.detach().to(torch.float32).contiguous().numpy().tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    h = json.dumps(header).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


EPS = torch.finfo(torch.float32).eps  # F.rms_norm(eps=None) in fp32


def rms_norm(x):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + EPS)


def rope_frequencies(c, D):
    """The rotary inverse frequencies and the cos/sin factor, scaled as Hugging Face's modeling_rope_utils defines
    rope_type llama3 (_compute_llama3_parameters) and yarn (_compute_yarn_parameters), in float64."""
    base, rs = c["rotary_base"], c["rope_scaling"]
    inv = 1.0 / base ** (torch.arange(0, D, 2, dtype=torch.float64) / D)
    factor, old_len = rs["factor"], rs["original_max_positions"]
    if rs["kind"] == "llama3":
        low_wavelen, high_wavelen = old_len / rs["low_freq_factor"], old_len / rs["high_freq_factor"]
        wavelen = 2 * math.pi / inv
        scaled = torch.where(wavelen > low_wavelen, inv / factor, inv)
        smooth = (old_len / wavelen - rs["low_freq_factor"]) / (rs["high_freq_factor"] - rs["low_freq_factor"])
        smoothed = (1 - smooth) * scaled / factor + smooth * scaled
        medium = ~(wavelen < high_wavelen) & ~(wavelen > low_wavelen)
        return torch.where(medium, smoothed, scaled), 1.0
    if rs["kind"] == "yarn":
        def correction_dim(rotations):
            return (D * math.log(old_len / (rotations * 2 * math.pi))) / (2 * math.log(base))
        low, high = correction_dim(rs["beta_fast"]), correction_dim(rs["beta_slow"])
        if rs["truncate"]:
            low, high = math.floor(low), math.ceil(high)
        low, high = max(low, 0), min(high, D - 1)
        if low == high:
            high += 0.001
        ramp = ((torch.arange(D // 2, dtype=torch.float64) - low) / (high - low)).clamp(0, 1)
        extrapolation = 1 - ramp
        inv = (inv / factor) * (1 - extrapolation) + inv * extrapolation
        mag = rs["attention_factor"] or (0.1 * math.log(factor) + 1.0 if factor > 1 else 1.0)
        return inv, mag
    return inv, 1.0


def rotary(x, c):  # x [B, T, H, D]; pairs (j, j + D/2), y1 = x1 cos + x2 sin, y2 = -x1 sin + x2 cos
    T, D = x.shape[1], x.shape[3]
    inv, mag = rope_frequencies(c, D)
    ang = torch.arange(T, dtype=torch.float64)[:, None] * inv[None, :]
    cos, sin = (mag * ang.cos()).float()[None, :, None, :], (mag * ang.sin()).float()[None, :, None, :]
    x1, x2 = x[..., :D // 2], x[..., D // 2:]
    return torch.cat([x1 * cos + x2 * sin, -x1 * sin + x2 * cos], dim=-1)


class Gpt:
    def __init__(self, cfg, weights):
        self.c = cfg
        self.w = {k: v.clone().requires_grad_(True) for k, v in weights.items()}

    def has_ve(self, i):
        return self.c["value_embeds"] == "alternating" and i % 2 == (self.c["depth"] - 1) % 2

    def norm(self, x, gain):
        """The block's norm: RMSNorm, or LayerNorm (model.norm layer: torch's F.layer_norm, with its bias beside the
        gain, GPT-2's ln_1 / ln_2 / ln_f); the Llama block's norms carry a gain (norm_weights), the baseline's none."""
        w = self.w
        if self.c["norm"] == "layer":
            g = w[gain] if self.c["norm_weights"] else None
            b = w[gain + "_bias"] if self.c["norm_weights"] else None
            return F.layer_norm(x, (x.shape[-1],), g, b, eps=EPS)
        return rms_norm(x) * w[gain] if self.c["norm_weights"] else rms_norm(x)

    def linear(self, x, name):  # x W^T, plus the bias where the model has one (Qwen2: q, k, v; Llama's flag: o too)
        y = x @ self.w[name].T
        return y + self.w[name + "_bias"] if name + "_bias" in self.w else y

    def windowed(self, i):  # model.window on the layers window_pattern marks 'S' ('' = every layer)
        pat = self.c["window_pattern"]
        return self.c["window"] > 0 and (pat == "" or pat[i % len(pat)] == "S")

    def moe(self, p, h):
        """Mixtral's sparse MLP, dropless: softmax router, top-k renormalised; each token through its k experts only
        (gathered here, as Hugging Face's MixtralSparseMoeBlock does), and the Switch load-balancing term of this
        layer, E * sum_e f_e P_e with f_e the fraction of tokens routed to e."""
        c, w = self.c, self.w
        E, k = c["experts"], c["experts_per_token"]
        x = h.reshape(-1, h.shape[-1])
        probs = torch.softmax(x @ w[p + "mlp.router"].T, dim=-1)
        top_p, top_i = torch.topk(probs, k, dim=-1)
        top_p = top_p / top_p.sum(-1, keepdim=True)
        out = torch.zeros_like(x)
        for e in range(E):
            rows, slot = torch.where(top_i == e)
            if rows.numel():
                y = self.mlp(p + f"mlp.experts.{e}.", x[rows], prefix_given=True)
                out = out.index_add(0, rows, top_p[rows, slot, None] * y)
        f = F.one_hot(top_i, E).sum(1).float().mean(0)
        self.aux = self.aux + E * (f * probs.mean(0)).sum()
        return out.reshape(h.shape)

    def mlp(self, p, h, prefix_given=False):
        c, w = self.c, self.w
        if not prefix_given:
            p = p + "mlp."
        f = self.linear(h, p + "c_fc")
        act = c["activation"]
        if act == "relu2":
            f = F.relu(f).square()
        elif act == "leaky_relu2":
            f = F.leaky_relu(f, c["leaky_slope"]).square()
        elif act == "gelu":  # GPT-2's gelu_new
            f = F.gelu(f, approximate="tanh")
        elif act == "geglu":  # gated GELU (tanh form): down(gelu(gate h) * up h)
            f = F.gelu(self.linear(h, p + "c_gate"), approximate="tanh") * f
        elif c["swiglu_limit"] > 0:  # gpt-oss's: gate clamped above, up clamped both ways, (up + 1) glu
            lim = c["swiglu_limit"]
            g = self.linear(h, p + "c_gate").clamp(max=lim)
            f = (f.clamp(min=-lim, max=lim) + 1) * (g * torch.sigmoid(1.702 * g))
        else:  # swiglu, Llama's MLP: down(silu(gate h) * up h)
            f = F.silu(self.linear(h, p + "c_gate")) * f
        return self.linear(f, p + "c_proj")

    def logits(self, ids):  # ids [B, T] -> logits [B, T, V] (softcapped)
        c, w = self.c, self.w
        B, T = ids.shape
        H, Hkv, D = c["n_head"], c["n_kv_head"], c["head_dim"]
        llama = c["norm_weights"]
        ids = ids.long()
        x = F.embedding(ids, w["wte"])
        learned = c["learned_positions"] > 0
        if learned:  # GPT-2's wpe, in place of rotary
            x = x + w["wpe"][:T][None]
        if not llama:
            x0 = self.norm(x, None)
            x = x0
        for i in range(c["depth"]):
            p = f"blocks.{i}."
            if not llama:
                x = w["resid_lambdas"][i] * x + w["x0_lambdas"][i] * x0
            h = self.norm(x, p + "attn_norm")
            q = self.linear(h, p + "attn.c_q").view(B, T, H, D)
            k = self.linear(h, p + "attn.c_k").view(B, T, Hkv, D)
            v = self.linear(h, p + "attn.c_v").view(B, T, Hkv, D)
            if self.has_ve(i):
                ve = F.embedding(ids, w[f"value_embeds.{i}"]).view(B, T, Hkv, D)
                gate = c["ve_gate_max"] * torch.sigmoid(h[..., :c["ve_gate_channels"]] @ w[p + "attn.ve_gate"].T)
                v = v + gate.unsqueeze(-1) * ve
            rope = (lambda t: t) if learned else (lambda t: rotary(t, c))
            if c["qk_norm"] and llama:  # Qwen3: q_norm / k_norm (with gains) before rotary
                q = rope(rms_norm(q) * w[p + "attn.q_norm"])
                k = rope(rms_norm(k) * w[p + "attn.k_norm"])
            else:
                q, k = rope(q), rope(k)
                if c["qk_norm"]:
                    q, k = rms_norm(q), rms_norm(k)
            k = k.repeat_interleave(H // Hkv, dim=2)
            v = v.repeat_interleave(H // Hkv, dim=2)
            s = torch.einsum("bthd,bshd->bhts", q, k) * (c["qk_gain"] / math.sqrt(D))
            mask = torch.ones(T, T, dtype=torch.bool).tril()
            if self.windowed(i):
                mask &= ~torch.ones(T, T, dtype=torch.bool).tril(-c["window"])  # keys t - s < window
            s = s.masked_fill(~mask, float("-inf"))
            if c["attention_sinks"]:  # gpt-oss: the head's sink logit joins the softmax, its column then dropped
                sink = w[p + "attn.sinks"].view(1, H, 1, 1).expand(B, H, T, 1)
                probs = torch.softmax(torch.cat([s, sink], dim=-1), dim=-1)[..., :-1]
            else:
                probs = torch.softmax(s, dim=-1)
            a = torch.einsum("bhts,bshd->bthd", probs, v).reshape(B, T, H * D)
            x = x + self.linear(a, p + "attn.c_proj")
            h = self.norm(x, p + "mlp_norm")
            x = x + (self.moe(p, h) if c["experts"] > 0 else self.mlp(p, h))
        head = w["wte"] if c["tie_embeddings"] else w["lm_head"]
        z = self.norm(x, "norm_f") @ head.T
        if c["softcap"] > 0:
            z = c["softcap"] * torch.tanh(z / c["softcap"])
        return z

    def loss(self, ids, targets, mtp):
        B, T = ids.shape
        self.aux = 0.0
        z = self.logits(ids).view(B * T, -1)
        total = 0.0
        for j, wt in enumerate(mtp):
            t = torch.full_like(targets, -1)
            t[:, :T - j] = targets[:, j:]
            total = total + wt * F.cross_entropy(z, t.reshape(-1).long(), ignore_index=-1)
        return total + self.c["moe_aux_loss"] * self.aux if self.c["experts"] > 0 else total


POLAR = [(8.156554524902461, -22.48329292557795, 15.878769915207462),
         (4.042929935166739, -2.808917465908714, 0.5000178451051316),
         (3.8916678022926607, -2.772484153217685, 0.5060648178503393),
         (3.285753657755655, -2.3681294933425376, 0.46449024233003106),
         (2.3465413258596377, -1.7097828382687081, 0.42323551169305323)]
CLASSIC = (3.4445, -4.7750, 2.0315)


class Muon:
    """Nesterov momentum, Polar-Express/classic quintic, NorMuon, cautious weight decay (recipe-spec §3.1)."""

    def __init__(self, params, o):
        self.params, self.o = params, o
        self.buf = [torch.zeros_like(p) for p in params]
        self.s = [torch.zeros(max(p.shape)) for p in params]  # per row (rows >= cols) or per column

    @torch.no_grad()
    def step(self, lr, mu, wd):
        o = self.o
        for p, buf, s in zip(self.params, self.buf, self.s):
            g = p.grad if p.grad is not None else torch.zeros_like(p)
            buf.lerp_(g, 1 - mu)
            u = torch.lerp(g, buf, mu) if o["nesterov"] else buf.clone()
            X = u / (o["norm_scale"] * u.norm() + 1e-6)
            rows, cols = X.shape
            for it in range(o["ns_steps"]):
                a, b, c = CLASSIC if o["muon_coefficients"] == "classic" else POLAR[min(it, 4)]
                if rows <= cols:
                    A = X @ X.T
                    X = a * X + (b * A + c * A @ A) @ X
                else:
                    A = X.T @ X
                    X = a * X + X @ (b * A + c * A @ A)
            if o["normuon"]:
                per_row = rows >= cols
                v = X.pow(2).mean(dim=1 if per_row else 0)
                s.lerp_(v, 1 - o["normuon_beta2"])
                before = X.norm()
                scale = s.clamp_min(1e-10).rsqrt()
                X = X * (scale[:, None] if per_row else scale[None, :])
                X = X * (before / X.norm())
            eta = lr * math.sqrt(max(1.0, rows / cols))
            mask = (X * p >= 0).to(X.dtype)
            p.sub_(eta * X + eta * wd * p * mask)


def build_optimizers(gpt, cfg, o):
    """AdamW per parameter group (each param group keeps its base lr as "base_lr") and Muon for the matrices."""
    s_d = (cfg["model_dim"] / 768.0) ** -0.5 if o["scale_lr_by_width"] else 1.0
    b = (o["adam_beta1"], o["adam_beta2"])
    groups = {"lm_head": (o["unembedding_lr"] * s_d, b), "wte": (o["embedding_lr"] * s_d, b),
              "value_embed": (o["value_embed_lr"] * s_d, b),
              "resid": (o["scalar_lr"] * o["resid_lr_scale"], b), "x0": (o["scalar_lr"], (o["x0_beta1"], o["x0_beta2"])),
              "gain": (o["norm_gain_lr"], b), "bias": (o["bias_lr"], b)}

    def group_of(name):
        if name in ("lm_head", "wte"):
            return name
        if name == "wpe":  # learned positions train with the token embedding
            return "wte"
        if name.startswith("value_embeds."):
            return "value_embed"
        if name == "resid_lambdas":
            return "resid"
        if name == "x0_lambdas":
            return "x0"
        if name == "norm_f" or name.endswith("_norm"):  # attn_norm, mlp_norm, attn.q_norm, attn.k_norm
            return "gain"
        if name.endswith("_bias") or name.endswith(".sinks"):  # attn.c_q_bias, ..., attn.sinks
            return "bias"
        return "matrix"

    adams = []
    for g, (lr, betas) in groups.items():
        ps = [t for n, t in gpt.w.items() if group_of(n) == g]
        if ps:
            adams.append(torch.optim.AdamW(ps, lr=lr, betas=betas, eps=o["adam_eps"],
                                           weight_decay=o["adam_weight_decay"]))
            adams[-1].param_groups[0]["base_lr"] = lr
    return adams, Muon([t for n, t in gpt.w.items() if group_of(n) == "matrix"], o)


def run(in_path, out_path, bf16):
    inputs, meta = read_safetensors(in_path)
    recipe = json.loads(meta["recipe"])
    cfg, o = recipe["model"], recipe["optim"]
    steps = int(meta["steps"])
    weights = {k[len("model."):]: v for k, v in inputs.items() if k.startswith("model.")}
    gpt = Gpt(cfg, weights)
    mtp = recipe["train"]["mtp_weights"]
    ids, targets = inputs["ids"], inputs["targets"]

    adams, muon = build_optimizers(gpt, cfg, o)

    out, losses = {}, []
    for step in range(steps):
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            loss = gpt.loss(ids[step], targets[step], mtp).float()
        for t in gpt.w.values():
            t.grad = None
        loss.backward()
        losses.append(loss.item())
        if step == 0:
            for n, t in gpt.w.items():
                out["grad." + n] = t.grad.clone()
        progress = step / steps
        mu = o["momentum_start"] + (o["momentum"] - o["momentum_start"]) * min(1.0, step / o["momentum_warmup_steps"])
        wd = o["muon_weight_decay"] * (max(0.0, 1 - progress) if o["muon_wd_decay_to_zero"] else 1.0)
        muon.step(o["matrix_lr"], mu, wd)
        for a in adams:
            a.step()
    with torch.no_grad():
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            losses.append(gpt.loss(ids[steps - 1], targets[steps - 1], mtp).item())
    for n, t in gpt.w.items():
        out["final." + n] = t.detach().clone()
    out["loss"] = torch.tensor(losses, dtype=torch.float32)
    write_safetensors(out_path, out)


def main():
    flags = [a for a in sys.argv[1:] if a.startswith("--")]
    paths = [a for a in sys.argv[1:] if not a.startswith("--")]
    if not paths or len(paths) % 2 or set(flags) - {"--bf16"}:
        sys.exit("usage: gpt_parity.py IN OUT [IN OUT ...] [--bf16]")
    for in_path, out_path in zip(paths[0::2], paths[1::2]):
        run(in_path, out_path, "--bf16" in flags)


if __name__ == "__main__":
    main()
