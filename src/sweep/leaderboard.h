// A sweep's leaderboard (`nanotrn sweep report DIR`): per variant the mean and standard deviation of val_bpb over its
// seeds, its difference to the baseline with Welch's t-test p-value (stats.h), CORE when scored, the steps and MFU it
// gets on the target device, as text, JSON and a self-contained HTML page whose plot overlays the loss curves of the
// best few (report/svg_chart.h: no script, no network).
//
//   Leaderboard lb = make_leaderboard(plan, read_records(dir, plan));
//   std::cout << leaderboard_text(lb);
//   write_file_atomic(dir + "/leaderboard.html", leaderboard_html(lb, plan, dir));
//
// Ranking: variants that reached the last rung first, by mean val_bpb (lower is better; ties by id), then those
// that stopped at a lower rung (successive halving) by the rung they reached and their mean there, then variants with
// no finished trial (failed or skipped, with the first reason). diff = mean - the baseline's mean at the same rung;
// p = Welch's two-sided p of the variant's values against the baseline's (NaN with fewer than two seeds on a side).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sweep/plan.h"
#include "sweep/records.h"
#include "sweep/stats.h"

namespace nanotrn::sweep {

struct VariantRow {
  std::string id, overrides;
  int rung = 0;                 // the highest rung it has a done trial at
  std::vector<double> val_bpb;  // per done seed at that rung
  Summary bpb;
  double diff = 0;              // mean - the baseline's mean at the same rung (NaN when the baseline has none)
  Welch welch;                  // against the baseline
  std::optional<Summary> core;  // when scored
  int64_t steps = 0;            // on the target device, from the pricing
  double mfu = 0;
  int done = 0, failed = 0, skipped = 0;
  std::string note;               // why it has no result, or "stopped at rung r"
  std::vector<std::string> runs;  // run folders of its done trials (relative to the sweep folder)
};

struct Leaderboard {
  std::string baseline, device, clock;
  int last_rung = 0;
  std::vector<VariantRow> rows;  // ranked
  nlohmann::json to_json() const;
};

Leaderboard make_leaderboard(const SweepPlan& plan, const std::map<std::string, TrialRecord>& records);
std::string leaderboard_text(const Leaderboard& lb);
// `curves`: how many of the best variants' loss curves to overlay (each variant's first seed, from its run folder).
std::string leaderboard_html(const Leaderboard& lb, const SweepPlan& plan, const std::string& dir, int curves = 5);

}  // namespace nanotrn::sweep
