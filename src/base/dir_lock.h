// One writer per folder: an advisory lock (flock) on <dir>/.lock, held while the object lives and released by the
// kernel when the process dies however it dies, so a killed writer never leaves a stale lock. The lock file holds the
// holder's pid and what it is, for the message another writer gets.
//
//   DirLock lock("out/sweep", "nanotrn sweep");   // Error: "out/sweep is in use by nanotrn sweep (pid 4711) ..."
//
// Not a guard against writers that do not take the lock.
#pragma once

#include <string>

namespace nanotrn {

class DirLock {
 public:
  DirLock(const std::string& dir, const std::string& holder);
  ~DirLock();
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace nanotrn
