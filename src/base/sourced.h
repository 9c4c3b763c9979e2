// One number with where it comes from: the value-with-source type of every modelled constant (the device catalog's
// numbers, hw::Number; the NeuronCore machine data, neuron::Param; a software stack's parameters,
// recipe::StackProfile).
//
//   Sourced hbm{2.9e12, "[TRN2] 2.9 TB/s"};
//   Sourced gap{2e-6, "assumed: ~ the 1.3 us DMA fixed latency [DMABW]"};
//   Sourced eff{0.81, "fitted on K60 k1/k2/k4 (configs/stacks/nki-tuned.json, fit.runs)"};
//
// A source cites reference tags ("[TRN2]", keys of the catalog's sources table), "[derived] ...", "assumed: <why>",
// "fitted ..." naming the public points and where the fit's inputs are stored, or "measured at run time".
#pragma once

#include <string>

namespace nanotrn {

struct Sourced {
  double value = 0;
  std::string source;
};

}  // namespace nanotrn
