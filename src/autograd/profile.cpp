// OpProfile. See profile.h.
#include "autograd/profile.h"

#include <algorithm>
#include <chrono>

namespace nanotrn {
namespace {
double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
}  // namespace

void OpProfile::start_forward() { mark_ = now(); }

void OpProfile::forward_mark(const char* op) {
  const double t = now();
  Row& r = rows_[op];
  r.forward_s += t - mark_;
  r.calls += 1;
  mark_ = t;
}

void OpProfile::add_backward(const char* op, double seconds) { rows_[op].backward_s += seconds; }

void OpProfile::add(const std::string& name, double seconds) {
  Row& r = rows_[name];
  r.forward_s += seconds;
  r.calls += 1;
}

std::vector<OpProfile::Row> OpProfile::rows() const {
  std::vector<Row> out;
  for (const auto& [name, r] : rows_) {
    out.push_back(r);
    out.back().op = name;
  }
  std::sort(out.begin(), out.end(), [](const Row& a, const Row& b) { return a.total_s() > b.total_s(); });
  return out;
}

double OpProfile::total_s() const {
  double s = 0.0;
  for (const auto& [name, r] : rows_) s += r.total_s();
  return s;
}

}  // namespace nanotrn
