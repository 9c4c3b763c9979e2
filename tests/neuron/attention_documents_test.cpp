// Document bounds in the attention tile kernels (attention_mask.h bound_min / bound_max, attention_bounds.h): the
// planning rules against brute force (visible pairs, tile cuts, pair counts), bounds made from document starts equal
// to the fp64 reference's independent segment-id mask, both kernels against fp64 within their bounds for every mask
// (alone and with softcap, ALiBi and GQA; pipelined, and naive on the causal mask), checks that refuse another document
// layout, fewer TensorE instructions than the unbounded kernel (blocks outside every document skipped), and bad bounds
// refused.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "base/error.h"
#include "neuron/kernels/attention.h"
#include "neuron/registry/kernel_run.h"
#include "ref/attention_ref.h"
#include "support/error_of.h"

namespace nanotrn::neuron {
namespace {

AttentionVariant documents(AttentionMask m, int64_t T, const std::vector<int64_t>& starts) {
  AttentionVariant v{m, m == AttentionMask::sliding_window ? 100 : 0};
  set_document_bounds(v, T, starts);
  return v;
}

TEST(AttentionDocuments, VisibilityTilesAndPairsFollowTheDocuments) {
  const int64_t T = 640;
  const std::vector<int64_t> starts{0, 99, 400, 401};
  for (AttentionMask m : {AttentionMask::causal, AttentionMask::none, AttentionMask::sliding_window}) {
    const AttentionVariant v = documents(m, T, starts);
    AttentionVariant plain = v;
    plain.bound_min.clear();
    plain.bound_max.clear();
    auto doc = [&](int64_t t) {
      int64_t d = 0;
      for (size_t i = 0; i < starts.size(); ++i) d = t >= starts[i] ? static_cast<int64_t>(i) : d;
      return d;
    };
    double pairs = 0;
    for (int64_t q = 0; q < T; ++q)
      for (int64_t k = 0; k < T; ++k) {
        const bool want = doc(q) == doc(k) && plain.visible(q, k);
        ASSERT_EQ(v.visible(q, k), want) << q << " " << k;
        pairs += want;
      }
    EXPECT_EQ(v.pairs(T), pairs);
    std::mt19937 gen(7);
    for (int n = 0; n < 300; ++n) {  // random tiles, brute force
      const int64_t q0 = gen() % T, k0 = gen() % T, rows = 1 + gen() % 128, cols = 1 + gen() % 128;
      bool any = false, all = true;
      for (int64_t q = q0; q < std::min(q0 + rows, T); ++q)
        for (int64_t k = k0; k < k0 + cols; ++k) {
          const bool vis = k < T && v.visible(q, k);
          any = any || vis;
          all = all && vis;
        }
      const TileCut c = v.tile(q0, k0, rows, cols);
      EXPECT_EQ(c.any, any) << q0 << " " << k0;
      EXPECT_EQ(c.all, all) << q0 << " " << k0;
    }
  }
}

// The reference's bounds path and its segment-id path (written separately) give the same probabilities.
TEST(AttentionDocuments, BoundsFromStartsEqualTheReferenceSegmentMask) {
  const int64_t T = 200, D = 8;
  const std::vector<int64_t> starts{0, 57, 130};
  const AttentionVariant v = documents(AttentionMask::causal, T, starts);
  std::mt19937 gen(3);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> q(T * D), k(T * D), x(T * D);
  for (auto* a : {&q, &k, &x})
    for (double& e : *a) e = u(gen);
  ref::AttentionSpec by_bounds, by_segments;
  by_bounds.bound_min.assign(v.bound_min.begin(), v.bound_min.end());
  by_bounds.bound_max.assign(v.bound_max.begin(), v.bound_max.end());
  for (int64_t t = 0; t < T; ++t) by_segments.segment_ids.push_back(t < 57 ? 0 : t < 130 ? 1 : 2);
  std::vector<double> lse_a, lse_b;
  EXPECT_EQ(ref::attention_forward_ref(q, k, x, 1, T, T, 1, 1, D, by_bounds, &lse_a),
            ref::attention_forward_ref(q, k, x, 1, T, T, 1, 1, D, by_segments, &lse_b));
  EXPECT_EQ(lse_a, lse_b);
}

KernelRunOptions bounded(const std::string& kernel, AttentionMask m, int64_t docs, bool extras, Schedule s) {
  AttentionShape shape{
      .seq = 384, .head_dim = 64, .heads = 4, .variant = {m, m == AttentionMask::sliding_window ? 100 : 0}};
  set_document_bounds(shape.variant, shape.seq, spread_document_starts(shape.seq, docs));
  if (extras) {
    shape.variant.softcap = 2.0f;
    shape.variant.alibi_slopes = standard_alibi_slopes(4);
    shape.variant.group = 2;
  }
  KernelRunOptions o = kernel_options(kernel, shape);
  o.schedule = s;
  o.check = true;
  o.seed = 9;
  return o;
}

TEST(AttentionDocuments, ForwardAndBackwardMatchFp64WithinTheirBounds) {
  for (const char* kernel : {"attention", "attention_bwd"})
    for (AttentionMask m : {AttentionMask::causal, AttentionMask::none, AttentionMask::sliding_window})
      for (const auto& [docs, extras] : {std::pair{int64_t{3}, false}, std::pair{int64_t{5}, true}})
        for (Schedule s : {Schedule::naive, Schedule::pipelined}) {
          // The naive schedule once per kernel and combination (its masking code is the same for every mask).
          if (s == Schedule::naive && m != AttentionMask::causal) continue;
          const KernelRunOptions o = bounded(kernel, m, docs, extras, s);
          SCOPED_TRACE(std::string(kernel) + " " + shape_of<AttentionShape>(o).variant.describe() + " " +
                       schedule_name(s));
          const KernelRunResult r = run_kernel(o);
          EXPECT_TRUE(r.check_passed) << r.failures << " failures, max error " << r.max_abs_error;
          EXPECT_GT(r.max_abs_error, 0.0);
        }
}

// The kernel run with 3 documents, checked as if there were 2 or none: both must fail.
TEST(AttentionDocuments, TheChecksSeeTheDocuments) {
  for (const char* kernel : {"attention", "attention_bwd"}) {
    const KernelRunOptions with = bounded(kernel, AttentionMask::none, 3, false, Schedule::naive);
    KernelRunOptions two = with, none = with;
    set_document_bounds(shape_of<AttentionShape>(two).variant, 384, spread_document_starts(384, 2));
    shape_of<AttentionShape>(none).variant.bound_min.clear();
    shape_of<AttentionShape>(none).variant.bound_max.clear();
    HostTensors inputs = check_inputs(with);
    for (const KernelRunOptions* other : {&two, &none}) {
      HostTensors theirs = check_inputs(*other);  // their o and lse (backward); the kernel's own bounds tensor
      if (theirs.size() < inputs.size()) theirs.push_back(inputs.back());
      theirs.back() = inputs.back();
      const CheckOutcome c = check_outputs(*other, theirs, run_kernel_outputs(with, theirs));
      EXPECT_GT(c.failures, 0u) << kernel << " checked as " << shape_of<AttentionShape>(*other).variant.describe();
    }
    EXPECT_EQ(check_outputs(with, inputs, run_kernel_outputs(with, inputs)).failures, 0u) << kernel;
  }
}

// Dense attention over T 2048 holding 8 documents: a query tile sees about one document's keys, so both kernels
// issue well under half the TensorE instructions of unbounded dense attention.
TEST(AttentionDocuments, BlocksOutsideEveryDocumentAreSkipped) {
  for (const char* kernel : {"attention", "attention_bwd"}) {
    AttentionShape shape{.seq = 2048, .head_dim = 64, .heads = 1, .variant = {AttentionMask::none, 0}};
    const KernelRunResult plain = run_kernel(kernel_options(kernel, shape));
    set_document_bounds(shape.variant, shape.seq, spread_document_starts(shape.seq, 8));
    const KernelRunResult docs = run_kernel(kernel_options(kernel, shape));
    auto tensor_instructions = [](const Report& r) {
      size_t n = 0;
      for (const TrackUse& t : r.tracks) n += t.engine == Engine::tensor ? t.instructions : 0;
      return n;
    };
    EXPECT_LT(2 * tensor_instructions(docs.report), tensor_instructions(plain.report)) << kernel;
    EXPECT_LT(docs.report.total_ns, plain.report.total_ns) << kernel;
  }
}

// The bounds operand: the overload without it refuses a bounded variant, and a bounds tensor of the wrong shape is
// refused naming the calling line (both kernels share check_bounds_tensor).
TEST(AttentionDocuments, TheBoundsTensorIsCheckedAtTheCallersLine) {
  AttentionVariant v{AttentionMask::causal, 0};
  set_document_bounds(v, 256, {0, 100});
  KernelBuilder b(spec_for("v3"));
  const View qt = b.hbm("q_t", 64, 256, DType::bf16), kt = b.hbm("k_t", 64, 256, DType::bf16);
  const View x = b.hbm("v", 256, 64, DType::bf16), o = b.hbm("o", 256, 64, DType::bf16);
  const View wrong = b.hbm("bounds", 256, 1, DType::f32);
  const int line = __LINE__ + 1;
  auto without_bounds = [&] { attention_kernel(b, qt, kt, x, o, 1, v, Schedule::naive); };
  const std::string e1 = testing_support::error_text_of(without_bounds);
  EXPECT_NE(e1.find("need the bounds tensor"), std::string::npos) << e1;
  EXPECT_NE(e1.find(":" + std::to_string(line) + ":"), std::string::npos) << e1;
  const std::string e2 =
      testing_support::error_text_of([&] { attention_kernel(b, qt, kt, x, o, wrong, 1, v, Schedule::naive); });
  EXPECT_NE(e2.find("[T, 2] = [256, 2]"), std::string::npos) << e2;
  EXPECT_NE(e2.find("attention_documents_test.cpp"), std::string::npos) << e2;
}

TEST(AttentionDocuments, BadBoundsAreRefusedByName) {
  AttentionVariant v{AttentionMask::causal, 0};
  set_document_bounds(v, 256, {0, 100});
  EXPECT_NO_THROW(check_attention_variant(v, 1, 256));
  auto refused = [](const AttentionVariant& w, int64_t seq, const std::string& words) {
    try {
      check_attention_variant(w, 1, seq);
      ADD_FAILURE() << "accepted: " << words;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  refused(v, 512, "one (bound_min, bound_max) per position");
  AttentionVariant w = v;
  w.bound_min[150] = 151;  // query 150 would not see itself
  refused(w, 256, "bound_min[150]");
  w = v;
  w.bound_max.pop_back();
  refused(w, 0, "bound_min and bound_max of one length");
  EXPECT_THROW(set_document_bounds(v, 256, {0, 300}), Error);
  EXPECT_THROW(spread_document_starts(256, 9), Error);  // more than T / 32
}

}  // namespace
}  // namespace nanotrn::neuron
