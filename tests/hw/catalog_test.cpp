// The device catalog: the embedded data parses, every number carries a source (a reference tag of the catalog's
// sources table, a derivation or an explicit assumption), the loader rejects malformed entries and unknown tags by
// name, --json carries each number's tags and the table they resolve in, and the device-level closed forms
// (roofline, ring all-reduce) equal their formulas. The repository-wide tag and citation checks: sources_test.cpp.
#include <gtest/gtest.h>

#include "base/error.h"
#include "hw/catalog.h"
#include "hw/roofline.h"
#include "support/citation.h"

namespace nanotrn::hw {
namespace {

TEST(Catalog, BuiltinHasTheIssueDevicesAndEveryNumberASource) {
  const Catalog c = builtin_catalog();
  for (const char* n :
       {"trn1", "trn2", "trn3", "trn2-server", "trn3-ultraserver", "h100", "h200", "b200", "gb300", "host"}) {
    EXPECT_TRUE(c.contains(n)) << n;
  }
  for (const Device& d : c.devices()) {
    EXPECT_EQ(d.numbers.size(), device_number_names(d.kind).size()) << d.name;
    EXPECT_EQ(d.numbers.count("host_graph_launch_s"), d.kind == DeviceKind::trainium ? 0u : 1u) << d.name;
    for (const auto& [field, num] : d.numbers) {
      EXPECT_EQ(testing_support::citation_problem(num.source, c.sources()), "") << d.name << "." << field;
    }
  }
}

// The rule the test above applies (tests/support/citation.h), on good and bad source texts.
TEST(Catalog, CitationCheckRejectsMalformedAndUnknownTags) {
  const SourceTable table = {{"TRN2", {"t", "https://a.b/c"}}, {"ISA-2025-10", {"t", "https://a.b/d"}}};
  auto problem = [&](const char* source) { return testing_support::citation_problem(source, table); };
  EXPECT_EQ(problem("[TRN2]"), "");
  EXPECT_EQ(problem("[TRN2] 2.9 TB/s / 8 [derived], [ISA-2025-10]"), "");
  EXPECT_EQ(problem("assumed: no public figure"), "");
  EXPECT_EQ(problem("[trn2] 2.9 TB/s"), "malformed tag '[trn2]'");
  EXPECT_EQ(problem("[TRN 2]"), "malformed tag '[TRN 2]'");
  EXPECT_EQ(problem("[T] one letter"), "malformed tag '[T]'");
  EXPECT_EQ(problem("[]"), "malformed tag '[]'");
  EXPECT_EQ(problem("[TRN2 2.9 TB/s"), "unclosed '[' at offset 0 of '[TRN2 2.9 TB/s'");
  EXPECT_EQ(problem("[TRN2] [ISA [x]]"), "unclosed '[' at offset 7 of '[TRN2] [ISA [x]]'");
  EXPECT_EQ(problem("TRN2] 2.9"), "']' without '[' at offset 4 of 'TRN2] 2.9'");
  EXPECT_EQ(problem("[TRN9] 9 TB/s"), "tag [TRN9] is not in the catalog's sources table");
  EXPECT_EQ(problem("[derived] 2 x 4"), "no reference tag cited: '[derived] 2 x 4'");
  EXPECT_EQ(problem("a [ somewhere"), "unclosed '[' at offset 2 of 'a [ somewhere'");
  EXPECT_EQ(problem("trust me"), "no reference tag and no stated reason: 'trust me'");
}

TEST(Catalog, TrainiumLayoutsFollowTheDocs) {
  const Catalog c = builtin_catalog();
  // [TRN2], [LNC]: 8 physical NeuronCore-v3, LNC=2 by default -> 4 logical cores per chip.
  EXPECT_EQ(c.find("trn2").physical_cores_per_chip(), 8);
  EXPECT_EQ(c.find("trn2").logical_cores_per_chip(), 4);
  EXPECT_EQ(c.find("trn1").logical_cores_per_chip(), 2);
  // [TRN2-INST]: 16 chips. The peak is the cores' (8 x 2 x 128 x 128 FLOP x 2.4 GHz [NKI-A3] per chip), 6 % under
  // the instance page's 10.7 PFLOPS BF16 (16 x 667), as hardware-facts §10 records for every Trainium chip page.
  EXPECT_DOUBLE_EQ(c.find("trn2-server").peak_bf16_flops(), 16 * 8 * 2 * 128 * 128 * 2.4e9);
  EXPECT_NEAR(c.find("trn2-server").peak_bf16_flops() / 10.7e15, 0.94, 0.01);
  // [TRN3-INST]: 144 chips; 96,624 TFLOPS BF16 on the page, 6 % over the cores' 144 x 629.1 TFLOPS.
  EXPECT_EQ(c.find("trn3-ultraserver").chips(), 144);
  EXPECT_DOUBLE_EQ(c.find("trn3-ultraserver").peak_bf16_flops(), 144 * 8 * 2 * 128 * 128 * 2.4e9);
  EXPECT_NEAR(c.find("trn3-ultraserver").peak_bf16_flops() / 96624e12, 0.94, 0.01);
}

TEST(Catalog, HostPeakIsFilledFromTheMeasurement) {
  const Catalog c = builtin_catalog();
  EXPECT_EQ(c.find("host").value("peak_bf16_flops_per_chip"), 0.0);
  EXPECT_DOUBLE_EQ(host_device(c, 123.0).peak_bf16_flops(), 123e9);
  EXPECT_THROW(host_device(c, 0.0), Error);
}

// A one-device catalog whose numbers all cite `source`; its sources table knows the tag XX.
std::string one_device(const std::string& numbers_extra, const std::string& source = "\"[XX] 1 unit\"") {
  std::string nums;
  for (const std::string& f : device_number_names(DeviceKind::gpu)) {
    if (!nums.empty()) nums += ",";
    nums += "\"" + f + "\": {\"value\": 1, \"source\": " + source + "}";
  }
  std::string text = R"({"schema": 2, "sources": {"XX": {"title": "a document", "url": "https://example.org/xx"}},)";
  text += R"( "devices": [{"name": "x", "kind": "gpu", "neuron_core": "", "description": "d", "numbers": {)";
  return text + nums + numbers_extra + "}}]}";
}

// The loader's error message for `text`, or "no error".
std::string load_error(const std::string& text) {
  try {
    load_catalog(text, "t");
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(Catalog, LoaderIsStrict) {
  EXPECT_NO_THROW(load_catalog(one_device(""), "t"));
  EXPECT_TRUE(contains(load_error(one_device(R"(, "warp_speed": {"value": 1, "source": "[XX]"})")),
                       "unknown key 'warp_speed'"));
  EXPECT_TRUE(contains(load_error(one_device("", "\"\"")), "source"));
  std::string missing = one_device("");
  missing.replace(missing.find("\"chips\""), 7, "\"chipz\"");
  EXPECT_TRUE(contains(load_error(missing), "chipz"));
  EXPECT_TRUE(contains(load_error("{\"schema\": 1, \"devices\": []}"), "schema"));
  EXPECT_TRUE(contains(load_error("not json"), "not valid JSON"));
  try {
    builtin_catalog().find("trn9");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("known: trn1"), std::string::npos);
  }
}

TEST(Catalog, PriceIsOptionalAndStrict) {
  auto with_price = [](const std::string& price) {
    std::string text = one_device("");
    return text.insert(text.size() - 3, ", \"price\": " + price);
  };
  const Catalog c =
      load_catalog(with_price(R"({"instance": "x.8", "instance_chips": 8, "usd_per_hour": {"value": 16, "source": )"
                              R"("[XX] on demand"}})"),
                   "t");
  ASSERT_TRUE(c.find("x").price);
  EXPECT_DOUBLE_EQ(c.find("x").price->usd_per_chip_hour(), 2.0);
  EXPECT_EQ(device_json(c.find("x"))["price"]["usd_per_hour"]["tags"][0], "XX");
  EXPECT_FALSE(load_catalog(one_device(""), "t").find("x").price);
  EXPECT_TRUE(contains(load_error(with_price(R"({"instance": "x", "instance_chips": 0, "usd_per_hour": {"value": 1, )"
                                             R"("source": "[XX]"}})")),
                       "t: device 'x'.price.instance_chips"));
  EXPECT_TRUE(contains(load_error(with_price(R"({"instance": "x", "instance_chips": 1, "usd_per_hour": {"value": -1, )"
                                             R"("source": "[XX]"}})")),
                       "'x'.price.usd_per_hour.value: negative"));
  EXPECT_TRUE(contains(load_error(with_price(R"({"instance": "x", "instance_chips": 1, "usd_per_hour": {"value": 1, )"
                                             R"("source": "[YY]"}})")),
                       "'x'.price.usd_per_hour: source tag [YY]"));
  EXPECT_TRUE(contains(load_error(with_price(R"({"instance": "x", "instance_chips": 1, "region": "mars", )"
                                             R"("usd_per_hour": {"value": 1, "source": "[XX]"}})")),
                       "unknown key 'region'"));
}

TEST(Catalog, LoaderRejectsASourceTagTheTableLacks) {
  // Every field cites a tag the table lacks; the error names the first field in name order.
  const std::string e = load_error(one_device("", "\"[XX], [YY] 2 units\""));
  EXPECT_TRUE(contains(e, "t: device 'x'.chips")) << e;
  EXPECT_TRUE(contains(e, "source tag [YY] is not in the catalog's \"sources\" table")) << e;
  // [derived], single letters and lower case are not tags; a tag inside other text still counts.
  EXPECT_EQ(load_error(one_device("", "\"[derived] [H] x [XX]y\"")), "no error");
  EXPECT_TRUE(contains(load_error(one_device("", "\"half of [ZZ-2]\"")), "[ZZ-2]"));
}

TEST(Catalog, SourcesTableIsStrict) {
  auto with_sources = [](const std::string& table) {
    std::string text = one_device("");
    const size_t at = text.find("{\"XX\"");
    text.replace(at, text.find("}},", at) + 2 - at, table);
    return load_error(text);
  };
  EXPECT_EQ(with_sources(R"({"XX": {"title": "t", "url": "https://a.b/c"}})"), "no error");
  EXPECT_TRUE(contains(with_sources("{}"), "t: sources: expected a non-empty object"));
  EXPECT_TRUE(contains(with_sources(R"({"xx": {"title": "t", "url": "https://a.b/c"}})"), "'xx' is not a tag"));
  EXPECT_TRUE(contains(with_sources(R"({"XX": {"title": "t"}})"), "sources.XX: missing 'url'"));
  EXPECT_TRUE(contains(with_sources(R"({"XX": {"title": "t", "url": "a.b/c"}})"), "sources.XX.url"));
  EXPECT_TRUE(contains(with_sources(R"({"XX": {"title": "", "url": "https://a.b/c"}})"), "sources.XX.title"));
  EXPECT_TRUE(
      contains(with_sources(R"({"XX": {"title": "t", "url": "https://a.b/c", "year": 1}})"), "unknown key 'year'"));
  std::string no_table = one_device("");
  const size_t at = no_table.find(" \"sources\"");
  no_table.erase(at, no_table.find("}},", at) + 3 - at);
  EXPECT_TRUE(contains(load_error(no_table), "missing 'sources'")) << no_table;
}

TEST(Catalog, ConstructorChecksTagsToo) {
  // The rebuilt catalog of `nanotrn devices --measure-host` goes through the same check.
  const Catalog c = builtin_catalog();
  EXPECT_NO_THROW(Catalog(c.devices(), c.sources()));
  SourceTable fewer = c.sources();
  fewer.erase("B300-GK");  // cited by gb300 alone
  try {
    const Catalog rebuilt(c.devices(), fewer, "rebuilt");
    FAIL() << rebuilt.devices().size();
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), "rebuilt: device 'gb300'.peak_bf16_flops_per_chip: source tag [B300-GK]"))
        << e.what();
  }
  EXPECT_EQ(c.source("LNC").url.rfind("https://", 0), 0u);
  EXPECT_THROW(c.source("TRN9"), Error);
}

TEST(Catalog, SourceTagsAreTheBracketedUpperCaseKeys) {
  EXPECT_EQ(source_tags("[TRN2] 2.9 TB/s (3 TB/s in [NKI-A3], [TRN2]; [derived] [H] [x1] [ISA-2025-10])"),
            (std::vector<std::string>{"TRN2", "NKI-A3", "ISA-2025-10"}));
  EXPECT_TRUE(source_tags("assumed: no public figure").empty());
  EXPECT_TRUE(source_tags("[TRN2").empty());
}

TEST(Catalog, JsonCarriesEachNumbersTagsAndTheTableTheyResolveIn) {
  const nlohmann::json j = catalog_json(builtin_catalog());
  EXPECT_EQ(j.at("schema"), 2);
  const nlohmann::json& sources = j.at("sources");
  size_t tagged = 0;
  for (const nlohmann::json& d : j.at("devices")) {
    for (const auto& [field, num] : d.at("numbers").items()) {
      EXPECT_EQ(num.at("tags"), nlohmann::json(source_tags(num.at("source").get<std::string>())));
      for (const nlohmann::json& tag : num.at("tags")) {
        ASSERT_TRUE(sources.contains(tag.get<std::string>())) << d.at("name") << "." << field << ": " << tag;
        EXPECT_FALSE(sources.at(tag.get<std::string>()).at("url").get<std::string>().empty());
        tagged++;
      }
    }
  }
  EXPECT_GT(tagged, 50u);
  EXPECT_EQ(sources.at("TRN2").at("url"),
            "https://awsdocs-neuron.readthedocs-hosted.com/en/latest/about-neuron/arch/neuron-hardware/trainium2.html");
}

TEST(Roofline, EqualsTheFormula) {
  // 2 TFLOP at 1 PFLOP/s = 2 ms; 1 GB at 1 TB/s = 1 ms: compute-bound, 2 ms.
  EXPECT_DOUBLE_EQ(roofline_seconds(2e12, 1e9, 1e15, 1e12), 2e-3);
  EXPECT_DOUBLE_EQ(roofline_seconds(1e9, 4e9, 1e15, 1e12), 4e-3);
  EXPECT_THROW(roofline_seconds(1.0, 0.0, 0.0, 1.0), Error);
}

TEST(Roofline, RingAllReduce) {
  // 1 GB over 4 ranks at 100 GB/s with 1 us hops: 2 * 3/4 * 10 ms + 6 us.
  EXPECT_DOUBLE_EQ(ring_allreduce_seconds(1e9, 4, 1e11, 1e-6), 2.0 * 3.0 / 4.0 * 1e9 / 1e11 + 6e-6);
  EXPECT_EQ(ring_allreduce_seconds(1e9, 1, 1e11, 1e-6), 0.0);
}

}  // namespace
}  // namespace nanotrn::hw
