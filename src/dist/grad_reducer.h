// Data-parallel gradient reduction: after a step's micro-batches every rank's parameter gradients hold the sum over
// all ranks (each rank's loss is already scaled by 1 / the global micro-batch count, so the sum is the mean).
//
//   GradReducer reducer(comm, params, {.bucket_bytes = 4 << 20, .deterministic = false});
//   for each of this rank's micro-batches a:
//     tape.backward(loss, {}, false, reducer.backward_hook(last));   // buckets start while the backward runs
//     reducer.after_backward(last);
//   reducer.finish();                                                // waits; gradients are now global
//
// Two modes:
//  - Overlapped (default): parameters are packed, in reverse order (the order the backward finishes them), into
//    fp32 buckets of about bucket_bytes. During the backward of the rank's last micro-batch, the tape reports each
//    parameter whose gradient is final (Tape::backward's leaf hook); its gradient is copied into its bucket, and a
//    full bucket starts a non-blocking all-reduce at once (buckets start in bucket order on every rank: MPI needs
//    the same collective order everywhere). Outstanding all-reduces are progressed at every hook call. finish()
//    packs what the tape never reached (unused parameters count as zeros), waits, and writes the sums back. At world
//    size 1 nothing is copied and nothing waits. The sum is in the transport's order: it may differ in the last bits
//    between world sizes.
//  - Deterministic (train.deterministic): the sum is the same bits at every world size. Each micro-batch's gradient
//    is computed from zero and kept; the global sum is formed strictly in micro-batch order g0 + g1 + g2 + ...:
//    rank 0 adds its micro-batches, sends the partial sum to rank 1, which adds its own and passes it on; the last
//    rank broadcasts the result. Micro-batches are dealt to ranks in contiguous blocks (rank 0 the first ones), so
//    the order is the global one. It costs world-1 sequential hops and a micro-batch's worth of gradient memory per
//    kept micro-batch: a mode for verification, not for speed.
// Not here: which rows a rank trains on (the trainer), the optimiser's sharding (dist/ownership.h).
#pragma once

#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

#include "autograd/tape.h"
#include "dist/communicator.h"
#include "tensor/tensor.h"

namespace nanotrn::dist {

struct GradReducerOptions {
  int64_t bucket_bytes = 4 << 20;
  bool deterministic = false;
};

class GradReducer {
 public:
  GradReducer(Communicator& comm, std::vector<Tensor*> params, GradReducerOptions options);
  GradReducer(const GradReducer&) = delete;
  GradReducer& operator=(const GradReducer&) = delete;

  // The hook to pass to Tape::backward for a micro-batch (empty when this micro-batch needs none).
  Tape::LeafHook backward_hook(bool last_micro_batch);
  void after_backward(bool last_micro_batch);
  void finish();

  // Seconds spent inside finish() (communication the backward did not hide) and in the hooks, summed since the
  // last take_timing().
  struct Timing {
    double exposed_seconds = 0.0;
    double hook_seconds = 0.0;
  };
  Timing take_timing();
  int buckets() const { return static_cast<int>(buckets_.size()); }
  int64_t bytes_per_step() const { return total_ * 4; }

 private:
  struct Slot {
    size_t bucket;
    int64_t offset, numel;
  };
  struct Bucket {
    std::vector<float> data;
    size_t pending = 0;  // parameters not yet copied in this step
    size_t params = 0;
    Request request;
  };
  void reset();  // a new step: nothing packed, no bucket started
  void on_ready(AutogradMeta& meta);
  void pack(size_t param);
  void start_ready_buckets();
  void write_back(size_t param, const float* src);

  Communicator& comm_;
  std::vector<Tensor*> params_;
  GradReducerOptions options_;
  int64_t total_ = 0;
  std::vector<Slot> slots_;
  std::vector<bool> packed_;
  std::vector<Bucket> buckets_;
  size_t next_bucket_ = 0;  // the next bucket to start, in order
  std::unordered_map<const AutogradMeta*, size_t> index_;
  std::vector<std::vector<float>> units_;  // deterministic: this step's per-micro-batch gradients
  Timing timing_;
};

}  // namespace nanotrn::dist
