// Tests of neuron/sim/trace.h: the trace of a small kernel parses back as Chrome trace-event JSON with one named
// track per used engine / DMA queue and one slice per instruction naming this file's kernel line.
// Not here: timing values (timing_test.cpp).
#include "neuron/sim/trace.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "neuron/isa/builder.h"

namespace nanotrn::neuron {
namespace {

TEST(NeuronTrace, ParsesBackWithTracksAndSourceLines) {
  const NeuronCoreSpec& s = spec_for("v3");
  KernelBuilder b(s);
  View a = b.hbm("a", 128, 128, DType::bf16), out = b.hbm("out", 128, 128, DType::f32);
  View ta = b.sbuf("ta", 128, 128, DType::bf16), r = b.sbuf("r", 128, 128, DType::f32);
  View acc = b.psum("acc", 128, 128, DType::f32);
  b.dma_copy(ta, a, 0);
  const int mm_line = (b.matmul(acc, ta, ta), __LINE__);
  b.activation(r, acc, Act::exp);
  b.dma_copy(out, r, 2);
  const Program p = b.take();
  const TimingResult t = simulate_timing(p, s);
  const std::string path = ::testing::TempDir() + "neuron_trace_test.json";
  write_trace_file(path, p, t, s);
  std::ifstream f(path);
  const nlohmann::json j = nlohmann::json::parse(f);
  std::remove(path.c_str());

  std::map<int, std::string> tracks;
  int slices = 0;
  double ls_end = -1, mm_begin = -2;
  for (const auto& e : j.at("traceEvents")) {
    if (e.at("ph") == "M" && e.at("name") == "thread_name") tracks[e.at("tid").get<int>()] = e.at("args").at("name");
    if (e.at("ph") != "X") continue;
    ++slices;
    const std::string src = e.at("args").at("source");
    EXPECT_NE(src.find("trace_test.cpp:"), std::string::npos) << src;
    EXPECT_GE(e.at("dur").get<double>(), 0.0);
    EXPECT_TRUE(tracks.count(e.at("tid").get<int>())) << "slice on an unnamed track";
    // The matmul is drawn as the profiler's LoadStationary (exposed: TensorE was idle) then MultiplyMoving.
    if (e.at("name") == "LoadStationary" || e.at("name") == "MultiplyMoving") {
      EXPECT_EQ(src.substr(src.rfind(':') + 1), std::to_string(mm_line));
      EXPECT_EQ(e.at("tid").get<int>(), 0);
    }
    if (e.at("name") == "LoadStationary") ls_end = e.at("ts").get<double>() + e.at("dur").get<double>();
    if (e.at("name") == "MultiplyMoving") mm_begin = e.at("ts").get<double>();
  }
  EXPECT_EQ(slices, 5);
  EXPECT_NEAR(ls_end, mm_begin, 1e-9);
  EXPECT_GT(t.instructions[1].ls_ns, 0.0);
  // Every instruction after the first waits for its predecessor on another engine (a chain): three "stall" arrows,
  // each an s/f pair whose "f" lies on the stalled instruction's track at its start.
  int starts = 0, finishes = 0;
  for (const auto& e : j.at("traceEvents")) {
    if (e.at("ph") == "s") ++starts;
    if (e.at("ph") != "f") continue;
    ++finishes;
    const auto& ti = t.instructions.at(e.at("args").at("to").get<size_t>());
    EXPECT_EQ(e.at("name"), "stall");
    EXPECT_EQ(e.at("tid").get<int>(), ti.track);
    EXPECT_NEAR(e.at("ts").get<double>(), ti.start_ns / 1000.0, 1e-9);
    EXPECT_EQ(ti.blocked_by, e.at("args").at("from").get<long>());
    EXPECT_EQ(ti.blocked_by, static_cast<long>(e.at("args").at("to").get<size_t>()) - 1);
    EXPECT_GT(ti.stall_ns, 0.0);
  }
  EXPECT_EQ(starts, 3);
  EXPECT_EQ(finishes, 3);
  const std::set<std::string> names = [&] {
    std::set<std::string> n;
    for (const auto& [tid, name] : tracks) n.insert(name);
    return n;
  }();
  EXPECT_EQ(names, (std::set<std::string>{"Tensor", "Scalar", "DMA q0", "DMA q2"}));
  EXPECT_NEAR(j.at("otherData").at("total_ns").get<double>(), t.total_ns, 1e-9);
}

// Two loads on v3 at t = 0 on DMA queues 0 and 1 (instructions 0 and 1): ts [128, 128] and the larger tb
// [128, 4096], which ends later.
struct TwoLoads {
  const NeuronCoreSpec& s = spec_for("v3");
  KernelBuilder b{s};
  View ts = b.sbuf("ts", 128, 128, DType::bf16), tb = b.sbuf("tb", 128, 4096, DType::bf16);
  TwoLoads() {
    b.dma_copy(ts, b.hbm("small", 128, 128, DType::bf16), 0);
    b.dma_copy(tb, b.hbm("big", 128, 4096, DType::bf16), 1);
  }
};

// A tensor_tensor that reads two tiles loaded on two DMA queues waits on both (two semaphores): one arrow from each,
// the later load's a "stall" (it set the start) and the earlier one's a "wait". The next copy depends on the
// tensor_tensor (the same track: its order implies it, no arrow) and on load 0 (WAW on ts: a "wait").
TEST(NeuronTrace, AnArrowForEveryCrossEngineWait) {
  TwoLoads l;
  KernelBuilder& b = l.b;
  const NeuronCoreSpec& s = l.s;
  const View out = b.sbuf("out", 128, 128, DType::bf16);
  b.tensor_tensor(out, l.ts, b.slice(l.tb, 0, 128, 0, 128), AluOp::add);  // 2: waits on 0 and 1
  b.copy(l.ts, out);                                                      // 3: RAW/WAR on 2, WAW on 0
  const Program p = b.take();
  const TimingResult t = simulate_timing(p, s);
  ASSERT_EQ(t.instructions[2].blocked_by, 1);
  const nlohmann::json j = trace_json(p, t, s);
  std::map<std::pair<size_t, size_t>, std::string> arrows;  // (from, to) -> name, from the "f" events
  int starts = 0;
  for (const auto& e : j.at("traceEvents")) {
    if (e.at("ph") == "s") ++starts;
    if (e.at("ph") == "f")
      arrows[{e.at("args").at("from").get<size_t>(), e.at("args").at("to").get<size_t>()}] = e.at("name");
  }
  const std::map<std::pair<size_t, size_t>, std::string> want = {{{0, 2}, "wait"}, {{1, 2}, "stall"}, {{0, 3}, "wait"}};
  EXPECT_EQ(arrows, want);
  EXPECT_EQ(starts, 3);
}

// The counter tracks follow the timeline: two loads on two queues are both in their transfer phase after the fixed
// latency (2), the smaller one ends first (1), then the larger (0); the matmul's utilisation limit is its throttle.
TEST(NeuronTrace, CountersFollowTheTimeline) {
  TwoLoads l;
  KernelBuilder& b = l.b;
  const NeuronCoreSpec& s = l.s;
  b.matmul(b.psum("acc", 128, 128, DType::f32), l.ts, l.ts);  // 2
  const Program p = b.take();
  const TimingResult t = simulate_timing(p, s);
  const double lat = s.dma_fixed_latency_ns.value;
  ASSERT_DOUBLE_EQ(t.instructions[0].start_ns, 0.0);
  ASSERT_DOUBLE_EQ(t.instructions[1].start_ns, 0.0);
  ASSERT_LT(t.instructions[0].end_ns, t.instructions[1].end_ns);
  std::vector<std::pair<double, int>> dma;
  std::vector<double> limits;
  const nlohmann::json j = trace_json(p, t, s);  // kept: a range-for over a temporary's member would dangle
  for (const auto& e : j.at("traceEvents")) {
    if (e.at("ph") != "C") continue;
    if (e.at("name") == "DMA transfers")
      dma.emplace_back(e.at("ts").get<double>() * 1000.0, e.at("args").at("in flight").get<int>());
    if (e.at("name") == "TensorE utilisation limit") limits.push_back(e.at("args").at("limit").get<double>());
  }
  ASSERT_EQ(dma.size(), 4u);
  const std::pair<double, int> want[] = {
      {0.0, 0}, {lat, 2}, {t.instructions[0].end_ns, 1}, {t.instructions[1].end_ns, 0}};
  for (size_t k = 0; k < 4; ++k) {
    EXPECT_NEAR(dma[k].first, want[k].first, 1e-6) << k;
    EXPECT_EQ(dma[k].second, want[k].second) << k;
  }
  ASSERT_EQ(limits.size(), 1u);
  EXPECT_DOUBLE_EQ(limits[0], t.instructions[2].throttle);
  EXPECT_LT(limits[0], 1.0);  // v3: TensorE starts throttled
}

}  // namespace
}  // namespace nanotrn::neuron
