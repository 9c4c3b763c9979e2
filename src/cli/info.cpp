// `nanotrn info`: what this build runs on (threads, the CPU's vector ISAs, the GEMM library and the kernels it
// dispatches to, how bf16 matmuls run here: natively or emulated, and why, and whether they use AMX).
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "engine/engine.h"
#include "hw/cpu_peak.h"

namespace nanotrn::cli {

void add_info(CLI::App& app) {
  auto* cmd = app.add_subcommand("info", "Print the host engine configuration (threads, GEMM backend)");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "Machine-readable output");
  cmd->callback([json] {
    Engine engine;
    const hw::CpuFeatures features = hw::cpu_features();
    const std::string cpu = features.summary();
    const Bf16Support& bf16 = engine.gemm().bf16_support();
    const std::string path = bf16.path == Bf16Path::kNative ? "native" : "emulated";
    const std::string amx = hw::amx_verdict(features.amx_bf16, bf16.reason);
    if (*json) {
      nlohmann::json j{{"threads", engine.num_threads()},
                       {"cpu_features", cpu},
                       {"gemm", engine.gemm().describe()},
                       {"bf16_matmul", {{"path", path}, {"reason", bf16.reason}}},
                       {"amx", {{"cpu", features.amx_bf16}, {"verdict", amx}}}};
      std::cout << j.dump() << "\n";
    } else {
      std::cout << "threads: " << engine.num_threads() << "\ncpu features: " << cpu << "\nbf16 matmul: " << path << " ("
                << bf16.reason << ")\namx: " << amx << "\ngemm: " << engine.gemm().describe() << "\n";
    }
  });
}

}  // namespace nanotrn::cli
