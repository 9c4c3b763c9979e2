// `nanotrn info`: what this build runs on (threads, GEMM library and the kernels it dispatches to).
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "engine/engine.h"

namespace nanotrn::cli {

void add_info(CLI::App& app) {
  auto* cmd = app.add_subcommand("info", "Print the host engine configuration (threads, GEMM backend)");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "Machine-readable output");
  cmd->callback([json] {
    Engine engine;
    if (*json) {
      nlohmann::json j{{"threads", engine.num_threads()}, {"gemm", engine.gemm().describe()}};
      std::cout << j.dump() << "\n";
    } else {
      std::cout << "threads: " << engine.num_threads() << "\ngemm: " << engine.gemm().describe() << "\n";
    }
  });
}

}  // namespace nanotrn::cli
