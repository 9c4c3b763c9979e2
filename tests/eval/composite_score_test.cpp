// The Phase 2 composite on hand-computed pools (the arithmetic is in the comments), the zero-range rule (a pool of
// one, equal values), ties broken by params and then by the order given, and every error of a result file.
#include "eval/composite_score.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <stdexcept>

#include "data/temp_dir.h"
#include "support/error_of.h"

namespace nanotrn {
namespace {

using testing_support::error_message_of;

RunResult run(std::string name, double bpb, double core, int64_t params) {
  return {std::move(name), bpb, core, params};
}

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

// The ranked pool's names, best first.
std::vector<std::string> names(const std::vector<RankedRun>& ranked) {
  std::vector<std::string> out;
  for (const RankedRun& r : ranked) out.push_back(r.run.name);
  return out;
}

const RankedRun& by_name(const std::vector<RankedRun>& ranked, const std::string& name) {
  for (const RankedRun& r : ranked)
    if (r.run.name == name) return r;
  throw std::runtime_error("no run " + name);
}

TEST(CompositeScore, ThreeDistinctRuns) {
  // bpb: best 0.90, worst 0.98, range 0.08.  CORE: worst 0.18, best 0.24, range 0.06.
  //   a: bpb part (0.98 - 0.98) / 0.08 = 0     CORE part (0.24 - 0.18) / 0.06 = 1      composite 0.5
  //   b: bpb part (0.98 - 0.94) / 0.08 = 0.5   CORE part (0.18 - 0.18) / 0.06 = 0      composite 0.25
  //   c: bpb part (0.98 - 0.90) / 0.08 = 1     CORE part (0.20 - 0.18) / 0.06 = 1/3    composite 0.5 + 1/6 = 2/3
  // Ranked: c (0.6667), a (0.5), b (0.25): not the order given.
  const auto ranked =
      composite_score({run("a", 0.98, 0.24, 100), run("b", 0.94, 0.18, 100), run("c", 0.90, 0.20, 100)});
  ASSERT_EQ(ranked.size(), 3u);
  EXPECT_EQ(names(ranked), (std::vector<std::string>{"c", "a", "b"}));
  const double tol = 1e-12;
  EXPECT_EQ(by_name(ranked, "a").bpb_part, 0.0);
  EXPECT_FALSE(std::signbit(by_name(ranked, "a").bpb_part)) << "the worst part is +0, never printed as -0";
  EXPECT_NEAR(by_name(ranked, "a").core_part, 1.0, tol);
  EXPECT_NEAR(by_name(ranked, "a").composite, 0.5, tol);
  EXPECT_NEAR(by_name(ranked, "b").bpb_part, 0.5, tol);
  EXPECT_NEAR(by_name(ranked, "b").core_part, 0.0, tol);
  EXPECT_NEAR(by_name(ranked, "b").composite, 0.25, tol);
  EXPECT_NEAR(by_name(ranked, "c").bpb_part, 1.0, tol);
  EXPECT_NEAR(by_name(ranked, "c").core_part, 1.0 / 3.0, tol);
  EXPECT_NEAR(by_name(ranked, "c").composite, 2.0 / 3.0, tol);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(ranked[i].rank, i + 1);
    EXPECT_EQ(ranked[i].tie, TieBreak::none);
  }
  // The run's own figures travel with it.
  EXPECT_EQ(ranked[0].run.val_bpb, 0.90);
  EXPECT_EQ(ranked[0].run.core, 0.20);
  EXPECT_EQ(ranked[0].run.params, 100);
}

TEST(CompositeScore, APoolOfOneScoresTheMiddleOfBothParts) {
  // Both ranges are zero: each part is 0.5, composite 0.5 * 0.5 + 0.5 * 0.5 = 0.5, rank 1.
  const auto ranked = composite_score({run("solo", 0.95, 0.22, 124'000'000)});
  ASSERT_EQ(ranked.size(), 1u);
  EXPECT_EQ(ranked[0].bpb_part, 0.5);
  EXPECT_EQ(ranked[0].core_part, 0.5);
  EXPECT_EQ(ranked[0].composite, 0.5);
  EXPECT_EQ(ranked[0].rank, 1);
  EXPECT_EQ(ranked[0].tie, TieBreak::none);
}

TEST(CompositeScore, EqualBpbLeavesCoreToOrderTheRuns) {
  // bpb all 0.95: zero range, bpb part 0.5 each.  CORE: worst 0.10, best 0.30, range 0.2.
  //   a: CORE part 0     composite 0.25 + 0     = 0.25
  //   b: CORE part 1     composite 0.25 + 0.5   = 0.75
  //   c: CORE part 0.5   composite 0.25 + 0.25  = 0.5
  // Ranked: b, c, a: CORE's order.
  const auto ranked =
      composite_score({run("a", 0.95, 0.10, 100), run("b", 0.95, 0.30, 100), run("c", 0.95, 0.20, 100)});
  EXPECT_EQ(names(ranked), (std::vector<std::string>{"b", "c", "a"}));
  for (const RankedRun& r : ranked) EXPECT_EQ(r.bpb_part, 0.5);
  EXPECT_NEAR(by_name(ranked, "a").composite, 0.25, 1e-12);
  EXPECT_NEAR(by_name(ranked, "b").composite, 0.75, 1e-12);
  EXPECT_NEAR(by_name(ranked, "c").composite, 0.5, 1e-12);
}

TEST(CompositeScore, EqualCoreLeavesBpbToOrderTheRuns) {
  // CORE all 0.2: part 0.5 each.  bpb: best 0.9, worst 1.0: x -> part 1, y -> part 0; composites 0.75 and 0.25.
  const auto ranked = composite_score({run("y", 1.0, 0.2, 100), run("x", 0.9, 0.2, 100)});
  EXPECT_EQ(names(ranked), (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(ranked[0].composite, 0.75);
  EXPECT_EQ(ranked[1].composite, 0.25);
}

TEST(CompositeScore, ATieInCompositeGoesToFewerParams) {
  // big:   bpb 0.90 (best, part 1), CORE 0.10 (worst, part 0): composite 0.5
  // small: bpb 1.00 (worst, part 0), CORE 0.30 (best, part 1): composite 0.5
  // Tied at 0.5; small has fewer params (100 < 200) and ranks first although given second.
  const auto ranked = composite_score({run("big", 0.90, 0.10, 200), run("small", 1.00, 0.30, 100)});
  EXPECT_EQ(names(ranked), (std::vector<std::string>{"small", "big"}));
  EXPECT_EQ(ranked[0].composite, 0.5);
  EXPECT_EQ(ranked[1].composite, 0.5);
  EXPECT_EQ(ranked[0].tie, TieBreak::params);
  EXPECT_EQ(ranked[1].tie, TieBreak::params);
  EXPECT_EQ(ranked[0].rank, 1);
  EXPECT_EQ(ranked[1].rank, 2);
}

TEST(CompositeScore, ATieUpToFloatingPointRoundingIsATie) {
  // bpb range [0.90, 1.00], CORE range [0.0, 1.0] (set by ends and edge).
  //   p: bpb 0.99 -> part (1.00 - 0.99) / 0.1 = 0.1,  CORE 0.7 -> part 0.7: composite 0.4
  //   q: bpb 0.93 -> part (1.00 - 0.93) / 0.1 = 0.7,  CORE 0.1 -> part 0.1: composite 0.4
  //   ends: bpb 0.90, CORE 0.0 -> 0.5;  edge: bpb 1.00, CORE 1.0 -> 0.5.
  // In doubles the two 0.4 sums differ in their last bits; rounded to 12 decimals they tie, and the params decide.
  const double p_raw = 0.5 * ((1.00 - 0.99) / (1.00 - 0.90)) + 0.5 * 0.7;
  const double q_raw = 0.5 * ((1.00 - 0.93) / (1.00 - 0.90)) + 0.5 * 0.1;
  EXPECT_NE(p_raw, q_raw) << "the example no longer shows a rounding difference";
  const auto ranked = composite_score(
      {run("p", 0.99, 0.7, 300), run("q", 0.93, 0.1, 200), run("ends", 0.90, 0.0, 50), run("edge", 1.00, 1.0, 60)});
  EXPECT_EQ(names(ranked), (std::vector<std::string>{"ends", "edge", "q", "p"}));
  EXPECT_EQ(by_name(ranked, "p").composite, by_name(ranked, "q").composite);
  EXPECT_EQ(by_name(ranked, "p").composite, 0.4);
  for (const RankedRun& r : ranked) EXPECT_EQ(r.tie, TieBreak::params) << r.run.name;
}

TEST(CompositeScore, ATieInCompositeAndParamsKeepsTheOrderGivenAndSaysSo) {
  // first and second: bpb parts 1 and 0, CORE parts 0 and 1: composite 0.5 each, params equal.
  // third: the same composite with fewer params ranks first; first and second keep their order.
  const auto ranked = composite_score({run("first", 0.90, 0.10, 100), run("second", 1.00, 0.30, 100),
                                       run("third", 0.95, 0.20, 10), run("fourth", 0.95, 0.20, 100)});
  // third and fourth: bpb part 0.5, CORE part 0.5: composite 0.5 too. All four tie; params 10 first, then the
  // three with 100 in the order given.
  EXPECT_EQ(names(ranked), (std::vector<std::string>{"third", "first", "second", "fourth"}));
  EXPECT_EQ(by_name(ranked, "third").tie, TieBreak::params);
  EXPECT_EQ(by_name(ranked, "first").tie, TieBreak::input_order);
  EXPECT_EQ(by_name(ranked, "second").tie, TieBreak::input_order);
  EXPECT_EQ(by_name(ranked, "fourth").tie, TieBreak::input_order);
  EXPECT_STREQ(tie_break_name(TieBreak::input_order), "input order");
  // Reversing the input reverses the unresolved part only.
  const auto reversed = composite_score({run("fourth", 0.95, 0.20, 100), run("third", 0.95, 0.20, 10),
                                         run("second", 1.00, 0.30, 100), run("first", 0.90, 0.10, 100)});
  EXPECT_EQ(names(reversed), (std::vector<std::string>{"third", "fourth", "second", "first"}));
}

TEST(CompositeScore, NegativeCoreIsAnOrdinaryValue) {
  // CORE is a mean of centred accuracies and can be below 0. CORE range [-0.1, 0.1]: a -> 0, b -> 1.
  // bpb range [0.9, 1.1]: a (0.9) -> 1, b (1.1) -> 0; c is in the middle of both ranges: 0.5 and 0.5.
  // All three composites are 0.5, so the params (1, 2, 3) order them.
  const auto ranked = composite_score({run("a", 0.9, -0.1, 1), run("b", 1.1, 0.1, 2), run("c", 1.0, 0.0, 3)});
  EXPECT_NEAR(by_name(ranked, "c").bpb_part, 0.5, 1e-12);
  EXPECT_NEAR(by_name(ranked, "c").core_part, 0.5, 1e-12);
  EXPECT_EQ(names(ranked), (std::vector<std::string>{"a", "b", "c"}));
}

TEST(CompositeScore, RunsBuiltInCodeAreHeldToTheRulesOfFiles) {
  EXPECT_NE(error_message_of([] { composite_score({}); }).find("no runs to score"), std::string::npos);
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  EXPECT_NE(error_message_of([&] { composite_score({run("n", nan, 0.2, 1)}); }).find("run 'n': val_bpb is not finite"),
            std::string::npos);
  EXPECT_NE(error_message_of([&] { composite_score({run("i", 0.9, inf, 1)}); }).find("run 'i': core is not finite"),
            std::string::npos);
  EXPECT_NE(error_message_of([] { composite_score({run("z", 0.9, 0.2, 0)}); }).find("run 'z': params must be > 0"),
            std::string::npos);
}

TEST(CompositeScore, ReadsAResultFileAndAFolder) {
  data::testing::TempDir dir;
  write(dir / "a.json", R"({"name": "k60", "val_bpb": 0.96136, "core": 0.2219, "params": 124260000, "steps": 3})");
  const RunResult a = read_run_result(dir / "a.json");
  EXPECT_EQ(a.name, "k60");
  EXPECT_EQ(a.val_bpb, 0.96136);
  EXPECT_EQ(a.core, 0.2219);
  EXPECT_EQ(a.params, 124260000);
  // No name: the file's path. A folder: its result.json, named by that file's path.
  std::filesystem::create_directories(dir / "run");
  write(dir / "run/result.json", R"({"val_bpb": 1, "core": -0.05, "params": 7})");
  const RunResult b = read_run_result(dir / "run");
  EXPECT_EQ(b.name, dir / "run/result.json");
  EXPECT_EQ(b.val_bpb, 1.0);
  EXPECT_EQ(b.core, -0.05);
  EXPECT_EQ(b.params, 7);
  const std::vector<RunResult> both = read_run_results({dir / "a.json", dir / "run"});
  ASSERT_EQ(both.size(), 2u);
  EXPECT_EQ(both[0].name, "k60");
  EXPECT_EQ(both[1].name, dir / "run/result.json");
}

// The error message of reading a file holding `text`.
std::string error_reading(const data::testing::TempDir& dir, const std::string& text) {
  write(dir / "r.json", text);
  return error_message_of([&] { read_run_result(dir / "r.json"); });
}

TEST(CompositeScore, EachErrorOfAResultFileNamesTheFileAndTheKey) {
  data::testing::TempDir dir;
  const std::string f = dir / "r.json";
  const auto expect_error = [&](const std::string& text, const std::string& message) {
    const std::string e = error_reading(dir, text);
    EXPECT_NE(e.find(f + ": " + message), std::string::npos) << "for " << text << ": " << e;
  };
  expect_error(R"({"core": 0.2, "params": 1})", "missing key \"val_bpb\"");
  expect_error(R"({"val_bpb": 0.9, "core": 0.2})", "missing key \"params\"");
  expect_error(R"({"val_bpb": "0.9", "core": 0.2, "params": 1})",
               "key \"val_bpb\" must be a number, got string \"0.9\"");
  expect_error(R"({"val_bpb": 0.9, "core": null, "params": 1})", "key \"core\" must be a number, got null");
  expect_error(R"({"val_bpb": 0.9, "core": 0.2, "params": 0})", "key \"params\" must be > 0, got 0");
  expect_error(R"({"val_bpb": 0.9, "core": 0.2, "params": -5})", "key \"params\" must be > 0, got -5");
  expect_error(R"({"val_bpb": 0.9, "core": 0.2, "params": 1.5e8})", "key \"params\" must be an integer, got number");
  expect_error(R"({"val_bpb": 0.9, "core": 0.2, "params": "124M"})", "key \"params\" must be an integer, got string");
  expect_error(R"({"val_bpb": 0.9, "core": 0.2, "params": 18446744073709551615})", "key \"params\" is too large");
  expect_error(R"({"name": 3, "val_bpb": 0.9, "core": 0.2, "params": 1})", "key \"name\" must be a string");
  expect_error(R"({"name": "", "val_bpb": 0.9, "core": 0.2, "params": 1})", "key \"name\" is empty");
  expect_error(R"([0.9, 0.2, 1])", "a result file is a JSON object");
  // Malformed JSON: the byte where it breaks. A number beyond a double (the only non-finite a JSON file can spell)
  // is refused by the parser, naming the number and the key it follows.
  expect_error(R"({"val_bpb": 0.9, "core": 0.2, "params": 1)", "byte 42: not valid JSON");
  expect_error("", "byte 1: not valid JSON");
  expect_error(R"({"val_bpb": 0.9, "core": 1e400, "params": 1})", "not valid JSON (the last key read: \"core\")");
  EXPECT_NE(error_reading(dir, R"({"val_bpb": 0.9, "core": 1e400, "params": 1})").find("1e400"), std::string::npos);
  // NaN and Infinity are not JSON (Python's json module writes them): the key is named all the same.
  expect_error(R"({"val_bpb": NaN, "core": 0.2, "params": 1})",
               "byte 13: not valid JSON (the last key read: \"val_bpb\")");
  expect_error(R"({"val_bpb": 0.9, "core": -Infinity, "params": 1})",
               "byte 27: not valid JSON (the last key read: \"core\")");
}

TEST(CompositeScore, MissingFilesFoldersAndTheSameFileTwiceAreRefused) {
  data::testing::TempDir dir;
  const std::string missing = dir / "missing.json";
  const std::string e = error_message_of([&] { read_run_result(missing); });
  EXPECT_NE(e.find("cannot open '" + missing + "'"), std::string::npos) << e;
  EXPECT_NE(error_message_of([&] {
              read_run_result(dir.str());
            }).find("'" + dir.str() + "' is a folder without a result.json"),
            std::string::npos);

  std::filesystem::create_directories(dir / "run");
  write(dir / "run/result.json", R"({"val_bpb": 0.9, "core": 0.2, "params": 1})");
  const std::string twice = error_message_of([&] { read_run_results({dir / "run", dir / "run/./result.json"}); });
  EXPECT_NE(twice.find("'" + (dir / "run/./result.json") + "' and '" + (dir / "run") + "' are the same file ('" +
                       (dir / "run/./result.json") + "')"),
            std::string::npos)
      << twice;
}

// CORE is all or nothing: a pool without it ranks by val_bpb alone (the CORE part 0.5 for each, a zero range); a
// pool that mixes runs with and without it is refused, naming a run without it.
TEST(CompositeScore, CoreIsOptionalButAllOrNothing) {
  data::testing::TempDir dir;
  write(dir / "a.json", R"({"name": "a", "val_bpb": 0.9, "params": 5})");
  const RunResult a = read_run_result(dir / "a.json");
  EXPECT_FALSE(a.has_core);
  EXPECT_EQ(a.val_bpb, 0.9);
  RunResult b = a;
  b.name = "b";
  b.val_bpb = 1.1;
  const auto ranked = composite_score({b, a});
  ASSERT_EQ(ranked.size(), 2u);
  EXPECT_EQ(ranked[0].run.name, "a");
  EXPECT_EQ(ranked[0].core_part, 0.5);
  EXPECT_EQ(ranked[1].core_part, 0.5);
  EXPECT_EQ(ranked[0].composite, 0.75);
  EXPECT_EQ(ranked[1].composite, 0.25);
  RunResult c = run("c", 1.0, 0.2, 5);
  const std::string e = error_message_of([&] { composite_score({c, a}); });
  EXPECT_NE(e.find("run 'a' has no CORE while run 'c' has one"), std::string::npos) << e;
  const std::string e2 = error_message_of([&] { composite_score({a, c}); });
  EXPECT_NE(e2.find("run 'a' has no CORE while run 'c' has one"), std::string::npos) << e2;
}

}  // namespace
}  // namespace nanotrn
