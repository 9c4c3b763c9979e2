// The PyTorch peer of a host GPT (tests/python/gpt_parity.py, an independent implementation from Hugging Face's
// modelling code): one place that writes its input, runs it and reads its answer, for every parity test.
//
//   const PeerBatch b = random_batch(9, steps * B * T, V);   // ids and targets, uniform over the vocabulary
//   SafetensorsFile ref = run_gpt_peer(gpt, recipe, b, {steps, B, T}, dir);   // + " --bf16" as flags for bf16
//   ref.find("loss")->to_vector()   // steps + 1 losses (the last after the final update); "grad.<name>" at step 0;
//                                   // "model.<name>" the weights after the steps
//
// Many models in one interpreter (PyTorch's import, about a second, paid once):
//   write_gpt_peer_input(gpt_i, recipe_i, b, shape, dir_i);   // for each i
//   run_gpt_peers({dir_0, dir_1, ...});                        // then read_gpt_peer_output(dir_i) for each
//
// The input is dir/in.safetensors (every parameter as "model.<name>", "ids" and "targets" [steps, B, T], the recipe
// and the step count as metadata); the answer dir/out.safetensors, removed first so a stale one is never read. A peer
// that fails (no /usr/bin/python3 or torch, a traceback) is an Error carrying its command: the test fails, never skips.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "io/safetensors.h"
#include "model/gpt.h"
#include "recipe/recipe.h"

namespace nanotrn::testing_support {

struct PeerBatch {
  std::vector<int32_t> ids, targets;
};

// `count` ids and targets: random_u32(seed, 1, i) and random_u32(seed, 2, i) modulo the vocabulary.
PeerBatch random_batch(uint64_t seed, size_t count, int64_t vocab);

// Writes dir/in.safetensors for `gpt`'s current weights and shape {steps, B, T} of `batch`; removes dir/out.
void write_gpt_peer_input(const model::Gpt& gpt, const recipe::Recipe& recipe, const PeerBatch& batch,
                          const std::vector<int64_t>& shape, const std::string& dir);

// Runs the peer once over every dir's in.safetensors, writing each dir's out.safetensors; `flags` are appended.
void run_gpt_peers(const std::vector<std::string>& dirs, const std::string& flags = "");

// dir/out.safetensors, as the peer wrote it.
SafetensorsFile read_gpt_peer_output(const std::string& dir);

// The three above for one model: runs the peer on `gpt`'s current weights for shape {steps, B, T} of `batch`.
SafetensorsFile run_gpt_peer(const model::Gpt& gpt, const recipe::Recipe& recipe, const PeerBatch& batch,
                             const std::vector<int64_t>& shape, const std::string& dir, const std::string& flags = "");

}  // namespace nanotrn::testing_support
