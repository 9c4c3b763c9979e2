// The event-driven timing model of one NeuronCore running a recorded Program.
//
//   TimingResult t = simulate_timing(program, spec_for("v3"));
//   t.total_ns;  t.instructions[i].start_ns / end_ns / track;  t.tracks[k].name / busy_ns
//
// Model (every constant comes from the NeuronCoreSpec; formulas from hardware-facts.md sec. 6.3 [ISA-2025-10]):
//  * Tracks: Tensor, Vector, Scalar, GpSimd (one in-order queue each) and DMA queues q0..q15 (in-order each).
//    An instruction runs when its track is free and every instruction it depends on has finished.
//  * Dependencies: RAW, WAR and WAW between an instruction and every earlier one whose read/write regions
//    overlap (same buffer, overlapping partition and element ranges; tiles never share bytes, so this is the
//    byte-range overlap). A matmul with accumulate also reads its dst.
//  * A compute instruction that waits on another track's instruction pays sync_overhead_cycles of its own engine
//    after that instruction ends (semaphore wait) [NKI-A2], assumed once per wait.
//  * Compute cost in engine cycles at the engine clock, N = elements per partition:
//      matmul      max(min(64, M_stationary_free), N_moving) x (4 if fp32 inputs)        TensorE clock
//      transpose   max(P, min(64, F)) of the source [P, F]                                TensorE clock
//      activation  max(MIN_II, N)                                                         ScalarE clock
//      tensor_tensor  max(MIN_II, N) if an input is in PSUM or (all bf16, SBUF, add/sub/mul), else max(MIN_II, 2N)
//      tensor_scalar, copy  max(MIN_II, N);  reduce  N/2 if bf16 in and out with add or max, else N
//      memset      max(MIN_II, N/2) for 0 into bf16/fp16, else max(MIN_II, N)             VectorE clock
//      iota, affine_select  150 + N                                                       GpSimd clock
//  * DMA: dma_fixed_latency_ns, then bytes / bandwidth, bytes = max(source, destination bytes). The transfer
//    phases of all DMAs in flight share dma_total_bytes_per_ns() equally (processor sharing): with k transfers in
//    flight each moves at total / k. A lone DMA of B bytes takes latency + B / total. A queue runs one transfer at
//    a time, its fixed latency included.
//  * Stalls: blocked_by / stall_ns name the dependency that delayed an instruction past its track becoming free.
// Not here: TensorE throttling after idle, background LoadStationary, fp8 double-row, v3 VectorE perf modes,
// per-buffer DMA overheads, SBUF/PSUM port conflicts, the Sync engine's own instruction stream.
#pragma once

#include <string>
#include <vector>

#include "neuron/machine.h"
#include "neuron/program.h"

namespace nanotrn::neuron {

struct InstructionTiming {
  double start_ns = 0, end_ns = 0;
  int track = 0;
  // Earlier instructions this one conflicts with (RAW/WAR/WAW), the nearest ones: an access wholly overwritten by a
  // later write is reached through that write instead. Not only the binding one.
  std::vector<size_t> deps;
  // The dependency whose end (plus sync overhead) set the start, when that was later than the track becoming
  // free: the stall's cause. -1 when the instruction started as soon as its track was free.
  long blocked_by = -1;
  double stall_ns = 0;  // start - the time its track became free (0 when not blocked)
};

struct Track {
  std::string name;  // "Tensor", "Vector", "Scalar", "GpSimd", "DMA q0", ...
  double busy_ns = 0;
  size_t instructions = 0;
};

struct TimingResult {
  std::vector<InstructionTiming> instructions;
  std::vector<Track> tracks;  // indices 0..3: Tensor, Vector, Scalar, GpSimd; 4 + q: DMA queue q
  double total_ns = 0;
};

int track_of(const Instruction& ins);
// Bytes a dma_copy moves: max(source, destination bytes) (assumed for casting copies).
double dma_bytes(const Instruction& ins, const Program& program);
TimingResult simulate_timing(const Program& program, const NeuronCoreSpec& spec);
// The same model, computed the straightforward way (every track scanned at every event, per-buffer access lists
// scanned in full): slow, kept as the reference simulate_timing must match bit for bit (tests/neuron/timing_test.cpp).
TimingResult simulate_timing_reference(const Program& program, const NeuronCoreSpec& spec);

}  // namespace nanotrn::neuron
