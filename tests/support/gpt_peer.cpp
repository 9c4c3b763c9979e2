// The PyTorch peer of a host GPT. See gpt_peer.h.
#include "support/gpt_peer.h"

#include <cstdlib>
#include <filesystem>
#include <utility>

#include "base/error.h"
#include "base/rng.h"
#include "support/torch_peer.h"

namespace nanotrn::testing_support {

PeerBatch random_batch(uint64_t seed, size_t count, int64_t vocab) {
  PeerBatch b{std::vector<int32_t>(count), std::vector<int32_t>(count)};
  for (size_t i = 0; i < count; i++) {
    b.ids[i] = static_cast<int32_t>(random_u32(seed, 1, i) % static_cast<uint32_t>(vocab));
    b.targets[i] = static_cast<int32_t>(random_u32(seed, 2, i) % static_cast<uint32_t>(vocab));
  }
  return b;
}

void write_gpt_peer_input(const model::Gpt& gpt, const recipe::Recipe& recipe, const PeerBatch& batch,
                          const std::vector<int64_t>& shape, const std::string& dir) {
  check(shape.size() == 3, "write_gpt_peer_input: the batch shape is {steps, B, T}");
  std::filesystem::create_directories(dir);
  std::filesystem::remove(dir + "/out.safetensors");
  std::vector<std::pair<std::string, Tensor>> ts;
  for (const model::Parameter& p : gpt.parameters()) ts.emplace_back("model." + p.name, p.value);
  ts.emplace_back("ids", Tensor::from_ints(shape, batch.ids));
  ts.emplace_back("targets", Tensor::from_ints(shape, batch.targets));
  save_safetensors(dir + "/in.safetensors", ts,
                   {{"recipe", recipe::recipe_to_json(recipe).dump()}, {"steps", std::to_string(shape[0])}});
}

void run_gpt_peers(const std::vector<std::string>& dirs, const std::string& flags) {
  std::string args;
  for (const std::string& dir : dirs) args += dir + "/in.safetensors " + dir + "/out.safetensors ";
  const std::string cmd = torch_peer_command("gpt_parity.py", args + flags);
  check(std::system(cmd.c_str()) == 0,
        "the PyTorch peer failed (is python3-torch installed? run scripts/setup.sh): " + cmd);
}

SafetensorsFile read_gpt_peer_output(const std::string& dir) { return load_safetensors(dir + "/out.safetensors"); }

SafetensorsFile run_gpt_peer(const model::Gpt& gpt, const recipe::Recipe& recipe, const PeerBatch& batch,
                             const std::vector<int64_t>& shape, const std::string& dir, const std::string& flags) {
  write_gpt_peer_input(gpt, recipe, batch, shape, dir);
  run_gpt_peers({dir}, flags);
  return read_gpt_peer_output(dir);
}

}  // namespace nanotrn::testing_support
