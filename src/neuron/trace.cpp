// Chrome trace-event writer (see trace.h). Not here: timing (timing.cpp computes it).
#include "neuron/trace.h"

#include <fstream>

#include "base/error.h"

namespace nanotrn::neuron {

nlohmann::json trace_json(const Program& program, const TimingResult& timing, const NeuronCoreSpec& spec) {
  nlohmann::json events = nlohmann::json::array();
  events.push_back({{"ph", "M"},
                    {"name", "process_name"},
                    {"pid", 0},
                    {"tid", 0},
                    {"args", {{"name", "NeuronCore " + spec.name + " (" + spec.generation + ")"}}}});
  for (size_t k = 0; k < timing.tracks.size(); ++k) {
    if (timing.tracks[k].instructions == 0) continue;
    events.push_back(
        {{"ph", "M"}, {"name", "thread_name"}, {"pid", 0}, {"tid", k}, {"args", {{"name", timing.tracks[k].name}}}});
    events.push_back(
        {{"ph", "M"}, {"name", "thread_sort_index"}, {"pid", 0}, {"tid", k}, {"args", {{"sort_index", k}}}});
  }
  for (size_t i = 0; i < program.instructions.size(); ++i) {
    const Instruction& ins = program.instructions[i];
    const InstructionTiming& t = timing.instructions.at(i);
    const Buffer& dst = program.buffers[static_cast<size_t>(ins.dst.buffer)];
    std::string name = opcode_name(ins.op);
    if (ins.op == Opcode::activation) name += std::string(" ") + act_name(ins.act);
    events.push_back(
        {{"ph", "X"},
         {"name", name},
         {"cat", engine_name(ins.engine)},
         {"pid", 0},
         {"tid", t.track},
         {"ts", t.start_ns / 1000.0},
         {"dur", (t.end_ns - t.start_ns) / 1000.0},
         {"args",
          {{"source", where_string(ins.where)},
           {"index", i},
           {"deps", t.deps},
           {"blocked_by", t.blocked_by},
           {"stall_ns", t.stall_ns},
           {"dst", dst.name + "[" + std::to_string(ins.dst.p0) + ":" + std::to_string(ins.dst.p0 + ins.dst.np) + ", " +
                       std::to_string(ins.dst.f0) + ":" + std::to_string(ins.dst.f0 + ins.dst.nf) + "]"}}}});
  }
  // A flow arrow from each stall's cause to the stalled instruction ("s" inside the cause's slice, "f" bound to
  // the start of the stalled one).
  for (size_t i = 0; i < program.instructions.size(); ++i) {
    const InstructionTiming& t = timing.instructions[i];
    if (t.blocked_by < 0) continue;
    const InstructionTiming& c = timing.instructions.at(static_cast<size_t>(t.blocked_by));
    events.push_back({{"ph", "s"},
                      {"name", "dependency"},
                      {"cat", "dependency"},
                      {"id", i},
                      {"pid", 0},
                      {"tid", c.track},
                      {"ts", (c.start_ns + c.end_ns) / 2000.0}});
    events.push_back({{"ph", "f"},
                      {"bp", "e"},
                      {"name", "dependency"},
                      {"cat", "dependency"},
                      {"id", i},
                      {"pid", 0},
                      {"tid", t.track},
                      {"ts", t.start_ns / 1000.0}});
  }
  return {{"traceEvents", events}, {"displayTimeUnit", "ns"}, {"otherData", {{"total_ns", timing.total_ns}}}};
}

void write_trace_file(const std::string& path, const Program& program, const TimingResult& timing,
                      const NeuronCoreSpec& spec) {
  std::ofstream f(path);
  check(static_cast<bool>(f), "cannot open trace file '" + path + "' for writing");
  f << trace_json(program, timing, spec).dump(1) << "\n";
  check(static_cast<bool>(f), "failed writing trace file '" + path + "'");
}

}  // namespace nanotrn::neuron
