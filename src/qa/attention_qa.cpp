// The attention QA grid (see attention_qa.h). Not here: the kernels, their checks or the timing model.
#include "qa/attention_qa.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <tuple>

#include "base/error.h"
#include "base/stopwatch.h"
#include "neuron/isa/machine.h"
#include "neuron/registry/kernel_run.h"

namespace nanotrn::qa {
namespace {

using neuron::AttentionMask;
using neuron::AttentionVariant;

constexpr double kGymAtol = 1e-1;  // attention-gym's bf16 / fp16 benchmark tolerance (rtol 1e-2 on top)

// The kernels' variant for `stacked` query heads (batch-major: stacked head h is query head h % q_heads).
AttentionVariant kernel_variant(const AttentionQaConfig& c, int64_t window, int64_t stacked) {
  AttentionVariant v;
  v.mask = c.variant == AttentionQaVariant::causal           ? AttentionMask::causal
           : c.variant == AttentionQaVariant::sliding_window ? AttentionMask::sliding_window
                                                             : AttentionMask::none;
  if (c.variant == AttentionQaVariant::sliding_window) v.window = window;
  v.group = c.q_heads / c.kv_heads;
  if (c.variant == AttentionQaVariant::alibi) {
    const std::vector<float> per_head = neuron::standard_alibi_slopes(c.q_heads);
    for (int64_t h = 0; h < stacked; ++h) v.alibi_slopes.push_back(per_head[static_cast<size_t>(h % c.q_heads)]);
  }
  return v;
}

// `stacked` query heads: the full shape is batch x q_heads; a slice or a timing sample fewer.
neuron::AttentionShape kernel_shape(const AttentionQaConfig& c, const AttentionQaOptions& o, int64_t stacked) {
  return {.seq = c.seq, .head_dim = c.head_dim, .heads = stacked, .variant = kernel_variant(c, o.window, stacked)};
}
neuron::KernelRunOptions kernel_options(const std::string& kernel, const AttentionQaConfig& c,
                                        const AttentionQaOptions& o, int64_t stacked) {
  neuron::KernelRunOptions k = neuron::kernel_options(kernel, kernel_shape(c, o, stacked));
  k.dtype = DType::bf16;
  k.core = o.core;
  k.schedule = neuron::Schedule::pipelined;
  k.seed = o.seed;
  return k;
}

// The full shape's time: simulated whole, or above full_timing_max_seq from samples of 2 and 3 kv groups (the
// kernels run kv groups one after the other through the same pipeline, so each further group adds the steady-state
// time of one: t(n) = t(2) + (n - 2) (t(3) - t(2))).
AttentionQaTiming time_of(const std::string& kernel, const AttentionQaConfig& c, const AttentionQaOptions& o,
                          double flops, double bytes) {
  const int64_t units = c.batch * c.kv_heads, per_unit = c.q_heads / c.kv_heads;
  auto ns = [&](int64_t n, double* peak) {
    const neuron::KernelRunResult r = neuron::run_kernel(kernel_options(kernel, c, o, n * per_unit));
    *peak = r.report.peak_tflops;
    return r.report.total_ns;
  };
  AttentionQaTiming t;
  double peak = 0, total = 0;
  t.extrapolated = c.seq > o.full_timing_max_seq && units > 3;
  if (t.extrapolated) {
    const double two = ns(2, &peak), three = ns(3, &peak);
    total = two + static_cast<double>(units - 2) * (three - two);
  } else {
    total = ns(units, &peak);
  }
  const neuron::NeuronCoreSpec& s = neuron::spec_for(o.core);
  t.seconds = total * 1e-9;
  t.cycles = total * s.tensor_clock_ghz.value;
  t.flops = flops;
  t.bytes = bytes;
  t.mfu = flops / (t.seconds * peak * 1e12);
  t.bandwidth = bytes / (total * s.hbm_share_bytes_per_ns.value);
  return t;
}

AttentionQaNumerics check_of(neuron::KernelRunOptions k) {
  k.check = true;
  k.check_any_size = true;
  const neuron::KernelRunResult r = neuron::run_kernel(k);
  return {true, r.check_passed && r.max_abs_error <= kGymAtol, r.max_abs_error, r.error_bound, r.failures};
}

std::string percent(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", 100 * x);
  return b;
}

}  // namespace

const char* attention_qa_variant_name(AttentionQaVariant v) {
  switch (v) {
    case AttentionQaVariant::dense:
      return "dense";
    case AttentionQaVariant::causal:
      return "causal";
    case AttentionQaVariant::alibi:
      return "alibi";
    case AttentionQaVariant::sliding_window:
      return "sliding_window";
  }
  return "?";
}

std::string AttentionQaConfig::name() const {
  return "b" + std::to_string(batch) + " T" + std::to_string(seq) + " h" + std::to_string(q_heads) + "/" +
         std::to_string(kv_heads) + " d" + std::to_string(head_dim) + " " + attention_qa_variant_name(variant);
}

std::vector<AttentionQaConfig> attention_qa_grid() {
  std::vector<AttentionQaConfig> g;
  for (int64_t b : {1, 4})
    for (int64_t t : {512, 2048, 8192})
      for (int64_t kv : {8, 2})
        for (int64_t d : {64, 128})
          for (AttentionQaVariant v : {AttentionQaVariant::dense, AttentionQaVariant::causal, AttentionQaVariant::alibi,
                                       AttentionQaVariant::sliding_window})
            g.push_back({b, t, 8, kv, d, v});
  return g;
}

bool AttentionQaRow::passed() const {
  if (!error.empty()) return false;
  for (const AttentionQaNumerics* n : {&forward_check, &backward_check})
    if (n->checked && !n->passed) return false;
  return true;
}

std::vector<AttentionQaRow> run_attention_qa(const AttentionQaOptions& o,
                                             const std::function<void(const std::string&)>& say) {
  check(o.window >= 1, "qa attention: the sliding window must be >= 1; got " + std::to_string(o.window));
  std::vector<AttentionQaRow> rows;
  // Numerics of one slice (one kv head and its query heads) by its shape: batch 4 reuses batch 1's.
  std::map<std::tuple<int64_t, int64_t, int64_t, int>, std::pair<AttentionQaNumerics, AttentionQaNumerics>> slices;
  for (const AttentionQaConfig& c : attention_qa_grid()) {
    if (!o.seqs.empty() && std::find(o.seqs.begin(), o.seqs.end(), c.seq) == o.seqs.end()) continue;
    const auto t0 = std::chrono::steady_clock::now();
    AttentionQaRow row;
    row.config = c;
    try {
      // FLOPs and bytes of the full shape, from the kernels' definitions (attention-gym's conventions).
      const neuron::KernelRegistry& kernels = neuron::builtin_kernels();
      const neuron::AttentionShape full = kernel_shape(c, o, c.batch * c.q_heads);
      for (auto [kernel, timing] : {std::pair{"attention", &row.forward}, std::pair{"attention_bwd", &row.backward}}) {
        const neuron::KernelEntry& e = kernels.at(kernel);
        *timing = time_of(kernel, c, o, e.flops(full), e.hbm_bytes(full, DType::bf16));
      }
      if (c.seq <= o.numerics_max_seq) {
        const int64_t group = c.q_heads / c.kv_heads;
        const auto key = std::make_tuple(c.seq, c.head_dim, group, static_cast<int>(c.variant));
        auto it = slices.find(key);
        row.shared_slice = it != slices.end();
        if (!row.shared_slice) {
          const neuron::KernelRunOptions sf = kernel_options("attention", c, o, group);
          neuron::KernelRunOptions sb = sf;
          sb.kernel = "attention_bwd";
          it = slices.emplace(key, std::make_pair(check_of(sf), check_of(sb))).first;
        }
        row.forward_check = it->second.first;
        row.backward_check = it->second.second;
      }
    } catch (const Error& e) {
      row.error = e.what();
    }
    if (say) {
      char line[200];
      std::snprintf(line, sizeof line, "%-34s %s  fwd %8.1f us %5s%% MFU  bwd %8.1f us %5s%% MFU  ", c.name().c_str(),
                    row.passed() ? "pass" : "FAIL", row.forward.seconds * 1e6, percent(row.forward.mfu).c_str(),
                    row.backward.seconds * 1e6, percent(row.backward.mfu).c_str());
      char took[32];
      std::snprintf(took, sizeof took, "  (%.1f s)\n", seconds_since(t0));
      say(line +
          (!row.error.empty() ? row.error
           : !row.forward_check.checked
               ? std::string(row.forward.extrapolated ? "timed (extrapolated) only" : "timed only")
           : row.shared_slice ? std::string("checked (slice of batch 1)")
                              : std::string("checked")) +
          took);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string attention_qa_table(const std::vector<AttentionQaRow>& rows) {
  std::string s =
      "| configuration | fwd us | fwd cycles | fwd MFU % | fwd BW % | bwd us | bwd cycles | bwd MFU % | bwd BW % | fwd "
      "max err / bound | bwd max err / bound | result |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  size_t passed = 0, checked = 0;
  for (const AttentionQaRow& r : rows) {
    char line[512];
    auto numerics = [](const AttentionQaNumerics& n) {
      if (!n.checked) return std::string("not checked");
      char b[64];
      std::snprintf(b, sizeof b, "%.2g / %.2g", n.max_error, n.largest_bound);
      return std::string(b);
    };
    std::snprintf(line, sizeof line, "| %s | %.1f%s | %.0f | %s | %s | %.1f | %.0f | %s | %s | %s | %s | %s |\n",
                  r.config.name().c_str(), r.forward.seconds * 1e6, r.forward.extrapolated ? "*" : "", r.forward.cycles,
                  percent(r.forward.mfu).c_str(), percent(r.forward.bandwidth).c_str(), r.backward.seconds * 1e6,
                  r.backward.cycles, percent(r.backward.mfu).c_str(), percent(r.backward.bandwidth).c_str(),
                  numerics(r.forward_check).c_str(), numerics(r.backward_check).c_str(),
                  !r.error.empty() ? "refused"
                  : r.passed()     ? "pass"
                                   : "FAIL");
    s += line;
    passed += r.passed() ? 1 : 0;
    checked += r.forward_check.checked ? 1 : 0;
  }
  s += std::to_string(passed) + "/" + std::to_string(rows.size()) + " pass; " + std::to_string(checked) +
       " checked against fp64 on a full slice, the rest timed only; * timed from 2 and 3 kv groups (steady state)\n";
  return s;
}

nlohmann::json attention_qa_json(const std::vector<AttentionQaRow>& rows, const AttentionQaOptions& o) {
  nlohmann::json j = {{"core", o.core},
                      {"window", o.window},
                      {"numerics_max_seq", o.numerics_max_seq},
                      {"flop_convention", "attention-gym: forward B Hq (4 d + 2) per visible pair, backward 2.5x"},
                      {"tolerance", "derived per-element bound, and attention-gym bf16 atol 1e-1 / rtol 1e-2"},
                      {"rows", nlohmann::json::array()}};
  size_t passed = 0;
  for (const AttentionQaRow& r : rows) {
    auto timing = [](const AttentionQaTiming& t) {
      return nlohmann::json{{"seconds", t.seconds},
                            {"cycles", t.cycles},
                            {"flops", t.flops},
                            {"bytes", t.bytes},
                            {"mfu", t.mfu},
                            {"bandwidth_utilisation", t.bandwidth},
                            {"extrapolated", t.extrapolated}};
    };
    auto numerics = [](const AttentionQaNumerics& n) {
      return n.checked ? nlohmann::json{{"passed", n.passed},
                                        {"max_abs_error", n.max_error},
                                        {"largest_bound", n.largest_bound},
                                        {"failures", n.failures}}
                       : nlohmann::json(nullptr);
    };
    const AttentionQaConfig& c = r.config;
    nlohmann::json row = {{"name", c.name()},
                          {"batch", c.batch},
                          {"seq", c.seq},
                          {"q_heads", c.q_heads},
                          {"kv_heads", c.kv_heads},
                          {"head_dim", c.head_dim},
                          {"variant", attention_qa_variant_name(c.variant)},
                          {"forward", timing(r.forward)},
                          {"backward", timing(r.backward)},
                          {"forward_check", numerics(r.forward_check)},
                          {"backward_check", numerics(r.backward_check)},
                          {"shared_slice", r.shared_slice},
                          {"passed", r.passed()}};
    if (!r.error.empty()) row["error"] = r.error;
    j["rows"].push_back(row);
    passed += r.passed() ? 1 : 0;
  }
  j["passed"] = passed;
  j["total"] = rows.size();
  return j;
}

}  // namespace nanotrn::qa
