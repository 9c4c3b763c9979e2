#include "base/error.h"

#include <cstdlib>
#include <string_view>

namespace nanotrn {

static std::string format_where(const std::string& message, const std::source_location& where) {
  return std::string(where.file_name()) + ":" + std::to_string(where.line()) + ": " + message;
}

Error::Error(const std::string& message, std::source_location where)
    : std::runtime_error(format_where(message, where)), message_(message), where_(where) {}

bool is_internal(const std::source_location& where) {
  // This file is <sources>/base/error.cpp; every location under <sources>/ is nanotrn's own.
  constexpr std::string_view self = std::source_location::current().file_name();
  constexpr std::string_view tail = "base/error.cpp";
  static_assert(self.ends_with(tail), "error.cpp must live in src/base/");
  constexpr std::string_view sources = self.substr(0, self.size() - tail.size());
  return std::string_view(where.file_name()).starts_with(sources);
}

std::string user_message(const std::exception& e, bool debug) {
  const auto* error = dynamic_cast<const Error*>(&e);
  if (error == nullptr) return e.what();
  return debug || !is_internal(error->where()) ? std::string(error->what()) : error->message();
}

bool debug_from_environment() {
  const char* v = std::getenv("NANOTRN_DEBUG");
  return v != nullptr && std::string_view(v) != "" && std::string_view(v) != "0";
}

}  // namespace nanotrn
