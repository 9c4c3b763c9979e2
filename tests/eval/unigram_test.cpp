// The unigram baseline against a hand computation of add-one smoothed frequencies.
#include <cmath>

#include <gtest/gtest.h>

#include "base/error.h"
#include "eval/unigram.h"

namespace nanotrn {
namespace {

TEST(Unigram, BitsPerByteOfSmoothedFrequencies) {
  UnigramModel u(4);
  const std::vector<int32_t> train = {0, 1, 1, 2, 2, 2};  // counts 1, 2, 3, 0; N = 6, V = 4
  u.count(train);
  const std::vector<int32_t> token_bytes = {0, 1, 2, 3};  // token 0 is special
  const std::vector<int32_t> val = {0, 1, 2, 3, 2};
  const double bits = -std::log2(3.0 / 10) - std::log2(4.0 / 10) - std::log2(1.0 / 10) - std::log2(4.0 / 10);
  const double bytes = 1 + 2 + 3 + 2;
  EXPECT_NEAR(u.bpb(val, token_bytes), bits / bytes, 1e-12);
  const std::vector<int32_t> bad = {7};
  EXPECT_THROW(u.count(bad), Error);
}

}  // namespace
}  // namespace nanotrn
