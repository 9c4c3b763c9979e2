// A text / JSON summary of a timed Program: total time, per-track busy %, achieved TFLOP/s and % of TensorE peak,
// DMA bytes and GB/s, SBUF/PSUM high-water marks, and the longest dependency stalls with their source lines.
//
//   Report r = make_report(program, simulate_timing(program, spec), spec);   // flops from the matmuls
//   std::cout << report_text(r);   nlohmann::json j = report_json(r);
//
// Definitions:
//  * flops: the `flops` argument when > 0, else 2 * K * M * N summed over matmul instructions (x2 for fp8
//    double-row, a 2K contraction; x4 for MX; transposes excluded).
//  * TensorE peak (flop/ns): 2 x pe_rows x pe_cols x tensor clock, the timing model's own matmul rate (a full
//    [128,128]^T x [128,512] matmul costs 512 cycles), divided by matmul_fp32_factor when every matmul has fp32
//    inputs, x fp8_double_row_speedup when every matmul is fp8 double-row, x mx_speedup when every one is MX;
//    x physical cores.
//  * busy %: a track's busy time / total time. DMA GB/s: bytes of all dma_copy / total time (B/ns = GB/s).
//  * high-water marks: the largest offset + size of any tile, bytes per partition (the builder's bump allocator
//    never frees, so this is also the total allocated).
//  * stalls: instructions with the largest stall_ns (start - their track becoming free) and the dependency that
//    caused it (timing.h blocked_by), most first; stall_sums: all dependency stalls summed per (stalled track,
//    cause track), largest first (e.g. naive matmul: Tensor waiting on DMA q0).
// Not here: per-buffer DMA breakdowns, time-resolved bandwidth, stalls on a busy track (only dependency stalls).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hw/bound.h"
#include "neuron/isa/machine.h"
#include "neuron/isa/program.h"
#include "neuron/sim/timing.h"

namespace nanotrn::neuron {

struct TrackUse {
  std::string name;  // "Tensor", "DMA q3"; "NC1 Vector" in an SPMD launch
  double busy_ns = 0, busy_fraction = 0;
  size_t instructions = 0;
  Engine engine = Engine::tensor;
  int dma_queue = -1;  // DMA tracks: the queue, else -1
  size_t core = 0;     // the physical core of an SPMD launch
};

struct Stall {
  size_t instruction = 0;
  std::string op, track, source;  // the stalled instruction
  double stall_ns = 0;
  size_t blocked_by = 0;
  std::string blocker_op, blocker_track, blocker_source;  // the dependency it waited for
};

// Dependency stall time summed by the stalled track and the track of the instruction it waited for.
struct StallSum {
  std::string track, cause_track;
  double stall_ns = 0;
  size_t count = 0;
};

struct Report {
  std::string core;
  size_t cores = 1;  // physical cores of an SPMD launch
  size_t instructions = 0;
  double total_ns = 0;
  std::vector<TrackUse> tracks;  // tracks that ran at least one instruction, in track order
  double flops = 0, tflops = 0, peak_tflops = 0, peak_fraction = 0;
  double dma_bytes = 0, dma_gbps = 0, dma_peak_gbps = 0;
  size_t dma_transfers = 0;
  int64_t sbuf_high_water = 0, sbuf_capacity = 0, psum_high_water = 0, psum_capacity = 0;  // bytes per partition
  std::vector<Stall> stalls;                                                               // longest first
  std::vector<StallSum> stall_sums;                                                        // largest first
};

Report make_report(const Program& program, const TimingResult& timing, const NeuronCoreSpec& spec, double flops = 0,
                   size_t max_stalls = 5);
// An SPMD launch (simulate_timing_spmd): total = the slowest core; tracks, stalls named "NC<c> <track>" when more
// than one core; flops, DMA bytes summed; peaks x cores.
Report make_report(const std::vector<const Program*>& programs, const std::vector<TimingResult>& timings,
                   const NeuronCoreSpec& spec, double flops = 0, size_t max_stalls = 5);
std::string report_text(const Report& r);
// What binds the kernel (hw/bound.h): per engine its busiest track over the cores, DMA as dma_bytes at the core's
// peak DMA bandwidth; the ridge from peak_tflops and dma_peak_gbps.
hw::EngineUse engine_use(const Report& r);
hw::BoundVerdict bound_verdict(const Report& r);
nlohmann::json report_json(const Report& r);

}  // namespace nanotrn::neuron
