// The access rectangles of a recorded instruction (see regions.h).
#include "neuron/isa/regions.h"

namespace nanotrn::neuron {

Region region(const View& v, const Program& p) {
  if (!v.pattern) return {v.buffer, v.p0, v.p0 + v.np, v.f0, v.f0 + v.nf};
  const int64_t cols = p.buffers[static_cast<size_t>(v.buffer)].cols;
  const int64_t lo = v.p0 * cols + v.f0, hi = lo + (v.np - 1) * v.ps + (v.nf - 1) * v.fs;
  const int64_t r0 = lo / cols, r1 = hi / cols + 1;
  if (r1 - r0 == 1) return {v.buffer, r0, r1, lo % cols, hi % cols + 1};
  return {v.buffer, r0, r1, 0, cols};
}

void reads_of(const Instruction& ins, const Program& p, std::vector<Region>& out) {
  out.clear();
  for (const View& v : ins.srcs) out.push_back(region(v, p));
  if (ins.op == Opcode::matmul && ins.accumulate) out.push_back(region(ins.dst, p));
}

void writes_of(const Instruction& ins, const Program& p, std::vector<Region>& out) {
  out.clear();
  out.push_back(region(ins.dst, p));
  if (ins.has_reduce_dst) out.push_back(region(ins.reduce_dst, p));
}

}  // namespace nanotrn::neuron
