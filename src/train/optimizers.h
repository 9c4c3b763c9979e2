// The optimiser set of the baseline (recipe-spec §3): Muon for the 2-D matrices inside the blocks, one AdamW per
// remaining group (lm_head, wte, value embeddings, resid lambdas, x0 lambdas, norm gains, attention biases) with its
// own learning rate and betas.
//
//   OptimizerSet opt(engine.gemm(), gpt, recipe.optim);
//   opt.schedule(step, lr_multiplier, progress);   // lrs, Muon momentum warm-up and weight-decay decay
//   double norm = opt.clip_gradients(1.0f);        // global L2 norm before clipping (0 = no clipping)
//   opt.step();  opt.zero_grad();
//
// Base learning rates: Muon matrix_lr; AdamW embedding/unembedding/value-embedding lrs times (d/768)^-1/2 when
// optim.scale_lr_by_width (autoresearch's s_d); resid lambdas scalar_lr * resid_lr_scale; x0 lambdas scalar_lr with
// betas (x0_beta1, x0_beta2); norm gains (the Llama block) norm_gain_lr; attention biases bias_lr. Every lr is
// multiplied by the schedule's multiplier each step. state()/load_state() are the checkpoint's view: named tensors
// "optim.<param>.<slot>" plus the step counters. Sharded (ZeRO-1, dist/ownership.h): constructed with `owned` (one flag
// per gpt.parameters() entry), the set keeps state for, and steps, only the owned parameters; state() lists only their
// tensors and state_layout() every parameter's slot names with the parameter's index, so a checkpoint can collect the
// slots from their owners. The step counters are kept for every group on every rank. Gradient clipping still sees every
// gradient.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "model/gpt.h"
#include "optim/adamw.h"
#include "optim/muon.h"
#include "recipe/recipe.h"

namespace nanotrn::train {

// The Muon options an optim section means for a run in matmul precision `precision` (initial lr and momentum; the
// schedules move them per step): the normalisation epsilon is the spec's for the chosen coefficients
// (muon_norm_eps), and optim.muon_dtype "auto" follows the run's precision.
MuonOptions muon_options(const recipe::OptimConfig& config, DType precision);

class OptimizerSet {
 public:
  // `precision` is the run's matmul dtype; optim.muon_dtype "auto" follows it. `owned` empty: every parameter.
  // `deterministic` (train.deterministic): Muon orthogonalises one matrix at a time, as MuonOptions says why.
  OptimizerSet(Gemm& gemm, model::Gpt& gpt, const recipe::OptimConfig& config, DType precision = DType::f32,
               std::vector<bool> owned = {}, bool deterministic = false);

  void schedule(int64_t step, double lr_multiplier, double progress);
  // Global gradient L2 norm over all parameters; when max_norm > 0 and the norm exceeds it, scales every gradient
  // by max_norm / norm.
  double clip_gradients(float max_norm);
  void step();
  void zero_grad();

  std::vector<std::pair<std::string, Tensor>> state() const;
  struct Slot {
    std::string name;  // "optim.<param>.<slot>", as in state()
    size_t param;      // index into gpt.parameters()
  };
  const std::vector<Slot>& state_layout() const { return layout_; }
  // Bytes of optimiser state this rank holds.
  int64_t state_bytes() const;
  std::map<std::string, std::string> counters() const;
  // Copies saved state back (every tensor of state() must be present with the same shape; errors name the tensor).
  void load_state(const std::vector<std::pair<std::string, Tensor>>& saved,
                  const std::map<std::string, std::string>& counters);

  double muon_momentum() const { return muon_->options().momentum; }
  double muon_lr() const { return muon_->options().lr; }
  double muon_weight_decay() const { return muon_->options().weight_decay; }

 private:
  struct Group {
    std::string name;
    std::unique_ptr<AdamW> adam;
    std::vector<std::string> param_names;
    float base_lr = 0.0f;
  };
  recipe::OptimConfig config_;
  std::vector<Tensor*> all_params_;
  std::unique_ptr<Muon> muon_;
  std::vector<std::string> muon_names_;
  std::vector<Group> groups_;
  std::vector<Slot> layout_;
};

}  // namespace nanotrn::train
