// One number through a printf format, for the progress lines and reports that print fixed-precision figures.
//
//   std::string s = format_number("%.4f", loss);    // "3.1416"
//   format_bytes(1.5 * 1024 * 1024 * 1024)          // "1.50 GiB" (binary units, for messages)
//   format_count(1505631)                           // "1,505,631"
//   format_usd(3087202.918)                         // "$3,087,202.92"
//
// `format` must take exactly one double conversion; the result is cut at 95 characters.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>

namespace nanotrn {

inline std::string format_number(const char* format, double value) {
  char buf[96];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

inline std::string format_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  for (; bytes >= 1024.0 && u < 6; u++) bytes /= 1024.0;
  return format_number(bytes >= 1e6 ? "%.3g" : u == 0 ? "%.0f" : "%.2f", bytes) + " " + units[u];
}

inline std::string format_count(long long n) {
  std::string digits = std::to_string(n < 0 ? -n : n), out;
  for (size_t i = 0; i < digits.size(); i++) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (n < 0 ? "-" : "") + out;
}

inline std::string format_usd(double usd) {
  const long long cents = std::llround(std::fabs(usd) * 100.0);
  const std::string frac = std::to_string(100 + cents % 100).substr(1);
  return std::string(usd < 0 ? "-$" : "$") + format_count(cents / 100) + "." + frac;
}

}  // namespace nanotrn
