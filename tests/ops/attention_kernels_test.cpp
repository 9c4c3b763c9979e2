// Tests of the tiled attention kernels (ops/attention_kernels.h): forward against the dense fp64 reference, backward
// against central finite differences of that reference (the check of record) and against the dense fp64 backward,
// O(T) memory at T = 8192, bitwise determinism across thread counts, and argument errors.
// Not here: the autograd op that wraps these kernels, or speed (bench/attention_bench.cpp).
#include <gtest/gtest.h>
#include <omp.h>
#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "base/error.h"
#include "ops/attention_kernels.h"
#include "ref/attention_ref.h"
#include "support/attention_spec.h"

namespace nanotrn {
namespace {

// Tolerances. Forward: fp32 kernel vs fp64 reference on the same (fp32-representable) inputs,
// |got - want| <= 1e-5 * max(1, |want|) for out and lse. Backward: |got - want| <= 1e-4 * max(1, |want|) against
// central differences (eps = 1e-6, in double) and against the dense fp64 backward.
constexpr double kFwdTol = 1e-5;
constexpr double kBwdTol = 1e-4;

struct Case {
  std::string name;
  int64_t B, Tq, Tk, H, Hkv, D;
  bool causal = true;
  int64_t window = 0;
  bool alibi = false;
  int segments = 0;  // > 0: document mask with up to this many documents per batch row
  float softcap = 0.0f;
  float scale = 0.0f;
};

std::ostream& operator<<(std::ostream& os, const Case& c) { return os << c.name; }

// Inputs rounded to fp32 once, then held both as float (for the kernel) and double (for the reference).
struct Problem {
  Case c;
  std::vector<float> q, k, v, r, slopes;
  std::vector<int32_t> seg;
  std::vector<double> qd, kd, vd, rd;
  AttentionMods mods;

  explicit Problem(const Case& cs, uint32_t seed = 1234) : c(cs) {
    std::mt19937 gen(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    auto fill = [&](std::vector<float>& x, size_t n) {
      x.resize(n);
      for (auto& e : x) e = normal(gen);
    };
    fill(q, static_cast<size_t>(c.B * c.Tq * c.H * c.D));
    fill(k, static_cast<size_t>(c.B * c.Tk * c.Hkv * c.D));
    fill(v, static_cast<size_t>(c.B * c.Tk * c.Hkv * c.D));
    fill(r, q.size());
    qd.assign(q.begin(), q.end());
    kd.assign(k.begin(), k.end());
    vd.assign(v.begin(), v.end());
    rd.assign(r.begin(), r.end());
    mods.causal = c.causal;
    mods.window = c.window;
    mods.softcap = c.softcap;
    mods.scale = c.scale;
    if (c.alibi) {
      for (int64_t h = 0; h < c.H; ++h) slopes.push_back(std::exp2(-8.0f * static_cast<float>(h + 1) / c.H));
      mods.alibi_slopes = slopes.data();
    }
    if (c.segments > 0) {
      // Document ids rise at random boundaries; each batch row gets different boundaries.
      std::uniform_int_distribution<int64_t> pos(1, std::max<int64_t>(1, c.Tk - 1));
      seg.assign(static_cast<size_t>(c.B * c.Tk), 0);
      for (int64_t b = 0; b < c.B; ++b) {
        std::vector<int64_t> cuts;
        for (int s = 1; s < c.segments; ++s) cuts.push_back(pos(gen));
        for (int64_t j = 0; j < c.Tk; ++j)
          seg[static_cast<size_t>(b * c.Tk + j)] =
              static_cast<int32_t>(7 * b + std::count_if(cuts.begin(), cuts.end(), [j](int64_t x) { return j >= x; }));
      }
      mods.segment_ids = seg.data();
    }
  }

  void forward(std::vector<float>& out, std::vector<float>& lse) const {
    out.assign(q.size(), -7.0f);
    lse.assign(static_cast<size_t>(c.B * c.H * c.Tq), -7.0f);
    attention_forward(out.data(), lse.data(), q.data(), k.data(), v.data(), c.B, c.Tq, c.Tk, c.H, c.Hkv, c.D, mods);
  }
  // Kernel gradients of L = sum(r * out).
  void backward(std::vector<float>& dq, std::vector<float>& dk, std::vector<float>& dv) const {
    std::vector<float> out, lse;
    forward(out, lse);
    dq.assign(q.size(), 99.0f);
    dk.assign(k.size(), 99.0f);
    dv.assign(v.size(), 99.0f);
    attention_backward(dq.data(), dk.data(), dv.data(), r.data(), q.data(), k.data(), v.data(), out.data(), lse.data(),
                       c.B, c.Tq, c.Tk, c.H, c.Hkv, c.D, mods);
  }
  double loss_ref(const std::vector<double>& qx, const std::vector<double>& kx, const std::vector<double>& vx) const {
    const auto out = ref::attention_forward_ref(qx, kx, vx, c.B, c.Tq, c.Tk, c.H, c.Hkv, c.D,
                                                testing_support::ref_spec(mods, c.H, c.B, c.Tk));
    double l = 0.0;
    for (size_t i = 0; i < out.size(); ++i) l += rd[i] * out[i];
    return l;
  }
};

// Compares element-wise with |got - want| <= tol * max(1, |want|); reports the worst element.
template <class G, class W>
void expect_close(const std::vector<G>& got, const std::vector<W>& want, double tol, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  double worst = 0.0;
  size_t at = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = got[i], w = want[i];
    if (std::isinf(w) || std::isinf(g)) {
      EXPECT_EQ(g, w) << what << " [" << i << "]";
      continue;
    }
    const double e = std::fabs(g - w) / std::max(1.0, std::fabs(w));
    if (!(e <= worst)) worst = e, at = i;
  }
  EXPECT_LE(worst, tol) << what << ": worst at [" << at << "] got " << got[at] << " want " << want[at];
}

std::vector<Case> forward_cases() {
  std::vector<Case> v;
  auto add = [&v](Case c) { v.push_back(std::move(c)); };
  add({.name = "full", .B = 2, .Tq = 67, .Tk = 67, .H = 2, .Hkv = 2, .D = 16, .causal = false});
  add({.name = "causal", .B = 1, .Tq = 130, .Tk = 130, .H = 2, .Hkv = 2, .D = 64});
  add({.name = "window1", .B = 1, .Tq = 130, .Tk = 130, .H = 2, .Hkv = 2, .D = 16, .window = 1});
  add({.name = "window3", .B = 2, .Tq = 67, .Tk = 67, .H = 1, .Hkv = 1, .D = 16, .window = 3});
  add({.name = "window16", .B = 1, .Tq = 130, .Tk = 130, .H = 2, .Hkv = 1, .D = 16, .window = 16});
  add({.name = "window16_noncausal",
       .B = 1,
       .Tq = 130,
       .Tk = 130,
       .H = 1,
       .Hkv = 1,
       .D = 8,
       .causal = false,
       .window = 16});
  add({.name = "alibi_causal", .B = 1, .Tq = 130, .Tk = 130, .H = 4, .Hkv = 4, .D = 16, .alibi = true});
  add({.name = "alibi_full", .B = 1, .Tq = 67, .Tk = 67, .H = 2, .Hkv = 2, .D = 16, .causal = false, .alibi = true});
  add({.name = "docmask_causal", .B = 2, .Tq = 130, .Tk = 130, .H = 2, .Hkv = 2, .D = 16, .segments = 5});
  add({.name = "docmask_full", .B = 2, .Tq = 67, .Tk = 67, .H = 1, .Hkv = 1, .D = 16, .causal = false, .segments = 4});
  add({.name = "softcap", .B = 1, .Tq = 67, .Tk = 67, .H = 2, .Hkv = 2, .D = 64, .softcap = 5.0f});
  add({.name = "softcap_scale", .B = 1, .Tq = 67, .Tk = 67, .H = 1, .Hkv = 1, .D = 16, .softcap = 5.0f, .scale = 1.5f});
  add({.name = "combined",
       .B = 2,
       .Tq = 130,
       .Tk = 130,
       .H = 4,
       .Hkv = 2,
       .D = 16,
       .window = 40,
       .alibi = true,
       .segments = 3,
       .softcap = 5.0f});
  add({.name = "gqa", .B = 1, .Tq = 67, .Tk = 67, .H = 4, .Hkv = 2, .D = 16});
  add({.name = "mqa", .B = 2, .Tq = 67, .Tk = 67, .H = 4, .Hkv = 1, .D = 16});
  add({.name = "decode1", .B = 2, .Tq = 1, .Tk = 67, .H = 4, .Hkv = 2, .D = 16});
  add({.name = "decode3", .B = 1, .Tq = 3, .Tk = 130, .H = 2, .Hkv = 1, .D = 64, .window = 70, .alibi = true});
  add({.name = "decode3_noncausal", .B = 1, .Tq = 3, .Tk = 130, .H = 2, .Hkv = 2, .D = 16, .causal = false});
  add({.name = "prefix_Tq70_Tk130", .B = 1, .Tq = 70, .Tk = 130, .H = 2, .Hkv = 1, .D = 16, .segments = 3});
  add({.name = "T1", .B = 2, .Tq = 1, .Tk = 1, .H = 2, .Hkv = 1, .D = 8});
  add({.name = "T5_D8", .B = 1, .Tq = 5, .Tk = 5, .H = 2, .Hkv = 2, .D = 8});
  add({.name = "T67_D8", .B = 1, .Tq = 67, .Tk = 67, .H = 2, .Hkv = 2, .D = 8, .causal = false});
  add({.name = "T130_D40", .B = 1, .Tq = 130, .Tk = 130, .H = 1, .Hkv = 1, .D = 40});
  add({.name = "T67_D128", .B = 1, .Tq = 67, .Tk = 67, .H = 2, .Hkv = 1, .D = 128});
  add({.name = "T5_D1", .B = 2, .Tq = 5, .Tk = 5, .H = 1, .Hkv = 1, .D = 1, .causal = false});
  add({.name = "T130_D64_full", .B = 1, .Tq = 130, .Tk = 130, .H = 1, .Hkv = 1, .D = 64, .causal = false});
  return v;
}

class AttentionForward : public ::testing::TestWithParam<Case> {};

TEST_P(AttentionForward, MatchesFp64Reference) {
  const Problem p(GetParam());
  const Case& c = p.c;
  std::vector<float> out, lse;
  p.forward(out, lse);
  std::vector<double> lse_ref;
  const auto out_ref = ref::attention_forward_ref(p.qd, p.kd, p.vd, c.B, c.Tq, c.Tk, c.H, c.Hkv, c.D,
                                                  testing_support::ref_spec(p.mods, c.H, c.B, c.Tk), &lse_ref);
  expect_close(out, out_ref, kFwdTol, "out");
  expect_close(lse, lse_ref, kFwdTol, "lse");
}

INSTANTIATE_TEST_SUITE_P(Cases, AttentionForward, ::testing::ValuesIn(forward_cases()),
                         [](const ::testing::TestParamInfo<Case>& tp) { return tp.param.name; });

// Backward against the dense fp64 backward, for every forward case (multi-tile, partial tiles, skipped tiles). The
// kernel runs with 1 and with 3 threads, which selects the fused and the two-pass schedules; they must agree bit
// for bit.
TEST_P(AttentionForward, BackwardMatchesDenseFp64Backward) {
  const Problem p(GetParam());
  const Case& c = p.c;
  const int saved = omp_get_max_threads();
  std::vector<float> dq1, dk1, dv1, dq3, dk3, dv3;
  omp_set_num_threads(1);
  p.backward(dq1, dk1, dv1);
  omp_set_num_threads(3);
  p.backward(dq3, dk3, dv3);
  omp_set_num_threads(saved);
  EXPECT_EQ(0, std::memcmp(dq1.data(), dq3.data(), dq1.size() * sizeof(float))) << "dq 1 vs 3 threads";
  EXPECT_EQ(0, std::memcmp(dk1.data(), dk3.data(), dk1.size() * sizeof(float))) << "dk 1 vs 3 threads";
  EXPECT_EQ(0, std::memcmp(dv1.data(), dv3.data(), dv1.size() * sizeof(float))) << "dv 1 vs 3 threads";
  const auto g = ref::attention_backward_ref(p.rd, p.qd, p.kd, p.vd, c.B, c.Tq, c.Tk, c.H, c.Hkv, c.D,
                                             testing_support::ref_spec(p.mods, c.H, c.B, c.Tk));
  expect_close(dq1, g.dq, kBwdTol, "dq");
  expect_close(dk1, g.dk, kBwdTol, "dk");
  expect_close(dv1, g.dv, kBwdTol, "dv");
}

// ---- Backward against finite differences of the fp64 reference forward (the check of record) ----

// Central difference of L = sum(r * out_ref) w.r.t. x[i], eps = 1e-6.
double fd(const Problem& p, int which, size_t i) {
  std::vector<double> q = p.qd, k = p.kd, v = p.vd;
  std::vector<double>& x = which == 0 ? q : (which == 1 ? k : v);
  const double eps = 1e-6, x0 = x[i];
  x[i] = x0 + eps;
  const double lp = p.loss_ref(q, k, v);
  x[i] = x0 - eps;
  const double lm = p.loss_ref(q, k, v);
  return (lp - lm) / (2 * eps);
}

// Checks every element when `stride` is 1, otherwise every stride-th element (offset so all positions get hit).
void check_fd(const Case& cs, size_t stride) {
  SCOPED_TRACE(cs.name);
  const Problem p(cs);
  std::vector<float> dq, dk, dv;
  p.backward(dq, dk, dv);
  const std::vector<float>* got[3] = {&dq, &dk, &dv};
  const char* names[3] = {"dq", "dk", "dv"};
  const auto dense = ref::attention_backward_ref(p.rd, p.qd, p.kd, p.vd, cs.B, cs.Tq, cs.Tk, cs.H, cs.Hkv, cs.D,
                                                 testing_support::ref_spec(p.mods, cs.H, cs.B, cs.Tk));
  const std::vector<double>* dref[3] = {&dense.dq, &dense.dk, &dense.dv};
  for (int w = 0; w < 3; ++w) {
    const auto& g = *got[w];
    double worst = 0.0;
    size_t at = 0, checked = 0;
    for (size_t i = (stride > 1 ? static_cast<size_t>(w) : 0); i < g.size(); i += stride) {
      const double want = fd(p, w, i);
      const double e = std::fabs(g[i] - want) / std::max(1.0, std::fabs(want));
      if (!(e <= worst)) worst = e, at = i;
      // The dense fp64 backward agrees with the finite difference (itself good to ~1e-7) far more tightly than the
      // kernel.
      EXPECT_NEAR((*dref[w])[i], want, 1e-6 * std::max(1.0, std::fabs(want))) << names[w] << "[" << i << "] dense ref";
      ++checked;
    }
    EXPECT_LE(worst, kBwdTol) << names[w] << ": worst at [" << at << "] got " << g[at] << " (" << checked
                              << " elements checked)";
  }
}

std::vector<Case> fd_small_cases() {
  return {
      {.name = "full", .B = 2, .Tq = 7, .Tk = 7, .H = 2, .Hkv = 2, .D = 8, .causal = false},
      {.name = "causal", .B = 1, .Tq = 9, .Tk = 9, .H = 2, .Hkv = 2, .D = 16},
      {.name = "window1", .B = 1, .Tq = 6, .Tk = 6, .H = 1, .Hkv = 1, .D = 8, .window = 1},
      {.name = "window3", .B = 1, .Tq = 9, .Tk = 9, .H = 2, .Hkv = 1, .D = 8, .window = 3},
      {.name = "window3_noncausal", .B = 1, .Tq = 9, .Tk = 9, .H = 1, .Hkv = 1, .D = 8, .causal = false, .window = 3},
      {.name = "alibi_causal", .B = 1, .Tq = 9, .Tk = 9, .H = 2, .Hkv = 2, .D = 8, .alibi = true},
      {.name = "alibi_full", .B = 1, .Tq = 8, .Tk = 8, .H = 2, .Hkv = 1, .D = 8, .causal = false, .alibi = true},
      {.name = "docmask", .B = 2, .Tq = 9, .Tk = 9, .H = 1, .Hkv = 1, .D = 8, .segments = 3},
      {.name = "docmask_full", .B = 1, .Tq = 9, .Tk = 9, .H = 2, .Hkv = 2, .D = 8, .causal = false, .segments = 3},
      {.name = "softcap", .B = 1, .Tq = 9, .Tk = 9, .H = 2, .Hkv = 2, .D = 8, .softcap = 5.0f, .scale = 1.0f},
      {.name = "gqa", .B = 1, .Tq = 8, .Tk = 8, .H = 4, .Hkv = 2, .D = 8},
      {.name = "mqa", .B = 1, .Tq = 8, .Tk = 8, .H = 4, .Hkv = 1, .D = 8, .causal = false},
      {.name = "decode1", .B = 2, .Tq = 1, .Tk = 9, .H = 2, .Hkv = 1, .D = 8},
      {.name = "decode3", .B = 1, .Tq = 3, .Tk = 9, .H = 2, .Hkv = 2, .D = 8, .window = 4, .alibi = true},
      {.name = "combined",
       .B = 2,
       .Tq = 9,
       .Tk = 9,
       .H = 4,
       .Hkv = 2,
       .D = 16,
       .window = 5,
       .alibi = true,
       .segments = 2,
       .softcap = 5.0f},
      {.name = "combined_decode",
       .B = 1,
       .Tq = 4,
       .Tk = 9,
       .H = 2,
       .Hkv = 1,
       .D = 8,
       .window = 6,
       .alibi = true,
       .segments = 2,
       .softcap = 2.0f},
      {.name = "T1", .B = 1, .Tq = 1, .Tk = 1, .H = 1, .Hkv = 1, .D = 8},
      {.name = "D1", .B = 1, .Tq = 6, .Tk = 6, .H = 2, .Hkv = 1, .D = 1, .causal = false, .alibi = true},
  };
}

TEST(AttentionBackward, FiniteDifferencesEveryElementSmall) {
  for (const Case& c : fd_small_cases()) check_fd(c, 1);
}

// Several tiles (64 x 64) with partial and skipped ones; a sample of elements.
TEST(AttentionBackward, FiniteDifferencesSampledMultiTile) {
  check_fd({.name = "causal_T70", .B = 1, .Tq = 70, .Tk = 70, .H = 2, .Hkv = 1, .D = 8}, 7);
  check_fd({.name = "combined_T130",
            .B = 1,
            .Tq = 130,
            .Tk = 130,
            .H = 2,
            .Hkv = 1,
            .D = 8,
            .window = 70,
            .alibi = true,
            .segments = 3,
            .softcap = 5.0f},
           29);
  check_fd({.name = "decode_Tq3_Tk130", .B = 1, .Tq = 3, .Tk = 130, .H = 2, .Hkv = 1, .D = 16, .alibi = true}, 3);
  check_fd({.name = "window16_T100_D64", .B = 1, .Tq = 100, .Tk = 100, .H = 1, .Hkv = 1, .D = 64, .window = 16}, 101);
}

// ---- Memory: no O(T^2) buffer ----

int64_t max_rss_bytes() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<int64_t>(u.ru_maxrss) * 1024;
}

TEST(AttentionMemory, T8192WorkspaceIsLinear) {
  const int64_t T = 8192, D = 16;
  const int threads = 2;
  // The scratch the kernels allocate (here for 2 threads): per-thread tiles plus T floats of delta per head; no T^2
  // term.
  const int64_t ws = attention_workspace_bytes(true, 1, T, 1, D, threads);
  EXPECT_EQ(attention_workspace_bytes(true, 1, 2 * T, 1, D, threads) - ws, T * static_cast<int64_t>(sizeof(float)));
  EXPECT_LT(ws, 4 << 20);
  EXPECT_EQ(attention_workspace_bytes(false, 1, 2 * T, 1, D, threads),
            attention_workspace_bytes(false, 1, T, 1, D, threads));

  Problem p({.name = "T8192", .B = 1, .Tq = T, .Tk = T, .H = 1, .Hkv = 1, .D = D});
  const int64_t rss0 = max_rss_bytes();
  std::vector<float> dq, dk, dv;
  p.backward(dq, dk, dv);  // forward + backward
  // Peak RSS may only grow by far less than one T x T fp32 matrix (256 MiB); inputs and outputs here are ~3 MiB.
  EXPECT_LT(max_rss_bytes() - rss0, int64_t{64} << 20);
  for (float x : dq) ASSERT_TRUE(std::isfinite(x));
  for (float x : dk) ASSERT_TRUE(std::isfinite(x));

  // The last query sees every key: check its output against the reference decode of that one row.
  std::vector<float> out, lse;
  p.forward(out, lse);
  AttentionMods m = p.mods;
  const std::vector<double> q_last(p.qd.end() - D, p.qd.end());
  std::vector<double> lse_ref;
  const auto ref_out =
      ref::attention_forward_ref(q_last, p.kd, p.vd, 1, 1, T, 1, 1, D, testing_support::ref_spec(m, 1, 1, T), &lse_ref);
  expect_close(std::vector<float>(out.end() - D, out.end()), ref_out, kFwdTol, "last row");
  expect_close(std::vector<float>(lse.end() - 1, lse.end()), lse_ref, kFwdTol, "last lse");
}

// ---- Determinism ----

TEST(AttentionDeterminism, SameBitsWithOneAndTwoThreads) {
  // B * Hkv = 3 kv-head owners: one thread runs the fused backward, two threads the two-pass one; D = 8 is always
  // two-pass; D = 64 with 4 owners fuses in both.
  const std::vector<Case> cases = {
      {.name = "owners3", .B = 1, .Tq = 200, .Tk = 200, .H = 3, .Hkv = 3, .D = 16, .alibi = true, .softcap = 5.0f},
      {.name = "D8", .B = 1, .Tq = 150, .Tk = 150, .H = 4, .Hkv = 2, .D = 8, .window = 50, .segments = 3},
      {.name = "owners4", .B = 2, .Tq = 130, .Tk = 130, .H = 4, .Hkv = 2, .D = 64},
  };
  const int saved = omp_get_max_threads();
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Problem p(c);
    std::vector<float> out[2], lse[2], dq[2], dk[2], dv[2];
    for (int t = 0; t < 2; ++t) {
      omp_set_num_threads(t + 1);
      p.forward(out[t], lse[t]);
      p.backward(dq[t], dk[t], dv[t]);
    }
    omp_set_num_threads(saved);
    auto same = [](const std::vector<float>& a, const std::vector<float>& b) {
      return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
    };
    EXPECT_TRUE(same(out[0], out[1]));
    EXPECT_TRUE(same(lse[0], lse[1]));
    EXPECT_TRUE(same(dq[0], dq[1]));
    EXPECT_TRUE(same(dk[0], dk[1]));
    EXPECT_TRUE(same(dv[0], dv[1]));
  }
}

// ---- Argument errors ----

void expect_error(const std::function<void()>& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one mentioning '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(AttentionArguments, BadValuesAreNamed) {
  std::vector<float> buf(4096, 0.0f);
  float* f = buf.data();
  auto fwd = [f](int64_t B, int64_t Tq, int64_t Tk, int64_t H, int64_t Hkv, int64_t D, AttentionMods m = {}) {
    return [=] { attention_forward(f, f, f, f, f, B, Tq, Tk, H, Hkv, D, m); };
  };
  expect_error(fwd(0, 4, 4, 2, 2, 8), "B must be positive, got 0");
  expect_error(fwd(1, -3, 4, 2, 2, 8), "Tq must be positive, got -3");
  expect_error(fwd(1, 4, 4, 2, 2, 0), "D must be positive, got 0");
  expect_error(fwd(1, 4, 4, 6, 4, 8), "H (6) must be a multiple of Hkv (4)");
  expect_error(fwd(1, 5, 3, 2, 2, 8), "Tq (5) must not exceed Tk (3)");
  expect_error(fwd(1, 4, 4, 2, 2, 8, {.window = -2}), "window must be >= 0, got -2");
  expect_error(fwd(1, 4, 4, 2, 2, 8, {.softcap = -1.0f}), "softcap must be finite and >= 0, got -1");
  expect_error([f] { attention_forward(f, f, nullptr, f, f, 1, 4, 4, 2, 2, 8, {}); }, "q must not be null");
  expect_error([f] { attention_backward(f, f, f, f, f, f, f, f, nullptr, 1, 4, 4, 2, 2, 8, {}); },
               "lse must not be null");
  expect_error([f] { attention_backward(f, f, f, f, f, f, f, f, f, 1, 4, 4, 3, 2, 8, {}); },
               "H (3) must be a multiple of Hkv (2)");
}

}  // namespace
}  // namespace nanotrn
