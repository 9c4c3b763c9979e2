// libFuzzer target: the Parquet text reader (src/io/parquet.h) over bytes in memory. Either the footer reads into
// a file description, and every readable column then reads (or throws nanotrn::Error) with counts that agree: the
// values passed on and the nulls skipped add up to the file's rows, and the row groups are the footer's; or reading
// throws nanotrn::Error. Any other exception escapes and fails the run. Pages are limited to 1 MiB and files to 100,000
// rows (the work of a read is bounded by its bytes and rows). Built and run by scripts/fuzz.sh.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/error.h"
#include "io/parquet.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  nanotrn::io::ParquetFileInfo info;
  try {
    info = nanotrn::io::parquet_info_from_memory(bytes, "fuzz.parquet");
  } catch (const nanotrn::Error&) {
    return 0;
  }
  if (info.rows > 100000) return 0;
  for (const nanotrn::io::ParquetColumnInfo& column : info.columns) {
    uint64_t values = 0, value_bytes = 0;
    try {
      const nanotrn::io::ParquetReadStats s = nanotrn::io::read_parquet_strings_from_memory(
          bytes, "fuzz.parquet", column.name,
          [&](std::string_view v) {
            values++;
            value_bytes += v.size();
          },
          uint64_t{1} << 20);
      if (!column.readable) __builtin_trap();  // only flat text columns read
      if (s.values != values || s.values + s.nulls != info.rows || s.rows != info.rows) __builtin_trap();
      if (s.row_groups != info.row_groups) __builtin_trap();
    } catch (const nanotrn::Error&) {
    }
  }
  return 0;
}
