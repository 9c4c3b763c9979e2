// Fuzz builds only: Debian 12's clang 14 lacks __builtin_source_location, so libstdc++'s <source_location> is empty
// under it. This fills in std::source_location from the older __builtin_FILE/LINE/FUNCTION (no column) so that
// src/base/error.h compiles; force-included by scripts/fuzz.sh (-include), never by the main (GCC) build.
#pragma once

#include <source_location>

#if !defined(__cpp_lib_source_location)
namespace std {
struct source_location {
  static constexpr source_location current(const char* file = __builtin_FILE(),
                                           const char* function = __builtin_FUNCTION(),
                                           unsigned line = __builtin_LINE()) noexcept {
    source_location s;
    s.file_ = file;
    s.function_ = function;
    s.line_ = line;
    return s;
  }
  constexpr const char* file_name() const noexcept { return file_; }
  constexpr const char* function_name() const noexcept { return function_; }
  constexpr unsigned line() const noexcept { return line_; }
  constexpr unsigned column() const noexcept { return 0; }

 private:
  const char* file_ = "";
  const char* function_ = "";
  unsigned line_ = 0;
};
}  // namespace std
#endif
