// Every rule the software NeuronCore enforces, triggered once: the message must name the rule and this file's
// line of the offending kernel call (captured with __LINE__ on the same line). Not here: correct programs.
#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "base/error.h"
#include "neuron/isa/builder.h"
#include "neuron/kernels/rmsnorm.h"
#include "neuron/kernels/softmax.h"
#include "neuron/kernels/transpose.h"
#include "neuron/sim/executor.h"

namespace nanotrn::neuron {
namespace {

void expect_rule(const std::function<void()>& f, const std::string& rule, int line) {
  try {
    f();
    ADD_FAILURE() << "no error for " << rule;
  } catch (const Error& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find(rule), std::string::npos) << w;
    EXPECT_NE(w.find("errors_test.cpp:" + std::to_string(line) + ":"), std::string::npos) << w;
  }
}

TEST(NeuronErrors, PartitionLimit) {
  KernelBuilder b(spec_for("v3"));
  expect_rule([&] { b.sbuf("t", 129, 4, DType::f32); }, "[partition-limit]", __LINE__);
  expect_rule([&] { b.psum("p", 200, 4, DType::f32); }, "[partition-limit]", __LINE__);
}

TEST(NeuronErrors, SbufOverflow) {
  KernelBuilder b(spec_for("v3"));  // 224 KiB per partition
  b.sbuf("half", 128, 28 * 1024, DType::f32);
  expect_rule([&] { b.sbuf("more", 128, 28 * 1024 + 1, DType::f32); }, "[sbuf-capacity]", __LINE__);
  b.sbuf("rest", 128, 28 * 1024, DType::f32);  // exactly fills it
  expect_rule([&] { b.sbuf("one", 1, 1, DType::f8e4m3); }, "[sbuf-capacity]", __LINE__);
}

TEST(NeuronErrors, PsumOverflow) {
  KernelBuilder b(spec_for("v2"));
  for (int i = 0; i < 8; ++i) b.psum("bank" + std::to_string(i), 128, 512, DType::f32);
  expect_rule([&] { b.psum("ninth", 128, 16, DType::f32); }, "[psum-capacity]", __LINE__);
}

TEST(NeuronErrors, PsumBankCrossing) {
  KernelBuilder b(spec_for("v3"));
  expect_rule([&] { b.psum_at("x", 128, 512, DType::f32, 16); }, "[psum-bank]", __LINE__);
  expect_rule([&] { b.psum("wide", 128, 513, DType::f32); }, "[psum-bank]", __LINE__);
  // The automatic placement moves to the next bank instead of crossing.
  b.psum("a", 128, 384, DType::f32);
  View c = b.psum("c", 128, 256, DType::f32);
  EXPECT_EQ(b.program().buffers[static_cast<size_t>(c.buffer)].offset, 2048);
}

TEST(NeuronErrors, MatmulShapes) {
  KernelBuilder b(spec_for("v3"));
  View st = b.sbuf("st", 128, 128, DType::bf16), mv = b.sbuf("mv", 128, 513, DType::bf16);
  View st_wide = b.sbuf("stw", 128, 129, DType::bf16), mv64 = b.sbuf("mv64", 64, 512, DType::bf16);
  View acc = b.psum("acc", 128, 512, DType::f32), acc2 = b.psum("acc2", 128, 512, DType::f32);
  View acc_small = b.slice(acc2, 0, 128, 0, 256);
  expect_rule([&] { b.matmul(acc, st, mv); }, "[matmul-shape]", __LINE__);
  expect_rule([&] { b.matmul(acc, st_wide, b.slice(mv, 0, 128, 0, 512)); }, "[matmul-shape]", __LINE__);
  expect_rule([&] { b.matmul(acc, st, mv64); }, "[matmul-shape]", __LINE__);
  expect_rule([&] { b.matmul(acc_small, st, b.slice(mv, 0, 128, 0, 512)); }, "[matmul-shape]", __LINE__);
  View f32 = b.sbuf("f32", 128, 512, DType::f32);
  expect_rule([&] { b.matmul(acc, st, f32); }, "[matmul-dtype]", __LINE__);
  expect_rule([&] { b.matmul(f32, st, b.slice(mv, 0, 128, 0, 512)); }, "[matmul-memory]", __LINE__);
}

TEST(NeuronErrors, HbmAndTileBounds) {
  KernelBuilder b(spec_for("v3"));
  View x = b.hbm("x", 256, 512, DType::bf16);
  View t = b.sbuf("t", 128, 64, DType::bf16);
  expect_rule([&] { b.slice(x, 200, 128, 0, 64); }, "[hbm-bounds]", __LINE__);
  expect_rule([&] { b.slice(x, 0, 128, 500, 64); }, "[hbm-bounds]", __LINE__);
  expect_rule([&] { b.slice(t, 0, 128, 1, 64); }, "[tile-bounds]", __LINE__);
}

TEST(NeuronErrors, EngineMemoryAndPartitionStart) {
  KernelBuilder b(spec_for("v3"));
  View x = b.hbm("x", 128, 64, DType::f32);
  View p = b.psum("p", 128, 64, DType::f32), s = b.sbuf("s", 128, 64, DType::f32);
  expect_rule([&] { b.dma_copy(p, x); }, "[engine-memory]", __LINE__);
  expect_rule([&] { b.iota(p, 0, 1, 1); }, "[engine-memory]", __LINE__);
  expect_rule([&] { b.tensor_tensor(s, p, p, AluOp::add); }, "[engine-memory]", __LINE__);
  expect_rule([&] { b.copy(b.slice(s, 16, 32, 0, 64), b.slice(s, 0, 32, 0, 64)); }, "[partition-start]", __LINE__);
  expect_rule([&] { b.dma_copy(s, x, 16); }, "[dma-queue]", __LINE__);
  expect_rule([&] { b.affine_select(p, s, 0, 1, -1, 0.0f); }, "[engine-memory]", __LINE__);
  expect_rule([&] { b.activation(s, s, Act::exp, 1.0f, b.slice(s, 0, 128, 0, 2)); }, "[shape]", __LINE__);
}

TEST(NeuronErrors, ReadingAnUnwrittenTile) {
  KernelBuilder b(spec_for("v3"));
  View a = b.hbm("a", 128, 128, DType::bf16);
  View ta = b.sbuf("ta", 128, 128, DType::bf16), tx = b.sbuf("tx", 128, 128, DType::bf16);
  View acc = b.psum("acc", 128, 128, DType::f32);
  b.dma_copy(ta, a);
  const int line = (b.matmul(acc, ta, tx), __LINE__);  // tx never loaded
  Program prog = b.take();
  Executor ex(prog);
  ex.set(a, std::vector<float>(128 * 128, 1.0f));
  expect_rule([&] { ex.run(); }, "[uninitialized-read]", line);
  try {
    ex.run();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'tx'"), std::string::npos) << e.what();
  }
}

TEST(NeuronErrors, AccumulatingOntoNonMatmulPsumData) {
  for (const char* gen : {"v3", "v4"}) {
    KernelBuilder b(spec_for(gen));
    View t = b.sbuf("t", 32, 32, DType::bf16), acc = b.psum("acc", 32, 32, DType::f32);
    b.memset(t, 1.0f);
    b.memset(acc, 0.0f);
    const int line = (b.matmul(acc, t, t, /*accumulate=*/true), __LINE__);
    Program p = b.take();
    Executor ex(p);
    if (std::string(gen) == "v3") {
      expect_rule([&] { ex.run(); }, "[psum-accumulate]", line);
    } else {  // v4 defines it: 0 + 32 ones
      ex.run();
      EXPECT_EQ(ex.get(acc)[0], 32.0f);
    }
  }
}

TEST(NeuronErrors, ImmediateActivationBiasOnV2) {
  KernelBuilder b(spec_for("v2"));
  View x = b.sbuf("x", 128, 8, DType::f32), bias = b.sbuf("bias", 128, 1, DType::f32);
  expect_rule([&] { b.activation(x, x, Act::exp, 1.0f, 0.5f); }, "[activation-bias]", __LINE__);
  b.activation(x, x, Act::exp, 1.0f, bias);  // a bias vector is fine
  KernelBuilder b3(spec_for("v3"));
  View y = b3.sbuf("y", 128, 8, DType::f32);
  b3.activation(y, y, Act::exp, 1.0f, 0.5f);  // immediate bias allowed from v3
  EXPECT_EQ(b3.program().instructions.size(), 1u);
}

TEST(NeuronErrors, EngineOpAndDtypeOfDoubleRow) {
  KernelBuilder b2(spec_for("v2"));
  View s2 = b2.sbuf("s", 128, 64, DType::f8e4m3), m2 = b2.sbuf("m", 128, 64, DType::f8e4m3);
  View a2 = b2.psum("acc", 64, 64, DType::f32);
  expect_rule([&] { b2.matmul_double_row(a2, s2, s2, m2, m2); }, "[engine-op]", __LINE__);
  KernelBuilder b(spec_for("v3"));
  View s = b.sbuf("s", 128, 64, DType::f8e4m3), sb = b.sbuf("sb", 128, 64, DType::bf16);
  View m = b.sbuf("m", 128, 64, DType::f8e4m3), acc = b.psum("acc", 64, 64, DType::f32);
  expect_rule([&] { b.matmul_double_row(acc, s, sb, m, m); }, "[matmul-dtype]", __LINE__);
  expect_rule([&] { b.matmul_double_row(acc, s, b.slice(s, 0, 128, 0, 32), m, m); }, "[matmul-shape]", __LINE__);
}

TEST(NeuronErrors, MxMatmulRules) {
  auto quarters = [](KernelBuilder& b, int64_t k, DType t) {
    std::array<View, 4> st, mv;
    const char* sn[] = {"s0", "s1", "s2", "s3"};
    const char* mn[] = {"m0", "m1", "m2", "m3"};
    for (size_t j = 0; j < 4; ++j) {
      st[j] = b.sbuf(sn[j], k, 64, t);
      mv[j] = b.sbuf(mn[j], k, 64, t);
    }
    return std::pair{st, mv};
  };
  KernelBuilder b3(spec_for("v3"));
  const auto [s3, m3] = quarters(b3, 64, DType::f8e4m3);
  View ss3 = b3.sbuf("ss", 8, 64, DType::i32), acc3 = b3.psum("acc", 64, 64, DType::f32);
  expect_rule([&] { b3.matmul_mx(acc3, s3, m3, ss3, ss3); }, "[engine-op]", __LINE__);
  KernelBuilder b(spec_for("v4"));
  const auto [st, mv] = quarters(b, 48, DType::f8e4m3);  // K = 48: not a multiple of 32
  const auto [sb, mb] = quarters(b, 64, DType::bf16);
  View ss = b.sbuf("ss", 6, 64, DType::i32), acc = b.psum("acc", 64, 64, DType::f32);
  View sf = b.sbuf("sf", 8, 64, DType::f32);
  expect_rule([&] { b.matmul_mx(acc, st, mv, ss, ss); }, "[matmul-shape]", __LINE__);
  expect_rule([&] { b.matmul_mx(acc, sb, mb, sf, sf); }, "[matmul-dtype]", __LINE__);
}

TEST(NeuronErrors, AccessPatterns) {
  KernelBuilder b(spec_for("v3"));
  View h = b.hbm("h", 16, 32, DType::f32), t = b.sbuf("t", 128, 32, DType::f32);
  expect_rule([&] { b.pattern(t, 0, 128, 1, 32); }, "[access-pattern]", __LINE__);
  expect_rule([&] { b.pattern(h, -1, 4, 1, 32); }, "[access-pattern]", __LINE__);
  expect_rule([&] { b.pattern(h, 1, 32, 32, 17); }, "[hbm-bounds]", __LINE__);  // element 31 + 16 * 32 > 511
  b.pattern(h, 1, 32, 32, 16);  // h transposed: reaches element 31 + 15 * 32 = 511, the last one
  expect_rule([&] { b.slice(b.pattern(h, 0, 128, 1, 32), 0, 129, 0, 32); }, "[hbm-bounds]", __LINE__);
}

TEST(NeuronErrors, ActivationReductionAndScaleOperands) {
  KernelBuilder b(spec_for("v3"));
  View x = b.sbuf("x", 128, 64, DType::f32), wide = b.sbuf("wide", 128, 2, DType::f32);
  View h = b.hbm("h", 128, 1, DType::f32), i = b.sbuf("i", 128, 1, DType::i32);
  ActArgs a;
  a.reduce_into = wide;
  expect_rule([&] { b.activation(x, x, Act::exp, a); }, "[shape]", __LINE__);
  ActArgs c;
  c.scale_vector = h;
  expect_rule([&] { b.activation(x, x, Act::exp, c); }, "[engine-memory]", __LINE__);
  ActArgs d;
  d.bias_vector = i;
  expect_rule([&] { b.activation(x, x, Act::exp, d); }, "[shape]", __LINE__);
  expect_rule([&] { b.reciprocal(x, wide); }, "[shape]", __LINE__);
}

TEST(NeuronErrors, KernelsNameTheCallingLine) {
  KernelBuilder b(spec_for("v2"));  // 192 KiB per partition
  View wide = b.hbm("wide", 256, 40000, DType::f32), wide_y = b.hbm("wide_y", 256, 40000, DType::f32);
  View x = b.hbm("x", 64, 32, DType::bf16), y = b.hbm("y", 64, 32, DType::bf16), g = b.hbm("g", 1, 31, DType::bf16);
  expect_rule([&] { softmax_kernel(b, wide, wide_y, Schedule::pipelined); }, "[sbuf-capacity]", __LINE__);
  expect_rule([&] { rmsnorm_kernel(b, x, g, y, 1e-6f, Schedule::naive); }, "[shape]", __LINE__);
  expect_rule([&] { transpose_kernel(b, x, y, Schedule::naive); }, "[shape]", __LINE__);
}

// [host-memory]: the count times the measured bytes per instruction (768) against what the host has left; the
// builder applies it every 2^16 instructions with host_memory().
TEST(NeuronErrors, HostMemory) {
  HostMemory host{.known = true, .available_bytes = 768.0 * 1000, .basis = "MemAvailable in /proc/meminfo"};
  check_program_fits(1000, host, std::source_location::current());  // exactly fits
  expect_rule([&] { check_program_fits(1001, host, std::source_location::current()); }, "[host-memory]", __LINE__);
  try {
    check_program_fits(65536, host, std::source_location::current());
    ADD_FAILURE() << "no error for 65536 instructions";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("65536 instructions; recording and simulating them needs about 48.00 MiB"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("more than the 750.00 KiB this machine has available (MemAvailable"),
              std::string::npos)
        << e.what();
  }
  check_program_fits(1u << 30, HostMemory{}, std::source_location::current());  // unknown: no check
}

}  // namespace
}  // namespace nanotrn::neuron
