// Functional execution of a recorded Program on real data, with Trainium numerics (design.md sec. 4):
//  * every stored value is representable in its buffer's dtype (inputs are rounded when set, every result is
//    rounded once to the destination dtype with the instruction's rounding mode);
//  * matmul multiplies the stored (already rounded) inputs and accumulates in fp32 over k = 0..K-1 (double-row: the
//    first row pair, then the second, in one accumulator), onto the PSUM contents when `accumulate` is set;
//  * activation / vector / DMA arithmetic is done in fp32 and rounded to the output dtype; an activation's fused
//    reduction adds the fp32 function values (before the dst rounding) in free-axis order and rounds once;
//  * HBM access patterns (View::pattern) address element p0 * cols + f0 + p * ps + f * fs;
//  * stochastic rounding draws r = random_u32(seed, instruction index, element index) (base/rng.h), so a run is
//    reproducible.
// Reading an element no input or earlier instruction wrote throws nanotrn::Error "[uninitialized-read]" at the
// kernel line of the reading instruction. On v2/v3 a matmul with accumulate onto PSUM data last written by
// anything but a matmul (memset, copy, Executor::set) throws "[psum-accumulate]": the hardware leaves it
// undefined [ISA]; the first matmul of an accumulation group must overwrite.
//
//   Executor ex(program, /*seed=*/1);
//   ex.set(a_view, a_values);  ex.run();  std::vector<float> out = ex.get(out_view);
//
// Two paths, the same bits (tests/neuron/executor_fast_test.cpp runs every shipped kernel on both):
//   ExecutorMode::fast       (the default) each instruction reads its operands' rectangles in bulk, computes on
//                            contiguous arrays (a matmul row by row, vectorised over N and threaded over M with
//                            OpenMP; each output's fp32 sum still runs k = 0..K-1 in order) and rounds once per
//                            element on the way back. An instruction whose destination overlaps a source other than
//                            element for element (where the element order would show) takes the reference path.
//   ExecutorMode::reference  element by element, each operand read through the checked load and written through the
//                            rounding store: the plain statement of the numerics above, which the fast path matches.
// An [uninitialized-read] may name a different element on the two paths (the first unwritten one each reads).
//
// Not here: timing (timing.h), the polynomial approximations of the real ScalarE (std:: math in fp32 is used),
// int32 values beyond 2^24 (storage is float).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "neuron/isa/program.h"

namespace nanotrn::neuron {

enum class ExecutorMode { fast, reference };

class Executor {
 public:
  explicit Executor(const Program& program, uint64_t seed = 0, ExecutorMode mode = ExecutorMode::fast);
  Executor(Program&&, uint64_t = 0, ExecutorMode = ExecutorMode::fast) = delete;  // the program must outlive it

  // Writes `values` (row-major over the view, np * nf of them), rounded to nearest-even in the buffer's dtype.
  void set(const View& v, std::span<const float> values);
  // The stored values of a view, row-major; throws [uninitialized-read] when any element was never written.
  std::vector<float> get(const View& v) const;

  void run();               // every instruction in order
  void step(size_t index);  // one instruction

 private:
  struct Store {
    std::vector<float> data;
    std::vector<uint8_t> written;
    std::vector<uint8_t> by_matmul;  // last writer was a matmul (PSUM accumulate rule)
  };
  float& at(const View& v, int64_t p, int64_t f);
  float load(const View& v, int64_t p, int64_t f, const Instruction& ins) const;
  void store(const View& v, int64_t p, int64_t f, float x, const Instruction& ins, size_t index);
  void step_reference(size_t index);
  // The fast path; false when the instruction must take the reference path (overlapping operands).
  bool step_fast(size_t index);
  // A view's elements row-major, each checked written ([uninitialized-read] naming `ins`).
  std::vector<float> gather(const View& v, const Instruction& ins) const;
  // Rounds values (row-major over v) into v with the instruction's rounding, marking them written.
  void scatter(const View& v, const float* values, const Instruction& ins, size_t index);

  const Program& program_;
  uint64_t seed_;
  ExecutorMode mode_;
  std::vector<Store> stores_;
};

}  // namespace nanotrn::neuron
