// The attention kernels' shared parameters (see attention_params.h).
#include "neuron/registry/attention_params.h"

#include "base/error.h"
#include "neuron/registry/check_support.h"

namespace nanotrn::neuron {

std::vector<ParamSpec> attention_params() {
  const AttentionShape def;
  return {int_param("t", def.seq, "attention: sequence length T (a multiple of 128)"),
          int_param("d", def.head_dim, "attention: head dim d (<= 128, or 256/384/512)"),
          int_param("heads", def.heads, "attention: stacked (batch, query head) pairs"),
          choice_param("mask", "causal", {"causal", "none", "dense", "sliding_window", "window"},
                       "attention, attention_bwd: causal | none | sliding_window"),
          int_param("window", 0, "attention, attention_bwd: the sliding window W (keys query - W < key <= query)"),
          flag_param("alibi",
                     "attention, attention_bwd: ALiBi, the standard slopes 2^(-8 (h + 1) / heads) over the stacked "
                     "heads"),
          real_param("softcap", 0,
                     "attention, attention_bwd: logit softcap c (scores c tanh(scale q.k / c), as Gemma 2); 0 = off"),
          int_param("documents", 0,
                    "attention, attention_bwd: document bounds of this many documents packed into T (0: none)"),
          int_param("group", 1,
                    "attention, attention_bwd: query heads per kv head (GQA; --heads for MQA); k and v have heads / "
                    "group heads")};
}

void set_attention_parts(KernelDefinition<AttentionShape>& d) {
  d.params = attention_params();
  d.from_params = attention_shape_of;
  d.to_params = attention_params_of;
  d.describe = attention_text;
  d.check_size = attention_check_size;
  d.batched = [](AttentionShape s, int64_t g) {  // g times the stacked heads (their ALiBi slopes repeated)
    const std::vector<float> slopes = s.variant.alibi_slopes;
    for (int64_t i = 1; i < g; i++)
      s.variant.alibi_slopes.insert(s.variant.alibi_slopes.end(), slopes.begin(), slopes.end());
    s.heads *= g;
    return s;
  };
}

AttentionShape attention_shape_of(const KernelParams& p) {
  AttentionShape s;
  s.seq = p.integer("t");
  s.head_dim = p.integer("d");
  s.heads = p.integer("heads");
  s.variant = {parse_attention_mask(p.text("mask")), p.integer("window")};
  s.variant.group = p.integer("group");
  s.variant.softcap = static_cast<float>(p.real("softcap"));
  if (const int64_t n = p.integer("documents"); n != 0) {
    check(s.seq > 0, "kernel sizes must be positive");
    set_document_bounds(s.variant, s.seq, spread_document_starts(s.seq, n));
  }
  if (p.flag("alibi")) s.variant.alibi_slopes = standard_alibi_slopes(s.heads);
  check_attention_shape(s);
  return s;
}

KernelParams attention_params_of(const AttentionShape& s) {
  return {{"t", s.seq},
          {"d", s.head_dim},
          {"heads", s.heads},
          {"mask", std::string(attention_mask_name(s.variant.mask))},
          {"window", s.variant.window},
          {"alibi", s.variant.alibi()},
          {"group", s.variant.group},
          {"softcap", static_cast<double>(s.variant.softcap)},
          {"documents", s.variant.documents()}};
}

std::string attention_text(const AttentionShape& s) {
  return std::to_string(s.heads) + " head(s), T " + std::to_string(s.seq) + ", d " + std::to_string(s.head_dim) + ", " +
         s.variant.describe();
}

void check_attention_shape(const AttentionShape& s, int cores) {
  check(s.seq > 0 && s.head_dim > 0 && s.heads > 0, "kernel sizes must be positive");
  check_attention_variant(s.variant, s.heads, s.seq);
  check(s.heads / s.variant.group >= cores,
        "attention --lnc " + std::to_string(cores) +
            " splits whole kv heads (with their query heads) over the cores: needs --heads / --group >= " +
            std::to_string(cores));
}

AttentionVariant heads_variant(const AttentionVariant& v, int64_t lo, int64_t hi) {
  AttentionVariant w = v;
  if (v.alibi()) w.alibi_slopes.assign(v.alibi_slopes.begin() + lo, v.alibi_slopes.begin() + hi);
  return w;
}

std::vector<float> bounds_tensor(const AttentionVariant& v) {
  std::vector<float> b;
  for (size_t t = 0; t < v.bound_min.size(); ++t) {
    b.push_back(static_cast<float>(v.bound_min[t]));
    b.push_back(static_cast<float>(v.bound_max[t]));
  }
  return b;
}

CheckSize attention_check_size(const AttentionShape& s) {
  const double macs = static_cast<double>(s.heads) * static_cast<double>(s.seq) * static_cast<double>(s.seq) *
                      static_cast<double>(s.head_dim);
  return {macs, static_cast<double>(kMaxCheckMacs),
          "multiply-adds (1024^3; got heads x T^2 x d = " + std::to_string(static_cast<int64_t>(macs)) + ")"};
}

}  // namespace nanotrn::neuron
