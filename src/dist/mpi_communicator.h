// The Open MPI communicator, and the session that starts and ends MPI in a process.
//
//   dist::MpiSession session;                            // MPI_Init_thread when launched by mpirun, else nothing
//   std::unique_ptr<Communicator> comm = session.communicator();   // MPI's world, or the local one (world size 1)
//
// Launched by mpirun means: the launcher's environment is present (OMPI_COMM_WORLD_SIZE, PMIX_RANK or PMI_SIZE).
// A plain `nanotrn train` never initialises MPI, so it needs no launcher and starts as fast as before.
// The MPI communicator uses MPI_COMM_WORLD with errors returned (an MPI error becomes an Error naming the call and
// MPI's message) and thread level FUNNELED (only the main thread calls MPI; OpenMP workers never do). Every
// collective is MPI's non-blocking one (MPI_Iallreduce, MPI_Ireduce_scatter_block, MPI_Iallgather, MPI_Ibcast,
// MPI_Ibarrier, MPI_Isend/MPI_Irecv); waits poll MPI_Test, so a wait can time out (communicator.h) instead of
// blocking forever inside MPI. Counts above INT_MAX elements are refused (MPI 3's int counts).
#pragma once

#include <memory>

#include "dist/communicator.h"

namespace nanotrn::dist {

bool launched_by_mpirun();

class MpiSession {
 public:
  MpiSession();   // initialises MPI only when launched_by_mpirun()
  ~MpiSession();  // finish()
  // MPI_Finalize, when this session initialised MPI and has not finished it yet (a collective: every rank calls it).
  void finish();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  bool active() const { return active_; }
  std::unique_ptr<Communicator> communicator() const;
  // Ends every rank of the job now with `code` (MPI_Abort), after the caller printed why; exits the process when
  // MPI is not active.
  [[noreturn]] void abort(int code) const;

 private:
  bool active_ = false;
};

}  // namespace nanotrn::dist
