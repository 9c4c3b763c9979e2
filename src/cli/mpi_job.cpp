// Commands on the ranks of a job. See mpi_job.h.
#include "cli/mpi_job.h"

#include <cstdlib>
#include <iostream>

#include "base/error.h"
#include "dist/mpi_communicator.h"

namespace nanotrn::cli {

void run_on_ranks(const std::function<void(dist::Communicator&)>& job) {
  dist::MpiSession session;
  const std::unique_ptr<dist::Communicator> comm = session.communicator();
  int exit_code = -1;
  try {
    job(*comm);
  } catch (const StopExit& stop) {
    exit_code = stop.code;
  } catch (const std::exception& e) {
    if (comm->size() == 1) throw;
    std::cerr << "nanotrn: error (rank " << comm->rank() << " of " << comm->size()
              << "): " << user_message(e, debug_from_environment()) << "\n";
    session.abort(1);
  }
  if (exit_code >= 0) {
    std::cout.flush();
    session.finish();
    std::exit(exit_code);
  }
}

}  // namespace nanotrn::cli
