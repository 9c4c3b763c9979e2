// How a command runs on the ranks of an mpirun job (or alone): MPI started for the command's lifetime, an error on
// any rank of a larger world ending the whole job at once (the other ranks may be waiting inside a collective), and
// an interrupted command ending MPI on every rank before it exits with 128 + the signal.
//
//   run_on_ranks([&](dist::Communicator& comm) { ...; if (stopped) throw StopExit{130}; });
#pragma once

#include <functional>

#include "dist/communicator.h"

namespace nanotrn::cli {

// An interrupted command's exit status (128 + the signal), carried out of the command so that MPI ends cleanly first.
struct StopExit {
  int code;
};

void run_on_ranks(const std::function<void(dist::Communicator&)>& job);

}  // namespace nanotrn::cli
