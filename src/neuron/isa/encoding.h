// The compact encoding of a recorded program's instructions (program.h EncodedInstruction): what the timing model's
// cost formulas read, packed, so that pricing a program does not walk the recorded Instructions and their operand
// lists. KernelBuilder::take() stores it in the Program; the timing model encodes a program that lacks it.
//
//   std::vector<EncodedInstruction> enc;
//   encode_program(program, enc);   // enc[i] encodes program.instructions[i]
//
// Not here: the formulas themselves (timing_costs.cpp), anything that depends on the NeuronCoreSpec.
#pragma once

#include <vector>

#include "neuron/isa/program.h"

namespace nanotrn::neuron {

// `previous_tensor`: the last TensorE instruction before `ins` in program order (nullptr when none), for the
// reuses_stationary flag.
EncodedInstruction encode(const Instruction& ins, const Program& program, const Instruction* previous_tensor);
void encode_program(const Program& program, std::vector<EncodedInstruction>& out);

}  // namespace nanotrn::neuron
