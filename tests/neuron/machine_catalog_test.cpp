// The two hardware tables agree wherever they describe the same hardware: every Trainium entry of the device catalog
// (src/hw/devices.json.inc: chips, a server, an UltraServer) against the NeuronCore generation it is built from
// (src/neuron/isa/machine.cpp), field by field: HBM bandwidth and capacity (per chip = per core x physical cores), the
// SPMD core-pair width against the catalog's LNC, and the chip's BF16 / FP8 peak against the cores' TensorE peak
// (equal: one peak per chip).
// Not here: whether either table matches the documents (machine_test.cpp, tests/hw/catalog_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "hw/catalog.h"
#include "neuron/isa/machine.h"

namespace nanotrn::neuron {
namespace {

// One peak per chip: the catalog's BF16 and FP8 peaks are the cores' TensorE peaks, cores x 2 x 128 x 128 FLOP per
// cycle x the TensorE clock (x the fp8 or MX rate), to rounding. The chip pages quote 3.5-6.7 % more (190 vs 183.5
// TFLOPS on Trn1, 667 vs 629 on Trn2, 671 vs 629 on Trn3; hardware-facts §10, "chip vs core FLOPS"); the catalog keeps
// those figures in its sources only, so MFU and the bound verdicts divide by the same peak the kernels run at.
constexpr double kSamePeak = 1e-12;

std::vector<hw::Device> trainium_devices() {
  const hw::Catalog catalog = hw::builtin_catalog();
  std::vector<hw::Device> out;
  for (const hw::Device& d : catalog.devices())
    if (d.kind == hw::DeviceKind::trainium) out.push_back(d);
  return out;
}

TEST(MachineCatalog, EveryTrainiumDeviceNamesAKnownGeneration) {
  const std::vector<hw::Device> devices = trainium_devices();
  EXPECT_GE(devices.size(), 5u);  // trn1, trn2, trn3, trn2-server, trn3-ultraserver
  for (const hw::Device& d : devices) EXPECT_NO_THROW(spec_for(d.neuron_core)) << d.name;
}

TEST(MachineCatalog, HbmBandwidthAndCapacityAgree) {
  for (const hw::Device& d : trainium_devices()) {
    const NeuronCoreSpec& s = spec_for(d.neuron_core);
    const double cores = static_cast<double>(d.physical_cores_per_chip());
    const double bw = d.value("hbm_bytes_per_s_per_chip");
    const double bytes = d.value("hbm_bytes_per_chip");
    EXPECT_NEAR(s.hbm_share_bytes_per_ns.value * 1e9 * cores, bw, bw * 1e-12) << d.name;
    EXPECT_NEAR(s.hbm_bytes.value * cores, bytes, bytes * 1e-12) << d.name;
  }
}

TEST(MachineCatalog, CorePairWidthIsTheCatalogLnc) {
  for (const hw::Device& d : trainium_devices())
    EXPECT_EQ(spec_for(d.neuron_core).max_physical_cores.value, static_cast<double>(d.lnc())) << d.name;
}

TEST(MachineCatalog, ChipPeaksMatchTheCoresTensorEngines) {
  for (const hw::Device& d : trainium_devices()) {
    const NeuronCoreSpec& s = spec_for(d.neuron_core);
    const double cores = static_cast<double>(d.physical_cores_per_chip());
    const double bf16_cores = 2 * s.pe_rows.value * s.pe_cols.value * s.tensor_clock_ghz.value * 1e9 * cores;
    const double fp8_cores = bf16_cores * std::max(s.fp8_double_row_speedup.value, s.mx_speedup.value);
    const double bf16_chip = d.value("peak_bf16_flops_per_chip");
    const double fp8_chip = d.value("peak_fp8_flops_per_chip");
    EXPECT_NEAR(bf16_chip, bf16_cores, bf16_cores * kSamePeak) << d.name;
    EXPECT_NEAR(fp8_chip, fp8_cores, fp8_cores * kSamePeak) << d.name;
  }
}

}  // namespace
}  // namespace nanotrn::neuron
