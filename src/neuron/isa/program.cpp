// Names of the program enums and the source-line formatter (see program.h). Not here: any checking.
#include "neuron/isa/program.h"

namespace nanotrn::neuron {

const char* memory_name(Memory m) {
  switch (m) {
    case Memory::hbm:
      return "HBM";
    case Memory::sbuf:
      return "SBUF";
    case Memory::psum:
      return "PSUM";
  }
  return "?";
}

const char* opcode_name(Opcode o) {
  switch (o) {
    case Opcode::dma_copy:
      return "dma_copy";
    case Opcode::matmul:
      return "matmul";
    case Opcode::transpose:
      return "transpose";
    case Opcode::activation:
      return "activation";
    case Opcode::tensor_tensor:
      return "tensor_tensor";
    case Opcode::tensor_scalar:
      return "tensor_scalar";
    case Opcode::reduce:
      return "reduce";
    case Opcode::memset:
      return "memset";
    case Opcode::copy:
      return "copy";
    case Opcode::iota:
      return "iota";
    case Opcode::affine_select:
      return "affine_select";
    case Opcode::reciprocal:
      return "reciprocal";
  }
  return "?";
}

const char* act_name(Act a) {
  switch (a) {
    case Act::copy:
      return "copy";
    case Act::exp:
      return "exp";
    case Act::tanh:
      return "tanh";
    case Act::sigmoid:
      return "sigmoid";
    case Act::relu:
      return "relu";
    case Act::silu:
      return "silu";
    case Act::gelu_tanh:
      return "gelu_tanh";
    case Act::square:
      return "square";
    case Act::rsqrt:
      return "rsqrt";
    case Act::reciprocal:
      return "reciprocal";
  }
  return "?";
}

const char* alu_name(AluOp o) {
  switch (o) {
    case AluOp::add:
      return "add";
    case AluOp::subtract:
      return "subtract";
    case AluOp::multiply:
      return "multiply";
    case AluOp::max:
      return "max";
    case AluOp::min:
      return "min";
  }
  return "?";
}

std::string where_string(const std::source_location& loc) {
  return std::string(loc.file_name()) + ":" + std::to_string(loc.line());
}

}  // namespace nanotrn::neuron
