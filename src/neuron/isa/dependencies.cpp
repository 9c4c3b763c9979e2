// find_dependencies (dependencies.h): the same dependencies as the reference's full scan (timing_reference.cpp), found
// through per-buffer bucket indexes of compact 32-bit access records. Not here: costs or the event loop (timing.cpp).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

#include "base/error.h"
#include "neuron/isa/dependencies.h"
#include "neuron/isa/regions.h"

namespace nanotrn::neuron {

namespace {

// One earlier access: its bounding rectangle [p0, p1) x [f0, f1) in 32-bit coordinates and its instruction.
struct Access {
  int32_t p0, p1, f0, f1;
  uint32_t instruction;
};
struct Bucket {
  std::vector<Access> reads, writes;
};

// Earlier accesses of one buffer, indexed by buckets of 2^shift rows (HBM tensors) or free-axis columns (tiles).
// The bucket size is set by the buffer's first access (its extent along that axis, rounded up to a power of two,
// at least 64), so a kernel's usual accesses fall in one or two buckets. An access lives in every bucket it touches;
// a search scans the buckets its own region touches, so it meets every overlapping access (duplicates go with the
// rest through sort + unique), and a write that contains an access meets, and drops, every copy of it.
struct BufferIndex {
  bool rows = false;  // bucket by rows (HBM) or by columns (tiles)
  int shift = -1;     // -1: no access yet
  int64_t extent = 0;
  std::vector<Bucket> buckets;
  // Buckets [b0, b1] of access a; sizes the index on the first call.
  void range(const Access& a, uint32_t& b0, uint32_t& b1) {
    const int32_t lo = rows ? a.p0 : a.f0, hi = rows ? a.p1 : a.f1;
    if (shift < 0) {
      shift = 6;
      while ((int64_t{1} << shift) < hi - lo) ++shift;
      buckets.resize(static_cast<size_t>(((extent - 1) >> shift) + 1));
    }
    b0 = static_cast<uint32_t>(lo >> shift);
    b1 = static_cast<uint32_t>((hi - 1) >> shift);
  }
};

// Scans `list` for accesses overlapping w, appending their instructions to `deps`; when kDrop, also removes the
// ones w contains (keeping order).
template <bool kDrop>
inline void scan(std::vector<Access>& list, const Access& w, std::vector<uint32_t>& deps) {
  Access* a = list.data();
  const size_t n = list.size();
  size_t keep = 0;
  for (size_t x = 0; x < n; ++x) {
    const Access ax = a[x];
    if (ax.p0 < w.p1 && w.p0 < ax.p1 && ax.f0 < w.f1 && w.f0 < ax.f1) {
      deps.push_back(ax.instruction);
      if (kDrop && w.p0 <= ax.p0 && ax.p1 <= w.p1 && w.f0 <= ax.f0 && ax.f1 <= w.f1) continue;  // covered: drop
    }
    if (kDrop) a[keep++] = ax;
  }
  if (kDrop) list.resize(keep);
}

// A view's access rectangle (detail::region) in 32-bit coordinates; buffers were checked to fit.
inline Access access_of(const View& v, const Program& p, uint32_t instruction) {
  if (!v.pattern)
    return {static_cast<int32_t>(v.p0), static_cast<int32_t>(v.p0 + v.np), static_cast<int32_t>(v.f0),
            static_cast<int32_t>(v.f0 + v.nf), instruction};
  const Region r = region(v, p);
  return {static_cast<int32_t>(r.p0), static_cast<int32_t>(r.p1), static_cast<int32_t>(r.f0),
          static_cast<int32_t>(r.f1), instruction};
}

// Sorts a short list and removes duplicates (most instructions have one to four dependencies).
inline void sort_unique(uint32_t* d, size_t& n) {
  for (size_t i = 1; i < n; ++i) {
    const uint32_t v = d[i];
    size_t j = i;
    for (; j > 0 && d[j - 1] > v; --j) d[j] = d[j - 1];
    d[j] = v;
  }
  size_t m = n == 0 ? 0 : 1;
  for (size_t i = 1; i < n; ++i)
    if (d[i] != d[m - 1]) d[m++] = d[i];
  n = m;
}

}  // namespace

void find_dependencies(const Program& program, std::vector<uint32_t>& deps, std::vector<uint32_t>& dep_begin) {
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  std::vector<BufferIndex> index(program.buffers.size());
  for (size_t b = 0; b < program.buffers.size(); ++b) {
    const Buffer& buf = program.buffers[b];
    check(buf.rows < kMax && buf.cols < kMax,
          "buffer '" + buf.name + "' of " + std::to_string(buf.rows) + " x " + std::to_string(buf.cols) +
              " elements: the timing model indexes at most 2^31 - 1 rows and columns",
          buf.where);
    index[b].rows = buf.memory == Memory::hbm;
    index[b].extent = index[b].rows ? buf.rows : buf.cols;
  }
  const size_t n = program.instructions.size();
  check(n < std::numeric_limits<uint32_t>::max(), "program of " + std::to_string(n) + " instructions: too many");
  deps.clear();
  deps.reserve(4 * n);
  dep_begin.assign(n + 1, 0);
  Access reads[12], writes[2];  // an instruction reads at most 11 views (MX matmul with accumulate)
  int rbuf[12], wbuf[2];
  std::vector<uint32_t> found;
  found.reserve(64);
  for (size_t i = 0; i < n; ++i) {
    const Instruction& ins = program.instructions[i];
    const auto me = static_cast<uint32_t>(i);
    size_t nr = 0, nw = 1;
    for (const View& v : ins.srcs) {
      rbuf[nr] = v.buffer;
      reads[nr++] = access_of(v, program, me);
    }
    wbuf[0] = ins.dst.buffer;
    writes[0] = access_of(ins.dst, program, me);
    if (ins.op == Opcode::matmul && ins.accumulate) {
      rbuf[nr] = wbuf[0];
      reads[nr++] = writes[0];
    }
    if (ins.has_reduce_dst) {
      wbuf[nw] = ins.reduce_dst.buffer;
      writes[nw++] = access_of(ins.reduce_dst, program, me);
    }
    found.clear();
    uint32_t b0 = 0, b1 = 0;
    for (size_t x = 0; x < nr; ++x) {  // RAW
      BufferIndex& ix = index[static_cast<size_t>(rbuf[x])];
      ix.range(reads[x], b0, b1);
      for (uint32_t bk = b0; bk <= b1; ++bk) scan<false>(ix.buckets[bk].writes, reads[x], found);
    }
    for (size_t x = 0; x < nw; ++x) {  // WAR and WAW; then drop what the write contains
      BufferIndex& ix = index[static_cast<size_t>(wbuf[x])];
      ix.range(writes[x], b0, b1);
      for (uint32_t bk = b0; bk <= b1; ++bk) {
        scan<true>(ix.buckets[bk].reads, writes[x], found);
        scan<true>(ix.buckets[bk].writes, writes[x], found);
      }
    }
    size_t nd = found.size();
    sort_unique(found.data(), nd);
    deps.insert(deps.end(), found.begin(), found.begin() + static_cast<std::ptrdiff_t>(nd));
    check(deps.size() < std::numeric_limits<uint32_t>::max(), "program with more than 2^32 dependencies");
    dep_begin[i + 1] = static_cast<uint32_t>(deps.size());
    for (size_t x = 0; x < nr; ++x) {
      BufferIndex& ix = index[static_cast<size_t>(rbuf[x])];
      ix.range(reads[x], b0, b1);
      for (uint32_t bk = b0; bk <= b1; ++bk) ix.buckets[bk].reads.push_back(reads[x]);
    }
    for (size_t x = 0; x < nw; ++x) {
      BufferIndex& ix = index[static_cast<size_t>(wbuf[x])];
      ix.range(writes[x], b0, b1);
      for (uint32_t bk = b0; bk <= b1; ++bk) ix.buckets[bk].writes.push_back(writes[x]);
    }
  }
}

}  // namespace nanotrn::neuron
