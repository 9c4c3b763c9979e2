// The first differing field. See recipe_diff.h.
#include "recipe/recipe_diff.h"

#include <set>

namespace nanotrn::recipe {

std::optional<std::string> first_difference(const nlohmann::json& here, const nlohmann::json& there,
                                            const std::string& here_name, const std::string& there_name,
                                            const std::string& path) {
  const auto describe = [&](const std::string& where, const std::string& a, const std::string& b) {
    return (where.empty() ? std::string("(the whole value)") : where) + ": " + a + " " + here_name + ", " + b + " " +
           there_name;
  };
  if (here.is_object() && there.is_object()) {
    std::set<std::string> keys;
    for (auto it = here.begin(); it != here.end(); ++it) keys.insert(it.key());
    for (auto it = there.begin(); it != there.end(); ++it) keys.insert(it.key());
    for (const std::string& k : keys) {
      const std::string sub = path.empty() ? k : path + "." + k;
      if (!here.contains(k)) return describe(sub, "absent", there[k].dump());
      if (!there.contains(k)) return describe(sub, here[k].dump(), "absent");
      if (auto d = first_difference(here[k], there[k], here_name, there_name, sub)) return d;
    }
    return std::nullopt;
  }
  if (here.is_array() && there.is_array() && here.size() == there.size()) {
    for (size_t i = 0; i < here.size(); i++) {
      if (auto d = first_difference(here[i], there[i], here_name, there_name, path + "[" + std::to_string(i) + "]"))
        return d;
    }
    return std::nullopt;
  }
  if (here == there) return std::nullopt;
  return describe(path, here.dump(), there.dump());
}

namespace {
void flatten_into(const nlohmann::json& j, const std::string& path, std::map<std::string, nlohmann::json>& out) {
  if (!j.is_object()) {
    out[path] = j;
    return;
  }
  for (auto it = j.begin(); it != j.end(); ++it)
    flatten_into(it.value(), path.empty() ? it.key() : path + "." + it.key(), out);
}
}  // namespace

std::map<std::string, nlohmann::json> flatten_fields(const nlohmann::json& j) {
  std::map<std::string, nlohmann::json> out;
  flatten_into(j, "", out);
  return out;
}

std::vector<std::string> differing_fields(const std::vector<nlohmann::json>& objects) {
  std::vector<std::map<std::string, nlohmann::json>> flat;
  std::set<std::string> paths;
  for (const nlohmann::json& o : objects) {
    flat.push_back(flatten_fields(o));
    for (const auto& [k, v] : flat.back()) paths.insert(k);
  }
  std::vector<std::string> out;
  for (const std::string& p : paths) {
    const auto value = [&p](const std::map<std::string, nlohmann::json>& f) {
      const auto it = f.find(p);
      return it == f.end() ? std::optional<nlohmann::json>() : std::optional<nlohmann::json>(it->second);
    };
    for (const auto& f : flat) {
      if (value(f) != value(flat.front())) {
        out.push_back(p);
        break;
      }
    }
  }
  return out;
}

}  // namespace nanotrn::recipe
