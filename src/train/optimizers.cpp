// The optimiser set. See optimizers.h.
#include "train/optimizers.h"

#include <cmath>

#include "base/error.h"
#include "base/lane_sum.h"

namespace nanotrn::train {

using model::ParamGroup;

MuonOptions muon_options(const recipe::OptimConfig& config, DType precision) {
  return MuonOptions{.lr = config.matrix_lr,
                     .momentum = config.momentum,
                     .nesterov = config.nesterov,
                     .ns_steps = config.ns_steps,
                     .coefficients = config.muon_coefficients,
                     .norm_scale = config.norm_scale,
                     .norm_eps = muon_norm_eps(config.muon_coefficients),
                     .normuon = config.normuon,
                     .normuon_beta2 = config.normuon_beta2,
                     .weight_decay = config.muon_weight_decay,
                     .ns_dtype = config.muon_dtype.value_or(precision) == DType::bf16 ? DType::bf16 : DType::f32};
}

OptimizerSet::OptimizerSet(Gemm& gemm, model::Gpt& gpt, const recipe::OptimConfig& config, DType precision,
                           std::vector<bool> owned, bool deterministic)
    : config_(config) {
  auto& params = gpt.parameters();
  check(owned.empty() || owned.size() == params.size(), "OptimizerSet: " + std::to_string(owned.size()) +
                                                            " ownership flags for " + std::to_string(params.size()) +
                                                            " parameters");
  if (owned.empty()) owned.assign(params.size(), true);
  const double d = static_cast<double>(gpt.config().model_dim);
  const float s_d = config.scale_lr_by_width ? static_cast<float>(std::pow(d / 768.0, -0.5)) : 1.0f;
  std::vector<Tensor*> matrices;
  struct Spec {
    ParamGroup group;
    const char* name;
    float lr;
    float beta1, beta2;
    float weight_decay;
  };
  const bool muon = config.kind == OptimizerKind::muon;
  std::vector<Spec> specs = {
      {ParamGroup::lm_head, "lm_head", config.unembedding_lr * s_d, config.adam_beta1, config.adam_beta2,
       config.adam_weight_decay},
      {ParamGroup::wte, "wte", config.embedding_lr * s_d, config.adam_beta1, config.adam_beta2,
       config.adam_weight_decay},
      {ParamGroup::value_embed, "value_embed", config.value_embed_lr * s_d, config.adam_beta1, config.adam_beta2,
       config.adam_weight_decay},
      {ParamGroup::resid_lambda, "resid_lambda", config.scalar_lr * config.resid_lr_scale, config.adam_beta1,
       config.adam_beta2, config.adam_weight_decay},
      {ParamGroup::x0_lambda, "x0_lambda", config.scalar_lr, config.x0_beta1, config.x0_beta2,
       config.adam_weight_decay},
      {ParamGroup::norm_gain, "norm_gain", config.norm_gain_lr, config.adam_beta1, config.adam_beta2,
       config.adam_weight_decay},
      {ParamGroup::bias, "bias", config.bias_lr, config.adam_beta1, config.adam_beta2, config.adam_weight_decay},
  };
  if (!muon) {  // optim.kind adamw: the block matrices are one more AdamW group, with their own decay
    specs.insert(specs.begin(), {ParamGroup::matrix, "matrix", config.adamw_matrix_lr, config.adam_beta1,
                                 config.adam_beta2, config.adamw_matrix_weight_decay});
  }
  for (size_t i = 0; i < params.size(); i++) {
    model::Parameter& p = params[i];
    all_params_.push_back(&p.value);
    if (p.group != ParamGroup::matrix || !muon) continue;
    layout_.push_back({"optim." + p.name + ".momentum", i});
    layout_.push_back({"optim." + p.name + ".second_moment", i});
    if (owned[i]) {
      matrices.push_back(&p.value);
      muon_names_.push_back(p.name);
    }
  }
  MuonOptions mo = muon_options(config, precision);
  mo.stack_same_shapes = !deterministic;
  muon_ = std::make_unique<Muon>(gemm, matrices, mo);
  for (const Spec& s : specs) {
    std::vector<Tensor*> ps;
    Group g;
    g.name = s.name;
    g.base_lr = s.lr;
    bool any = false;
    for (size_t i = 0; i < params.size(); i++) {
      model::Parameter& p = params[i];
      if (p.group != s.group) continue;
      any = true;
      layout_.push_back({"optim." + p.name + ".exp_avg", i});
      layout_.push_back({"optim." + p.name + ".exp_avg_sq", i});
      if (owned[i]) {
        ps.push_back(&p.value);
        g.param_names.push_back(p.name);
      }
    }
    if (!any) continue;  // a group the model does not have (kept, possibly empty, when another rank owns it)
    g.adam = std::make_unique<AdamW>(
        ps,
        AdamWOptions{
            .lr = s.lr, .beta1 = s.beta1, .beta2 = s.beta2, .eps = config.adam_eps, .weight_decay = s.weight_decay});
    groups_.push_back(std::move(g));
  }
}

void OptimizerSet::schedule(int64_t step, double lr_multiplier, double progress) {
  MuonOptions& m = muon_->options();
  m.lr = static_cast<float>(config_.matrix_lr * lr_multiplier);
  m.momentum =
      static_cast<float>(linear_ramp(config_.momentum_start, config_.momentum, step, config_.momentum_warmup_steps));
  const double wd_scale = config_.muon_wd_decay_to_zero ? std::max(0.0, 1.0 - progress) : 1.0;
  m.weight_decay = static_cast<float>(config_.muon_weight_decay * wd_scale);
  for (Group& g : groups_) g.adam->options().lr = static_cast<float>(g.base_lr * lr_multiplier);
}

double OptimizerSet::clip_gradients(float max_norm) {
  double sumsq = 0.0;
  for (Tensor* p : all_params_) {
    const Tensor& g = p->grad();
    if (!g.defined()) continue;
    const Tensor c = g.contiguous();
    sumsq += chunked_dot(c.data<float>(), c.data<float>(), c.numel());  // the same on any thread count
  }
  const double norm = std::sqrt(sumsq);
  if (max_norm > 0.0f && norm > max_norm) {
    const float f = static_cast<float>(max_norm / norm);
    for (Tensor* p : all_params_) {
      if (!p->grad().defined()) continue;
      Tensor scaled = p->grad().clone();
      float* d = scaled.data<float>();
      for (int64_t i = 0; i < scaled.numel(); i++) d[i] *= f;
      p->autograd()->grad = scaled;
      p->autograd()->grad_owned = true;
    }
  }
  return norm;
}

void OptimizerSet::step() {
  muon_->step();
  for (Group& g : groups_) g.adam->step();
}

void OptimizerSet::zero_grad() {
  for (Tensor* p : all_params_) p->zero_grad();
}

std::vector<std::pair<std::string, Tensor>> OptimizerSet::state() const {
  std::vector<std::pair<std::string, Tensor>> out;
  for (size_t i = 0; i < muon_names_.size(); i++) {
    out.emplace_back("optim." + muon_names_[i] + ".momentum", muon_->momentum_buffers()[i]);
    out.emplace_back("optim." + muon_names_[i] + ".second_moment", muon_->second_moments()[i]);
  }
  for (const Group& g : groups_) {
    for (size_t i = 0; i < g.param_names.size(); i++) {
      out.emplace_back("optim." + g.param_names[i] + ".exp_avg", g.adam->first_moments()[i]);
      out.emplace_back("optim." + g.param_names[i] + ".exp_avg_sq", g.adam->second_moments()[i]);
    }
  }
  return out;
}

int64_t OptimizerSet::state_bytes() const {
  int64_t bytes = 0;
  for (const auto& [name, t] : state()) bytes += t.numel() * 4;
  return bytes;
}

std::map<std::string, std::string> OptimizerSet::counters() const {
  std::map<std::string, std::string> c;
  for (const Group& g : groups_) c["adam_steps." + g.name] = std::to_string(g.adam->steps_taken());
  return c;
}

void OptimizerSet::load_state(const std::vector<std::pair<std::string, Tensor>>& saved,
                              const std::map<std::string, std::string>& counters) {
  std::map<std::string, const Tensor*> by_name;
  for (const auto& [name, t] : saved) by_name[name] = &t;
  for (const auto& [name, t] : state()) {
    auto it = by_name.find(name);
    check(it != by_name.end(), "checkpoint: optimiser state '" + name + "' is missing");
    check(it->second->shape() == t.shape(), "checkpoint: optimiser state '" + name + "' has shape " +
                                                shape_str(it->second->shape()) + ", the model needs " +
                                                shape_str(t.shape()));
    t.copy_from(*it->second);
  }
  for (Group& g : groups_) {
    auto it = counters.find("adam_steps." + g.name);
    check(it != counters.end(), "checkpoint: counter 'adam_steps." + g.name + "' is missing");
    g.adam->set_steps_taken(std::stoll(it->second));
  }
}

}  // namespace nanotrn::train
