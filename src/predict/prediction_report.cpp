// Text, JSON and Perfetto output of a Prediction. See predictor.h.
#include <algorithm>
#include <cstdio>
#include <map>

#include "base/format.h"
#include "predict/predictor.h"

namespace nanotrn::predict {
namespace {

std::string pad(const std::string& s, size_t width) {
  return "  " + s + std::string(s.size() < width ? width - s.size() : 1, ' ');
}

struct Breakdown {
  std::vector<std::pair<std::string, double>> groups, engines, methods;  // seconds per step, largest first
};

std::vector<std::pair<std::string, double>> sorted(const std::map<std::string, double>& m) {
  std::vector<std::pair<std::string, double>> v(m.begin(), m.end());
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return v;
}

Breakdown breakdown(const StepTime& s) {
  std::map<std::string, double> g, e, m;
  auto add = [&](const std::vector<TimedOp>& ops, double times) {
    for (const TimedOp& op : ops) {
      g[op.op.group] += op.cost.seconds * times;
      m[op.cost.method.rfind("neuron", 0) == 0 ? "software NeuronCore" : "roofline"] += op.cost.seconds * times;
      for (const auto& [k, v] : op.cost.engines) e[k] += v * times;
    }
  };
  add(s.micro_ops, static_cast<double>(s.accum));
  add(s.optimizer_ops, 1.0);
  g["kernel launch gaps"] += s.launch_s;
  g["all-reduce (exposed)"] += s.allreduce_exposed_s;
  g["host dispatch"] += s.host_s;
  return {sorted(g), sorted(e), sorted(m)};
}

nlohmann::json pairs_json(const std::vector<std::pair<std::string, double>>& v) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, x] : v) j[k] = x;
  return j;
}

}  // namespace

std::string prediction_text(const Prediction& p) {
  std::string s = "predict " + p.recipe + " on " + p.device + " (" + p.device_kind + "; modelled, not measured)\n";
  s += "model: " + std::to_string(p.params) + " params, " + format_number("%.4g", p.flops_per_token) +
       " FLOPs/token, T " + std::to_string(p.seq_len) + ", " + p.dtype + "; peak " +
       format_number("%.4g", p.peak_flops / 1e12) + " TFLOP/s\n";
  for (const std::string& n : p.notes) s += "  - " + n + "\n";
  s += "\nphase  from  accum heads   tokens/step     step s   micro-batch  optimizer  all-reduce(exp)   host s"
       "      tok/s    MFU\n";
  for (const PhasePrediction& ph : p.phases) {
    const StepTime& t = ph.time;
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "%5zu %5.2f %6lld %5d %13lld %10.4f %13.4f %10.4f %8.4f(%7.4f) %8.4f %10.0f %5.1f%%\n", ph.index,
                  ph.from, static_cast<long long>(ph.accum), ph.mtp_heads, static_cast<long long>(t.tokens), t.step_s,
                  t.micro_batch_s, t.optimizer_s, t.allreduce_s, t.allreduce_exposed_s, t.host_s, ph.tokens_per_s,
                  100.0 * ph.mfu);
    s += buf;
  }
  if (p.budget_s > 0 || p.walk.steps > 0) {
    s += "\nbudget " + format_number("%.1f s", p.budget_s) + ": " + std::to_string(p.walk.steps) + " steps (";
    for (size_t i = 0; i < p.walk.steps_per_phase.size(); i++) {
      s += (i ? " + " : "") + std::to_string(p.walk.steps_per_phase[i]);
    }
    s += " per phase), " + std::to_string(p.walk.tokens) + " tokens, charged " +
         format_number("%.1f s", p.walk.charged_s) + ", mean " +
         format_number("%.0f tok/s", static_cast<double>(p.walk.tokens) / std::max(p.walk.charged_s, 1e-12)) + "\n";
  }
  if (!p.phases.empty()) {
    const StepTime& t = p.phases.back().time;
    const Breakdown b = breakdown(t);
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
  }
  s += "prediction: " + std::to_string(p.kernels_timed) + " kernels timed, " + std::to_string(p.shapes_cached) +
       " shapes cached, " + format_number("%.3f s", p.predict_wall_s) + "\n";
  return s;
}

nlohmann::json prediction_json(const Prediction& p) {
  nlohmann::json phases = nlohmann::json::array();
  for (const PhasePrediction& ph : p.phases) {
    const StepTime& t = ph.time;
    const Breakdown b = breakdown(t);
    nlohmann::json ops = nlohmann::json::array();
    for (const TimedOp& op : t.micro_ops) {
      ops.push_back({{"name", op.op.name},
                     {"group", op.op.group},
                     {"pass", to_string(op.op.pass)},
                     {"kernel", op.op.kernel},
                     {"shape", op.op.shape},
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
                      {"micro_batch_s", t.micro_batch_s},
                      {"backward_s", t.backward_s},
                      {"optimizer_s", t.optimizer_s},
                      {"allreduce_s", t.allreduce_s},
                      {"allreduce_exposed_s", t.allreduce_exposed_s},
                      {"launch_s", t.launch_s},
                      {"host_s", t.host_s},
                      {"tokens_per_s", ph.tokens_per_s},
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
          {"charged_s", p.walk.charged_s},
          {"notes", p.notes},
          {"kernels_timed", p.kernels_timed},
          {"predict_wall_s", p.predict_wall_s}};
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
             {"shape", op.op.shape},
             {"count", op.op.count},
             {"flops", op.op.flops},
             {"bytes", op.op.bytes}});
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

}  // namespace nanotrn::predict
