// Chrome trace-event JSON (opens in Perfetto / chrome://tracing) of a timed Program: one process "NeuronCore
// <spec>" (SPMD: one per physical core, "NC<c> ..."), one thread (track) per engine and per DMA queue that ran
// something, one complete ("X") slice per instruction with ts/dur in microseconds and args {source: "file:line",
// index, deps, blocked_by, stall_ns, dst, throttle (TensorE)}; a matmul is drawn as the profiler's two
// instructions, "LoadStationary" (when exposed, ls_ns) then "MultiplyMoving"; and a flow arrow ("s"/"f" pair, args
// {from, to}) for each cross-engine wait: from the latest dependency on each other track to the waiting instruction,
// named "stall" for the one that set its start (blocked_by) and "wait" for the others. Counter tracks per core:
// "DMA transfers" {in flight} (transfers past their fixed latency, sharing the bandwidth) and "TensorE utilisation
// limit" {limit} (the throttle level each TensorE instruction ran at, from its start).
//
//   nlohmann::json j = trace_json(program, timing, spec);   write_trace_file("k.json", program, timing, spec);
//
// Not here: arrows for same-track dependencies (the track's order implies them), a bandwidth counter in bytes/s,
// the Neuron profiler's own NTFF format.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "neuron/isa/machine.h"
#include "neuron/isa/program.h"
#include "neuron/sim/timing.h"

namespace nanotrn::neuron {

nlohmann::json trace_json(const Program& program, const TimingResult& timing, const NeuronCoreSpec& spec);
nlohmann::json trace_json(const std::vector<const Program*>& programs, const std::vector<TimingResult>& timings,
                          const NeuronCoreSpec& spec);
// Writes trace_json(...) to `path`; throws nanotrn::Error when the file cannot be written.
void write_trace_file(const std::string& path, const Program& program, const TimingResult& timing,
                      const NeuronCoreSpec& spec);
void write_trace_file(const std::string& path, const std::vector<const Program*>& programs,
                      const std::vector<TimingResult>& timings, const NeuronCoreSpec& spec);

}  // namespace nanotrn::neuron
