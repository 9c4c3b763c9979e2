// Dying with the parent. See parent_death.h.
#include "base/parent_death.h"

#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>

namespace nanotrn {

bool die_with_parent(pid_t expected) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  return getppid() == expected;  // checked after the request: a parent gone before it would never signal
}

}  // namespace nanotrn
