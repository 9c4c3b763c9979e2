// The single-process communicator (world size 1): collectives copy or do nothing, point to point has no peer, and the
// request and timeout rules of communicator.h. The MPI communicator is exercised by tests/dist/dp.sh under mpirun.
#include <gtest/gtest.h>

#include "base/error.h"
#include "dist/communicator.h"
#include "dist/mpi_communicator.h"

namespace nanotrn::dist {
namespace {

TEST(LocalCommunicator, CollectivesOfOneRank) {
  auto comm = make_local_communicator();
  EXPECT_EQ(comm->rank(), 0);
  EXPECT_EQ(comm->size(), 1);
  std::vector<float> x = {1.5f, -2.0f};
  comm->all_reduce(x.data(), 2);
  EXPECT_EQ(x, (std::vector<float>{1.5f, -2.0f}));  // the sum over one rank
  const std::vector<float> in = {3.0f, 4.0f};
  std::vector<float> out(2, 0.0f);
  comm->reduce_scatter(in.data(), out.data(), 2);
  EXPECT_EQ(out, in);
  const int64_t mine = 77;
  int64_t gathered = 0;
  comm->all_gather(&mine, &gathered, sizeof mine);
  EXPECT_EQ(gathered, 77);
  double d = 2.5;
  comm->broadcast(&d, sizeof d, 0);
  EXPECT_EQ(d, 2.5);
  comm->barrier();
  Request r = comm->start_all_reduce(x.data(), 2, Scalar::f32, ReduceOp::max);
  EXPECT_TRUE(r.test());
  EXPECT_TRUE(r.done());
}

TEST(LocalCommunicator, RefusesWhatOneRankCannotDo) {
  auto comm = make_local_communicator();
  char byte = 0;
  EXPECT_THROW(comm->send(&byte, 1, 1), Error);
  EXPECT_THROW(comm->recv(&byte, 1, 0), Error);
  EXPECT_THROW(comm->broadcast(&byte, 1, 1), Error);
  EXPECT_THROW(comm->set_timeout(0.0), Error);
  EXPECT_THROW(comm->set_timeout(-1.0), Error);
  comm->set_timeout(3.0);
  EXPECT_EQ(comm->timeout(), 3.0);
}

TEST(MpiSession, StartsMpiOnlyUnderMpirun) {
  // Under ctest this binary is not launched by mpirun: the session stays inactive and hands out the local
  // communicator. Launched by mpirun, the same test checks the other side.
  MpiSession session;
  EXPECT_EQ(session.active(), launched_by_mpirun());
  if (!launched_by_mpirun()) {
    EXPECT_EQ(session.communicator()->size(), 1);
    EXPECT_EQ(session.communicator()->transport(), "single process");
  } else {
    EXPECT_NE(session.communicator()->transport(), "single process");
  }
}

}  // namespace
}  // namespace nanotrn::dist
