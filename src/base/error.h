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

// Whether `where` lies in nanotrn's own sources (src/): an internal detail of which check failed, which a user is
// not shown unless debugging. A location elsewhere is the user's code (a custom kernel's line) and always shown.
bool is_internal(const std::source_location& where);

// What a user is shown for a failure: an Error's message, prefixed with "file:line: " when its location is the
// user's code or `debug` is set (`nanotrn --debug`, or NANOTRN_DEBUG=1 in the environment); any other exception's
// what().
std::string user_message(const std::exception& e, bool debug);
// NANOTRN_DEBUG set to anything but "" or "0".
bool debug_from_environment();

}  // namespace nanotrn

// NANOTRN_CHECK(cond, msg): message built only on failure.
#define NANOTRN_CHECK(cond, msg)                           \
  do {                                                     \
    if (!(cond)) throw ::nanotrn::Error(std::string(msg)); \
  } while (0)
