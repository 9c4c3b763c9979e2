// The device catalog: Trainium chips and servers, GPUs (roofline level) and the host CPU, as data with a source
// for every number (src/hw/devices.json.inc, embedded in the binary so it works from any directory).
//
//   const Catalog& c = builtin_catalog();                 // parsed once per call site that keeps it
//   const Device& d = c.find("trn2");                     // throws naming the known devices
//   double peak = d.peak_bf16_flops();                    // chips x per-chip peak, FLOP/s
//   Device h = host_device(measured_gflops);              // the host entry with its peak filled in
//
// Strictness (load_catalog): an unknown key, a missing number, a number without a non-empty "source", a wrong type,
// a duplicate name or an unknown kind is an Error naming the device and the field. Sources are the reference keys
// of shared/hardware-facts.md, "[derived] ..." or "assumed: ..." (tests check every number has one).
// Not here: how a device runs a training step (src/predict/), the per-core engine model (src/neuron/machine.h).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace nanotrn::hw {

// One number with where it comes from.
struct Number {
  double value = 0;
  std::string source;
};

enum class DeviceKind { trainium, gpu, cpu };
std::string to_string(DeviceKind k);

struct Device {
  std::string name, description;
  DeviceKind kind = DeviceKind::trainium;
  std::string neuron_core;                // "v2" / "v3" / "v4" for Trainium, "" otherwise
  std::map<std::string, Number> numbers;  // the fields listed by device_number_names()

  const Number& number(std::string_view field) const;  // throws for a field the schema lacks
  double value(std::string_view field) const { return number(field).value; }

  int64_t chips() const;
  int64_t physical_cores_per_chip() const;
  int64_t lnc() const;                     // physical cores per logical core (Trainium), else 1
  int64_t logical_cores_per_chip() const;  // physical / lnc
  double peak_bf16_flops() const;          // whole device: chips x per chip
  double hbm_bytes_per_s_per_chip() const { return value("hbm_bytes_per_s_per_chip"); }
  double link_bytes_per_s_per_chip() const { return value("link_bytes_per_s_per_chip"); }
};

// The numeric fields every device carries, in display order.
const std::vector<std::string>& device_number_names();

class Catalog {
 public:
  explicit Catalog(std::vector<Device> devices);
  const std::vector<Device>& devices() const { return devices_; }
  const Device& find(std::string_view name) const;  // throws naming the known devices
  bool contains(std::string_view name) const;

 private:
  std::vector<Device> devices_;
};

// Parses catalog JSON text strictly; `origin` names the text in errors.
Catalog load_catalog(const std::string& json_text, const std::string& origin);
// The embedded catalog (src/hw/devices.json.inc).
const std::string& builtin_catalog_text();
Catalog builtin_catalog();

// The "host" entry with its peak set from a measured GEMM rate (GFLOP/s, e.g. measure_gemm_gflops).
Device host_device(const Catalog& catalog, double measured_gflops);

nlohmann::json device_json(const Device& d);
nlohmann::json catalog_json(const Catalog& c);
// One line per device: name, kind, chips, cores, peak, HBM, links.
std::string catalog_text(const Catalog& c);

}  // namespace nanotrn::hw
