// The timing summary (see report.h). Not here: the timing model itself (timing.cpp).
#include "neuron/sim/report.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <utility>

#include "base/format.h"

namespace nanotrn::neuron {

Report make_report(const std::vector<const Program*>& programs, const std::vector<TimingResult>& timings,
                   const NeuronCoreSpec& spec, double flops, size_t max_stalls) {
  Report r;
  r.core = spec.name;
  r.cores = programs.size();
  const bool spmd = programs.size() > 1;
  for (const TimingResult& t : timings) r.total_ns = std::max(r.total_ns, t.total_ns);
  double matmul_flops = 0;
  bool any_matmul = false, all_fp32 = true, all_double_row = true, all_mx = true;
  struct Ref {
    size_t core, instruction;
  };
  std::vector<Ref> stalled;
  std::map<std::pair<std::string, std::string>, StallSum> sums;
  for (size_t c = 0; c < programs.size(); ++c) {
    const Program& program = *programs[c];
    const TimingResult& timing = timings[c];
    const std::string prefix = spmd ? "NC" + std::to_string(c) + " " : "";
    r.instructions += program.instructions.size();
    for (const Track& t : timing.tracks)
      if (t.instructions > 0)
        r.tracks.push_back({prefix + t.name, t.busy_ns, r.total_ns > 0 ? t.busy_ns / r.total_ns : 0, t.instructions,
                            t.engine, t.dma_queue, c});
    for (const Instruction& ins : program.instructions) {
      if (ins.op == Opcode::matmul) {
        any_matmul = true;
        matmul_flops += (ins.mx           ? 8.0
                         : ins.double_row ? 4.0
                                          : 2.0) *
                        static_cast<double>(ins.srcs[0].np) * static_cast<double>(ins.srcs[0].nf) *
                        static_cast<double>(ins.srcs[1].nf);
        if (program.buffers[static_cast<size_t>(ins.srcs[0].buffer)].dtype != DType::f32) all_fp32 = false;
        if (!ins.double_row) all_double_row = false;
        if (!ins.mx) all_mx = false;
      } else if (ins.op == Opcode::dma_copy) {
        r.dma_bytes += dma_bytes(ins, program);
        ++r.dma_transfers;
      }
    }
    for (const Buffer& b : program.buffers) {
      const int64_t end = b.offset + b.cols * static_cast<int64_t>(dtype_size(b.dtype));
      if (b.memory == Memory::sbuf) r.sbuf_high_water = std::max(r.sbuf_high_water, end);
      if (b.memory == Memory::psum) r.psum_high_water = std::max(r.psum_high_water, end);
    }
    for (size_t i = 0; i < timing.instructions.size(); ++i) {
      const InstructionTiming& t = timing.instructions[i];
      if (t.blocked_by < 0 || t.stall_ns <= 0) continue;
      stalled.push_back({c, i});
      const int cause = timing.instructions[static_cast<size_t>(t.blocked_by)].track;
      const std::string a = prefix + timing.tracks[static_cast<size_t>(t.track)].name;
      const std::string b = prefix + timing.tracks[static_cast<size_t>(cause)].name;
      StallSum& sum = sums[{a, b}];
      sum.track = a;
      sum.cause_track = b;
      sum.stall_ns += t.stall_ns;
      ++sum.count;
    }
  }
  r.flops = flops > 0 ? flops : matmul_flops;
  double peak_per_ns = 2.0 * spec.pe_rows.value * spec.pe_cols.value * spec.tensor_clock_ghz.value;
  if (any_matmul && all_fp32) peak_per_ns /= spec.matmul_fp32_factor.value;
  if (any_matmul && all_double_row) peak_per_ns *= spec.fp8_double_row_speedup.value;
  if (any_matmul && all_mx) peak_per_ns *= spec.mx_speedup.value;
  peak_per_ns *= static_cast<double>(programs.size());
  r.peak_tflops = peak_per_ns / 1e3;
  r.tflops = r.total_ns > 0 ? r.flops / r.total_ns / 1e3 : 0;
  r.peak_fraction = r.total_ns > 0 ? r.flops / r.total_ns / peak_per_ns : 0;
  r.dma_gbps = r.total_ns > 0 ? r.dma_bytes / r.total_ns : 0;
  const double cores = static_cast<double>(programs.size());
  r.dma_peak_gbps = std::min(cores * spec.dma_engines.value * spec.dma_engine_bytes_per_ns.value,
                             cores * spec.hbm_share_bytes_per_ns.value);
  r.sbuf_capacity = static_cast<int64_t>(spec.sbuf_bytes_per_partition.value);
  r.psum_capacity = static_cast<int64_t>(spec.psum_bytes_per_partition.value);
  for (const auto& kv : sums) r.stall_sums.push_back(kv.second);
  std::stable_sort(r.stall_sums.begin(), r.stall_sums.end(),
                   [](const StallSum& a, const StallSum& b) { return a.stall_ns > b.stall_ns; });
  auto stall_of = [&](const Ref& x) { return timings[x.core].instructions[x.instruction].stall_ns; };
  const size_t keep = std::min(max_stalls, stalled.size());
  std::partial_sort(stalled.begin(), stalled.begin() + static_cast<std::ptrdiff_t>(keep), stalled.end(),
                    [&](const Ref& a, const Ref& b) {
                      const double sa = stall_of(a), sb = stall_of(b);
                      if (sa != sb) return sa > sb;
                      return a.core != b.core ? a.core < b.core : a.instruction < b.instruction;
                    });
  for (size_t s = 0; s < keep; ++s) {
    const Program& program = *programs[stalled[s].core];
    const TimingResult& timing = timings[stalled[s].core];
    const std::string prefix = spmd ? "NC" + std::to_string(stalled[s].core) + " " : "";
    auto op_of = [&](size_t i) {
      const Instruction& ins = program.instructions[i];
      return ins.op == Opcode::activation ? std::string("activation ") + act_name(ins.act)
                                          : std::string(opcode_name(ins.op));
    };
    const size_t i = stalled[s].instruction;
    const InstructionTiming& t = timing.instructions[i];
    const auto j = static_cast<size_t>(t.blocked_by);
    r.stalls.push_back({i, op_of(i), prefix + timing.tracks[static_cast<size_t>(t.track)].name,
                        where_string(program.instructions[i].where), t.stall_ns, j, op_of(j),
                        prefix + timing.tracks[static_cast<size_t>(timing.instructions[j].track)].name,
                        where_string(program.instructions[j].where)});
  }
  return r;
}

Report make_report(const Program& program, const TimingResult& timing, const NeuronCoreSpec& spec, double flops,
                   size_t max_stalls) {
  return make_report(std::vector<const Program*>{&program}, std::vector<TimingResult>{timing}, spec, flops, max_stalls);
}

std::string report_text(const Report& r) {
  std::string s;
  s += "core " + r.core + (r.cores > 1 ? " x " + std::to_string(r.cores) + " physical cores (SPMD, LNC=2)" : "") +
       ", " + std::to_string(r.instructions) + " instructions\n";
  s += "total time      " + format_number("%.3f", r.total_ns / 1e3) + " us\n";
  s += "achieved        " + format_number("%.2f", r.tflops) +
       " TFLOP/s = " + format_number("%.1f", 100 * r.peak_fraction) + " % of TensorE peak " +
       format_number("%.2f", r.peak_tflops) + " TFLOP/s (" + format_number("%.4g", r.flops) + " flop)\n";
  s += "DMA             " + format_number("%.2f", r.dma_bytes / (1024.0 * 1024.0)) + " MiB in " +
       std::to_string(r.dma_transfers) + " transfers, " + format_number("%.1f", r.dma_gbps) + " GB/s (" +
       format_number("%.1f", r.dma_peak_gbps > 0 ? 100 * r.dma_gbps / r.dma_peak_gbps : 0) + " % of " +
       format_number("%.1f", r.dma_peak_gbps) + " GB/s)\n";
  s += "SBUF high-water " + format_number("%.1f", static_cast<double>(r.sbuf_high_water) / 1024) + " of " +
       format_number("%.0f", static_cast<double>(r.sbuf_capacity) / 1024) + " KiB per partition\n";
  s += "PSUM high-water " + format_number("%.1f", static_cast<double>(r.psum_high_water) / 1024) + " of " +
       format_number("%.0f", static_cast<double>(r.psum_capacity) / 1024) + " KiB per partition\n";
  s += "busy            track: busy % (instructions)\n";
  for (const TrackUse& t : r.tracks) {
    char line[128];
    std::snprintf(line, sizeof line, "  %-8s %6.1f %%  %10.3f us  (%zu)\n", t.name.c_str(), 100 * t.busy_fraction,
                  t.busy_ns / 1e3, t.instructions);
    s += line;
  }
  s += "dependency stalls by cause (stalled track <- track waited for: total, count):\n";
  if (r.stall_sums.empty()) s += "  none\n";
  for (const StallSum& st : r.stall_sums) {
    char line[160];
    std::snprintf(line, sizeof line, "  %-8s <- %-8s %12.3f us  (%zu)\n", st.track.c_str(), st.cause_track.c_str(),
                  st.stall_ns / 1e3, st.count);
    s += line;
  }
  s += "longest dependency stalls:\n";
  if (r.stalls.empty()) s += "  none\n";
  for (const Stall& st : r.stalls)
    s += "  " + format_number("%.3f", st.stall_ns / 1e3) + " us  #" + std::to_string(st.instruction) + " " + st.op +
         " (" + st.track + ") at " + st.source + "  waited for #" + std::to_string(st.blocked_by) + " " +
         st.blocker_op + " (" + st.blocker_track + ") at " + st.blocker_source + "\n";
  return s;
}

nlohmann::json report_json(const Report& r) {
  nlohmann::json tracks = nlohmann::json::array(), stalls = nlohmann::json::array(), sums = nlohmann::json::array();
  for (const StallSum& st : r.stall_sums)
    sums.push_back(
        {{"track", st.track}, {"cause_track", st.cause_track}, {"stall_ns", st.stall_ns}, {"count", st.count}});
  for (const TrackUse& t : r.tracks)
    tracks.push_back({{"name", t.name},
                      {"engine", std::string(hw::engine_track_name(t.engine))},
                      {"core", t.core},
                      {"busy_ns", t.busy_ns},
                      {"busy_fraction", t.busy_fraction},
                      {"instructions", t.instructions}});
  for (const Stall& st : r.stalls)
    stalls.push_back({{"instruction", st.instruction},
                      {"op", st.op},
                      {"track", st.track},
                      {"source", st.source},
                      {"stall_ns", st.stall_ns},
                      {"blocked_by", st.blocked_by},
                      {"blocker_op", st.blocker_op},
                      {"blocker_track", st.blocker_track},
                      {"blocker_source", st.blocker_source}});
  return {{"core", r.core},
          {"physical_cores", r.cores},
          {"instructions", r.instructions},
          {"total_ns", r.total_ns},
          {"flops", r.flops},
          {"tflops", r.tflops},
          {"peak_tflops", r.peak_tflops},
          {"peak_fraction", r.peak_fraction},
          {"dma_bytes", r.dma_bytes},
          {"dma_transfers", r.dma_transfers},
          {"dma_gbps", r.dma_gbps},
          {"dma_peak_gbps", r.dma_peak_gbps},
          {"sbuf_high_water_bytes", r.sbuf_high_water},
          {"sbuf_capacity_bytes", r.sbuf_capacity},
          {"psum_high_water_bytes", r.psum_high_water},
          {"psum_capacity_bytes", r.psum_capacity},
          {"tracks", tracks},
          {"stalls", stalls},
          {"stall_sums", sums}};
}

hw::EngineUse engine_use(const Report& r) {
  hw::EngineUse u;
  for (const TrackUse& t : r.tracks) {
    const hw::Engine e = t.engine;
    if (e != hw::Engine::dma) u[e] = std::max(u[e], t.busy_ns * 1e-9);
  }
  if (r.dma_peak_gbps > 0) u[hw::Engine::dma] = r.dma_bytes / (r.dma_peak_gbps * 1e9);
  return u;
}

hw::BoundVerdict bound_verdict(const Report& r) {
  return hw::classify_bound(engine_use(r), r.total_ns * 1e-9, r.flops, r.dma_bytes, r.peak_tflops * 1e12,
                            r.dma_peak_gbps * 1e9);
}

}  // namespace nanotrn::neuron
