// A process that must not outlive its parent: the kernel kills it (SIGKILL) the moment the parent exits, however the
// parent died (Linux prctl PR_SET_PDEATHSIG; kept across execve).
//
//   const pid_t parent = getpid();  if (fork() == 0) { if (!die_with_parent(parent)) _exit(127); execve(...); }
//   die_with_parent(getppid());     // an MPI rank: dies with the mpirun (or daemon) that started it
//
// Used by the sweep's workers (sweep/process_pool.cpp) and by MPI ranks (dist/mpi_communicator.cpp): a SIGKILLed
// sweep or mpirun leaves no process training on. Nothing is lost by the abrupt end: every file nanotrn writes is
// written to a temporary and renamed, so the last complete checkpoint stays. Async-signal-safe (two system calls), so
// a child may call it between fork and exec.
#pragma once

#include <sys/types.h>

namespace nanotrn {

// false when the parent is no longer `expected` (it died before the request took effect): the caller should exit.
bool die_with_parent(pid_t expected);

}  // namespace nanotrn
