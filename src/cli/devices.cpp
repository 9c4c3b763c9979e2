// `nanotrn devices`: the device catalog (src/hw/catalog.h), as a table or --json with every number's source, the
// reference tags it cites and the catalog's sources table ({title, url} per tag).
// This file parses flags and prints; the work is in the library.
#include <iostream>

#include "cli/commands.h"
#include "engine/engine.h"
#include "gemm/probe.h"
#include "hw/catalog.h"

namespace nanotrn::cli {

void add_devices(CLI::App& app) {
  struct Args {
    bool json = false, measure_host = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("devices", "List the device catalog (Trainium, GPUs, the host) with sources");
  cmd->add_flag("--json", a->json, "Every number with its source, as JSON");
  cmd->add_flag("--measure-host", a->measure_host, "Measure the host's GEMM peak (~0.3 s) instead of 'measured'");
  cmd->callback([a] {
    hw::Catalog c = hw::builtin_catalog();
    if (a->measure_host) {
      Engine engine(EngineOptions{});
      std::vector<hw::Device> d = c.devices();
      for (hw::Device& x : d) {
        if (x.name == "host") x = hw::host_device(c, measure_gemm_gflops(engine.gemm(), DType::bf16, 0.3));
      }
      c = hw::Catalog(std::move(d), c.sources());
    }
    if (a->json) {
      std::cout << hw::catalog_json(c).dump(2) << "\n";
      return;
    }
    std::cout << hw::catalog_text(c)
              << "sources: `nanotrn devices --json` (each number's tags resolve in its \"sources\" table, "
                 "docs/SOURCES.md; 'assumed' where no public figure exists)\n";
  });
}

}  // namespace nanotrn::cli
