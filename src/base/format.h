// One number through a printf format, for the progress lines and reports that print fixed-precision figures.
//
//   std::string s = format_number("%.4f", loss);    // "3.1416"
//
// `format` must take exactly one double conversion; the result is cut at 95 characters.
#pragma once

#include <cstdio>
#include <string>

namespace nanotrn {

inline std::string format_number(const char* format, double value) {
  char buf[96];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

}  // namespace nanotrn
