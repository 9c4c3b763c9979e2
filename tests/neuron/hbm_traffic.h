// The HBM traffic of a recorded program, for the tests that assert a kernel moves only its operands (no scratch
// tensor, nothing T x T): how many HBM tensors it declares, the elements its DMAs load from HBM and store to it, and
// which tensors the stores write.
#pragma once

#include <cstdint>
#include <set>

#include "neuron/isa/program.h"

namespace nanotrn::neuron {

struct HbmTraffic {
  size_t tensors = 0;
  int64_t loaded = 0, stored = 0;  // elements
  std::set<int> stored_to;         // buffer indices
};

inline HbmTraffic hbm_traffic(const Program& p) {
  std::set<int> hbm;
  for (size_t i = 0; i < p.buffers.size(); ++i)
    if (p.buffers[i].memory == Memory::hbm) hbm.insert(static_cast<int>(i));
  HbmTraffic t;
  t.tensors = hbm.size();
  for (const Instruction& ins : p.instructions) {
    if (ins.op != Opcode::dma_copy) continue;
    const int64_t elements = ins.dst.np * ins.dst.nf;
    if (hbm.count(ins.dst.buffer)) {
      t.stored += elements;
      t.stored_to.insert(ins.dst.buffer);
    } else {
      t.loaded += elements;
    }
  }
  return t;
}

}  // namespace nanotrn::neuron
