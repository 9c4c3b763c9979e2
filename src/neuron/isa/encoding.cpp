// Packs each instruction's cost inputs (encoding.h); the rules for each flag are the timing.h table's.
#include "neuron/isa/encoding.h"

#include <algorithm>

namespace nanotrn::neuron {

namespace {

// Whether matmul `b` can reuse the stationary `a` (the previous TensorE instruction) left in the array: the same
// stationary region(s), and the same double-row / MX mode.
bool same_stationary(const Instruction& a, const Instruction& b) {
  if (a.op != Opcode::matmul || b.op != Opcode::matmul || a.double_row != b.double_row || a.mx != b.mx) return false;
  auto same = [](const View& x, const View& y) {
    return x.buffer == y.buffer && x.p0 == y.p0 && x.np == y.np && x.f0 == y.f0 && x.nf == y.nf;
  };
  if (a.mx)  // the four quarters and the stationary scales
    return same(a.srcs[0], b.srcs[0]) && same(a.srcs[2], b.srcs[2]) && same(a.srcs[4], b.srcs[4]) &&
           same(a.srcs[6], b.srcs[6]) && same(a.srcs[8], b.srcs[8]);
  return same(a.srcs[0], b.srcs[0]) && (!a.double_row || same(a.srcs[2], b.srcs[2]));
}

}  // namespace

EncodedInstruction encode(const Instruction& ins, const Program& p, const Instruction* previous_tensor) {
  using F = EncodedInstruction::Flag;
  auto dtype = [&](const View& v) { return p.buffers[static_cast<size_t>(v.buffer)].dtype; };
  auto memory = [&](const View& v) { return p.buffers[static_cast<size_t>(v.buffer)].memory; };
  EncodedInstruction e;
  e.op = ins.op;
  e.engine = ins.engine;
  e.dma_queue = ins.dma_queue;
  e.a = ins.dst.nf;
  uint8_t flags = 0;
  switch (ins.op) {
    case Opcode::dma_copy: {
      const View &d = ins.dst, &s = ins.srcs[0];
      auto bytes = [&](const View& v) { return v.np * v.nf * static_cast<int64_t>(dtype_size(dtype(v))); };
      e.a = std::max(bytes(d), bytes(s));
      const bool unit = (!d.pattern || d.fs == 1) && (!s.pattern || s.fs == 1);  // one descriptor per row
      e.b = unit ? d.np : d.np * d.nf;
      break;
    }
    case Opcode::matmul:
      e.a = ins.srcs[0].nf;
      e.b = ins.srcs[1].nf;
      if (dtype(ins.srcs[0]) == DType::f32) flags |= F::fp32;
      if (previous_tensor != nullptr && same_stationary(*previous_tensor, ins)) flags |= F::reuses_stationary;
      break;
    case Opcode::transpose:
      e.a = ins.srcs[0].np;
      e.b = ins.srcs[0].nf;
      break;
    case Opcode::activation:
      if (ins.has_reduce_dst) flags |= F::with_reduce;
      break;
    case Opcode::tensor_tensor: {
      const View &a = ins.srcs[0], &b = ins.srcs[1];
      const bool one_psum = memory(a) == Memory::psum || memory(b) == Memory::psum;
      const bool fast_bf16 = dtype(a) == DType::bf16 && dtype(b) == DType::bf16 && dtype(ins.dst) == DType::bf16 &&
                             memory(a) == Memory::sbuf && memory(b) == Memory::sbuf &&
                             (ins.alu0 == AluOp::add || ins.alu0 == AluOp::subtract || ins.alu0 == AluOp::multiply);
      if (one_psum || fast_bf16) flags |= F::one_pass;
      break;
    }
    case Opcode::reduce:
      e.a = ins.srcs[0].nf;
      if (dtype(ins.srcs[0]) == DType::bf16 && dtype(ins.dst) == DType::bf16 &&
          (ins.alu0 == AluOp::add || ins.alu0 == AluOp::max))
        flags |= F::one_pass;
      break;
    case Opcode::memset: {
      const DType t = dtype(ins.dst);
      if (ins.value == 0.0f && (t == DType::bf16 || t == DType::f16)) flags |= F::one_pass;
      break;
    }
    case Opcode::tensor_scalar:
    case Opcode::copy: {
      const View &d = ins.dst, &s = ins.srcs[0];
      auto fp8 = [](DType t) { return t == DType::f8e4m3 || t == DType::f8e5m2; };
      auto narrow = [&](DType t) { return t == DType::bf16 || t == DType::f16 || fp8(t); };
      if (narrow(dtype(d)) && narrow(dtype(s))) {
        flags |= F::perf_mode;
        if (fp8(dtype(d)) || fp8(dtype(s))) flags |= F::perf_fp8;
        // (The other half-rate case, a non-contiguous tile side, cannot be written: tile views are rectangles.)
        if (memory(d) == Memory::psum || memory(s) == Memory::psum) flags |= F::perf_half;
      }
      break;
    }
    case Opcode::reciprocal:
    case Opcode::iota:
    case Opcode::affine_select:
      break;
  }
  e.flags = flags;
  return e;
}

void encode_program(const Program& program, std::vector<EncodedInstruction>& out) {
  out.resize(program.instructions.size());
  const Instruction* previous_tensor = nullptr;
  for (size_t i = 0; i < program.instructions.size(); ++i) {
    const Instruction& ins = program.instructions[i];
    out[i] = encode(ins, program, previous_tensor);
    if (ins.engine == Engine::tensor) previous_tensor = &ins;
  }
}

}  // namespace nanotrn::neuron
