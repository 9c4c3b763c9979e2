// All-reduce time against message size: nanotrn's communicator (dist/communicator.h: MPI_Iallreduce polled with
// MPI_Test, what the gradient buckets use) beside a plain blocking MPI_Allreduce loop in the same run, the
// transport's own ceiling. Run under mpirun (docs/PERFORMANCE.md, Data parallel):
//   mpirun -np 2 --bind-to none build/release/bench/allreduce_bench [--mca btl self,tcp before the program]
// Prints, on rank 0, per size: median microseconds of each, the bus bandwidth 2 (N-1)/N bytes / time (the bytes a
// ring all-reduce moves per rank) and the ratio plain / ours (1.0 = no overhead from polling).
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "dist/mpi_communicator.h"

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

template <class F>
double median_seconds(int reps, F f) {
  std::vector<double> t;
  for (int i = 0; i < reps; i++) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = now();
    f();
    double dt = now() - t0, worst = 0.0;
    MPI_Allreduce(&dt, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);  // the slowest rank's time
    t.push_back(worst);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main() {
  nanotrn::dist::MpiSession session;
  if (!session.active()) {
    std::fprintf(stderr, "allreduce_bench: run it under mpirun (mpirun -np 2 %s)\n", "allreduce_bench");
    return 2;
  }
  auto comm = session.communicator();
  const int n = comm->size();
  if (comm->rank() == 0) {
    std::printf("all-reduce (sum, fp32) on %d ranks, %s; median of the slowest rank\n", n, comm->transport().c_str());
    std::printf("%12s %12s %12s %10s %10s %8s\n", "bytes", "ours us", "MPI us", "ours GB/s", "MPI GB/s", "MPI/ours");
  }
  for (int64_t bytes = 4096; bytes <= (int64_t{64} << 20); bytes *= 4) {
    const int64_t count = bytes / 4;
    std::vector<float> a(static_cast<size_t>(count), 1.0f), b(a);
    const int reps = bytes <= (1 << 20) ? 50 : 10;
    const double ours = median_seconds(reps, [&] { comm->all_reduce(a.data(), count); });
    const double plain = median_seconds(reps, [&] {
      MPI_Allreduce(MPI_IN_PLACE, b.data(), static_cast<int>(count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    });
    const double bus = 2.0 * (n - 1) / n * static_cast<double>(bytes);
    if (comm->rank() == 0) {
      std::printf("%12lld %12.1f %12.1f %10.2f %10.2f %8.2f\n", static_cast<long long>(bytes), ours * 1e6, plain * 1e6,
                  bus / ours * 1e-9, bus / plain * 1e-9, plain / ours);
    }
  }
  return 0;
}
