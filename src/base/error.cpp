#include "base/error.h"

namespace nanotrn {

static std::string format_where(const std::string& message, const std::source_location& where) {
  return std::string(where.file_name()) + ":" + std::to_string(where.line()) + ": " + message;
}

Error::Error(const std::string& message, std::source_location where)
    : std::runtime_error(format_where(message, where)), message_(message), where_(where) {}

}  // namespace nanotrn
