// The dependencies of a recorded program, as the Neuron compiler finds them to place semaphores: instruction i waits
// for every earlier instruction whose read or write set conflicts with its own (RAW, WAR, WAW), the nearest ones only:
// an access wholly overwritten by a later write is reached through that write instead. Read sets: every src (and
// the dst of an accumulating matmul); write sets: dst (and an activation's reduce_dst); a pattern view counts as its
// bounding box (regions.h). KernelBuilder::take() stores the result in the Program; the timing model
// (timing.h) waits on it.
//
//   std::vector<uint32_t> deps, begin;
//   find_dependencies(program, deps, begin);   // instruction i: deps[begin[i] .. begin[i + 1]), sorted
//
// Not here: timing, or the reference search (timing_reference.cpp recomputes them the straightforward way).
#pragma once

#include <cstdint>
#include <vector>

#include "neuron/isa/program.h"

namespace nanotrn::neuron {

// Throws nanotrn::Error for a buffer of 2^31 or more rows or columns, or more than 2^32 dependencies.
void find_dependencies(const Program& program, std::vector<uint32_t>& deps, std::vector<uint32_t>& dep_begin);

}  // namespace nanotrn::neuron
