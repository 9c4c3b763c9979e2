// Errors. Every failure nanotrn reports is an nanotrn::Error carrying a message and the std::source_location of the
// check that failed (for a user's mistake: the call site in the user's code, passed down by the API).
// Not here: logging, recovery. Library code throws; the CLI catches, prints, and exits non-zero.
#pragma once

#include <source_location>
#include <stdexcept>
#include <string>

namespace nanotrn {

class Error : public std::runtime_error {
 public:
  Error(const std::string& message, std::source_location where = std::source_location::current());
  const std::source_location& where() const { return where_; }
  // The message without the "file:line: " prefix.
  const std::string& message() const { return message_; }

 private:
  std::string message_;
  std::source_location where_;
};

// Throw an Error naming `where` when `condition` is false.
inline void check(bool condition, const std::string& message,
                  std::source_location where = std::source_location::current()) {
  if (!condition) throw Error(message, where);
}
// The same for a literal message: no std::string is built unless the check fails (for checks in hot loops).
inline void check(bool condition, const char* message, std::source_location where = std::source_location::current()) {
  if (!condition) throw Error(message, where);
}

}  // namespace nanotrn

// NANOTRN_CHECK(cond, msg): message built only on failure.
#define NANOTRN_CHECK(cond, msg)                           \
  do {                                                     \
    if (!(cond)) throw ::nanotrn::Error(std::string(msg)); \
  } while (0)
