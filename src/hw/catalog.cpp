// Device catalog: strict loader, lookups, JSON/text listing. See catalog.h.
#include "hw/catalog.h"
#include "base/json_parse.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "base/error.h"

namespace nanotrn::hw {
namespace {

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

DeviceKind parse_kind(const std::string& s, const std::string& where) {
  if (s == "trainium") return DeviceKind::trainium;
  if (s == "gpu") return DeviceKind::gpu;
  if (s == "cpu") return DeviceKind::cpu;
  throw Error(where + ": unknown kind '" + s + "' (known: trainium, gpu, cpu)");
}

const nlohmann::json& field(const nlohmann::json& obj, const std::string& key, const std::string& where) {
  check(obj.contains(key), where + ": missing '" + key + "'");
  return obj.at(key);
}

std::string string_field(const nlohmann::json& obj, const std::string& key, const std::string& where) {
  const nlohmann::json& v = field(obj, key, where);
  check(v.is_string(), where + "." + key + ": expected a string");
  return v.get<std::string>();
}

void only_keys(const nlohmann::json& obj, const std::set<std::string>& allowed, const std::string& where) {
  for (const auto& [k, v] : obj.items()) {
    check(allowed.count(k) > 0, where + ": unknown key '" + k + "'");
  }
}

Number parse_number(const nlohmann::json& j, const std::string& where) {
  check(j.is_object(), where + ": expected {\"value\": number, \"source\": text}");
  only_keys(j, {"value", "source"}, where);
  const nlohmann::json& v = field(j, "value", where);
  check(v.is_number(), where + ".value: expected a number");
  Number n{v.get<double>(), string_field(j, "source", where)};
  check(!n.source.empty(), where + ".source: empty (every number needs a source or 'assumed: ...')");
  check(n.value >= 0, where + ".value: negative");
  return n;
}

bool is_tag_char(char c) { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-'; }

// True for "TRN2", "ISA-2025-10": an upper-case letter, then one or more tag characters.
bool is_tag(std::string_view s) {
  if (s.size() < 2 || s[0] < 'A' || s[0] > 'Z') return false;
  for (char c : s) {
    if (!is_tag_char(c)) return false;
  }
  return true;
}

Source parse_source(const nlohmann::json& j, const std::string& where) {
  check(j.is_object(), where + ": expected {\"title\": text, \"url\": text}");
  only_keys(j, {"title", "url"}, where);
  Source s{string_field(j, "title", where), string_field(j, "url", where)};
  check(!s.title.empty(), where + ".title: empty");
  check(s.url.rfind("https://", 0) == 0, where + ".url: expected an https:// address, got '" + s.url + "'");
  return s;
}

SourceTable parse_sources(const nlohmann::json& j, const std::string& origin) {
  const std::string where = origin + ": sources";
  check(j.is_object() && !j.empty(), where + ": expected a non-empty object {tag: {title, url}}");
  SourceTable out;
  for (const auto& [tag, v] : j.items()) {
    check(is_tag(tag), where + ": '" + tag + "' is not a tag (upper-case letters, digits and '-', as in TRN2)");
    out[tag] = parse_source(v, where + "." + tag);
  }
  return out;
}

// Every tag a number of `d` cites is a key of `sources`.
void check_tags_resolve(const Device& d, const SourceTable& sources, const std::string& origin) {
  std::vector<std::pair<std::string, const Number*>> cited;
  for (const auto& [name, num] : d.numbers) cited.emplace_back(name, &num);
  if (d.price) cited.emplace_back("price.usd_per_hour", &d.price->usd_per_hour);
  for (const auto& [name, num] : cited) {
    for (const std::string& tag : source_tags(num->source)) {
      check(sources.count(tag) > 0, origin + ": device '" + d.name + "'." + name + ": source tag [" + tag +
                                        "] is not in the catalog's \"sources\" table");
    }
  }
}

InstancePrice parse_price(const nlohmann::json& j, const std::string& where) {
  check(j.is_object(), where + ": expected an object {instance, instance_chips, usd_per_hour}");
  only_keys(j, {"instance", "instance_chips", "usd_per_hour"}, where);
  InstancePrice p;
  p.instance = string_field(j, "instance", where);
  const nlohmann::json& chips = field(j, "instance_chips", where);
  check(chips.is_number_integer() && chips.get<int64_t>() >= 1, where + ".instance_chips: an integer >= 1");
  p.instance_chips = chips.get<int64_t>();
  p.usd_per_hour = parse_number(field(j, "usd_per_hour", where), where + ".usd_per_hour");  // >= 0; 0 = none public
  return p;
}

Device parse_device(const nlohmann::json& j, const std::string& origin, size_t index) {
  std::string where = origin + ": devices[" + std::to_string(index) + "]";
  check(j.is_object(), where + ": expected an object");
  only_keys(j, {"name", "kind", "neuron_core", "description", "numbers", "price"}, where);
  Device d;
  d.name = string_field(j, "name", where);
  check(!d.name.empty(), where + ": empty name");
  where = origin + ": device '" + d.name + "'";
  d.kind = parse_kind(string_field(j, "kind", where), where);
  d.neuron_core = string_field(j, "neuron_core", where);
  d.description = string_field(j, "description", where);
  check((d.kind == DeviceKind::trainium) == !d.neuron_core.empty(),
        where + ": neuron_core must be set exactly for Trainium devices");
  const nlohmann::json& nums = field(j, "numbers", where);
  check(nums.is_object(), where + ".numbers: expected an object");
  const std::vector<std::string> names = device_number_names(d.kind);
  only_keys(nums, std::set<std::string>(names.begin(), names.end()), where + ".numbers");
  for (const std::string& n : names) d.numbers[n] = parse_number(field(nums, n, where + ".numbers"), where + "." + n);
  if (j.contains("price")) d.price = parse_price(j["price"], where + ".price");
  check(d.chips() >= 1 && d.physical_cores_per_chip() >= 1 && d.lnc() >= 1, where + ": chips, cores and lnc >= 1");
  check(d.physical_cores_per_chip() % d.lnc() == 0, where + ": lnc must divide physical_cores_per_chip");
  check(d.kind == DeviceKind::cpu || d.value("peak_bf16_flops_per_chip") > 0, where + ": peak must be positive");
  check(d.value("hbm_bytes_per_s_per_chip") > 0, where + ": memory bandwidth must be positive");
  check(d.value("links_per_chip") >= 1, where + ": links_per_chip must be >= 1");
  const double tx = d.value("torus_x"), ty = d.value("torus_y");
  check((tx == 0 && ty == 0) || (tx >= 1 && ty >= 1 && tx * ty == static_cast<double>(d.chips())),
        where + ": torus_x x torus_y must equal the chips (or both be 0: no torus)");
  check(d.value("efa_bytes_per_s") >= 0 && d.value("efa_hop_latency_s") >= 0,
        where + ": efa_bytes_per_s and efa_hop_latency_s must be >= 0 (0: the device joins no other over EFA)");
  return d;
}

std::string si(double v, const char* unit) {
  const char* p[] = {"", "k", "M", "G", "T", "P", "E"};
  int i = 0;
  while (v >= 1000 && i < 6) {
    v /= 1000;
    i++;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g %s%s", v, p[i], unit);
  return buf;
}

}  // namespace

std::vector<std::string> source_tags(std::string_view text) {
  std::vector<std::string> tags;
  for (size_t open = text.find('['); open != std::string_view::npos; open = text.find('[', open + 1)) {
    const size_t close = text.find(']', open + 1);
    if (close == std::string_view::npos) break;
    const std::string_view inner = text.substr(open + 1, close - open - 1);
    if (!is_tag(inner)) continue;
    if (std::find(tags.begin(), tags.end(), inner) == tags.end()) tags.emplace_back(inner);
  }
  return tags;
}

std::string to_string(DeviceKind k) {
  switch (k) {
    case DeviceKind::trainium:
      return "trainium";
    case DeviceKind::gpu:
      return "gpu";
    case DeviceKind::cpu:
      return "cpu";
  }
  return "?";
}

std::vector<std::string> device_number_names(DeviceKind kind) {
  std::vector<std::string> names = {"chips",
                                    "physical_cores_per_chip",
                                    "lnc",
                                    "peak_bf16_flops_per_chip",
                                    "peak_fp8_flops_per_chip",
                                    "hbm_bytes_per_chip",
                                    "hbm_bytes_per_s_per_chip",
                                    "link_bytes_per_s_per_chip",
                                    "link_hop_latency_s",
                                    "links_per_chip",
                                    "torus_x",
                                    "torus_y",
                                    "efa_bytes_per_s",
                                    "efa_hop_latency_s",
                                    "kernel_launch_s"};
  // A Trainium device's host costs are its software stack's (recipe/stack_profile.h); a GPU's or the host's graph
  // launch is the device's.
  if (kind != DeviceKind::trainium) names.push_back("host_graph_launch_s");
  return names;
}

const Number& Device::number(std::string_view f) const {
  auto it = numbers.find(std::string(f));
  check(it != numbers.end(), "device '" + name + "' has no field '" + std::string(f) + "'");
  return it->second;
}

int64_t Device::chips() const { return static_cast<int64_t>(value("chips")); }
int64_t Device::physical_cores_per_chip() const { return static_cast<int64_t>(value("physical_cores_per_chip")); }
int64_t Device::lnc() const { return static_cast<int64_t>(value("lnc")); }
int64_t Device::logical_cores_per_chip() const { return physical_cores_per_chip() / lnc(); }
double Device::peak_bf16_flops() const { return static_cast<double>(chips()) * value("peak_bf16_flops_per_chip"); }

Catalog::Catalog(std::vector<Device> devices, SourceTable sources, const std::string& origin)
    : devices_(std::move(devices)), sources_(std::move(sources)) {
  std::set<std::string> seen;
  for (const Device& d : devices_) {
    check(seen.insert(d.name).second, origin + ": duplicate device name '" + d.name + "'");
    check_tags_resolve(d, sources_, origin);
  }
}

const Source& Catalog::source(std::string_view tag) const {
  auto it = sources_.find(tag);
  check(it != sources_.end(), "unknown source tag [" + std::string(tag) + "] (not in the catalog's sources table)");
  return it->second;
}

bool Catalog::contains(std::string_view name) const {
  for (const Device& d : devices_) {
    if (d.name == name) return true;
  }
  return false;
}

const Device& Catalog::find(std::string_view name) const {
  std::vector<std::string> known;
  for (const Device& d : devices_) {
    if (d.name == name) return d;
    known.push_back(d.name);
  }
  throw Error("unknown device '" + std::string(name) + "' (known: " + join(known) + ")");
}

Catalog load_catalog(const std::string& json_text, const std::string& origin) {
  nlohmann::json j;
  try {
    j = nanotrn::parse_json(json_text);
  } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range for a number like 1E400
    throw Error(origin + ": not valid JSON: " + e.what());
  }
  check(j.is_object(), origin + ": expected an object");
  only_keys(j, {"schema", "note", "sources", "devices"}, origin);
  const nlohmann::json& schema = field(j, "schema", origin);
  check(schema.is_number_integer() && schema.get<int>() == 2, origin + ": unsupported schema (expected 2)");
  SourceTable sources = parse_sources(field(j, "sources", origin), origin);
  const nlohmann::json& devs = field(j, "devices", origin);
  check(devs.is_array() && !devs.empty(), origin + ": 'devices' must be a non-empty array");
  std::vector<Device> out;
  for (size_t i = 0; i < devs.size(); i++) out.push_back(parse_device(devs[i], origin, i));
  return Catalog(std::move(out), std::move(sources), origin);
}

const std::string& builtin_catalog_text() {
  static const std::string text =
#include "hw/devices.json.inc"
      ;
  return text;
}

Catalog builtin_catalog() {
  return load_catalog(builtin_catalog_text(), "builtin device catalog (src/hw/devices.json.inc)");
}

Device host_device(const Catalog& catalog, double measured_gflops) {
  check(measured_gflops > 0, "host_device: the measured GEMM rate must be positive");
  Device d = catalog.find("host");
  d.numbers["peak_bf16_flops_per_chip"].value = measured_gflops * 1e9;
  d.numbers["peak_fp8_flops_per_chip"].value = measured_gflops * 1e9;
  return d;
}

nlohmann::json device_json(const Device& d) {
  nlohmann::json n = nlohmann::json::object();
  for (const std::string& f : device_number_names(d.kind)) {
    const Number& num = d.number(f);
    n[f] = {{"value", num.value}, {"source", num.source}, {"tags", source_tags(num.source)}};
  }
  nlohmann::json j = {{"name", d.name},
                      {"kind", to_string(d.kind)},
                      {"neuron_core", d.neuron_core},
                      {"description", d.description},
                      {"numbers", n}};
  if (d.price) {
    const Number& usd = d.price->usd_per_hour;
    j["price"] = {{"instance", d.price->instance},
                  {"instance_chips", d.price->instance_chips},
                  {"usd_per_hour", {{"value", usd.value}, {"source", usd.source}, {"tags", source_tags(usd.source)}}}};
  }
  return j;
}

nlohmann::json catalog_json(const Catalog& c) {
  nlohmann::json a = nlohmann::json::array();
  for (const Device& d : c.devices()) a.push_back(device_json(d));
  nlohmann::json sources = nlohmann::json::object();
  for (const auto& [tag, s] : c.sources()) sources[tag] = {{"title", s.title}, {"url", s.url}};
  return {{"schema", 2}, {"devices", a}, {"sources", sources}};
}

std::string catalog_text(const Catalog& c) {
  char buf[512];
  std::snprintf(buf, sizeof buf, "%-17s %-8s %5s %6s %5s %14s %14s %14s %14s\n", "device", "kind", "chips", "cores",
                "lnc", "bf16 peak", "HBM/chip", "HBM BW/chip", "link/chip");
  std::string s = buf;
  for (const Device& d : c.devices()) {
    const double peak = d.value("peak_bf16_flops_per_chip");
    std::snprintf(buf, sizeof buf, "%-17s %-8s %5lld %6lld %5lld %14s %14s %14s %14s  %s\n", d.name.c_str(),
                  to_string(d.kind).c_str(), static_cast<long long>(d.chips()),
                  static_cast<long long>(d.physical_cores_per_chip()), static_cast<long long>(d.lnc()),
                  peak > 0 ? si(d.peak_bf16_flops(), "FLOP/s").c_str() : "measured",
                  si(d.value("hbm_bytes_per_chip"), "B").c_str(), si(d.hbm_bytes_per_s_per_chip(), "B/s").c_str(),
                  si(d.link_bytes_per_s_per_chip(), "B/s").c_str(), d.description.c_str());
    s += buf;
  }
  return s;
}

}  // namespace nanotrn::hw
