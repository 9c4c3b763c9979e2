// Chrome trace-event writer (see trace.h). Not here: timing (timing.cpp computes it).
#include "neuron/sim/trace.h"

#include <algorithm>
#include <set>
#include <span>
#include <utility>
#include <vector>

#include "base/error.h"
#include "base/file.h"

namespace nanotrn::neuron {

namespace {

std::string view_string(const Buffer& b, const View& v) {
  std::string s = b.name + "[" + std::to_string(v.p0) + ":" + std::to_string(v.p0 + v.np) + ", " +
                  std::to_string(v.f0) + ":" + std::to_string(v.f0 + v.nf) + "]";
  if (v.pattern) s += " pattern ps=" + std::to_string(v.ps) + " fs=" + std::to_string(v.fs);
  return s;
}

void add_core(nlohmann::json& events, int pid, const Program& program, const TimingResult& timing,
              const NeuronCoreSpec& spec, bool spmd) {
  const std::string prefix = spmd ? "NC" + std::to_string(pid) + " " : "";
  events.push_back({{"ph", "M"},
                    {"name", "process_name"},
                    {"pid", pid},
                    {"tid", 0},
                    {"args", {{"name", prefix + "NeuronCore " + spec.name + " (" + spec.generation + ")"}}}});
  for (size_t k = 0; k < timing.tracks.size(); ++k) {
    if (timing.tracks[k].instructions == 0) continue;
    events.push_back(
        {{"ph", "M"}, {"name", "thread_name"}, {"pid", pid}, {"tid", k}, {"args", {{"name", timing.tracks[k].name}}}});
    events.push_back(
        {{"ph", "M"}, {"name", "thread_sort_index"}, {"pid", pid}, {"tid", k}, {"args", {{"sort_index", k}}}});
  }
  for (size_t i = 0; i < program.instructions.size(); ++i) {
    const Instruction& ins = program.instructions[i];
    const InstructionTiming& t = timing.instructions.at(i);
    const Buffer& dst = program.buffers[static_cast<size_t>(ins.dst.buffer)];
    std::string name = opcode_name(ins.op);
    if (ins.op == Opcode::activation) name += std::string(" ") + act_name(ins.act);
    nlohmann::json args = {{"source", where_string(ins.where)},
                           {"index", i},
                           {"deps", std::vector<size_t>(timing.deps(i).begin(), timing.deps(i).end())},
                           {"blocked_by", t.blocked_by},
                           {"stall_ns", t.stall_ns},
                           {"dst", view_string(dst, ins.dst)}};
    if (ins.engine == Engine::tensor) args["throttle"] = t.throttle;
    if (ins.op == Opcode::matmul && ins.double_row) args["perf_mode"] = "double_row";
    if (ins.op == Opcode::matmul && ins.mx) args["perf_mode"] = "mx";
    auto slice = [&](const std::string& n, double b, double e) {
      events.push_back({{"ph", "X"},
                        {"name", n},
                        {"cat", std::string(hw::engine_track_name(ins.engine))},
                        {"pid", pid},
                        {"tid", t.track},
                        {"ts", b / 1000.0},
                        {"dur", (e - b) / 1000.0},
                        {"args", args}});
    };
    if (ins.op == Opcode::matmul) {  // the profiler's two instructions [NKI-A2]
      if (t.ls_ns > 0) slice("LoadStationary", t.start_ns, t.start_ns + t.ls_ns);
      slice("MultiplyMoving", t.start_ns + t.ls_ns, t.end_ns);
    } else {
      slice(name, t.start_ns, t.end_ns);
    }
  }
  // A flow arrow for each cross-engine wait, as a semaphore wait: from the latest dependency on each other track to
  // the waiting instruction ("s" inside the dependency's slice, "f" bound to the start of the waiting one). The one
  // that set the start (blocked_by) is a "stall", the others a "wait".
  size_t id = static_cast<size_t>(pid) << 32;
  for (size_t i = 0; i < program.instructions.size(); ++i) {
    const InstructionTiming& t = timing.instructions[i];
    const std::span<const uint32_t> deps = timing.deps(i);
    std::set<int> seen = {t.track};
    for (auto d = deps.rbegin(); d != deps.rend(); ++d) {  // sorted: the latest on each track first
      const InstructionTiming& c = timing.instructions.at(*d);
      if (!seen.insert(c.track).second) continue;
      const bool stall = t.blocked_by == static_cast<long>(*d);
      const nlohmann::json args = {{"from", *d}, {"to", i}};
      events.push_back({{"ph", "s"},
                        {"name", stall ? "stall" : "wait"},
                        {"cat", "dependency"},
                        {"id", ++id},
                        {"pid", pid},
                        {"tid", c.track},
                        {"ts", (c.start_ns + c.end_ns) / 2000.0},
                        {"args", args}});
      events.push_back({{"ph", "f"},
                        {"bp", "e"},
                        {"name", stall ? "stall" : "wait"},
                        {"cat", "dependency"},
                        {"id", id},
                        {"pid", pid},
                        {"tid", t.track},
                        {"ts", t.start_ns / 1000.0},
                        {"args", args}});
    }
  }
}

// Counter tracks of one core: "DMA transfers" (how many are in their transfer phase, after the fixed latency: they
// share the core's bandwidth) and "TensorE utilisation limit" (the throttle level each TensorE instruction ran at).
void add_counters(nlohmann::json& events, int pid, const Program& program, const TimingResult& timing,
                  const NeuronCoreSpec& spec) {
  std::vector<std::pair<double, int>> changes;  // (time ns, +1 / -1)
  for (size_t i = 0; i < program.instructions.size(); ++i) {
    const InstructionTiming& t = timing.instructions[i];
    if (program.instructions[i].engine == Engine::tensor)
      events.push_back({{"ph", "C"},
                        {"name", "TensorE utilisation limit"},
                        {"pid", pid},
                        {"ts", t.start_ns / 1000.0},
                        {"args", {{"limit", t.throttle}}}});
    if (program.instructions[i].engine != Engine::dma) continue;
    changes.emplace_back(t.start_ns + spec.dma_fixed_latency_ns.value, +1);
    changes.emplace_back(t.end_ns, -1);
  }
  std::sort(changes.begin(), changes.end());
  int in_flight = 0;
  auto counter = [&](double ts) {
    events.push_back({{"ph", "C"},
                      {"name", "DMA transfers"},
                      {"pid", pid},
                      {"ts", ts / 1000.0},
                      {"args", {{"in flight", in_flight}}}});
  };
  counter(0);
  for (size_t x = 0; x < changes.size(); ++x) {
    in_flight += changes[x].second;
    if (x + 1 == changes.size() || changes[x + 1].first != changes[x].first) counter(changes[x].first);
  }
}

}  // namespace

nlohmann::json trace_json(const std::vector<const Program*>& programs, const std::vector<TimingResult>& timings,
                          const NeuronCoreSpec& spec) {
  check(programs.size() == timings.size() && !programs.empty(), "trace_json: one timing per program");
  nlohmann::json events = nlohmann::json::array();
  double total = 0;
  for (size_t c = 0; c < programs.size(); ++c) {
    add_core(events, static_cast<int>(c), *programs[c], timings[c], spec, programs.size() > 1);
    add_counters(events, static_cast<int>(c), *programs[c], timings[c], spec);
    total = std::max(total, timings[c].total_ns);
  }
  return {{"traceEvents", events}, {"displayTimeUnit", "ns"}, {"otherData", {{"total_ns", total}}}};
}

nlohmann::json trace_json(const Program& program, const TimingResult& timing, const NeuronCoreSpec& spec) {
  return trace_json(std::vector<const Program*>{&program}, std::vector<TimingResult>{timing}, spec);
}

void write_trace_file(const std::string& path, const Program& program, const TimingResult& timing,
                      const NeuronCoreSpec& spec) {
  write_trace_file(path, std::vector<const Program*>{&program}, std::vector<TimingResult>{timing}, spec);
}

void write_trace_file(const std::string& path, const std::vector<const Program*>& programs,
                      const std::vector<TimingResult>& timings, const NeuronCoreSpec& spec) {
  const std::string text = trace_json(programs, timings, spec).dump(1) + "\n";
  write_file_atomic(path, text.data(), text.size());  // checked to the last byte; errors name the file
}

}  // namespace nanotrn::neuron
