// The recorded program of a tile kernel: HBM tensors, SBUF/PSUM tiles, and the instruction list, as plain data.
// A KernelBuilder (builder.h) fills it and checks every rule; the executor (executor.h) and the timing model
// (timing.h) read it. Each instruction keeps the std::source_location of the kernel line that issued it.
//
// Layout invariants (checked by the builder, relied on by readers):
//  * A tile is [partitions, free] of one dtype; it lives in partitions [0, partitions) of its memory, at byte
//    offset `offset` .. offset + free * dtype_size within every partition. partitions <= 128.
//  * SBUF tiles never overlap and fit the generation's SBUF per partition; PSUM tiles likewise, and never cross a
//    2 KiB bank.
//  * An HBM tensor is a row-major [rows, cols] array; views of it are rectangles inside it, or (HBM only, for DMA)
//    access patterns: element (p, f) of a pattern view is flat element (p0 * cols + f0) + p * ps + f * fs of the
//    tensor (ps, fs >= 0 element strides; ps = 0 broadcasts one row to every partition, fs = cols reads a column).
//  * A View is a rectangle [p0, p0 + np) x [f0, f0 + nf) of a tile or HBM tensor (rows play partitions there).
//
// Not here: dynamic shapes, multi-dimensional (3-4 D) free-axis patterns, on-chip strided views, control flow.
#pragma once

#include <cstdint>
#include <source_location>
#include <string>
#include <vector>

#include "dtype/convert.h"
#include "dtype/dtype.h"
#include "hw/engine.h"

namespace nanotrn::neuron {

enum class Memory : uint8_t { hbm, sbuf, psum };
using hw::Engine;  // hw/engine.h: one Engine enum for the simulator, the bound verdict and the predictor
enum class Opcode : uint8_t {
  dma_copy,
  matmul,
  transpose,
  activation,
  tensor_tensor,
  tensor_scalar,
  reduce,
  memset,
  copy,
  iota,
  affine_select,
  reciprocal
};
enum class Act : uint8_t { copy, exp, tanh, sigmoid, relu, silu, gelu_tanh, square, rsqrt, reciprocal };
enum class AluOp : uint8_t { add, subtract, multiply, max, min };

const char* memory_name(Memory m);
const char* opcode_name(Opcode o);
const char* act_name(Act a);
const char* alu_name(AluOp o);

// A buffer: an HBM tensor or an on-chip tile.
struct Buffer {
  std::string name;
  Memory memory = Memory::sbuf;
  DType dtype = DType::f32;
  int64_t rows = 0;    // partitions for tiles
  int64_t cols = 0;    // free elements per partition for tiles
  int64_t offset = 0;  // byte offset inside each partition (tiles only)
  std::source_location where;
};

// A rectangle of a buffer, or (pattern = true, HBM only) an access pattern: element (p, f) at flat element
// (p0 * cols + f0) + p * ps + f * fs of the tensor.
struct View {
  int buffer = -1;
  int64_t p0 = 0, np = 0;  // partition (row) range
  int64_t f0 = 0, nf = 0;  // free (column) range
  bool pattern = false;
  int64_t ps = 0, fs = 1;  // element strides of a pattern view
};

struct Instruction {
  // The fields the timing model reads come first, so a pass over the instructions touches few cache lines.
  Opcode op = Opcode::copy;
  Engine engine = Engine::vector;
  int dma_queue = 0;
  View dst;
  std::vector<View> srcs;   // reads, in operand order (matmul: stationary, moving)
  bool accumulate = false;  // matmul: add onto PSUM instead of overwriting
  // matmul: fp8 double-row mode (v3/v4): srcs = {st0, mv0, st1, mv1}, a contraction over 2 K rows at the cycle
  // cost of K [NKI-A3] [ISA] (builder.h matmul_double_row).
  bool double_row = false;
  // matmul: MX mode (v4, nc_matmul_mx): srcs = {st0, mv0, st1, mv1, st2, mv2, st3, mv3, st_scale, mv_scale}, a
  // contraction over 4 K rows with per-32-element power-of-two block scales at the cycle cost of K [NKI-A4] [ISA]
  // (builder.h matmul_mx).
  bool mx = false;
  Act act = Act::copy;
  AluOp alu0 = AluOp::add, alu1 = AluOp::add;
  bool has_op1 = false;  // tensor_scalar: second op present
  // activation: bias is the per-partition [P, 1] vector srcs[1] instead of `bias`;
  // tensor_scalar: operand 0 is the per-partition [P, 1] vector srcs[1] instead of `scale`.
  bool vector_operand = false;
  bool scale_vector = false;  // activation: scale is the per-partition [P, 1] vector srcs[1]
  bool negate = false;        // reduce: store -result
  // activation: also write the add-reduction along the free axis of the (fp32) results to `reduce_dst` [P, 1].
  bool has_reduce_dst = false;
  View reduce_dst;
  float scale = 1, bias = 0;  // activation: f(x * scale + bias); tensor_scalar: operands 0 and 1
  float value = 0;            // memset value
  // iota: dst = offset + p * multiplier + f * step;
  // affine_select: dst = (offset + p * multiplier + f * step >= 0) ? src : value.
  int64_t iota_offset = 0, channel_multiplier = 0, step = 0;
  Rounding rounding = Rounding::nearest_even;
  std::source_location where;
};

// An instruction as the engines' queues hold it, packed (as a NEFF packs what the engines execute): its queue and the
// operand sizes its cost formula reads (timing.h table), 24 bytes instead of the Instruction's 232 plus its operand
// list. Spec-independent: the same encoding is priced on v2, v3 and v4. encoding.h makes it.
struct EncodedInstruction {
  enum Flag : uint8_t {
    fp32 = 1,               // matmul: fp32 stationary (x matmul_fp32_factor, also for LoadStationary)
    one_pass = 2,           // tensor_tensor: an input in PSUM or all-bf16 SBUF add/sub/mul (N, not 2N cycles);
                            // reduce: bf16 in and out with add or max (N/2); memset: 0 into bf16/fp16 (N/2)
    with_reduce = 4,        // activation with a free-axis reduction (+ MIN_II)
    reuses_stationary = 8,  // matmul: the previous TensorE instruction left the same stationary in the array
    // copy / tensor_scalar, for the VectorE performance mode: input and output are 16-bit floats (bf16 / fp16) or
    // fp8 (perf_fp8 set when one of them is fp8), and perf_half when a side is in PSUM (half the speedup).
    perf_mode = 16,
    perf_fp8 = 32,
    perf_half = 64,
  };
  Opcode op = Opcode::copy;
  Engine engine = Engine::vector;
  uint8_t flags = 0;
  int32_t dma_queue = 0;
  // dma_copy: a = bytes moved (max of source and destination), b = descriptors; matmul: a = stationary free size M,
  // b = moving free size N; transpose: a = source partitions, b = source free size; reduce: a = source free size;
  // every other op: a = destination free size.
  int64_t a = 0, b = 0;
};

struct Program {
  std::string target;  // NeuronCoreSpec::name the program was built for ("v2", "v3", "v4")
  std::vector<Buffer> buffers;
  std::vector<Instruction> instructions;
  // The synchronisation the program carries, as the Neuron compiler places semaphores: instruction i waits for
  // dep_list[dep_begin[i] .. dep_begin[i + 1]), the earlier instructions whose read/write sets conflict with its own
  // (timing.h). KernelBuilder::take() fills it; it is empty in a program assembled by hand, and the timing model then
  // finds the dependencies itself. Whoever edits `instructions` after take() must clear it.
  std::vector<uint32_t> dep_list, dep_begin;
  bool has_dependencies() const { return dep_begin.size() == instructions.size() + 1; }
  // The instructions encoded (EncodedInstruction), filled by take() as well; the timing model encodes them itself
  // when it is empty. Whoever edits `instructions` after take() must clear it too.
  std::vector<EncodedInstruction> encoded;
  bool has_encoding() const { return encoded.size() == instructions.size(); }
};

// "file:line" of a source location, used in every message and trace slice.
std::string where_string(const std::source_location& loc);

}  // namespace nanotrn::neuron
