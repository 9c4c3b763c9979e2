// `nanotrn score RESULT...`: the Phase 2 composite (eval/composite_score.h) of result files or run folders, as a
// table best first, or --json. This file parses flags and prints; the scoring is in the library.
#include <algorithm>
#include <cstdio>
#include <iostream>

#include "base/format.h"
#include "cli/commands.h"
#include "eval/composite_score.h"

namespace nanotrn::cli {

namespace {

constexpr const char* kRule =
    "composite = 0.5 * bpb part + 0.5 * CORE part, each part min-max normalised over the runs given (bpb: lowest = "
    "1, CORE: highest = 1; a part on which all runs are equal is 0.5); ties: fewer params, then the order given";

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) s += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return s;
}

// Lines saying what no figure in the table shows: a part with a zero range, and how each tie was broken.
std::vector<std::string> notes(const std::vector<RankedRun>& ranked) {
  std::vector<std::string> out;
  const auto all_same = [&](auto value) {
    return std::all_of(ranked.begin(), ranked.end(), [&](const RankedRun& r) { return value(r) == value(ranked[0]); });
  };
  if (all_same([](const RankedRun& r) { return r.run.val_bpb; }))
    out.push_back("every run has val_bpb " + format_number("%.6f", ranked[0].run.val_bpb) +
                  ": the bpb part is 0.5 for each and orders nothing");
  if (!ranked[0].run.has_core)
    out.push_back(
        "no run has CORE (never scored with nanotrn eval core): the CORE part is 0.5 for each and orders "
        "nothing");
  else if (all_same([](const RankedRun& r) { return r.run.core; }))
    out.push_back("every run has CORE " + format_number("%.6f", ranked[0].run.core) +
                  ": the CORE part is 0.5 for each and orders nothing");
  // Equal composites are adjacent in rank order.
  for (size_t i = 0; i < ranked.size();) {
    size_t end = i + 1;
    while (end < ranked.size() && ranked[end].composite == ranked[i].composite) end++;
    if (end - i > 1) {
      std::vector<std::string> names;
      for (size_t k = i; k < end; ++k) names.push_back(ranked[k].run.name);
      out.push_back(joined(names) + " have the same composite " + format_number("%.6f", ranked[i].composite) +
                    ": fewer params ranks first");
      for (size_t k = i; k < end;) {
        size_t same = k + 1;
        while (same < end && ranked[same].run.params == ranked[k].run.params) same++;
        if (same - k > 1) {
          std::vector<std::string> tied;
          for (size_t m = k; m < same; ++m) tied.push_back(ranked[m].run.name);
          out.push_back(joined(tied) + " also have the same params (" + std::to_string(ranked[k].run.params) +
                        "): no rule separates them; they keep the order given");
        }
        k = same;
      }
    }
    i = end;
  }
  return out;
}

void print_ranking_table(const std::vector<RankedRun>& ranked) {
  size_t name_width = 4;
  for (const RankedRun& r : ranked) name_width = std::max(name_width, r.run.name.size());
  const int w = static_cast<int>(name_width);
  std::cout << kRule << "\n";
  char line[256];
  std::snprintf(line, sizeof line, "%-4s  %-*s  %9s  %9s  %9s  %9s  %9s  %12s\n", "rank", w, "name", "val_bpb",
                "bpb part", "CORE", "CORE part", "composite", "params");
  std::cout << line;
  for (const RankedRun& r : ranked) {
    std::snprintf(line, sizeof line, "%-4d  ", r.rank);
    std::cout << line << r.run.name << std::string(name_width - r.run.name.size(), ' ');
    const std::string core = r.run.has_core ? format_number("%9.6f", r.run.core) : std::string(8, ' ') + "-";
    std::snprintf(line, sizeof line, "  %9.6f  %9.6f  %s  %9.6f  %9.6f  %12lld\n", r.run.val_bpb, r.bpb_part,
                  core.c_str(), r.core_part, r.composite, static_cast<long long>(r.run.params));
    std::cout << line;
  }
  for (const std::string& n : notes(ranked)) std::cout << "note: " << n << "\n";
}

}  // namespace

void add_score(CLI::App& app) {
  struct Args {
    std::vector<std::string> results;
    bool json = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("score", "Rank runs by the Phase 2 composite of val_bpb and CORE (recipe-spec §12)");
  cmd->add_option("RESULT", a->results,
                  "Result files ({\"val_bpb\", \"params\", optional \"core\" and \"name\"}), or run folders "
                  "(any train, speedrun or sweep trial folder: its result.json)")
      ->required();
  cmd->add_flag("--json", a->json, "Machine-readable output");
  cmd->footer(std::string(kRule) + ".");
  cmd->callback([a] {
    const std::vector<RankedRun> ranked = composite_score(read_run_results(a->results));
    if (!a->json) {
      print_ranking_table(ranked);
      return;
    }
    nlohmann::json runs = nlohmann::json::array();
    for (const RankedRun& r : ranked) {
      runs.push_back({{"rank", r.rank},
                      {"name", r.run.name},
                      {"val_bpb", r.run.val_bpb},
                      {"bpb_part", r.bpb_part},
                      {"core", r.run.has_core ? nlohmann::json(r.run.core) : nlohmann::json()},
                      {"core_part", r.core_part},
                      {"composite", r.composite},
                      {"params", r.run.params},
                      {"tie", tie_break_name(r.tie)}});
    }
    std::cout << nlohmann::json{{"rule", kRule}, {"runs", runs}, {"notes", notes(ranked)}}.dump(2) << "\n";
  });
}

}  // namespace nanotrn::cli
