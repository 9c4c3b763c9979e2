// The tile-kernel builder: a kernel is a C++ function taking a KernelBuilder& that declares HBM tensors and
// SBUF/PSUM tiles and issues instructions mirroring nki.isa. Nothing runs here: the builder records a Program
// (program.h) and checks, at issue time, every rule the hardware would refuse. Each call takes a defaulted
// std::source_location, so an error (nanotrn::Error, whose what() starts with "file:line: ") and every trace
// slice name the kernel line that issued the instruction, and each message names the rule in brackets.
//
//   void kernel(KernelBuilder& b) {
//     View a = b.hbm("a", 128, 128, DType::bf16), x = b.hbm("x", 128, 512, DType::bf16);
//     View out = b.hbm("out", 128, 512, DType::f32);
//     View ta = b.sbuf("ta", 128, 128, DType::bf16), tx = b.sbuf("tx", 128, 512, DType::bf16);
//     View acc = b.psum("acc", 128, 512, DType::f32), r = b.sbuf("r", 128, 512, DType::f32);
//     b.dma_copy(ta, a);  b.dma_copy(tx, x);
//     b.matmul(acc, ta, tx, /*accumulate=*/false);    // acc[M,N] = ta[K,M]^T @ tx[K,N]
//     b.activation(r, acc, Act::exp, /*scale=*/1.0f, /*bias=*/0.0f);
//     b.dma_copy(out, r);
//   }
//   KernelBuilder b(spec_for("v3"));  kernel(b);  Program p = b.take();
//
// Rules (the bracketed key appears in the message):
//   [partition-limit]  a tile has more partitions than the core (128)
//   [partition-start]  a compute operand starts on a partition its size does not allow (65-128 -> 0; 33-64 -> 0 or
//                      64; 1-32 -> 0, 32, 64, 96) [NKI-A2]
//   [sbuf-capacity] / [psum-capacity]  allocation past the per-partition capacity
//   [psum-bank]        a PSUM tile crossing a 2 KiB bank (or larger than one)
//   [hbm-bounds] / [tile-bounds]  a slice outside its tensor / tile
//   [matmul-shape]     K, M (stationary free) or N (moving free) out of range, or mismatched
//   [matmul-memory] / [matmul-dtype]  operands not SBUF / dst not fp32 PSUM; fp32 mixed with narrower inputs
//   [engine-memory]    an engine touching a memory it cannot (DMA <-> PSUM, GpSimd <-> PSUM, both inputs in PSUM)
//   [activation-bias]  an immediate (non-zero) activation bias on v2, which takes only a bias vector [ISA]
//   [engine-op]        an engine asked for an op or mode its generation lacks (fp8 double-row matmul on v2, MX
//                      matmul before v4)
//   [access-pattern]   a strided pattern on an on-chip view (only HBM sides of a DMA take patterns here)
//   [shape]            operand shapes that do not match the instruction
//   [host-memory]      the recorded program outgrowing the host: every 2^16 instructions, their count times the
//                      measured host bytes an instruction costs by the end of a run (768) against what this
//                      process may still allocate (base/host_memory.h), so a huge shape ends in this error, not in
//                      the OOM killer (`kernel run matmul --m 65536 --k 65536 --n 65536` would need about 29 GiB)
// Not here: execution (executor.h), timing (timing.h), dynamic addressing, MX quantisation (quantize_mx).
#pragma once

#include <array>
#include <optional>
#include <source_location>
#include <string>

#include "base/host_memory.h"
#include "neuron/isa/machine.h"
#include "neuron/isa/program.h"

namespace nanotrn::neuron {

// The operands of the general activation: dst = f(src * scale + bias), scale and bias each an immediate or a
// per-partition [P, 1] float vector; optionally also reduce_into[p, 0] = sum over f of the fp32 results (before
// they are rounded to dst's dtype), summed in fp32 in free-axis order, then rounded to reduce_into's dtype
// (nki.isa.activation_reduce / activation's reduce_cmd [ISA]).
struct ActArgs {
  float scale = 1.0f, bias = 0.0f;
  std::optional<View> scale_vector, bias_vector, reduce_into;
};

// The [host-memory] rule over given figures (the builder passes host_memory()), for tests: an Error naming `loc`
// when `instructions` recorded instructions would need more than host.available_bytes; nothing when !host.known.
void check_program_fits(size_t instructions, const HostMemory& host, std::source_location loc);

class KernelBuilder {
 public:
  using Loc = std::source_location;
  explicit KernelBuilder(const NeuronCoreSpec& spec);

  // ---- Declarations: each returns a View of the whole buffer ----
  View hbm(const std::string& name, int64_t rows, int64_t cols, DType dtype, Loc loc = Loc::current());
  View sbuf(const std::string& name, int64_t partitions, int64_t free, DType dtype, Loc loc = Loc::current());
  // PSUM tiles are placed in the next free space of the current bank, or at the start of the next bank when they
  // would cross it. psum_at places one at an explicit byte offset within each partition.
  View psum(const std::string& name, int64_t partitions, int64_t free, DType dtype, Loc loc = Loc::current());
  View psum_at(const std::string& name, int64_t partitions, int64_t free, DType dtype, int64_t byte_offset,
               Loc loc = Loc::current());
  // A rectangle of `v`, relative to v's origin (of a pattern view: the sub-pattern, same strides).
  View slice(const View& v, int64_t p0, int64_t np, int64_t f0, int64_t nf, Loc loc = Loc::current()) const;
  // An access pattern over HBM view `v` (a DMA side): element (p, f) at element (p * ps + f * fs) from v's origin
  // in the tensor's row-major storage, p < np, f < nf; ps, fs >= 0 element strides. Examples: ps = 0 broadcasts
  // one row to np partitions; ps = 1, fs = cols reads a [nf, np] block transposed. [access-pattern] on a tile,
  // [hbm-bounds] when an element falls outside the tensor.
  View pattern(const View& v, int64_t ps, int64_t np, int64_t fs, int64_t nf, Loc loc = Loc::current()) const;

  // Rounding of every later instruction's output (default nearest-even).
  void set_rounding(Rounding r) { rounding_ = r; }

  // ---- Instructions ----
  // HBM <-> SBUF or SBUF -> SBUF, same shape, casts through fp32. `queue` in [0, spec dma_queues).
  void dma_copy(const View& dst, const View& src, int queue = 0, Loc loc = Loc::current());
  // dst[M,N] (+)= stationary[K,M]^T @ moving[K,N]; dst fp32 PSUM, operands SBUF.
  void matmul(const View& dst, const View& stationary, const View& moving, bool accumulate = false,
              Loc loc = Loc::current());
  // fp8 double-row matmul (v3/v4, perf_mode=double_row [NKI-A3] [ISA]): a contraction over 2K rows at the cycle
  // cost of a K-row matmul. The hardware reads [K, 2, M] / [K, 2, N] access patterns; the model takes the two rows
  // of each as two views (st0, st1 [K, M]; mv0, mv1 [K, N]):
  //   dst[m, n] (+)= sum_{k<K} st0[k, m] mv0[k, n] + sum_{k<K} st1[k, m] mv1[k, n]   (fp32, in that order).
  // Inputs fp8 (e4m3 / e5m2) [matmul-dtype]; [engine-op] on v2.
  void matmul_double_row(const View& dst, const View& st0, const View& st1, const View& mv0, const View& mv1,
                         bool accumulate = false, Loc loc = Loc::current());
  // MX matmul (v4, nc_matmul_mx [NKI-A4] [ISA] [MXFP]): a contraction over 4K rows at the cycle cost of a K-row
  // matmul, 4x the bf16 rate. The hardware packs 4 fp8 values per element ([K, M] x4); the model takes the four
  // quarters as views st[j] [K, M], mv[j] [K, N] (fp8 e4m3 / e5m2, K a multiple of 32 up to 128) and the E8M0 block
  // scales as int32 tiles of unbiased exponents, one per 8 partitions (= 32 values: 8 partitions x 4 quarters):
  // st_scale [K/8, M], mv_scale [K/8, N]. dst[m, n] (+)= sum_j sum_k st[j][k, m] 2^st_scale[k/8, m] mv[j][k, n]
  // 2^mv_scale[k/8, n] in fp32 (j outer). [engine-op] before v4; [matmul-dtype], [matmul-shape], [shape] as usual.
  void matmul_mx(const View& dst, const std::array<View, 4>& st, const std::array<View, 4>& mv, const View& st_scale,
                 const View& mv_scale, bool accumulate = false, Loc loc = Loc::current());
  // TensorE transpose: dst[F,P] (PSUM) = src[P,F] (SBUF), P, F <= 128; dst dtype = src dtype or fp32.
  void transpose(const View& dst, const View& src, Loc loc = Loc::current());
  // ScalarE: dst = f(src * scale + bias), computed in fp32 (the product and the sum each rounded to fp32, no fused
  // multiply-add: a model assumption), rounded to dst's dtype.
  void activation(const View& dst, const View& src, Act f, float scale = 1.0f, float bias = 0.0f,
                  Loc loc = Loc::current());
  // Same with a per-partition bias vector [P, 1] (any float dtype): dst[p, f] = f(src[p, f] * scale + bias[p, 0]).
  void activation(const View& dst, const View& src, Act f, float scale, const View& bias, Loc loc = Loc::current());
  // The general form: vector or immediate scale and bias, optional free-axis add-reduction (see ActArgs).
  void activation(const View& dst, const View& src, Act f, const ActArgs& args, Loc loc = Loc::current());
  // VectorE: dst = a op b.
  void tensor_tensor(const View& dst, const View& a, const View& b, AluOp op, Loc loc = Loc::current());
  // VectorE: dst = (src op0 s0) [op1 s1].
  void tensor_scalar(const View& dst, const View& src, AluOp op0, float s0, Loc loc = Loc::current());
  void tensor_scalar(const View& dst, const View& src, AluOp op0, float s0, AluOp op1, float s1,
                     Loc loc = Loc::current());
  // VectorE with a per-partition operand vector [P, 1]: dst[p, f] = src[p, f] op0 s0[p, 0].
  void tensor_scalar(const View& dst, const View& src, AluOp op0, const View& s0, Loc loc = Loc::current());
  // VectorE: dst[P,1] = reduction of src[P,F] along the free axis (add, max or min), negated when `negate`
  // (nki.isa.tensor_reduce's negate, e.g. -max as an activation bias).
  void reduce(const View& dst, const View& src, AluOp op, bool negate = false, Loc loc = Loc::current());
  // VectorE: dst = 1 / src (fp32, then rounded) (nki.isa.reciprocal).
  void reciprocal(const View& dst, const View& src, Loc loc = Loc::current());
  // VectorE: fill with a constant (rounded to dst's dtype).
  void memset(const View& dst, float value, Loc loc = Loc::current());
  // VectorE: copy with cast (fp32 intermediate, one rounding to dst's dtype).
  void copy(const View& dst, const View& src, Loc loc = Loc::current());
  // GpSimd: dst[p, f] = offset + p * channel_multiplier + f * step (int32 math, then cast). dst in SBUF.
  void iota(const View& dst, int64_t offset, int64_t channel_multiplier, int64_t step, Loc loc = Loc::current());

  // GpSimd: dst[p, f] = (offset + p * channel_multiplier + f * step >= 0) ? src[p, f] : fill (a causal mask is
  // offset 0, multiplier 1, step -1 over [query, key]). dst and src in SBUF.
  void affine_select(const View& dst, const View& src, int64_t offset, int64_t channel_multiplier, int64_t step,
                     float fill, Loc loc = Loc::current());

  const NeuronCoreSpec& spec() const { return spec_; }
  const Program& program() const { return program_; }
  // The recorded program with its dependencies found (Program::dep_list) and its instructions encoded
  // (Program::encoded); the builder is empty afterwards.
  Program take();

 private:
  View add_tile(const std::string& name, Memory m, int64_t partitions, int64_t free, DType dtype, int64_t offset,
                Loc loc);
  const Buffer& buf(const View& v, Loc loc) const;
  void check_compute_operand(const View& v, Engine e, Loc loc) const;
  void check_matmul(const View& dst, const View& stationary, const View& moving, int64_t m, int64_t n, Loc loc) const;
  void check_vector_operand(const View& v, const View& like, Engine e, Loc loc) const;
  // "shape" rule: dst and src cover the same partitions x free elements.
  void check_same_shape(const char* op, const View& dst, const View& src, Loc loc) const;
  // Both operands legal for engine e, and of the same shape (the single-input compute instructions).
  void check_unary_operands(const char* op, const View& dst, const View& src, Engine e, Loc loc) const;
  Instruction& push(Opcode op, Engine e, const View& dst, std::vector<View> srcs, Loc loc);

  const NeuronCoreSpec& spec_;
  Program program_;
  int64_t sbuf_next_ = 0, psum_next_ = 0;
  Rounding rounding_ = Rounding::nearest_even;
};

}  // namespace nanotrn::neuron
