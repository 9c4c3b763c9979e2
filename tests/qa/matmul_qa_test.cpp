// `qa matmul` (src/qa/): the shapes file is read strictly (a typo, a missing source or a bad size is an error naming
// the entry), and the sweep's figures are what their stated methods give: a GPU row is the roofline of its catalog
// numbers, a NeuronCore row the library matmul timed on that core, MFU = FLOPs / (seconds x peak); the CSV has a row
// per (shape, M, device) and the chart a series per device.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "base/error.h"
#include "hw/catalog.h"
#include "io/csv.h"
#include "neuron/registry/kernel_run.h"
#include "qa/matmul_qa.h"
#include "qa/matmul_shapes.h"
#include "support/source_path.h"

namespace nanotrn::qa {
namespace {

TEST(QaMatmulShapes, TheShippedFileParsesAndBadEntriesAreNamed) {
  const std::vector<QaModel> models = load_matmul_shapes(testing_support::source_path("configs/qa/matmul_shapes.json"));
  ASSERT_EQ(models.size(), 5u);
  EXPECT_EQ(models[0].name, "llama-3-8b");
  for (const QaModel& m : models) EXPECT_NE(m.source.find("config.json"), std::string::npos) << m.name;
  auto error_of = [](const std::string& text) {
    try {
      parse_matmul_shapes(text, "shapes.json");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of(R"({"models": [{"name": "a", "source": "s", "projections": [{"name": "q", "k": 4, "nn": 4}]}]})")
                .find("models[0].projections[0]: unknown field 'nn'"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"models": [{"name": "a", "source": "s", "projections": [{"name": "q", "k": 0, "n": 4}]}]})")
                .find("positive"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"models": [{"name": "a", "source": "", "projections": [{"name": "q", "k": 4, "n": 4}]}]})")
                .find("'source'"),
            std::string::npos);
  EXPECT_NE(error_of("{\"models\": [").find("not JSON"), std::string::npos);
  // A number beyond a double (nlohmann-json's out_of_range, not a parse_error): the fuzzer's find, once uncaught.
  EXPECT_NE(error_of(R"({"models": 55555555555555E555555555555})").find("shapes.json: not JSON"), std::string::npos);
}

TEST(QaMatmul, RowsAreTheStatedMethodsFigures) {
  const std::vector<QaModel> models = {{"m", "src", {{"up", 512, 1024}}}};
  MatmulQaOptions o;
  o.ms = {1, 256};
  o.devices = {"trn2", "h100"};
  const std::vector<MatmulQaRow> rows = run_matmul_qa(models, o, nullptr);
  ASSERT_EQ(rows.size(), 4u);
  const hw::Device h100 = hw::builtin_catalog().find("h100");
  for (const MatmulQaRow& r : rows) {
    const double flops = 2.0 * static_cast<double>(r.m * r.k * r.n);
    EXPECT_DOUBLE_EQ(r.flops, flops);
    EXPECT_NEAR(r.mfu, flops / (r.seconds * r.peak_flops), 1e-12);
    if (r.device == "h100") {
      const double bytes = static_cast<double>(r.m * r.k + r.k * r.n) * 2 + static_cast<double>(r.m * r.n) * 4;
      EXPECT_DOUBLE_EQ(r.peak_flops, h100.value("peak_bf16_flops_per_chip"));
      EXPECT_NEAR(r.seconds, std::max(flops / r.peak_flops, bytes / h100.hbm_bytes_per_s_per_chip()),
                  1e-12 * r.seconds);
    } else {
      EXPECT_EQ(r.device, "trn2 NeuronCore-v3");
      const neuron::Report k = neuron::time_kernel("matmul", neuron::MatmulShape{r.m, r.k, r.n}, DType::bf16, "v3");
      EXPECT_DOUBLE_EQ(r.seconds, k.total_ns * 1e-9);
      EXPECT_LE(r.mfu, 1.0);
    }
  }
  // More tokens, more reuse of the weights: the MFU rises with M on both.
  EXPECT_GT(rows[2].mfu, rows[0].mfu);
  EXPECT_GT(rows[3].mfu, rows[1].mfu);
  const std::string csv = matmul_qa_csv(rows);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 5);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "model,projection,m,k,n,flops,device,method,seconds,tflops,mfu_percent");
  // Names from the user's shapes file with a comma or a quote stay one field each (RFC 4180, read back strictly).
  std::vector<MatmulQaRow> named = rows;
  named[0].model = "llama, \"7b\"";
  const io::CsvTable t = io::parse_csv(matmul_qa_csv(named), "matmul_qa.csv");
  ASSERT_EQ(t.rows.size(), rows.size());
  EXPECT_EQ(t.cell(0, t.column("model")), "llama, \"7b\"");
  EXPECT_EQ(t.cell(0, t.column("m")), std::to_string(rows[0].m));
  const std::string svg = matmul_qa_svg(rows);
  EXPECT_NE(svg.find("data-series=\"trn2 NeuronCore-v3\""), std::string::npos);
  EXPECT_NE(svg.find("data-series=\"h100\""), std::string::npos);
  o.devices = {"host"};
  EXPECT_THROW(run_matmul_qa(models, o, nullptr), Error);  // the host is measured, not a catalog row
}

}  // namespace
}  // namespace nanotrn::qa
