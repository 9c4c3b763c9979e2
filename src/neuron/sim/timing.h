// The event-driven timing model of one NeuronCore (or an SPMD pair of physical cores) running recorded Programs.
//
//   TimingResult t = simulate_timing(program, spec_for("v3"));        // every model feature on (TimingOptions{})
//   t.total_ns;  t.instructions[i].start_ns / end_ns / track / ls_ns / throttle;  t.tracks[k].name / busy_ns
//   std::vector<TimingResult> pair = simulate_timing_spmd({&p0, &p1}, spec_for("v3"));   // LNC=2
//
// Model (every constant comes from the NeuronCoreSpec; formulas from hardware-facts §6.3 [ISA-2025-10]):
//  * Tracks: Tensor, Vector, Scalar, GpSimd (one in-order queue each) and DMA queues q0..q15 (in-order each).
//    An instruction runs when its track is free and every instruction it depends on has finished.
//  * Dependencies: RAW, WAR and WAW between an instruction and every earlier one whose read/write regions
//    overlap (same buffer, overlapping partition and element ranges; tiles never share bytes, so this is the
//    byte-range overlap; a pattern view counts as its bounding box). A matmul with accumulate also reads its dst;
//    an activation with a reduction also writes its reduce_dst. They are the program's recorded ones
//    (Program::dep_list, filled by KernelBuilder::take() as a compiler places semaphores), else found here by
//    find_dependencies (dependencies.h). The cost formulas read the program's compact encoding (Program::encoded,
//    encoding.h), likewise recorded by take() or made here.
//  * A compute instruction that waits on another track's instruction pays sync_overhead_cycles of its own engine
//    after that instruction ends (semaphore wait) [NKI-A2], assumed once per wait.
//  * Compute cost in engine cycles at the engine clock, N = elements per partition:
//      matmul      MultiplyMoving max(min(64, M_stationary_free), N_moving) x (4 if fp32 inputs); fp8 double-row /
//                  MX (v4): the same cycles for a 2K / 4K-row contraction (2x / 4x the flops)   TensorE clock
//                  LoadStationary M / 4 (x4 fp32) when the stationary differs from the previous TensorE
//                  instruction's: exposed (ls + mm) after TensorE idled, else in the background (max(mm, ls))
//      transpose   max(P, min(64, F)) of the source [P, F]                                        TensorE clock
//      activation  max(MIN_II, N), + MIN_II with a free-axis reduction                            ScalarE clock
//      tensor_tensor  max(MIN_II, N) if an input is in PSUM or (all bf16, SBUF, add/sub/mul), else max(MIN_II, 2N)
//      tensor_scalar, copy  max(MIN_II, N / p): p = vector_perf_mode_speedup (v3/v4: 4) for bf16/fp16 (v4: also
//                  fp8) in and out, both in SBUF; half that with a side in PSUM; else 1 [NKI-A3] [NKI-A4]
//      reduce      N/2 if bf16 in and out with add or max, else N
//      reciprocal  max(MIN_II, 8N)
//      memset      max(MIN_II, N/2) for 0 into bf16/fp16, else max(MIN_II, N)                     VectorE clock
//      iota, affine_select  150 + N                                                               GpSimd clock
//  * TensorE throttling (v3/v4) [EXPL-SUM]: after an idle gap >= tensor_throttle_idle_ns (and at the first
//    instruction) the utilisation limit restarts at tensor_throttle_start (0.5) and ramps linearly to 1 over
//    tensor_throttle_ramp_ns (3 us); a TensorE instruction's duration is divided by the limit at its start.
//  * DMA: dma_fixed_latency_ns, then a transfer phase of bytes + descriptors x dma_descriptor_overhead_bytes
//    (bytes = max(source, destination bytes); descriptors = np for unit-stride free axes on both sides, np x nf
//    for an element-strided pattern). Transfers in flight share bandwidth max-min fairly: each core's transfers
//    together at most dma_engines x dma_engine_bytes_per_ns, all transfers of the launch together at most
//    cores x hbm_share_bytes_per_ns (one core: min of the two, split equally). A queue runs one transfer at a time.
//    Bandwidth is accounted at DMA events only (a transfer's latency ending, a core's earliest transfer finishing):
//    a transfer finishes at the first such event where its remaining bytes are within 1e-9 of its size.
//  * SPMD (LNC=2, v3/v4): the programs run on separate physical cores (own tracks) and share HBM bandwidth as
//    above; no cross-core dependencies (an SPMD kernel writes disjoint outputs).
//  * Stalls: blocked_by / stall_ns name the dependency that delayed an instruction past its track becoming free.
// Not here: background transpose (v4), the VectorE performance mode's bus sharing with GpSimd, SBUF/PSUM port
// conflicts, the Sync engine's own instruction stream, DMA priorities.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "neuron/isa/machine.h"
#include "neuron/isa/program.h"

namespace nanotrn::neuron {

// Model features, all on by default; a test turns them off to check one formula alone.
struct TimingOptions {
  bool tensor_throttle = true;  // TensorE warm-up throttling after idle (v3/v4)
  bool load_stationary = true;  // LoadStationary cost when the stationary changes
  bool dma_descriptors = true;  // per-descriptor DMA overhead
  static TimingOptions formulas_only() { return {false, false, false}; }
};

struct InstructionTiming {
  double start_ns = 0, end_ns = 0;
  int track = 0;
  // Its dependencies are TimingResult::deps(i): the earlier instructions it conflicts with (RAW/WAR/WAW), the
  // nearest ones (an access wholly overwritten by a later write is reached through that write instead), sorted.
  uint32_t dep_begin = 0, dep_count = 0;
  // The dependency whose end (plus sync overhead) set the start, when that was later than the track becoming
  // free: the stall's cause. -1 when the instruction started as soon as its track was free.
  long blocked_by = -1;
  double stall_ns = 0;  // start - the time its track became free (0 when not blocked)
  double ls_ns = 0;     // matmul: exposed LoadStationary at the start (MultiplyMoving is [start + ls_ns, end))
  double throttle = 1;  // TensorE: utilisation limit at the start (its duration was divided by it)
};

struct Track {
  std::string name;  // "Tensor", "Vector", "Scalar", "GpSimd", "DMA q0", ...
  Engine engine = Engine::tensor;
  int dma_queue = -1;  // the DMA queue of a DMA track, else -1
  double busy_ns = 0;
  size_t instructions = 0;
};

struct TimingResult {
  std::vector<InstructionTiming> instructions;
  std::vector<Track> tracks;  // indices 0..3: Tensor, Vector, Scalar, GpSimd; 4 + q: DMA queue q
  double total_ns = 0;
  std::vector<uint32_t> dep_list;  // every instruction's dependencies, back to back (see deps)
  std::span<const uint32_t> deps(size_t i) const {
    const InstructionTiming& t = instructions.at(i);
    return {dep_list.data() + t.dep_begin, t.dep_count};
  }
};

int track_of(const Instruction& ins);
// Bytes a dma_copy moves: max(source, destination bytes) (assumed for casting copies); the encoding's figure
// (encoding.h). Only for dma_copy instructions.
double dma_bytes(const Instruction& ins, const Program& program);
TimingResult simulate_timing(const Program& program, const NeuronCoreSpec& spec, const TimingOptions& options = {});
// SPMD launch of programs.size() (1 or up to spec.max_physical_cores) physical cores: one result per core (its own
// tracks and total); the launch takes the largest total. Throws nanotrn::Error past max_physical_cores.
std::vector<TimingResult> simulate_timing_spmd(const std::vector<const Program*>& programs, const NeuronCoreSpec& spec,
                                               const TimingOptions& options = {});
// The same model, computed the straightforward way (every track scanned at every event, per-buffer access lists
// scanned in full): slow, kept as the reference the fast one must match bit for bit (tests/neuron/timing_test.cpp).
TimingResult simulate_timing_reference(const Program& program, const NeuronCoreSpec& spec,
                                       const TimingOptions& options = {});
std::vector<TimingResult> simulate_timing_spmd_reference(const std::vector<const Program*>& programs,
                                                         const NeuronCoreSpec& spec, const TimingOptions& options = {});

}  // namespace nanotrn::neuron
