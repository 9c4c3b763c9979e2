// Parameters, shares and checks of a kernel definition (see kernel_definition.h). Not here: the definitions.
#include "neuron/registry/kernel_definition.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "base/error.h"

namespace nanotrn::neuron {
namespace {

const char* type_name(ParamType t) {
  switch (t) {
    case ParamType::integer:
      return "an integer";
    case ParamType::real:
      return "a number";
    case ParamType::flag:
      return "a flag";
    case ParamType::choice:
      break;
  }
  return "a choice";
}

bool holds(ParamType t, const ParamValue& v) {
  switch (t) {
    case ParamType::integer:
      return std::holds_alternative<int64_t>(v);
    case ParamType::real:
      return std::holds_alternative<double>(v);
    case ParamType::flag:
      return std::holds_alternative<bool>(v);
    case ParamType::choice:
      break;
  }
  return std::holds_alternative<std::string>(v);
}

std::string flag_of(const std::string& name) {
  std::string f = "--" + name;
  std::replace(f.begin(), f.end(), '_', '-');
  return f;
}

}  // namespace

ParamSpec int_param(std::string name, int64_t default_value, std::string help) {
  return {std::move(name), ParamType::integer, default_value, std::move(help)};
}
ParamSpec real_param(std::string name, double default_value, std::string help) {
  return {std::move(name), ParamType::real, default_value, std::move(help)};
}
ParamSpec flag_param(std::string name, std::string help) {
  return {std::move(name), ParamType::flag, false, std::move(help)};
}
ParamSpec choice_param(std::string name, std::string default_value, std::vector<std::string> choices,
                       std::string help) {
  return {std::move(name), ParamType::choice, std::move(default_value), std::move(help), std::move(choices)};
}

const ParamValue& KernelParams::at(const std::string& name) const {
  const auto it = values_.find(name);
  if (it == values_.end()) throw Error("kernel parameter '" + name + "' is not set");
  return it->second;
}
int64_t KernelParams::integer(const std::string& name) const {
  const ParamValue& v = at(name);
  check(std::holds_alternative<int64_t>(v), "kernel parameter '" + name + "' is not an integer");
  return std::get<int64_t>(v);
}
double KernelParams::real(const std::string& name) const {
  const ParamValue& v = at(name);
  if (std::holds_alternative<int64_t>(v)) return static_cast<double>(std::get<int64_t>(v));
  check(std::holds_alternative<double>(v), "kernel parameter '" + name + "' is not a number");
  return std::get<double>(v);
}
bool KernelParams::flag(const std::string& name) const {
  const ParamValue& v = at(name);
  check(std::holds_alternative<bool>(v), "kernel parameter '" + name + "' is not a flag");
  return std::get<bool>(v);
}
const std::string& KernelParams::text(const std::string& name) const {
  const ParamValue& v = at(name);
  check(std::holds_alternative<std::string>(v), "kernel parameter '" + name + "' is not text");
  return std::get<std::string>(v);
}

ParamValue parse_param(const ParamSpec& spec, const std::string& text) {
  const std::string where = flag_of(spec.name) + " '" + text + "'";
  switch (spec.type) {
    case ParamType::integer: {
      char* end = nullptr;
      errno = 0;
      const long long v = std::strtoll(text.c_str(), &end, 10);
      check(!text.empty() && end && *end == '\0' && errno == 0, where + ": not an integer");
      return static_cast<int64_t>(v);
    }
    case ParamType::real: {
      char* end = nullptr;
      errno = 0;
      const double v = std::strtod(text.c_str(), &end);
      check(!text.empty() && end && *end == '\0' && errno == 0 && std::isfinite(v), where + ": not a finite number");
      return v;
    }
    case ParamType::flag:
      if (text == "true" || text == "1") return true;
      if (text == "false" || text == "0") return false;
      throw Error(where + ": a flag is true or false");
    case ParamType::choice:
      break;
  }
  if (std::find(spec.choices.begin(), spec.choices.end(), text) == spec.choices.end()) {
    std::string list;
    for (const std::string& c : spec.choices) list += (list.empty() ? "" : ", ") + c;
    throw Error(where + ": not one of " + list);
  }
  return text;
}

std::string param_text(const ParamValue& v) {
  if (const auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v)) {
    char b[32];
    std::snprintf(b, sizeof b, "%g", *d);
    return b;
  }
  if (const auto* f = std::get_if<bool>(&v)) return *f ? "true" : "false";
  return std::get<std::string>(v);
}

std::pair<int64_t, int64_t> core_share(int64_t total, int c, int cores) {
  const int64_t per = (total + cores - 1) / cores;
  return {std::min(total, c * per), std::min(total, (c + 1) * per)};
}

void CheckOutcome::compare(double got, double ref, double bound) {
  const double err = std::fabs(got - ref);
  max_abs_error = std::max(max_abs_error, err);
  max_bound = std::max(max_bound, bound);
  if (!(err <= bound)) ++failures;
}

std::any KernelEntry::default_shape() const {
  KernelParams p;
  for (const ParamSpec& s : params) p.set(s.name, s.default_value);
  return from_params(p);
}

void throw_shape_mismatch(const std::string& kernel, const std::type_info& want, const std::any& shape) {
  throw Error("kernel '" + kernel + "' takes a shape of type " + want.name() + "; got " +
              (shape.has_value() ? shape.type().name() : "no shape"));
}

void check_entry(const KernelEntry& e) {
  const std::string who = "kernel definition '" + e.name + "'";
  check(!e.name.empty(), "a kernel definition needs a name");
  check(e.from_params && e.to_params && e.describe && e.build,
        who + " needs from_params, to_params, describe and build (kernel_definition.h)");
  check(!e.inputs == !e.check, who + ": inputs and check come together (a check needs its inputs)");
  for (const ParamSpec& s : e.params) {
    check(!s.name.empty() && s.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") == std::string::npos,
          who + ": parameter '" + s.name + "' must be snake_case (a-z, 0-9, _)");
    check(holds(s.type, s.default_value),
          who + ": parameter '" + s.name + "' has a default that is not " + type_name(s.type));
    if (s.type == ParamType::choice)
      check(std::find(s.choices.begin(), s.choices.end(), std::get<std::string>(s.default_value)) != s.choices.end(),
            who + ": parameter '" + s.name + "' defaults to a value outside its choices");
  }
}

}  // namespace nanotrn::neuron
