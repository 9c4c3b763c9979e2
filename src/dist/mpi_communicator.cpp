// The Open MPI communicator. See mpi_communicator.h.
#include "dist/mpi_communicator.h"

#include <mpi.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "base/error.h"
#include "base/parent_death.h"

namespace nanotrn::dist {

bool launched_by_mpirun() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMIX_RANK") != nullptr ||
         std::getenv("PMI_SIZE") != nullptr;
}

namespace {

void check_mpi(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw Error(std::string(call) + " failed: " + std::string(text, static_cast<size_t>(len)));
}

int int_count(int64_t n, const char* call) {
  check(n >= 0 && n <= INT_MAX,
        std::string(call) + ": " + std::to_string(n) + " elements is beyond MPI's int count (split the transfer)");
  return static_cast<int>(n);
}

MPI_Datatype mpi_type(Scalar s) {
  switch (s) {
    case Scalar::f32:
      return MPI_FLOAT;
    case Scalar::f64:
      return MPI_DOUBLE;
    case Scalar::i64:
      return MPI_INT64_T;
    case Scalar::byte:
      return MPI_BYTE;
  }
  return MPI_BYTE;
}

MPI_Op mpi_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum:
      return MPI_SUM;
    case ReduceOp::max:
      return MPI_MAX;
    case ReduceOp::min:
      return MPI_MIN;
  }
  return MPI_SUM;
}

class MpiRequest final : public RequestImpl {
 public:
  MpiRequest(const Communicator& comm, MPI_Request r, const char* call) : comm_(comm), request_(r), call_(call) {}
  bool test() override {
    int done = 0;
    check_mpi(MPI_Test(&request_, &done, MPI_STATUS_IGNORE), "MPI_Test");
    return done != 0;
  }
  // Polls MPI_Test without sleeping: Open MPI moves a transfer along only inside MPI calls (there is no progress
  // thread), so a sleeping waiter would stall every fragment of a large message. The rank yields its core between
  // polls (sched_yield) so that an oversubscribed machine still runs the ranks that compute. Past the timeout the
  // job ends.
  void wait() override {
    const auto start = std::chrono::steady_clock::now();
    for (uint64_t polls = 1;; polls++) {
      if (test()) return;
      if (polls % 64 != 0) continue;
      std::this_thread::yield();
      const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (waited > comm_.timeout()) {
        std::fprintf(stderr,
                     "nanotrn: rank %d of %d waited %.0f s in %s during %s: another rank died or hangs; ending the "
                     "job\n",
                     comm_.rank(), comm_.size(), waited, call_, comm_.activity().c_str());
        std::fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 75);
        std::_Exit(75);
      }
    }
  }

 private:
  const Communicator& comm_;
  MPI_Request request_;
  const char* call_;
};

class MpiCommunicator final : public Communicator {
 public:
  // Over `comm`: MPI_COMM_WORLD, or a communicator of split() that this object then owns (and frees).
  explicit MpiCommunicator(MPI_Comm comm, bool owned = false) : comm_(comm), owned_(owned) {
    check_mpi(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
    check_mpi(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
    MPI_Comm node;
    check_mpi(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
    check_mpi(MPI_Comm_size(node, &on_host_), "MPI_Comm_size");
    MPI_Comm_free(&node);
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    check_mpi(MPI_Get_library_version(version, &len), "MPI_Get_library_version");
    library_.assign(version, static_cast<size_t>(len));
    library_ = library_.substr(0, library_.find_first_of(",\n"));
  }
  ~MpiCommunicator() override {
    if (owned_) MPI_Comm_free(&comm_);
  }
  MpiCommunicator(const MpiCommunicator&) = delete;
  MpiCommunicator& operator=(const MpiCommunicator&) = delete;
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int ranks_on_host() const override { return on_host_; }
  std::unique_ptr<Communicator> split(int color) const override {
    MPI_Comm sub;
    check_mpi(MPI_Comm_split(comm_, color, rank_, &sub), "MPI_Comm_split");
    MPI_Comm_set_errhandler(sub, MPI_ERRORS_RETURN);
    return std::make_unique<MpiCommunicator>(sub, true);
  }
  std::string transport() const override {
    const char* btl = std::getenv("OMPI_MCA_btl");
    return library_ + (btl ? std::string(" (btl ") + btl + ")" : std::string());
  }

  Request start_all_reduce(void* data, int64_t count, Scalar type, ReduceOp op) override {
    MPI_Request r;
    check_mpi(
        MPI_Iallreduce(MPI_IN_PLACE, data, int_count(count, "MPI_Iallreduce"), mpi_type(type), mpi_op(op), comm_, &r),
        "MPI_Iallreduce");
    return wrap(r, "an all-reduce");
  }
  Request start_reduce_scatter(const void* in, void* out, int64_t count_per_rank, Scalar type) override {
    MPI_Request r;
    check_mpi(MPI_Ireduce_scatter_block(in, out, int_count(count_per_rank, "MPI_Ireduce_scatter_block"), mpi_type(type),
                                        MPI_SUM, comm_, &r),
              "MPI_Ireduce_scatter_block");
    return wrap(r, "a reduce-scatter");
  }
  Request start_all_gather(const void* in, void* out, int64_t bytes_per_rank) override {
    MPI_Request r;
    const int n = int_count(bytes_per_rank, "MPI_Iallgather");
    check_mpi(MPI_Iallgather(in, n, MPI_BYTE, out, n, MPI_BYTE, comm_, &r), "MPI_Iallgather");
    return wrap(r, "an all-gather");
  }
  Request start_broadcast(void* data, int64_t bytes, int root) override {
    check(root >= 0 && root < size_, "broadcast: no rank " + std::to_string(root));
    MPI_Request r;
    check_mpi(MPI_Ibcast(data, int_count(bytes, "MPI_Ibcast"), MPI_BYTE, root, comm_, &r), "MPI_Ibcast");
    return wrap(r, "a broadcast");
  }
  Request start_barrier() override {
    MPI_Request r;
    check_mpi(MPI_Ibarrier(comm_, &r), "MPI_Ibarrier");
    return wrap(r, "a barrier");
  }
  Request start_send(const void* data, int64_t bytes, int peer) override {
    check(peer >= 0 && peer < size_ && peer != rank_, "send: no peer rank " + std::to_string(peer));
    MPI_Request r;
    check_mpi(MPI_Isend(data, int_count(bytes, "MPI_Isend"), MPI_BYTE, peer, 0, comm_, &r), "MPI_Isend");
    return wrap(r, "a send");
  }
  Request start_recv(void* data, int64_t bytes, int peer) override {
    check(peer >= 0 && peer < size_ && peer != rank_, "recv: no peer rank " + std::to_string(peer));
    MPI_Request r;
    check_mpi(MPI_Irecv(data, int_count(bytes, "MPI_Irecv"), MPI_BYTE, peer, 0, comm_, &r), "MPI_Irecv");
    return wrap(r, "a receive");
  }

 private:
  Request wrap(MPI_Request r, const char* call) { return Request(std::make_unique<MpiRequest>(*this, r, call)); }
  MPI_Comm comm_;
  bool owned_ = false;
  int rank_ = 0, size_ = 1, on_host_ = 1;
  std::string library_;
};

}  // namespace

MpiSession::MpiSession() {
  if (!launched_by_mpirun()) return;
  // A rank dies with the mpirun (or daemon) that started it: a SIGKILLed mpirun cannot stop its ranks, which would
  // otherwise train on for seconds (until a write to its closed pipes fails or PMIx notices).
  die_with_parent(getppid());
  int provided = 0;
  check_mpi(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  active_ = true;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  check(provided >= MPI_THREAD_FUNNELED, "MPI_Init_thread: the MPI library does not provide MPI_THREAD_FUNNELED");
}

MpiSession::~MpiSession() { finish(); }

void MpiSession::finish() {
  if (!active_) return;
  active_ = false;
  MPI_Finalize();
}

std::unique_ptr<Communicator> MpiSession::communicator() const {
  if (!active_) return make_local_communicator();
  return std::make_unique<MpiCommunicator>(MPI_COMM_WORLD);
}

void MpiSession::abort(int code) const {
  std::fflush(stdout);
  std::fflush(stderr);
  if (active_) MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

}  // namespace nanotrn::dist
