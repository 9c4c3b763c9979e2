// Where a training step's host time goes, per op: forward time, backward time and calls, gathered by the tape.
//
//   OpProfile prof;  tape.set_profile(&prof);
//   prof.start_forward();                        // before the forward pass
//   Tensor loss = gpt.loss(ctx, ...);            // each tape.record() charges the time since the previous mark
//   tape.backward(loss);                         // each backward closure is timed on its own
//   prof.add("optimizer", seconds);             // anything else the caller times
//   for (const OpProfile::Row& r : prof.rows()) ...   // sorted by total time, largest first
//
// Forward attribution: an op's forward time is the wall time from the previous mark (the previous recorded op, or
// start_forward) to its record() call, so glue between ops (views, argument checks) lands on the next op that records
// and ops run without recording are folded into the next recorded one. Backward times are exact per closure.
// Owned by the caller; the tape only holds a pointer. Not here: GPU or device time, per-thread breakdowns.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace nanotrn {

class OpProfile {
 public:
  struct Row {
    std::string op;
    double forward_s = 0.0, backward_s = 0.0;
    long calls = 0;
    double total_s() const { return forward_s + backward_s; }
  };

  void start_forward();               // sets the mark to now
  void forward_mark(const char* op);  // charges now - mark to op's forward, moves the mark, counts a call
  void add_backward(const char* op, double seconds);
  void add(const std::string& name, double seconds);  // a row of its own (optimizer, data, ...), counted as forward
  std::vector<Row> rows() const;                      // largest total first
  double total_s() const;
  void clear() { rows_.clear(); }

 private:
  std::map<std::string, Row> rows_;
  double mark_ = 0.0;
};

}  // namespace nanotrn
