// The rectangles a recorded instruction reads and writes in its buffers: what the dependency search
// (isa/dependencies.h) and the timing model's reference dependency scan (sim/timing_reference.cpp) both find
// conflicts from. An ISA-level fact about a program's views, so the simulator uses it from here, not the other way.
#pragma once

#include <cstdint>
#include <vector>

#include "neuron/isa/program.h"

namespace nanotrn::neuron {

// The bounding rectangle [p0, p1) x [f0, f1) of a view in its buffer (a pattern view's bounding box of rows, and
// of columns when it stays in one row, else all columns).
struct Region {
  int buffer;
  int64_t p0, p1, f0, f1;
};
Region region(const View& v, const Program& p);
inline bool overlap(const Region& a, const Region& b) {
  return a.buffer == b.buffer && a.p0 < b.p1 && b.p0 < a.p1 && a.f0 < b.f1 && b.f0 < a.f1;
}
inline bool contains(const Region& outer, const Region& inner) {
  return outer.p0 <= inner.p0 && inner.p1 <= outer.p1 && outer.f0 <= inner.f0 && inner.f1 <= outer.f1;
}
// Reads: every src (and the dst of an accumulating matmul). Writes: dst (and an activation's reduce_dst).
// Each clears `out` first.
void reads_of(const Instruction& ins, const Program& p, std::vector<Region>& out);
void writes_of(const Instruction& ins, const Program& p, std::vector<Region>& out);

}  // namespace nanotrn::neuron
