// Reading metrics.jsonl. See run_metrics.h.
#include "report/run_metrics.h"

#include <cmath>
#include <filesystem>
#include <limits>

#include "base/error.h"
#include "base/file.h"
#include "base/json_parse.h"
#include "data/jsonl.h"
#include "model/config.h"
#include "recipe/recipe.h"

namespace nanotrn::report {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double number(const nlohmann::json& o, const char* key, const std::string& at) {
  const auto it = o.find(key);
  if (it == o.end()) throw Error(at + "\"" + key + "\" is missing");
  if (it->is_null()) return kNaN;
  if (!it->is_number()) throw Error(at + "\"" + key + "\" is not a number");
  return it->get<double>();
}

double optional_number(const nlohmann::json& o, const char* key, const std::string& at) {
  return o.contains(key) ? number(o, key, at) : kNaN;
}

int64_t integer(const nlohmann::json& o, const char* key, const std::string& at) {
  const auto it = o.find(key);
  if (it == o.end()) throw Error(at + "\"" + key + "\" is missing");
  if (!it->is_number_integer()) throw Error(at + "\"" + key + "\" is not an integer");
  return it->get<int64_t>();
}

}  // namespace

RunMetrics parse_run_metrics(std::string_view content, const std::string& name) {
  RunMetrics m;
  m.path = name;
  if (!content.empty() && content.back() != '\n') {
    const size_t start = content.rfind('\n') == std::string_view::npos ? 0 : content.rfind('\n') + 1;
    if (nanotrn::parse_json_or_discarded(content.substr(start)).is_discarded()) {
      m.torn_tail = name + ": the last line (byte " + std::to_string(start) + " on, " +
                    std::to_string(content.size() - start) +
                    " bytes) is cut short, as a process killed while writing it leaves it; left out";
      content = content.substr(0, start);
    }
  }
  bool started = false;
  data::for_each_jsonl_object(content, name, [&](const nlohmann::json& o, int64_t, const std::string& at) {
    const auto ev = o.find("event");
    if (ev == o.end() || !ev->is_string()) throw Error(at + "no \"event\" string");
    const std::string e = ev->get<std::string>();
    if (e == "start") {
      if (!o.contains("recipe") || !o["recipe"].is_object()) throw Error(at + "start event without a recipe object");
      m.recipe = o["recipe"];
      m.header = o.contains("header") && o["header"].is_string() ? o["header"].get<std::string>() : std::string();
      started = true;
      return;
    }
    if (!started) throw Error(at + "\"" + e + "\" event before any start event");
    if (e == "step") {
      StepRecord s;
      s.step = integer(o, "step", at);
      s.phase = integer(o, "phase", at);
      s.tokens = integer(o, "tokens", at);
      s.loss = number(o, "loss", at);
      s.lr_multiplier = number(o, "lr_multiplier", at);
      s.muon_momentum = optional_number(o, "muon_momentum", at);
      s.weight_decay = optional_number(o, "weight_decay", at);
      s.charged_seconds = number(o, "charged_seconds", at);
      s.tokens_per_second = number(o, "tokens_per_second", at);
      s.host_tokens_per_second = number(o, "host_tokens_per_second", at);
      const char* kind = o.contains("mfu") ? "mfu" : o.contains("fraction_of_peak") ? "fraction_of_peak" : "";
      s.peak_fraction = *kind ? number(o, kind, at) : kNaN;
      if (*kind) m.peak_kind = kind;
      if (!m.steps.empty() && s.step <= m.steps.back().step) {
        // a resume from an earlier checkpoint re-runs steps: the later record of a step replaces the earlier ones
        while (!m.steps.empty() && m.steps.back().step >= s.step) m.steps.pop_back();
      }
      m.steps.push_back(s);
    } else if (e == "eval") {
      m.evals.push_back({integer(o, "step", at), number(o, "charged_seconds", at), number(o, "val_bpb", at)});
    } else if (e == "summary") {
      integer(o, "steps", at);
      integer(o, "tokens", at);
      number(o, "charged_seconds", at);
      m.summary = o;
    }
    // other events (nonfinite_loss, ...) carry nothing the reports draw
  });
  if (!started) throw Error(name + ": no start event (is this a nanotrn metrics.jsonl?)");
  try {
    const recipe::Recipe r = recipe::recipe_from_json(m.recipe);
    const model::GptConfig resolved = model::resolve(r.model);
    m.flops_per_token = model::flops_per_token(resolved, r.batch.seq_len);
    m.params = model::count_params(resolved).total();
    m.shape = model::describe_shape(resolved) + ", T " + std::to_string(r.batch.seq_len) + ", " +
              std::to_string(r.batch.rows) + " rows per micro-batch";
  } catch (const Error&) {
  }
  return m;
}

namespace {
constexpr std::pair<Metric, const char*> kMetrics[] = {{Metric::loss, "loss"},
                                                       {Metric::lr_multiplier, "lr_multiplier"},
                                                       {Metric::muon_momentum, "muon_momentum"},
                                                       {Metric::weight_decay, "weight_decay"},
                                                       {Metric::tokens_per_second, "tokens_per_second"},
                                                       {Metric::host_tokens_per_second, "host_tokens_per_second"},
                                                       {Metric::peak_fraction, "peak_fraction"},
                                                       {Metric::val_bpb, "val_bpb"}};

double field(const StepRecord& s, Metric m) {
  switch (m) {
    case Metric::loss:
      return s.loss;
    case Metric::lr_multiplier:
      return s.lr_multiplier;
    case Metric::muon_momentum:
      return s.muon_momentum;
    case Metric::weight_decay:
      return s.weight_decay;
    case Metric::tokens_per_second:
      return s.tokens_per_second;
    case Metric::host_tokens_per_second:
      return s.host_tokens_per_second;
    case Metric::peak_fraction:
      return s.peak_fraction;
    case Metric::val_bpb:
      break;
  }
  return kNaN;
}
}  // namespace

Metric parse_metric(const std::string& name) {
  std::string names;
  for (const auto& [m, n] : kMetrics) {
    if (name == n) return m;
    names += std::string(names.empty() ? "" : ", ") + n;
  }
  throw Error("unknown metric '" + name + "' (one of: " + names + ")");
}

std::string metric_name(Metric m) {
  for (const auto& [k, n] : kMetrics) {
    if (k == m) return n;
  }
  return "?";
}

XAxis parse_x_axis(const std::string& name) {
  if (name == "step") return XAxis::step;
  if (name == "charged_seconds" || name == "time") return XAxis::charged_seconds;
  if (name == "tokens") return XAxis::tokens;
  if (name == "flops") return XAxis::flops;
  throw Error("unknown x axis '" + name + "' (step, charged_seconds, tokens or flops)");
}

std::string x_axis_label(XAxis x) {
  switch (x) {
    case XAxis::step:
      return "step";
    case XAxis::charged_seconds:
      return "charged seconds";
    case XAxis::tokens:
      return "tokens";
    case XAxis::flops:
      return "training FLOPs (6N + attention)";
  }
  return "?";
}

std::vector<std::pair<double, double>> smooth(const std::vector<std::pair<double, double>>& points, double weight) {
  check(weight >= 0.0 && weight < 1.0, "smoothing weight must be in [0, 1), got " + std::to_string(weight));
  std::vector<std::pair<double, double>> out;
  double s = 0.0, debias = 1.0;
  for (const auto& [x, y] : points) {
    s = weight * s + (1.0 - weight) * y;
    debias *= weight;
    out.emplace_back(x, s / (1.0 - debias));
  }
  return out;
}

namespace {

// The tokens trained by step `step`: its step record's, else the last record before it (0 before any).
double tokens_at(const RunMetrics& m, int64_t step) {
  double t = 0.0;
  for (const StepRecord& s : m.steps) {
    if (s.step > step) break;
    t = static_cast<double>(s.tokens);
  }
  return t;
}

}  // namespace

std::vector<std::pair<double, double>> metric_points(const RunMetrics& m, Metric y, XAxis x) {
  if (x == XAxis::flops) {
    check(std::isfinite(m.flops_per_token),
          m.path + ": the run's recipe does not give its FLOPs per token, so it has no FLOP axis");
    std::vector<std::pair<double, double>> p = metric_points(m, y, XAxis::tokens);
    for (auto& [at, value] : p) at *= m.flops_per_token;
    return p;
  }
  std::vector<std::pair<double, double>> p;
  if (y == Metric::val_bpb) {
    for (const EvalRecord& e : m.evals) {
      const double at = x == XAxis::step              ? static_cast<double>(e.step)
                        : x == XAxis::charged_seconds ? e.charged_seconds
                                                      : tokens_at(m, e.step);
      p.emplace_back(at, e.val_bpb);
    }
    if (m.summary.is_object() && m.summary.contains("val_bpb") && m.summary["val_bpb"].is_number()) {
      const double at = x == XAxis::step              ? static_cast<double>(m.summary["steps"].get<int64_t>())
                        : x == XAxis::charged_seconds ? m.summary["charged_seconds"].get<double>()
                        : m.summary.contains("tokens") && m.summary["tokens"].is_number()
                            ? m.summary["tokens"].get<double>()
                            : tokens_at(m, std::numeric_limits<int64_t>::max());
      p.emplace_back(at, m.summary["val_bpb"].get<double>());
    }
    return p;
  }
  for (const StepRecord& s : m.steps) {
    const double at = x == XAxis::step              ? static_cast<double>(s.step)
                      : x == XAxis::charged_seconds ? s.charged_seconds
                                                    : static_cast<double>(s.tokens);
    p.emplace_back(at, field(s, y));
  }
  return p;
}

RunMetrics read_run_metrics(const std::string& path) {
  std::error_code ec;
  std::string file = path;
  if (std::filesystem::is_directory(path, ec)) {
    file = (std::filesystem::path(path) / "metrics.jsonl").string();
    check(std::filesystem::exists(file, ec),
          "'" + path + "' is a folder without a metrics.jsonl (give a run folder: train --out DIR, or the file)");
  }
  const std::vector<uint8_t> bytes = read_file(file);
  return parse_run_metrics(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), file);
}

std::string run_label(const std::string& metrics_path) {
  const std::filesystem::path p(metrics_path);
  return p.filename() == "metrics.jsonl" && p.has_parent_path() ? p.parent_path().filename().string()
                                                                : p.filename().string();
}

}  // namespace nanotrn::report
