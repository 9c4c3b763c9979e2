#!/usr/bin/python3
"""The training loop of nanotrn's Trainer, written independently in PyTorch from recipe-spec §3.3 (LR warm-up and
cool-down, batch phases with their LR scale, gradient accumulation, Muon momentum warm-up, weight decay to zero,
global-norm gradient clipping), on top of the GPT and optimisers of gpt_parity.py. For tests/train/trainer_parity_test.cpp.

Reads  IN.safetensors:  "model.<name>" initial weights, "ids" and "targets" i32 [micro-batches, B, T] in the order
                        the trainer consumed them, metadata "recipe" (the resolved recipe JSON).
Writes OUT.safetensors: "final.<name>" (weights after the run), "loss" f32 [steps] (mean micro-batch loss per step),
                        "grad_norm" f32 [steps] (before clipping), "lr_multiplier" f32 [steps].
Usage: trainer_parity.py IN OUT
"""
import json
import math
import sys

import torch

from gpt_parity import Gpt, build_optimizers, read_safetensors, write_safetensors


def lr_multiplier(s, step, p):
    """Warm-up (step + 1) / W; 1 until the cool-down (last cooldown_fraction of progress); then linear from 1 to
    final_lr_fraction, or with L levels rounded up to a multiple of 1 / (L + 1), never below the final fraction."""
    if step < s["warmup_steps"]:
        return (step + 1) / s["warmup_steps"]
    p = min(max(p, 0.0), 1.0)
    if s["cooldown_fraction"] <= 0 or p < 1 - s["cooldown_fraction"]:
        return 1.0
    final = s["final_lr_fraction"]
    lrm = final + (1 - final) * (1 - p) / s["cooldown_fraction"]
    if s["cooldown_levels"] > 0:
        levels = s["cooldown_levels"] + 1
        lrm = max(final, math.ceil(lrm * levels - 1e-9) / levels)
    return lrm


def main():
    inputs, meta = read_safetensors(sys.argv[1])
    recipe = json.loads(meta["recipe"])
    cfg, o, sched = recipe["model"], recipe["optim"], recipe["schedule"]
    phases, steps = recipe["batch"]["phases"], recipe["train"]["steps"]
    gpt = Gpt(cfg, {k[len("model."):]: v for k, v in inputs.items() if k.startswith("model.")})
    adams, muon = build_optimizers(gpt, cfg, o)
    mtp = recipe["train"]["mtp_weights"]
    ids, targets = inputs["ids"], inputs["targets"]
    micro, losses, norms, lrms = 0, [], [], []
    for step in range(steps):
        p = step / steps
        phase = [ph for ph in phases if ph["from"] <= p][-1]
        lrm = lr_multiplier(sched, step, p) * phase["lr_scale"]
        for t in gpt.w.values():
            t.grad = None
        total = 0.0
        for _ in range(phase["accum"]):
            loss = gpt.loss(ids[micro], targets[micro], mtp)
            (loss / phase["accum"]).backward()
            total += loss.item()
            micro += 1
        with torch.no_grad():
            norm = math.sqrt(sum(float(t.grad.double().pow(2).sum()) for t in gpt.w.values()))
            if o["grad_clip"] > 0 and norm > o["grad_clip"]:
                for t in gpt.w.values():
                    t.grad.mul_(o["grad_clip"] / norm)
        mu = o["momentum_start"] + (o["momentum"] - o["momentum_start"]) * min(1.0, step / o["momentum_warmup_steps"])
        wd = o["muon_weight_decay"] * (max(0.0, 1 - p) if o["muon_wd_decay_to_zero"] else 1.0)
        muon.step(o["matrix_lr"] * lrm, mu, wd)
        for a in adams:
            a.param_groups[0]["lr"] = a.param_groups[0]["base_lr"] * lrm
            a.step()
        losses.append(total / phase["accum"])
        norms.append(norm)
        lrms.append(lrm)
    assert micro == ids.shape[0], f"used {micro} of {ids.shape[0]} micro-batches"
    out = {"final." + n: t.detach() for n, t in gpt.w.items()}
    out["loss"] = torch.tensor(losses)
    out["grad_norm"] = torch.tensor(norms)
    out["lr_multiplier"] = torch.tensor(lrms)
    write_safetensors(sys.argv[2], out)


if __name__ == "__main__":
    main()
