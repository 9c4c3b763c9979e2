// The projection shapes of public open models for `nanotrn qa matmul` (configs/qa/matmul_shapes.json): per model its
// source (the config.json the dimensions come from) and each weight matmul's K (input features) and N (output
// features); the sweep multiplies them by M tokens.
//
//   std::vector<QaModel> models = load_matmul_shapes(home.project + "/configs/qa/matmul_shapes.json");
//   models[0].name == "llama-3-8b";  models[0].projections[0] == {"qkv", 4096, 6144}
// Throws nanotrn::Error naming the file and the entry for unreadable JSON, a missing or unknown field, a non-positive
// size or an empty list.
// Not here: the sweep (matmul_qa.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nanotrn::qa {

struct Projection {
  std::string name;
  int64_t k = 0, n = 0;
};

struct QaModel {
  std::string name, source;
  std::vector<Projection> projections;
};

std::vector<QaModel> load_matmul_shapes(const std::string& path);
std::vector<QaModel> parse_matmul_shapes(const std::string& json_text, const std::string& origin);

}  // namespace nanotrn::qa
