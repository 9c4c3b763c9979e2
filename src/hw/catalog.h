// The device catalog: Trainium chips and servers, GPUs (roofline level) and the host CPU, as data with a source
// for every number (src/hw/devices.json.inc, embedded in the binary so it works from any directory).
//
//   const Catalog& c = builtin_catalog();                 // parsed once per call site that keeps it
//   const Device& d = c.find("trn2");                     // throws naming the known devices
//   double peak = d.peak_bf16_flops();                    // chips x per-chip peak, FLOP/s
//   Device h = host_device(measured_gflops);              // the host entry with its peak filled in
//
//   const Source& s = c.source("TRN2");                  // {title, url}; throws naming an unknown tag
//   source_tags("[TRN2] 2.9 TB/s (3 TB/s in [NKI-A3])")   // {"TRN2", "NKI-A3"}
//
// A device may carry a "price": {"instance", "instance_chips", "usd_per_hour": {value, source}} (InstancePrice):
// what predict's cost line multiplies its chip-hours by.
//
// Strictness (load_catalog): an unknown key, a missing number, a number without a non-empty "source", a wrong type,
// a duplicate name or an unknown kind is an Error naming the device and the field. A number's source cites
// reference tags ("[TRN2]"), "[derived] ...", "assumed: ..." or "measured at run time" (tests check every number
// has one). Every tag a source cites must be a key of the catalog's "sources" table (tag -> {title, url}): the one
// list of the project's hardware references, which the NeuronCore data (src/neuron/isa/machine.cpp) and the docs cite
// too; docs/SOURCES.md is its human view (tests/hw/sources_test.cpp keeps the two equal).
// Not here: how a device runs a training step (src/predict/), the per-core engine model (src/neuron/isa/machine.h).
#pragma once

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/sourced.h"

namespace nanotrn::hw {

// One number with where it comes from (base/sourced.h).
using Number = Sourced;

// A public document that numbers cite by tag: "[NKI-A3]" names sources.at("NKI-A3").
struct Source {
  std::string title;
  std::string url;
};
using SourceTable = std::map<std::string, Source, std::less<>>;  // tag (without brackets) -> source

// The reference tags a source text cites, in order of first use, each once: the text between '[' and ']' when it is
// an upper-case letter followed by one or more upper-case letters, digits or '-' ("[TRN2]" -> "TRN2",
// "[ISA-2025-10]"; not "[derived]" or a one-letter "[N]").
std::vector<std::string> source_tags(std::string_view text);

enum class DeviceKind { trainium, gpu, cpu };

// What renting the device's chips costs: the cloud instance that holds them, its chips, and its on-demand price
// ({value, source}: USD per instance-hour, the source naming the region and the date it was read). A value of 0 is
// "no public price", its source saying why (trn2 is sold as Capacity Blocks). A device without one (the host) has
// no price at all.
struct InstancePrice {
  std::string instance;        // "trn1.32xlarge"
  int64_t instance_chips = 1;  // chips (or GPUs) per instance
  Number usd_per_hour;         // per instance; 0 = no public price (the source says why)
  bool known() const { return usd_per_hour.value > 0; }
  double usd_per_chip_hour() const { return usd_per_hour.value / static_cast<double>(instance_chips); }
};
std::string to_string(DeviceKind k);

struct Device {
  std::string name, description;
  DeviceKind kind = DeviceKind::trainium;
  std::string neuron_core;                // "v2" / "v3" / "v4" for Trainium, "" otherwise
  std::map<std::string, Number> numbers;  // the fields listed by device_number_names(kind)
  std::optional<InstancePrice> price;     // the "price" entry; none for the host

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
// The numbers a device of this kind has: the Trainium devices leave host costs to the software stack
// (recipe/stack_profile.h: graph launch, op dispatch); the others carry their own graph launch.
std::vector<std::string> device_number_names(DeviceKind kind);

class Catalog {
 public:
  // Throws an Error (prefixed by `origin`) for a duplicate device name, or for a number whose source cites a tag
  // the table lacks, naming the device, the field and the tag.
  Catalog(std::vector<Device> devices, SourceTable sources, const std::string& origin = "device catalog");
  const std::vector<Device>& devices() const { return devices_; }
  const Device& find(std::string_view name) const;  // throws naming the known devices
  bool contains(std::string_view name) const;
  const SourceTable& sources() const { return sources_; }
  const Source& source(std::string_view tag) const;  // throws naming the unknown tag

 private:
  std::vector<Device> devices_;
  SourceTable sources_;
};

// Parses catalog JSON text strictly; `origin` names the text in errors.
Catalog load_catalog(const std::string& json_text, const std::string& origin);
// The embedded catalog (src/hw/devices.json.inc).
const std::string& builtin_catalog_text();
Catalog builtin_catalog();

// The "host" entry with its peak set from a measured GEMM rate (GFLOP/s, e.g. measure_gemm_gflops).
Device host_device(const Catalog& catalog, double measured_gflops);

// A device with every number as {value, source, tags}: `tags` lists the reference tags its source cites.
nlohmann::json device_json(const Device& d);
// {schema, devices, sources}: each tag of a number resolves in `sources` as {title, url}.
nlohmann::json catalog_json(const Catalog& c);
// One line per device: name, kind, chips, cores, peak, HBM, links.
std::string catalog_text(const Catalog& c);

}  // namespace nanotrn::hw
