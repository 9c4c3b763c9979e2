// libFuzzer target: the device catalog parser (src/hw/catalog.h). Either the text loads into a catalog whose every
// device can be found by name and shown (JSON and text views), or loading throws nanotrn::Error. Built and run by
// scripts/fuzz.sh.
#include <cstddef>
#include <cstdint>
#include <string>

#include "base/error.h"
#include "hw/catalog.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const nanotrn::hw::Catalog c = nanotrn::hw::load_catalog(text, "fuzz.json");
    for (const nanotrn::hw::Device& d : c.devices()) {
      if (&c.find(d.name) != &d) __builtin_trap();
    }
    (void)nanotrn::hw::catalog_json(c).dump();
    (void)nanotrn::hw::catalog_text(c);
  } catch (const nanotrn::Error&) {
  }
  return 0;
}
