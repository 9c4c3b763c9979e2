// The Phase 2 composite score (recipe-spec §12): 50% val_bpb + 50% CORE, each min-max normalised across the
// submission pool with directions aligned, then averaged; ties go to fewer parameters.
//
//   std::vector<RunResult> runs = read_run_results({"runs/a/result.json", "runs/b"});   // a folder: its result.json
//   for (const RankedRun& r : composite_score(runs))                                     // best first
//     std::printf("%d %s %.6f\n", r.rank, r.run.name.c_str(), r.composite);
//
// For a pool of runs with bpb range [bpb_min, bpb_max] and CORE range [core_min, core_max]:
//   bpb_part  = (bpb_max - val_bpb) / (bpb_max - bpb_min)     lower bpb is better: 1 for the best run, 0 the worst
//   core_part = (core - core_min) / (core_max - core_min)     higher CORE is better: 1 for the best run, 0 the worst
//   composite = 0.5 * bpb_part + 0.5 * core_part              in [0, 1]
//
// A zero range (a pool of one, or every run with the same value of a part): that part is 0.5 for every run. A part
// that cannot tell the runs apart says nothing about any of them, so it must not move one run against another: any
// constant does that, and an unguarded 0/0 (NaN) or a guarded (x - min) / (range + eps) does not (a NaN makes the
// sort undefined; an eps turns a last-digit difference into a full 0-to-1 swing). Of the constants, 0.5 is the
// middle of the scale and claims nothing, where 1 would call every run the best and 0 every run the worst; the
// composite keeps its formula and its [0, 1] range, so the other part alone orders the runs, at half weight. A pool
// of one therefore scores 0.5 + 0.5 -> composite 0.5, rank 1. Values are compared exactly: any difference in the
// files, however small, is a real range and spans 0 to 1 (that is what min-max does; the pool's spread decides).
//
// Ranking: higher composite first. The composite (from the unrounded parts) and the parts are rounded to 12
// decimals (composite_digits) before they are stored and compared, so two composites equal in exact arithmetic (parts
// 0.1 + 0.7 and 0.7 + 0.1) tie instead of being ordered by the last bit of a floating-point sum, and a part reads
// 0.5, not 0.5000000000000006; 1e-12 is far below any difference in score that means anything and far above the
// ~1e-16 rounding of a sum in [0, 1]. Equal composites: fewer params ranks first (tie =
// TieBreak::params). Equal composites and params: the order given, which no rule decides (tie =
// TieBreak::input_order, and the CLI says so). Ranks are 1..N, distinct.
//
// CORE is optional, all or nothing: a pool where no run has CORE (training runs that were never scored with
// `eval core`) scores its CORE part 0.5 for every run, as any part that cannot tell the runs apart, so val_bpb alone
// orders them; a pool where some runs have CORE and others not is an error naming a run without it (ranking a
// missing score against real ones would invent one).
// Result files (every run folder's result.json: `train`, the speedrun, a sweep's trials; `eval core` adds "core"): a
// JSON object with "val_bpb" (number), "params" (integer), optional "core" (number) and "name" (string; default: the
// path of the file read); other keys are ignored. Errors
// (nanotrn::Error, naming the file and the key): a missing file, malformed JSON, a key missing or not of its type,
// a non-finite number (1e400, NaN, Infinity: refused by the JSON parser, naming the last key read), params <= 0,
// an empty name, the same file given twice (also as FOLDER and FOLDER/result.json).
// Not here: computing CORE or val_bpb (eval/bpb.h), printing (src/cli/score.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nanotrn {

struct RunResult {
  std::string name;
  double val_bpb = 0.0;  // bits per byte on the validation data: lower is better
  double core = 0.0;     // CORE (mean centred accuracy): higher is better; meaningful only with has_core
  int64_t params = 0;    // parameter count: the tie-breaker, fewer is better
  bool has_core = true;  // false: the result has no CORE (never scored)
};

// How a run's place against runs with the same composite was decided.
enum class TieBreak {
  none,         // no other run has the same composite
  params,       // another run has the same composite; the params decided
  input_order,  // another run has the same composite and params; the order given decided
};
const char* tie_break_name(TieBreak t);  // "none", "params", "input order"

struct RankedRun {
  RunResult run;
  double bpb_part = 0.0;   // in [0, 1], 1 = the pool's lowest val_bpb; 0.5 when every run has the same val_bpb
  double core_part = 0.0;  // in [0, 1], 1 = the pool's highest CORE; 0.5 when every run has the same CORE
  double composite = 0.0;  // 0.5 * bpb_part + 0.5 * core_part; it and the parts rounded to composite_digits
  int rank = 0;            // 1 = best; 1..N, distinct
  TieBreak tie = TieBreak::none;
};

inline constexpr int composite_digits = 12;

// `path` is a result file, or a folder holding result.json.
RunResult read_run_result(const std::string& path);
// Each path read as above; two paths naming the same file are an error naming both.
std::vector<RunResult> read_run_results(const std::vector<std::string>& paths);

// The pool ranked, best first. Throws on an empty pool, a non-finite val_bpb or CORE, params <= 0, or CORE on some
// runs and not others (naming the run), so that runs built in code are held to the rules of result files.
std::vector<RankedRun> composite_score(std::vector<RunResult> runs);

}  // namespace nanotrn
