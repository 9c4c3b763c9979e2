// The build's identity: the project version (CMake's project(VERSION), passed as NANOTRN_VERSION) and the git commit
// the build tree was configured from (NANOTRN_GIT_COMMIT; empty when the source was not a git checkout or git was
// missing). Both are fixed at configure time: a commit made after `cmake --preset` shows once CMake reruns.
//
//   version()         -> "0.1.0"
//   version_line()    -> "nanotrn 0.1.0 (git 487776a1b2c3)"  or  "nanotrn 0.1.0 (git commit unknown)"
#pragma once

#include <string>

namespace nanotrn {

std::string version();
std::string git_commit();  // "" when unknown
std::string version_line();

}  // namespace nanotrn
