// KernelBuilder: records instructions and enforces the hardware rules listed in builder.h at issue time.
// Not here: execution or timing.
#include "neuron/isa/builder.h"

#include "base/error.h"
#include "base/format.h"
#include "base/host_memory.h"
#include "neuron/isa/dependencies.h"
#include "neuron/isa/encoding.h"

namespace nanotrn::neuron {
namespace {

constexpr int64_t kAlign = 16;  // assumed: 16-byte tile alignment inside a partition (hardware-facts §10)

int64_t align_up(int64_t x) { return (x + kAlign - 1) / kAlign * kAlign; }

std::string shape_str(const View& v) {
  std::string s = "[";  // appended piecewise: GCC 12 warns falsely (-Wrestrict) on "[" + std::to_string(...)
  s += std::to_string(v.np);
  s += ", ";
  s += std::to_string(v.nf);
  s += "]";
  return s;
}

[[noreturn]] void fail(const std::string& rule, const std::string& what, std::source_location loc) {
  throw Error("[" + rule + "] " + what, loc);
}

// Host bytes a recorded instruction costs by the end of a run (its record, dependencies, encoding and timing state).
// Measured: peak RSS over instructions of `kernel run matmul` at 16384^3 (624,640 instructions, 601 B each) and
// 32768^3 (4,988,928 instructions, 718 B each) on a Zen 4 host; rounded up.
constexpr double kHostBytesPerInstruction = 768;
// How often the [host-memory] rule looks (reading /proc/meminfo): every 2^16 instructions.
constexpr size_t kHostMemoryStride = size_t{1} << 16;

}  // namespace

void check_program_fits(size_t instructions, const HostMemory& host, std::source_location loc) {
  if (!host.known) return;
  const double need = static_cast<double>(instructions) * kHostBytesPerInstruction;
  if (need <= host.available_bytes) return;
  fail("host-memory",
       "the program has reached " + std::to_string(instructions) +
           " instructions; recording and simulating them needs "
           "about " +
           format_bytes(need) + " (" + std::to_string(static_cast<int>(kHostBytesPerInstruction)) +
           " B each), more than the " + format_bytes(host.available_bytes) + " this machine has available (" +
           host.basis + "); run a smaller shape (the time of a large GEMM scales from a smaller one's)",
       loc);
}

namespace {}  // namespace

KernelBuilder::KernelBuilder(const NeuronCoreSpec& spec) : spec_(spec) { program_.target = spec.name; }

View KernelBuilder::hbm(const std::string& name, int64_t rows, int64_t cols, DType dtype, Loc loc) {
  if (rows <= 0 || cols <= 0) fail("shape", "HBM tensor '" + name + "' needs positive dimensions", loc);
  Buffer b{name, Memory::hbm, dtype, rows, cols, 0, loc};
  program_.buffers.push_back(b);
  return View{static_cast<int>(program_.buffers.size()) - 1, 0, rows, 0, cols};
}

View KernelBuilder::add_tile(const std::string& name, Memory m, int64_t partitions, int64_t free, DType dtype,
                             int64_t offset, Loc loc) {
  if (partitions <= 0 || free <= 0) fail("shape", "tile '" + name + "' needs positive dimensions", loc);
  if (partitions > static_cast<int64_t>(spec_.partitions.value))
    fail("partition-limit",
         "tile '" + name + "' has " + std::to_string(partitions) + " partitions; the " + spec_.name + " core has " +
             std::to_string(static_cast<int64_t>(spec_.partitions.value)),
         loc);
  Buffer b{name, m, dtype, partitions, free, offset, loc};
  program_.buffers.push_back(b);
  return View{static_cast<int>(program_.buffers.size()) - 1, 0, partitions, 0, free};
}

View KernelBuilder::sbuf(const std::string& name, int64_t partitions, int64_t free, DType dtype, Loc loc) {
  const int64_t bytes = free * static_cast<int64_t>(dtype_size(dtype));
  const int64_t cap = static_cast<int64_t>(spec_.sbuf_bytes_per_partition.value);
  const int64_t off = align_up(sbuf_next_);
  if (free > 0 && off + bytes > cap)
    fail("sbuf-capacity",
         "SBUF tile '" + name + "' needs " + std::to_string(bytes) + " B per partition at offset " +
             std::to_string(off) + "; capacity is " + std::to_string(cap) + " B per partition",
         loc);
  View v = add_tile(name, Memory::sbuf, partitions, free, dtype, off, loc);
  sbuf_next_ = off + bytes;
  return v;
}

View KernelBuilder::psum(const std::string& name, int64_t partitions, int64_t free, DType dtype, Loc loc) {
  const int64_t bytes = free * static_cast<int64_t>(dtype_size(dtype));
  const int64_t bank = static_cast<int64_t>(spec_.psum_bank_bytes.value);
  int64_t off = align_up(psum_next_);
  if (bytes <= bank && off / bank != (off + bytes - 1) / bank) off = (off / bank + 1) * bank;
  return psum_at(name, partitions, free, dtype, off, loc);
}

View KernelBuilder::psum_at(const std::string& name, int64_t partitions, int64_t free, DType dtype, int64_t byte_offset,
                            Loc loc) {
  const int64_t bytes = free * static_cast<int64_t>(dtype_size(dtype));
  const int64_t bank = static_cast<int64_t>(spec_.psum_bank_bytes.value);
  const int64_t cap = static_cast<int64_t>(spec_.psum_bytes_per_partition.value);
  if (byte_offset < 0 || byte_offset % kAlign != 0)
    fail("psum-bank", "PSUM tile '" + name + "' offset " + std::to_string(byte_offset) + " is not 16-byte aligned",
         loc);
  if (free > 0 && byte_offset + bytes > cap)
    fail("psum-capacity",
         "PSUM tile '" + name + "' needs " + std::to_string(bytes) + " B per partition at offset " +
             std::to_string(byte_offset) + "; capacity is " + std::to_string(cap) + " B per partition",
         loc);
  if (free > 0 && byte_offset / bank != (byte_offset + bytes - 1) / bank)
    fail("psum-bank",
         "PSUM tile '" + name + "' (" + std::to_string(bytes) + " B per partition at offset " +
             std::to_string(byte_offset) + ") crosses a " + std::to_string(bank) + " B PSUM bank",
         loc);
  for (const Buffer& other : program_.buffers) {
    if (other.memory != Memory::psum) continue;
    const int64_t oend = other.offset + other.cols * static_cast<int64_t>(dtype_size(other.dtype));
    if (byte_offset < oend && other.offset < byte_offset + bytes)
      fail("psum-capacity",
           "PSUM tile '" + name + "' overlaps PSUM tile '" + other.name + "' declared at " + where_string(other.where),
           loc);
  }
  View v = add_tile(name, Memory::psum, partitions, free, dtype, byte_offset, loc);
  psum_next_ = std::max(psum_next_, byte_offset + bytes);
  return v;
}

const Buffer& KernelBuilder::buf(const View& v, Loc loc) const {
  if (v.buffer < 0 || v.buffer >= static_cast<int>(program_.buffers.size()))
    fail("shape", "view of an unknown buffer", loc);
  return program_.buffers[static_cast<size_t>(v.buffer)];
}

View KernelBuilder::slice(const View& v, int64_t p0, int64_t np, int64_t f0, int64_t nf, Loc loc) const {
  const Buffer& b = buf(v, loc);
  const bool ok = p0 >= 0 && np > 0 && f0 >= 0 && nf > 0 && p0 + np <= v.np && f0 + nf <= v.nf;
  if (!ok)
    fail(b.memory == Memory::hbm ? "hbm-bounds" : "tile-bounds",
         std::string(memory_name(b.memory)) + " access [" + std::to_string(v.p0 + p0) + ":" +
             std::to_string(v.p0 + p0 + np) + ", " + std::to_string(v.f0 + f0) + ":" + std::to_string(v.f0 + f0 + nf) +
             "] is outside '" + b.name + "' view " + shape_str(v) + " of [" + std::to_string(b.rows) + ", " +
             std::to_string(b.cols) + "]",
         loc);
  if (!v.pattern) return View{v.buffer, v.p0 + p0, np, v.f0 + f0, nf};
  const int64_t origin = v.p0 * b.cols + v.f0 + p0 * v.ps + f0 * v.fs;
  View out = v;
  out.p0 = origin / b.cols;
  out.f0 = origin % b.cols;
  out.np = np;
  out.nf = nf;
  return out;
}

View KernelBuilder::pattern(const View& v, int64_t ps, int64_t np, int64_t fs, int64_t nf, Loc loc) const {
  const Buffer& b = buf(v, loc);
  if (b.memory != Memory::hbm)
    fail("access-pattern",
         "strided access patterns are modelled for HBM tensors only; '" + b.name + "' is a " + memory_name(b.memory) +
             " tile (use a rectangle)",
         loc);
  if (ps < 0 || fs < 0 || np <= 0 || nf <= 0)
    fail("access-pattern", "pattern needs np, nf > 0 and strides ps, fs >= 0", loc);
  const int64_t origin = v.p0 * b.cols + v.f0;
  const int64_t last = origin + (np - 1) * ps + (nf - 1) * fs;
  if (last >= b.rows * b.cols)
    fail("hbm-bounds",
         "pattern [" + std::to_string(np) + " x stride " + std::to_string(ps) + ", " + std::to_string(nf) +
             " x stride " + std::to_string(fs) + "] from element " + std::to_string(origin) + " reaches element " +
             std::to_string(last) + " of '" + b.name + "' [" + std::to_string(b.rows) + ", " + std::to_string(b.cols) +
             "]",
         loc);
  View out{v.buffer, v.p0, np, v.f0, nf};
  out.pattern = true;
  out.ps = ps;
  out.fs = fs;
  return out;
}

void KernelBuilder::check_compute_operand(const View& v, Engine e, Loc loc) const {
  const Buffer& b = buf(v, loc);
  if (b.memory == Memory::hbm)
    fail("engine-memory", std::string(hw::engine_track_name(e)) + " engine cannot access HBM tensor '" + b.name + "'",
         loc);
  if (e == Engine::gpsimd && b.memory == Memory::psum)
    fail("engine-memory", "GpSimd engine cannot access PSUM tile '" + b.name + "'", loc);
  const bool start_ok = v.np > 64 ? v.p0 == 0 : v.np > 32 ? v.p0 % 64 == 0 : v.p0 % 32 == 0;
  if (!start_ok)
    fail("partition-start",
         "operand of '" + b.name + "' spans " + std::to_string(v.np) + " partitions starting at partition " +
             std::to_string(v.p0) + " (65-128 partitions must start at 0, 33-64 at 0 or 64, 1-32 at a multiple of 32)",
         loc);
}

Program KernelBuilder::take() {
  find_dependencies(program_, program_.dep_list, program_.dep_begin);
  encode_program(program_, program_.encoded);
  return std::move(program_);
}

Instruction& KernelBuilder::push(Opcode op, Engine e, const View& dst, std::vector<View> srcs, Loc loc) {
  Instruction ins;
  ins.op = op;
  ins.engine = e;
  ins.dst = dst;
  ins.srcs = std::move(srcs);
  ins.rounding = rounding_;
  ins.where = loc;
  if (program_.instructions.size() % kHostMemoryStride == kHostMemoryStride - 1)
    check_program_fits(program_.instructions.size() + 1, host_memory(), loc);
  program_.instructions.push_back(std::move(ins));
  return program_.instructions.back();
}

void KernelBuilder::dma_copy(const View& dst, const View& src, int queue, Loc loc) {
  const Buffer& d = buf(dst, loc);
  const Buffer& s = buf(src, loc);
  if (d.memory == Memory::psum || s.memory == Memory::psum)
    fail("engine-memory", "dma_copy cannot access PSUM (only HBM and SBUF)", loc);
  if (d.memory == Memory::hbm && s.memory == Memory::hbm)
    fail("engine-memory", "dma_copy from HBM to HBM is not modelled; one side must be SBUF", loc);
  check_same_shape("dma_copy", dst, src, loc);
  if (queue < 0 || queue >= static_cast<int>(spec_.dma_queues.value))
    fail("dma-queue",
         "DMA queue " + std::to_string(queue) + " out of range [0, " +
             std::to_string(static_cast<int>(spec_.dma_queues.value)) + ")",
         loc);
  push(Opcode::dma_copy, Engine::dma, dst, {src}, loc).dma_queue = queue;
}

void KernelBuilder::check_matmul(const View& dst, const View& stationary, const View& moving, int64_t m, int64_t n,
                                 Loc loc) const {
  const Buffer& d = buf(dst, loc);
  const Buffer& st = buf(stationary, loc);
  const Buffer& mv = buf(moving, loc);
  if (d.memory != Memory::psum) fail("matmul-memory", "matmul dst '" + d.name + "' must be a PSUM tile", loc);
  if (st.memory != Memory::sbuf || mv.memory != Memory::sbuf)
    fail("matmul-memory", "matmul stationary and moving must be SBUF tiles", loc);
  if (d.dtype != DType::f32) fail("matmul-dtype", "matmul dst must be fp32 (PSUM accumulates in fp32)", loc);
  if (st.dtype == DType::i32 || mv.dtype == DType::i32) fail("matmul-dtype", "matmul inputs cannot be int32", loc);
  if ((st.dtype == DType::f32) != (mv.dtype == DType::f32))
    fail("matmul-dtype",
         "fp32 matmul inputs must pair with fp32 (stationary " + std::string(dtype_name(st.dtype)) + ", moving " +
             std::string(dtype_name(mv.dtype)) + ")",
         loc);
  const int64_t k = stationary.np;
  const auto max_k = static_cast<int64_t>(spec_.matmul_max_k.value);
  const auto max_m = static_cast<int64_t>(spec_.matmul_max_stationary_free.value);
  const auto max_n = static_cast<int64_t>(spec_.matmul_max_moving_free.value);
  if (moving.np != k)
    fail("matmul-shape",
         "contraction (partition) sizes differ: stationary " + shape_str(stationary) + ", moving " + shape_str(moving),
         loc);
  if (k > max_k) fail("matmul-shape", "contraction K = " + std::to_string(k) + " > " + std::to_string(max_k), loc);
  if (m > max_m)
    fail("matmul-shape", "stationary free size M = " + std::to_string(m) + " > " + std::to_string(max_m), loc);
  if (n > max_n) fail("matmul-shape", "moving free size N = " + std::to_string(n) + " > " + std::to_string(max_n), loc);
  if (dst.np != m || dst.nf != n)
    fail("matmul-shape",
         "dst " + shape_str(dst) + " must be [M, N] = [" + std::to_string(m) + ", " + std::to_string(n) + "]", loc);
  check_compute_operand(dst, Engine::tensor, loc);
  check_compute_operand(stationary, Engine::tensor, loc);
  check_compute_operand(moving, Engine::tensor, loc);
}

void KernelBuilder::matmul(const View& dst, const View& stationary, const View& moving, bool accumulate, Loc loc) {
  check_matmul(dst, stationary, moving, stationary.nf, moving.nf, loc);
  push(Opcode::matmul, Engine::tensor, dst, {stationary, moving}, loc).accumulate = accumulate;
}

void KernelBuilder::matmul_double_row(const View& dst, const View& st0, const View& st1, const View& mv0,
                                      const View& mv1, bool accumulate, Loc loc) {
  if (spec_.fp8_double_row_speedup.value < 2)
    fail("engine-op", "fp8 double-row matmul needs NeuronCore-v3 or later (this is " + spec_.name + ")", loc);
  auto is_fp8 = [&](const View& v) {
    const DType t = buf(v, loc).dtype;
    return t == DType::f8e4m3 || t == DType::f8e5m2;
  };
  if (!is_fp8(st0) || !is_fp8(st1) || !is_fp8(mv0) || !is_fp8(mv1))
    fail("matmul-dtype", "double-row matmul takes fp8 (e4m3 / e5m2) stationary and moving tiles", loc);
  if (st0.np != st1.np || st0.nf != st1.nf || mv0.np != mv1.np || mv0.nf != mv1.nf)
    fail("matmul-shape",
         "double-row halves differ: stationary " + shape_str(st0) + " / " + shape_str(st1) + ", moving " +
             shape_str(mv0) + " / " + shape_str(mv1),
         loc);
  check_matmul(dst, st0, mv0, st0.nf, mv0.nf, loc);
  check_compute_operand(st1, Engine::tensor, loc);
  check_compute_operand(mv1, Engine::tensor, loc);
  Instruction& ins = push(Opcode::matmul, Engine::tensor, dst, {st0, mv0, st1, mv1}, loc);
  ins.accumulate = accumulate;
  ins.double_row = true;
}

void KernelBuilder::matmul_mx(const View& dst, const std::array<View, 4>& st, const std::array<View, 4>& mv,
                              const View& st_scale, const View& mv_scale, bool accumulate, Loc loc) {
  if (spec_.mx_speedup.value < 4)
    fail("engine-op", "MX matmul (nc_matmul_mx) needs NeuronCore-v4 (this is " + spec_.name + ")", loc);
  for (int j = 0; j < 4; ++j) {
    const DType a = buf(st[j], loc).dtype, b = buf(mv[j], loc).dtype;
    if ((a != DType::f8e4m3 && a != DType::f8e5m2) || (b != DType::f8e4m3 && b != DType::f8e5m2))
      fail("matmul-dtype", "MX matmul takes fp8 (e4m3 / e5m2) quarters", loc);
    if (st[j].np != st[0].np || st[j].nf != st[0].nf || mv[j].np != mv[0].np || mv[j].nf != mv[0].nf)
      fail("matmul-shape", "MX quarters differ in shape", loc);
  }
  const int64_t k = st[0].np, m = st[0].nf, n = mv[0].nf;
  if (k % 32 != 0)
    fail("matmul-shape", "MX contraction K = " + std::to_string(k) + " must be a multiple of 32 (scale blocks)", loc);
  if (buf(st_scale, loc).dtype != DType::i32 || buf(mv_scale, loc).dtype != DType::i32)
    fail("matmul-dtype", "MX scales are int32 tiles of unbiased E8M0 exponents", loc);
  if (st_scale.np != k / 8 || st_scale.nf != m || mv_scale.np != k / 8 || mv_scale.nf != n)
    fail("shape",
         "MX scales must be [K/8, M] = [" + std::to_string(k / 8) + ", " + std::to_string(m) + "] and [K/8, N] = [" +
             std::to_string(k / 8) + ", " + std::to_string(n) + "]",
         loc);
  check_matmul(dst, st[0], mv[0], m, n, loc);
  for (int j = 1; j < 4; ++j) {
    check_compute_operand(st[j], Engine::tensor, loc);
    check_compute_operand(mv[j], Engine::tensor, loc);
  }
  check_compute_operand(st_scale, Engine::tensor, loc);
  check_compute_operand(mv_scale, Engine::tensor, loc);
  Instruction& ins = push(Opcode::matmul, Engine::tensor, dst,
                          {st[0], mv[0], st[1], mv[1], st[2], mv[2], st[3], mv[3], st_scale, mv_scale}, loc);
  ins.accumulate = accumulate;
  ins.mx = true;
}

void KernelBuilder::transpose(const View& dst, const View& src, Loc loc) {
  const Buffer& d = buf(dst, loc);
  const Buffer& s = buf(src, loc);
  if (d.memory != Memory::psum || s.memory != Memory::sbuf)
    fail("matmul-memory", "TensorE transpose reads SBUF and writes PSUM", loc);
  if (d.dtype != s.dtype && d.dtype != DType::f32)
    fail("matmul-dtype", "transpose dst dtype must equal src dtype or be fp32", loc);
  if (src.np > 128 || src.nf > 128)
    fail("matmul-shape", "TensorE transpose src " + shape_str(src) + " exceeds [128, 128]", loc);
  if (dst.np != src.nf || dst.nf != src.np)
    fail("shape", "transpose dst " + shape_str(dst) + " must be the swapped src " + shape_str(src), loc);
  check_compute_operand(dst, Engine::tensor, loc);
  check_compute_operand(src, Engine::tensor, loc);
  push(Opcode::transpose, Engine::tensor, dst, {src}, loc);
}

void KernelBuilder::activation(const View& dst, const View& src, Act f, float scale, float bias, Loc loc) {
  if (spec_.name == "v2" && bias != 0.0f)
    fail("activation-bias", "NeuronCore-v2 takes the activation bias only as a per-partition [P, 1] vector", loc);
  check_unary_operands("activation", dst, src, Engine::scalar, loc);
  Instruction& ins = push(Opcode::activation, Engine::scalar, dst, {src}, loc);
  ins.act = f;
  ins.scale = scale;
  ins.bias = bias;
}

void KernelBuilder::check_same_shape(const char* op, const View& dst, const View& src, Loc loc) const {
  if (dst.np != src.np || dst.nf != src.nf)
    fail("shape", std::string(op) + " shapes differ: dst " + shape_str(dst) + ", src " + shape_str(src), loc);
}

void KernelBuilder::check_unary_operands(const char* op, const View& dst, const View& src, Engine e, Loc loc) const {
  check_compute_operand(dst, e, loc);
  check_compute_operand(src, e, loc);
  check_same_shape(op, dst, src, loc);
}

void KernelBuilder::check_vector_operand(const View& v, const View& like, Engine e, Loc loc) const {
  check_compute_operand(v, e, loc);
  if (v.np != like.np || v.nf != 1)
    fail("shape", "per-partition operand " + shape_str(v) + " must be [" + std::to_string(like.np) + ", 1]", loc);
  if (buf(v, loc).dtype == DType::i32) fail("shape", "per-partition operand must be a float tile", loc);
}

void KernelBuilder::activation(const View& dst, const View& src, Act f, float scale, const View& bias, Loc loc) {
  ActArgs a;
  a.scale = scale;
  a.bias_vector = bias;
  activation(dst, src, f, a, loc);
}

void KernelBuilder::activation(const View& dst, const View& src, Act f, const ActArgs& args, Loc loc) {
  if (args.scale_vector) check_vector_operand(*args.scale_vector, src, Engine::scalar, loc);
  if (args.bias_vector) check_vector_operand(*args.bias_vector, src, Engine::scalar, loc);
  if (args.reduce_into) check_vector_operand(*args.reduce_into, src, Engine::scalar, loc);
  activation(dst, src, f, args.scale, args.bias_vector ? 0.0f : args.bias, loc);
  Instruction& ins = program_.instructions.back();
  if (args.scale_vector) {
    ins.srcs.push_back(*args.scale_vector);
    ins.scale_vector = true;
  }
  if (args.bias_vector) {
    ins.srcs.push_back(*args.bias_vector);
    ins.vector_operand = true;
  }
  if (args.reduce_into) {
    ins.has_reduce_dst = true;
    ins.reduce_dst = *args.reduce_into;
  }
}

void KernelBuilder::tensor_tensor(const View& dst, const View& a, const View& b, AluOp op, Loc loc) {
  check_compute_operand(dst, Engine::vector, loc);
  check_compute_operand(a, Engine::vector, loc);
  check_compute_operand(b, Engine::vector, loc);
  if (buf(a, loc).memory == Memory::psum && buf(b, loc).memory == Memory::psum)
    fail("engine-memory", "tensor_tensor inputs cannot both be in PSUM", loc);
  if (dst.np != a.np || dst.nf != a.nf || b.np != a.np || b.nf != a.nf)
    fail("shape", "tensor_tensor shapes differ: dst " + shape_str(dst) + ", a " + shape_str(a) + ", b " + shape_str(b),
         loc);
  push(Opcode::tensor_tensor, Engine::vector, dst, {a, b}, loc).alu0 = op;
}

void KernelBuilder::tensor_scalar(const View& dst, const View& src, AluOp op0, float s0, Loc loc) {
  check_unary_operands("tensor_scalar", dst, src, Engine::vector, loc);
  Instruction& ins = push(Opcode::tensor_scalar, Engine::vector, dst, {src}, loc);
  ins.alu0 = op0;
  ins.scale = s0;
}

void KernelBuilder::tensor_scalar(const View& dst, const View& src, AluOp op0, float s0, AluOp op1, float s1, Loc loc) {
  tensor_scalar(dst, src, op0, s0, loc);
  Instruction& ins = program_.instructions.back();
  ins.has_op1 = true;
  ins.alu1 = op1;
  ins.bias = s1;
}

void KernelBuilder::tensor_scalar(const View& dst, const View& src, AluOp op0, const View& s0, Loc loc) {
  check_vector_operand(s0, src, Engine::vector, loc);
  tensor_scalar(dst, src, op0, 0.0f, loc);
  Instruction& ins = program_.instructions.back();
  ins.srcs.push_back(s0);
  ins.vector_operand = true;
}

void KernelBuilder::reduce(const View& dst, const View& src, AluOp op, bool negate, Loc loc) {
  check_compute_operand(dst, Engine::vector, loc);
  check_compute_operand(src, Engine::vector, loc);
  if (op != AluOp::add && op != AluOp::max && op != AluOp::min)
    fail("shape", std::string("reduce supports add, max, min, not ") + alu_name(op), loc);
  if (dst.np != src.np || dst.nf != 1)
    fail("shape", "reduce dst " + shape_str(dst) + " must be [" + std::to_string(src.np) + ", 1]", loc);
  Instruction& ins = push(Opcode::reduce, Engine::vector, dst, {src}, loc);
  ins.alu0 = op;
  ins.negate = negate;
}

void KernelBuilder::reciprocal(const View& dst, const View& src, Loc loc) {
  check_unary_operands("reciprocal", dst, src, Engine::vector, loc);
  push(Opcode::reciprocal, Engine::vector, dst, {src}, loc);
}

void KernelBuilder::memset(const View& dst, float value, Loc loc) {
  check_compute_operand(dst, Engine::vector, loc);
  push(Opcode::memset, Engine::vector, dst, {}, loc).value = value;
}

void KernelBuilder::copy(const View& dst, const View& src, Loc loc) {
  check_unary_operands("copy", dst, src, Engine::vector, loc);
  push(Opcode::copy, Engine::vector, dst, {src}, loc);
}

void KernelBuilder::iota(const View& dst, int64_t offset, int64_t channel_multiplier, int64_t step, Loc loc) {
  check_compute_operand(dst, Engine::gpsimd, loc);
  Instruction& ins = push(Opcode::iota, Engine::gpsimd, dst, {}, loc);
  ins.iota_offset = offset;
  ins.channel_multiplier = channel_multiplier;
  ins.step = step;
}

void KernelBuilder::affine_select(const View& dst, const View& src, int64_t offset, int64_t channel_multiplier,
                                  int64_t step, float fill, Loc loc) {
  check_unary_operands("affine_select", dst, src, Engine::gpsimd, loc);
  Instruction& ins = push(Opcode::affine_select, Engine::gpsimd, dst, {src}, loc);
  ins.iota_offset = offset;
  ins.channel_multiplier = channel_multiplier;
  ins.step = step;
  ins.value = fill;
}

}  // namespace nanotrn::neuron
