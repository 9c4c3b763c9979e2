// The step's kernels with their binding engine. See top_kernels.h.
#include "predict/top_kernels.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

#include "base/format.h"

namespace nanotrn::predict {
namespace {

// "L12 attn q" -> "attn q"; names without a layer prefix are kept.
std::string drop_layer(const std::string& name) {
  if (name.size() < 3 || name[0] != 'L' || !std::isdigit(static_cast<unsigned char>(name[1]))) return name;
  size_t i = 1;
  while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i]))) i++;
  return i < name.size() && name[i] == ' ' ? name.substr(i + 1) : name;
}

}  // namespace

std::vector<KernelLine> step_kernels(const StepTime& step, double peak, double bw) {
  using Key = std::tuple<Pass, std::string, std::string, std::string>;
  std::map<Key, KernelLine> lines;
  // Busy time per engine, summed per line; the verdict is computed once the line is complete.
  std::map<Key, hw::EngineUse> use;
  auto add_all = [&](const std::vector<TimedOp>& ops, int64_t times) {
    for (const TimedOp& t : ops) {
      const std::string label = drop_layer(t.op.name);
      const std::string shape = t.op.shape_text();
      const Key key{t.op.pass, label, t.op.kernel_name(), shape.empty() ? "-" : shape};
      KernelLine& l = lines[key];
      if (l.instances == 0) {
        l.label = label;
        l.pass = t.op.pass;
        l.kernel = std::get<2>(key);
        l.shape = std::get<3>(key);
        l.method = t.cost.method;
      }
      const double f = static_cast<double>(times);
      l.instances++;
      l.invocations += t.op.count * times;
      l.seconds += t.cost.seconds * f;
      l.flops += t.op.flops * static_cast<double>(t.op.count) * f;
      l.bytes += t.op.bytes * static_cast<double>(t.op.count) * f;
      hw::EngineUse& u = use[key];
      for (size_t e = 0; e < u.busy_s.size(); e++) u.busy_s[e] += t.cost.use.busy_s[e] * f;
    }
  };
  add_all(step.micro_ops, step.accum);
  add_all(step.optimizer_ops, 1);
  std::vector<KernelLine> out;
  for (auto& [key, l] : lines) {
    if (l.seconds <= 0) continue;
    l.share = step.step_s > 0 ? l.seconds / step.step_s : 0.0;
    l.bound = hw::classify_bound(use[key], l.seconds, l.flops, l.bytes, peak, bw);
    out.push_back(std::move(l));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const KernelLine& a, const KernelLine& b) { return a.seconds > b.seconds; });
  return out;
}

std::string kernels_text(const std::vector<KernelLine>& lines, size_t n) {
  const size_t count = n == 0 ? lines.size() : std::min(n, lines.size());
  std::string s =
      "  kernel                        pass       shape              x       time s   share  bound     "
      "FLOP/B  verdict\n";
  for (size_t i = 0; i < count; i++) {
    const KernelLine& l = lines[i];
    const std::string name = l.label + (l.kernel.empty() ? " (roofline)" : "");
    char buf[512];
    std::snprintf(buf, sizeof buf, "  %-29s %-10s %-18s %-5lld %10.6f %6.1f%%  %-8s %7s  %s\n", name.c_str(),
                  to_string(l.pass).c_str(), l.shape.c_str(), static_cast<long long>(l.invocations), l.seconds,
                  100.0 * l.share, std::string(hw::bound_name(l.bound)).c_str(),
                  std::isfinite(l.bound.intensity) ? format_number("%.3g", l.bound.intensity).c_str() : "inf",
                  l.bound.verdict.c_str());
    s += buf;
  }
  if (count < lines.size()) s += "  ... " + std::to_string(lines.size() - count) + " more (--top 0 lists all)\n";
  return s;
}

nlohmann::json kernels_json(const std::vector<KernelLine>& lines, size_t n) {
  const size_t count = n == 0 ? lines.size() : std::min(n, lines.size());
  nlohmann::json a = nlohmann::json::array();
  for (size_t i = 0; i < count; i++) {
    const KernelLine& l = lines[i];
    a.push_back({{"label", l.label},
                 {"pass", to_string(l.pass)},
                 {"kernel", l.kernel},
                 {"shape", l.shape},
                 {"instances", l.instances},
                 {"invocations", l.invocations},
                 {"seconds", l.seconds},
                 {"share", l.share},
                 {"flops", l.flops},
                 {"bytes", l.bytes},
                 {"method", l.method},
                 {"bound", hw::bound_json(l.bound)}});
  }
  return a;
}

}  // namespace nanotrn::predict
