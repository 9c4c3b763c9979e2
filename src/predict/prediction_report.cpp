// Text, JSON and Perfetto output of a Prediction. See predictor.h.
#include <algorithm>
#include <cstdio>
#include <map>

#include "base/format.h"
#include "data/epochs.h"
#include "predict/predictor.h"

namespace nanotrn::predict {
namespace {

std::string pad(const std::string& s, size_t width) {
  return "  " + s + std::string(s.size() < width ? width - s.size() : 1, ' ');
}

std::vector<std::pair<std::string, double>> sorted(const std::map<std::string, double>& m) {
  std::vector<std::pair<std::string, double>> v(m.begin(), m.end());
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return v;
}

nlohmann::json pairs_json(const std::vector<std::pair<std::string, double>>& v) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, x] : v) j[k] = x;
  return j;
}

nlohmann::json memory_json(const RankMemory& m) {
  nlohmann::json items = nlohmann::json::array();
  for (const MemoryItem& i : m.items) items.push_back({{"name", i.name}, {"bytes", i.bytes}});
  return {{"per_rank_bytes", m.total()}, {"capacity_bytes", m.capacity}, {"fits", m.fits()}, {"items", items}};
}

}  // namespace

StepBreakdown step_breakdown(const StepTime& s) {
  std::map<std::string, double> g, e, m;
  StepBreakdown b;
  auto add = [&](const std::vector<TimedOp>& ops, double times) {
    for (const TimedOp& op : ops) {
      g[op.op.group] += op.cost.seconds * times;
      m[op.cost.method.rfind("neuron", 0) == 0 ? "software NeuronCore" : "roofline"] += op.cost.seconds * times;
      for (int i = 0; i < hw::kEngineCount; i++) {
        const double v = op.cost.busiest.busy_s[static_cast<size_t>(i)];
        if (v > 0) e[std::string(hw::engine_track_name(static_cast<hw::Engine>(i)))] += v * times;
      }
      for (size_t i = 0; i < b.use.busy_s.size(); i++) b.use.busy_s[i] += op.cost.use.busy_s[i] * times;
    }
  };
  add(s.micro_ops, static_cast<double>(s.accum));
  add(s.optimizer_ops, 1.0);
  g["kernel launch gaps"] += s.launch_s;
  g["all-reduce (exposed)"] += s.allreduce_exposed_s;
  if (s.contention_s > 0) g["DMA contention"] += s.contention_s;
  g["host dispatch"] += s.host_s;
  if (s.overhead_s > 0) g["per-step overhead"] += s.overhead_s;
  b.groups = sorted(g);
  b.engines = sorted(e);
  b.methods = sorted(m);
  return b;
}

std::vector<KernelLine> last_phase_kernels(const Prediction& p) {
  if (p.phases.empty()) return {};
  return step_kernels(p.phases.back().time, p.rank_peak_flops, p.rank_bytes_per_s);
}

std::string prediction_text(const Prediction& p, size_t top) {
  std::string s = "predict " + p.recipe + " on " + p.device + " (" + p.device_kind + "; modelled, not measured)\n";
  s += "model: " + std::to_string(p.params) + " params, " + format_number("%.4g", p.flops_per_token) +
       " FLOPs/token, T " + std::to_string(p.seq_len) + ", " + p.dtype + "; peak " +
       format_number("%.4g", p.peak_flops / 1e12) + " TFLOP/s\n";
  s += "launch: " + (p.layout.nodes > 1 ? std::to_string(p.layout.nodes) + " nodes x " : std::string()) +
       std::to_string(p.layout.chips) + " chip(s), " + std::to_string(p.layout.ranks_per_chip) +
       " rank(s) per chip at LNC=" + std::to_string(p.layout.lnc) + ", stack " + p.stack.name + " (" +
       std::string(recipe::to_string(p.stack.execution)) + ")\n";
  for (const std::string& n : p.notes) s += "  - " + n + "\n";
  s += "\nphase  from  accum heads   tokens/step     step s  (band)              micro-batch  optimizer  "
       "all-reduce(exp)   host s      tok/s  (band)               MFU\n";
  for (const PhasePrediction& ph : p.phases) {
    const StepTime& t = ph.time;
    char buf[320];
    std::snprintf(buf, sizeof buf,
                  "%5zu %5.2f %6lld %5d %13lld %10.4f  (%.4f-%.4f) %10.4f %10.4f %8.4f(%7.4f) %8.4f %10.0f  "
                  "(%.0f-%.0f) %5.1f%%\n",
                  ph.index, ph.from, static_cast<long long>(ph.accum), ph.mtp_heads, static_cast<long long>(t.tokens),
                  t.step_s, t.step_s_band[0], t.step_s_band[1], t.micro_batch_s, t.optimizer_s, t.allreduce_s,
                  t.allreduce_exposed_s, t.host_s, ph.tokens_per_s, ph.tokens_per_s_band[0], ph.tokens_per_s_band[1],
                  100.0 * ph.mfu);
    s += buf;
  }
  s += "band: the stack's " + format_number("x%.3f", p.stack.band_low.value) + " .. " +
       format_number("x%.3f", p.stack.band_high.value) + " of each step (" + p.stack.band_high.source + ")\n";
  if (p.compile_s > 0) {
    s += "\ncompile: " + format_number("%.1f s", p.compile_s) + " before the first step (" +
         p.stack.param(recipe::StackParam::compile_s_per_instruction).source + "); " +
         format_number("%.1f s", p.startup_s) + " of it charged against the budget\n";
  }
  if (p.budget_s > 0 || p.walk.steps > 0) {
    if (p.target_tokens > 0) {
      s += "\ntokens " + std::to_string(p.target_tokens) + ": the shortest budget that reaches them is " +
           format_number("%.9gs", p.budget_s) + " (train --clock <device> --budget with it stops at the step below)";
    }
    s += "\nbudget " + format_number("%.1f s", p.budget_s) + ": " + std::to_string(p.walk.steps) + " steps (band " +
         std::to_string(p.walk_high.steps) + "-" + std::to_string(p.walk_low.steps) + "; ";
    for (size_t i = 0; i < p.walk.steps_per_phase.size(); i++) {
      s += (i ? " + " : "") + std::to_string(p.walk.steps_per_phase[i]);
    }
    s += " per phase), " + std::to_string(p.walk.tokens) + " tokens, charged " +
         format_number("%.1f s", p.walk.charged_s) + ", mean " +
         format_number("%.0f tok/s", static_cast<double>(p.walk.tokens) / std::max(p.walk.charged_s, 1e-12)) + "\n";
    if (p.epochs.known) s += "data: " + data::epochs_line(p.epochs) + "\n";
    s += cost_text(p.cost);
  }
  if (!p.phases.empty()) {
    const StepTime& t = p.phases.back().time;
    const StepBreakdown b = step_breakdown(t);
    s += "\nbreakdown of one phase-" + std::to_string(p.phases.back().index) + " step (" +
         format_number("%.4f s", t.step_s) + "; kernel times before overlap):\n";
    for (const auto& [k, v] : b.groups) {
      s += pad(k, 28) + format_number("%10.4f s", v) + format_number("  %5.1f %%\n", 100.0 * v / t.step_s);
    }
    s += "engine busy (per rank; DMA = busiest queue; roofline kernels count as Tensor or DMA):\n";
    for (const auto& [k, v] : b.engines) {
      s += pad(k, 28) + format_number("%10.4f s", v) + format_number("  %5.1f %%\n", 100.0 * v / t.step_s);
    }
    s += "priced by:";
    for (const auto& [k, v] : b.methods) s += " " + k + format_number(" %.4f s;", v);
    s += "\n";
    s += "\ntop kernels of that step (x = invocations; bound: the engine that sets the time, hw/bound.h):\n";
    s += kernels_text(last_phase_kernels(p), top);
  }
  s += "prediction: " + std::to_string(p.kernels_timed) + " kernels timed, " + std::to_string(p.shapes_cached) +
       " shapes cached, " + format_number("%.3f s", p.predict_wall_s) + "\n";
  return s;
}

nlohmann::json prediction_json(const Prediction& p, size_t top) {
  nlohmann::json phases = nlohmann::json::array();
  for (const PhasePrediction& ph : p.phases) {
    const StepTime& t = ph.time;
    const StepBreakdown b = step_breakdown(t);
    nlohmann::json ops = nlohmann::json::array();
    for (const TimedOp& op : t.micro_ops) {
      ops.push_back({{"name", op.op.name},
                     {"group", op.op.group},
                     {"pass", to_string(op.op.pass)},
                     {"kernel", op.op.kernel_name()},
                     {"shape", op.op.shape_text()},
                     {"class", to_string(op.op.op_class)},
                     {"count", op.op.count},
                     {"seconds", op.cost.seconds},
                     {"method", op.cost.method}});
    }
    phases.push_back({{"index", ph.index},
                      {"from", ph.from},
                      {"accum", ph.accum},
                      {"mtp_heads", ph.mtp_heads},
                      {"tokens", t.tokens},
                      {"step_s", t.step_s},
                      {"step_s_band", t.step_s_band},
                      {"micro_batch_s", t.micro_batch_s},
                      {"backward_s", t.backward_s},
                      {"optimizer_s", t.optimizer_s},
                      {"allreduce_s", t.allreduce_s},
                      {"allreduce_exposed_s", t.allreduce_exposed_s},
                      {"launch_s", t.launch_s},
                      {"host_s", t.host_s},
                      {"tokens_per_s", ph.tokens_per_s},
                      {"tokens_per_s_band", ph.tokens_per_s_band},
                      {"contention_s", t.contention_s},
                      {"overhead_s", t.overhead_s},
                      {"mfu", ph.mfu},
                      {"by_group_s", pairs_json(b.groups)},
                      {"by_engine_s", pairs_json(b.engines)},
                      {"by_method_s", pairs_json(b.methods)},
                      {"micro_batch_ops", ops}});
  }
  return {{"recipe", p.recipe},
          {"device", p.device},
          {"device_kind", p.device_kind},
          {"modelled", true},
          {"lnc", p.lnc},
          {"ranks", p.ranks},
          {"layout",
           {{"nodes", p.layout.nodes},
            {"chips", p.layout.chips},
            {"ranks_per_chip", p.layout.ranks_per_chip},
            {"lnc", p.layout.lnc},
            {"launched_ranks", p.layout.launched_ranks},
            {"ranks", p.layout.ranks},
            {"rows_per_rank", p.layout.rows_per_rank},
            {"idle_cores_per_chip", p.layout.idle_cores_per_chip},
            {"stack", p.stack.name}}},
          {"stack", recipe::stack_profile_to_json(p.stack)},
          {"compile_s", p.compile_s},
          {"startup_s", p.startup_s},
          {"steps_band", {p.walk_high.steps, p.walk_low.steps}},
          {"tokens_band", {p.walk_high.tokens, p.walk_low.tokens}},
          {"memory", memory_json(p.memory)},
          {"graph_instructions", p.graph_instructions},
          {"rows_per_rank", p.rows_per_rank},
          {"seq_len", p.seq_len},
          {"dtype", p.dtype},
          {"params", p.params},
          {"flops_per_token", p.flops_per_token},
          {"peak_flops", p.peak_flops},
          {"phases", phases},
          {"budget_s", p.budget_s},
          {"steps", p.walk.steps},
          {"steps_per_phase", p.walk.steps_per_phase},
          {"tokens", p.walk.tokens},
          {"epochs", p.epochs.known ? nlohmann::json(p.epochs.epochs) : nlohmann::json()},
          {"charged_s", p.walk.charged_s},
          {"target_tokens", p.target_tokens > 0 ? nlohmann::json(p.target_tokens) : nlohmann::json()},
          {"cost", cost_json(p.cost)},
          {"notes", p.notes},
          {"kernels_timed", p.kernels_timed},
          {"predict_wall_s", p.predict_wall_s},
          {"rank_peak_flops", p.rank_peak_flops},
          {"rank_bytes_per_s", p.rank_bytes_per_s},
          {"top_kernels", kernels_json(last_phase_kernels(p), top)}};
}

nlohmann::json prediction_trace(const Prediction& p, size_t phase) {
  nlohmann::json ev = nlohmann::json::array();
  const StepTime& t = p.phases.at(phase).time;
  auto meta = [&](int tid, const std::string& name) {
    ev.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", 0}, {"tid", tid}, {"args", {{"name", name}}}});
  };
  ev.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", 0}, {"args", {{"name", p.device + " rank 0"}}}});
  meta(0, "host dispatch");
  meta(1, "all-reduce");
  for (int e = 0; e < hw::kEngineCount; e++) {
    meta(2 + e, std::string(hw::engine_name(static_cast<hw::Engine>(e))) + " busy");
  }
  int lanes = 0;  // kernels of one stage run side by side on tids 10, 11, ...
  auto slice = [&](int tid, const std::string& name, const std::string& cat, double start_s, double dur_s,
                   nlohmann::json args) {
    ev.push_back({{"ph", "X"},
                  {"name", name},
                  {"cat", cat},
                  {"pid", 0},
                  {"tid", tid},
                  {"ts", start_s * 1e6},
                  {"dur", dur_s * 1e6},
                  {"args", std::move(args)}});
  };
  const double host_each = t.host_s / static_cast<double>(t.accum + 1);
  double clock = 0.0;
  auto sequence = [&](const std::vector<TimedOp>& ops, const std::string& label) {
    slice(0, label + " graph launch", "host", clock, host_each, nlohmann::json::object());
    clock += host_each;
    int last_stage = -1, lane = 0;
    for (const TimedOp& op : ops) {
      lane = op.op.stage == last_stage ? lane + 1 : 0;
      last_stage = op.op.stage;
      for (; lanes <= lane; lanes++) meta(10 + lanes, "kernels, lane " + std::to_string(lanes));
      slice(10 + lane, op.op.name, op.op.group, clock + op.start_s, op.cost.seconds,
            {{"method", op.cost.method},
             {"shape", op.op.shape_text()},
             {"count", op.op.count},
             {"flops", op.op.flops},
             {"bytes", op.op.bytes}});
      for (int e = 0; e < hw::kEngineCount; e++) {
        const double busy = op.cost.use.busy_s[static_cast<size_t>(e)];
        if (busy <= 0) continue;
        slice(2 + e, op.op.name, "engine", clock + op.start_s, busy,
              {{"busy_fraction", op.cost.seconds > 0 ? busy / op.cost.seconds : 0.0}});
      }
    }
  };
  for (int64_t a = 0; a < t.accum; a++) {
    sequence(t.micro_ops, "micro-batch " + std::to_string(a));
    clock += t.micro_batch_s;
  }
  if (t.allreduce_s > 0) {
    slice(1, "gradient all-reduce (ring)", "cc", clock - std::min(t.backward_s, t.allreduce_s - t.allreduce_exposed_s),
          t.allreduce_s, {{"exposed_s", t.allreduce_exposed_s}});
  }
  clock += t.allreduce_exposed_s;
  sequence(t.optimizer_ops, "optimizer");
  return {{"traceEvents", ev},
          {"displayTimeUnit", "ms"},
          {"otherData",
           {{"tool", "nanotrn predict"},
            {"recipe", p.recipe},
            {"device", p.device},
            {"phase", phase},
            {"step_s", t.step_s}}}};
}

std::string comparison_text(const std::vector<Prediction>& ps) {
  std::string s;
  if (!ps.empty()) {
    s = "compare " + ps[0].recipe + " (last batch phase; " +
        (ps[0].target_tokens > 0 ? "to " + std::to_string(ps[0].target_tokens) + " tokens"
                                 : "budget " + format_number("%.0f s", ps[0].budget_s)) +
        "; modelled, not measured; $ = the chips' share of the on-demand instance, - = no public price)\n";
  }
  s += "device     kind        ranks  lnc     step s       tok/s    MFU  steps in budget     held h   chip-h          $"
       "  largest kernel (bound)\n";
  for (const Prediction& p : ps) {
    const std::vector<KernelLine> k = last_phase_kernels(p);
    const PhasePrediction* last = p.phases.empty() ? nullptr : &p.phases.back();
    char buf[384];
    const bool priced = p.cost.price && p.cost.price->known();
    std::snprintf(buf, sizeof buf, "%-10s %-10s %6lld %4lld %10.4f %11.0f %5.1f%% %16lld %10.4g %8.4g %10s  %s\n",
                  p.device.c_str(), p.device_kind.c_str(), static_cast<long long>(p.ranks),
                  static_cast<long long>(p.lnc), last ? last->time.step_s : 0.0, last ? last->tokens_per_s : 0.0,
                  last ? 100.0 * last->mfu : 0.0, static_cast<long long>(p.walk.steps), p.cost.held_s / 3600.0,
                  p.cost.chip_hours, priced ? format_usd(p.cost.usd_share).c_str() : "-",
                  k.empty()
                      ? "-"
                      : (k[0].label + " " + to_string(k[0].pass) + " " + format_number("%.1f%%", 100.0 * k[0].share) +
                         " (" + std::string(hw::bound_name(k[0].bound)) + ")")
                            .c_str());
    s += buf;
  }
  return s;
}

}  // namespace nanotrn::predict
