// The build's identity. See version.h. The two definitions are set on this file only (CMakeLists.txt), so a new
// commit recompiles one file.
#include "base/version.h"

#ifndef NANOTRN_VERSION
#error "NANOTRN_VERSION must be defined by the build (CMakeLists.txt)"
#endif
#ifndef NANOTRN_GIT_COMMIT
#define NANOTRN_GIT_COMMIT ""
#endif

namespace nanotrn {

std::string version() { return NANOTRN_VERSION; }

std::string git_commit() { return NANOTRN_GIT_COMMIT; }

std::string version_line() {
  const std::string commit = git_commit();
  return "nanotrn " + version() + " (" + (commit.empty() ? "git commit unknown" : "git " + commit) + ")";
}

}  // namespace nanotrn
