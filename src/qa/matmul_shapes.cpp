// Reading configs/qa/matmul_shapes.json (see matmul_shapes.h).
#include "qa/matmul_shapes.h"
#include "base/json_parse.h"

#include <nlohmann/json.hpp>
#include <set>

#include "base/error.h"
#include "base/file.h"

namespace nanotrn::qa {
namespace {

using nlohmann::json;

void only_keys(const json& j, const std::set<std::string>& allowed, const std::string& where) {
  check(j.is_object(), where + " must be an object");
  for (const auto& [key, value] : j.items()) check(allowed.count(key) > 0, where + ": unknown field '" + key + "'");
}

const json& field(const json& j, const char* name, const std::string& where) {
  check(j.contains(name), where + ": missing field '" + name + "'");
  return j.at(name);
}

}  // namespace

std::vector<QaModel> parse_matmul_shapes(const std::string& text, const std::string& origin) {
  json j;
  try {
    j = nanotrn::parse_json(text);
  } catch (const json::parse_error& e) {
    throw Error(origin + ": not JSON (byte " + std::to_string(e.byte) + ")");
  } catch (const json::exception& e) {  // out_of_range: a number beyond a double, such as 1E400 (found by fuzzing)
    throw Error(origin + ": not JSON (" + e.what() + ")");
  }
  only_keys(j, {"about", "models"}, origin);
  const json& models = field(j, "models", origin);
  check(models.is_array() && !models.empty(), origin + ": 'models' must be a non-empty list");
  std::vector<QaModel> out;
  for (size_t i = 0; i < models.size(); ++i) {
    const std::string where = origin + ": models[" + std::to_string(i) + "]";
    only_keys(models[i], {"name", "source", "projections"}, where);
    QaModel m;
    try {
      m.name = field(models[i], "name", where).get<std::string>();
      m.source = field(models[i], "source", where).get<std::string>();
      const json& ps = field(models[i], "projections", where);
      check(ps.is_array() && !ps.empty(), where + ": 'projections' must be a non-empty list");
      for (size_t p = 0; p < ps.size(); ++p) {
        const std::string pw = where + ".projections[" + std::to_string(p) + "]";
        only_keys(ps[p], {"name", "k", "n"}, pw);
        for (const char* dim : {"k", "n"})
          check(field(ps[p], dim, pw).is_number_integer(), pw + ": '" + dim + "' must be an integer");
        Projection pr{field(ps[p], "name", pw).get<std::string>(), field(ps[p], "k", pw).get<int64_t>(),
                      field(ps[p], "n", pw).get<int64_t>()};
        check(pr.k > 0 && pr.n > 0, pw + ": k and n must be positive");
        m.projections.push_back(pr);
      }
    } catch (const json::type_error&) {
      throw Error(where + ": a field has the wrong type (name and source strings, k and n integers)");
    }
    check(!m.source.empty(), where + ": 'source' must name where the dimensions come from");
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<QaModel> load_matmul_shapes(const std::string& path) {
  const std::vector<uint8_t> bytes = read_file(path);
  return parse_matmul_shapes(std::string(bytes.begin(), bytes.end()), path);
}

}  // namespace nanotrn::qa
