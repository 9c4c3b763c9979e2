// One writer per folder. See dir_lock.h.
#include "base/dir_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/error.h"

namespace nanotrn {

DirLock::DirLock(const std::string& dir, const std::string& holder) {
  const std::string path = dir + "/.lock";
  fd_ = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  check(fd_ >= 0, "cannot open " + path + ": " + std::strerror(errno));
  if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    char buf[256] = {};
    const ssize_t n = pread(fd_, buf, sizeof buf - 1, 0);
    close(fd_);
    fd_ = -1;
    const std::string who = n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string("another process");
    throw Error(dir + " is in use by " + who + "; two writers never share a folder (wait for it, or stop it)");
  }
  const std::string me = holder + " (pid " + std::to_string(getpid()) + ")";
  if (ftruncate(fd_, 0) == 0) {
    const ssize_t w = pwrite(fd_, me.data(), me.size(), 0);
    (void)w;  // the message is a courtesy; the lock is the flock
  }
}

DirLock::~DirLock() {
  if (fd_ >= 0) close(fd_);  // releases the flock
}

}  // namespace nanotrn
