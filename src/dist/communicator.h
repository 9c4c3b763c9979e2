// The processes of one training job and the collectives between them. One interface, two implementations: a
// single process (world size 1: every collective is a copy or nothing) and Open MPI (dist/mpi_communicator.h), so
// the trainer has one code path and never asks "am I distributed?".
//
//   std::unique_ptr<Communicator> comm = dist::make_communicator(mpi_session);   // MPI under mpirun, else local
//   comm->all_reduce(grads, n, ReduceOp::sum);               // blocking: in place, every rank gets the sum
//   Request r = comm->start_all_reduce(bucket, n);           // non-blocking: started now ...
//   r.test();  ...  r.wait();                                // ... progressed by test(), finished by wait()
//   comm->broadcast(bytes, size, /*root=*/owner);
//
// Rules every implementation keeps:
//  - Collectives are called by every rank in the same order with the same sizes (MPI's rule); a size that differs is
//    undefined behaviour in MPI, so callers derive sizes from state every rank shares (the recipe, the parameters).
//  - Buffers of a started request are not touched until it has finished (wait() returned or test() returned true).
//  - Waiting never blocks forever: a wait longer than the communicator's timeout (set_timeout, default 20 s) means
//    a rank died or hangs; the waiting rank prints which rank it is, what it waited for (set_activity, e.g. "the
//    gradient all-reduce of step 12") and how long, then ends the whole job with a non-zero exit code. A killed
//    rank is also noticed by mpirun itself, which names it and ends the job.
//  - Sums of floating point values are in the transport's order, which may differ between world sizes; callers that
//    need results independent of the world size (train.deterministic, val_bpb) arrange a fixed order themselves
//    (dist/grad_reducer.h, train/evaluate.h).
// Not here: which gradients go in which bucket (dist/grad_reducer.h), which rank owns which parameter
// (dist/ownership.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace nanotrn::dist {

enum class ReduceOp { sum, max, min };
enum class Scalar { f32, f64, i64, byte };
int64_t scalar_bytes(Scalar s);

// One started collective or point-to-point transfer. Move-only; a request that was never waited for is waited for
// by its destructor (so buffers are never left to a transfer that outlives them).
class RequestImpl {
 public:
  virtual ~RequestImpl() = default;
  virtual bool test() = 0;  // progresses the transfer; true once it has finished
  virtual void wait() = 0;
};

class Request {
 public:
  Request() = default;  // an already finished request
  explicit Request(std::unique_ptr<RequestImpl> impl) : impl_(std::move(impl)) {}
  Request(Request&&) noexcept = default;
  Request& operator=(Request&& other) noexcept;
  ~Request();
  bool test();
  void wait();
  bool done() const { return impl_ == nullptr; }

 private:
  std::unique_ptr<RequestImpl> impl_;
};

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // How many ranks of this job run on this rank's machine (for threads per rank), and a description of the
  // transport for the run header ("single process", "Open MPI 4.1.4 (shared memory, tcp)").
  virtual int ranks_on_host() const = 0;
  virtual std::string transport() const = 0;
  // The ranks of this communicator with the same `color`, as a communicator of their own (ordered by rank): a job's
  // rank groups (a sweep runs one trial per group). Collective: every rank calls it.
  virtual std::unique_ptr<Communicator> split(int color) const = 0;

  // Non-blocking collectives (the buffers belong to the request until it finishes).
  // All-reduce, in place: every rank's `count` values combined element-wise by `op`.
  virtual Request start_all_reduce(void* data, int64_t count, Scalar type, ReduceOp op) = 0;
  // Reduce-scatter (sum): `in` holds size() blocks of `count_per_rank` values; rank r receives the sum of block r.
  virtual Request start_reduce_scatter(const void* in, void* out, int64_t count_per_rank, Scalar type) = 0;
  // All-gather: rank r's `bytes_per_rank` bytes land at out + r * bytes_per_rank on every rank.
  virtual Request start_all_gather(const void* in, void* out, int64_t bytes_per_rank) = 0;
  // Broadcast: `root`'s bytes overwrite everyone's.
  virtual Request start_broadcast(void* data, int64_t bytes, int root) = 0;
  virtual Request start_barrier() = 0;
  // Point to point (the deterministic reduction's chain): bytes to `peer`, from `peer`.
  virtual Request start_send(const void* data, int64_t bytes, int peer) = 0;
  virtual Request start_recv(void* data, int64_t bytes, int peer) = 0;

  // Blocking forms: start, then wait.
  void all_reduce(float* data, int64_t count, ReduceOp op = ReduceOp::sum);
  void all_reduce(double* data, int64_t count, ReduceOp op = ReduceOp::sum);
  void all_reduce(int64_t* data, int64_t count, ReduceOp op = ReduceOp::sum);
  void reduce_scatter(const float* in, float* out, int64_t count_per_rank);
  void all_gather(const void* in, void* out, int64_t bytes_per_rank);
  void broadcast(void* data, int64_t bytes, int root);
  void barrier();
  void send(const void* data, int64_t bytes, int peer);
  void recv(void* data, int64_t bytes, int peer);

  // What the job is doing, for the message of a wait that timed out ("the gradient all-reduce of step 12").
  void set_activity(std::string what) { activity_ = std::move(what); }
  const std::string& activity() const { return activity_; }
  // The longest a wait may take before the job is ended (seconds, > 0).
  void set_timeout(double seconds);
  double timeout() const { return timeout_; }

 private:
  std::string activity_ = "starting up";
  double timeout_ = 20.0;
};

// World size 1: collectives copy (all-gather, reduce-scatter) or do nothing; a point-to-point transfer is an error
// (there is no peer).
std::unique_ptr<Communicator> make_local_communicator();

}  // namespace nanotrn::dist
