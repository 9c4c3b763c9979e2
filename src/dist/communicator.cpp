// The blocking forms, requests, and the single-process communicator. See communicator.h.
#include "dist/communicator.h"

#include <cmath>
#include <cstring>

#include "base/error.h"

namespace nanotrn::dist {

int64_t scalar_bytes(Scalar s) {
  switch (s) {
    case Scalar::f32:
      return 4;
    case Scalar::f64:
    case Scalar::i64:
      return 8;
    case Scalar::byte:
      return 1;
  }
  return 1;
}

Request& Request::operator=(Request&& other) noexcept {
  if (this != &other) {
    if (impl_) impl_->wait();
    impl_ = std::move(other.impl_);
  }
  return *this;
}

Request::~Request() {
  if (impl_) impl_->wait();
}

bool Request::test() {
  if (impl_ && impl_->test()) impl_.reset();
  return impl_ == nullptr;
}

void Request::wait() {
  if (!impl_) return;
  impl_->wait();
  impl_.reset();
}

void Communicator::all_reduce(float* data, int64_t count, ReduceOp op) {
  start_all_reduce(data, count, Scalar::f32, op).wait();
}
void Communicator::all_reduce(double* data, int64_t count, ReduceOp op) {
  start_all_reduce(data, count, Scalar::f64, op).wait();
}
void Communicator::all_reduce(int64_t* data, int64_t count, ReduceOp op) {
  start_all_reduce(data, count, Scalar::i64, op).wait();
}
void Communicator::reduce_scatter(const float* in, float* out, int64_t count_per_rank) {
  start_reduce_scatter(in, out, count_per_rank, Scalar::f32).wait();
}
void Communicator::all_gather(const void* in, void* out, int64_t bytes_per_rank) {
  start_all_gather(in, out, bytes_per_rank).wait();
}
void Communicator::broadcast(void* data, int64_t bytes, int root) { start_broadcast(data, bytes, root).wait(); }
void Communicator::barrier() { start_barrier().wait(); }
void Communicator::send(const void* data, int64_t bytes, int peer) { start_send(data, bytes, peer).wait(); }
void Communicator::recv(void* data, int64_t bytes, int peer) { start_recv(data, bytes, peer).wait(); }

void Communicator::set_timeout(double seconds) {
  check(std::isfinite(seconds) && seconds > 0.0,
        "communicator: the timeout must be a positive number of seconds, got " + std::to_string(seconds));
  timeout_ = seconds;
}

namespace {

class LocalCommunicator final : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  int ranks_on_host() const override { return 1; }
  std::string transport() const override { return "single process"; }
  std::unique_ptr<Communicator> split(int) const override { return make_local_communicator(); }

  Request start_all_reduce(void*, int64_t count, Scalar, ReduceOp) override {
    check(count >= 0, "all_reduce: negative count");
    return {};
  }
  Request start_reduce_scatter(const void* in, void* out, int64_t count_per_rank, Scalar type) override {
    check(count_per_rank >= 0, "reduce_scatter: negative count");
    if (in != out && count_per_rank > 0)
      std::memmove(out, in, static_cast<size_t>(count_per_rank * scalar_bytes(type)));
    return {};
  }
  Request start_all_gather(const void* in, void* out, int64_t bytes_per_rank) override {
    check(bytes_per_rank >= 0, "all_gather: negative size");
    if (in != out && bytes_per_rank > 0) std::memmove(out, in, static_cast<size_t>(bytes_per_rank));
    return {};
  }
  Request start_broadcast(void*, int64_t bytes, int root) override {
    check(bytes >= 0 && root == 0, "broadcast: root " + std::to_string(root) + " in a world of one rank");
    return {};
  }
  Request start_barrier() override { return {}; }
  Request start_send(const void*, int64_t, int peer) override {
    throw Error("send: no rank " + std::to_string(peer) + " in a world of one rank");
  }
  Request start_recv(void*, int64_t, int peer) override {
    throw Error("recv: no rank " + std::to_string(peer) + " in a world of one rank");
  }
};

}  // namespace

std::unique_ptr<Communicator> make_local_communicator() { return std::make_unique<LocalCommunicator>(); }

}  // namespace nanotrn::dist
