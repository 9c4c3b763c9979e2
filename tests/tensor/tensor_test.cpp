// Tensors and the caching allocator: strides, views, copies across dtypes, errors, allocator reuse and accounting.
#include <gtest/gtest.h>

#include "base/error.h"

#include "dtype/convert.h"
#include "tensor/tensor.h"

namespace nanotrn {
namespace {

TEST(Tensor, ShapesStridesAndViews) {
  Tensor x = Tensor::zeros({2, 3, 4});
  EXPECT_EQ(x.strides(), (Shape{12, 4, 1}));
  EXPECT_TRUE(x.is_contiguous());
  Tensor t = x.transpose(0, 2);
  EXPECT_EQ(t.shape(), (Shape{4, 3, 2}));
  EXPECT_EQ(t.strides(), (Shape{1, 4, 12}));
  EXPECT_FALSE(t.is_contiguous());
  x.at({1, 2, 3}) = 7.0f;
  EXPECT_EQ(t.at({3, 2, 1}), 7.0f);
  Tensor n = x.narrow(2, 1, 3);
  EXPECT_EQ(n.offset(), 1);
  EXPECT_EQ(n.at({1, 2, 2}), 7.0f);
  EXPECT_EQ(x.view({6, -1}).shape(), (Shape{6, 4}));
  EXPECT_THROW(t.view({24}), Error);       // not contiguous
  EXPECT_EQ(t.reshape({24}).numel(), 24);  // copies
  EXPECT_THROW(x.narrow(1, 2, 2), Error);  // out of range
  EXPECT_THROW(x.size(3), Error);
  EXPECT_THROW(Tensor().dtype(), Error);
  EXPECT_THROW(x.data<int32_t>(), Error);  // wrong element type
}

TEST(Tensor, DtypeRoundTripThroughStridedCopies) {
  std::vector<float> v = {1.0f, 1.00390625f, -3.5f, 65504.0f, 1e-8f, 0.1f};
  Tensor x = Tensor::from_vector({2, 3}, v);
  Tensor b = x.transpose(0, 1).to(DType::bf16);
  ASSERT_EQ(b.dtype(), DType::bf16);
  const std::vector<float> back = b.to_vector();
  // [3, 2] transposed order; each value rounded to bf16 by the dtype module's RNE
  const std::vector<size_t> order = {0, 3, 1, 4, 2, 5};
  for (size_t i = 0; i < order.size(); i++) EXPECT_EQ(back[i], bf16_to_f32(f32_to_bf16(v[order[i]])));
  Tensor f8 = x.to(DType::f8e4m3);
  EXPECT_EQ(f8.to_vector()[2], -3.5f);  // exactly representable in e4m3
}

TEST(CachingAllocator, ReusesBlocksAndCountsBytes) {
  auto alloc = std::make_shared<CachingAllocator>();
  {
    Tensor a = Tensor::empty({1000}, DType::f32, alloc);
    EXPECT_EQ(alloc->stats().bytes_in_use, CachingAllocator::size_class(4000));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(a.raw_data()) % 64, 0u);
  }
  EXPECT_EQ(alloc->stats().bytes_in_use, 0u);
  EXPECT_EQ(alloc->stats().bytes_cached, CachingAllocator::size_class(4000));
  Tensor b = Tensor::empty({999}, DType::f32, alloc);  // same size class: served from the cache
  EXPECT_EQ(alloc->stats().cache_hits, 1u);
  EXPECT_EQ(alloc->stats().peak_bytes_in_use, CachingAllocator::size_class(4000));
  alloc->empty_cache();
  EXPECT_EQ(alloc->stats().bytes_cached, 0u);
}

// A large request with no block of its own class takes a cached one up to a quarter larger, counts that block's size
// while in use and gives it back to that block's class; one more than a quarter larger, or a small request, allocates.
TEST(CachingAllocator, LargeRequestsShareANearbyCachedClass) {
  auto alloc = std::make_shared<CachingAllocator>();
  const size_t big = 2 * 1024 * 1024, near = big - 256 * 1024, far = big / 2;
  const size_t big_cls = CachingAllocator::size_class(big);
  void* p = alloc->allocate(big);
  alloc->release(p, big);
  void* q = alloc->allocate(near);  // 12.5 % smaller: the cached block serves it
  EXPECT_EQ(q, p);
  EXPECT_EQ(alloc->stats().cache_hits, 1u);
  EXPECT_EQ(alloc->stats().bytes_in_use, big_cls);
  EXPECT_EQ(alloc->stats().bytes_cached, 0u);
  alloc->release(q, near);  // back to the 2 MiB class, not to near's
  EXPECT_EQ(alloc->stats().bytes_in_use, 0u);
  EXPECT_EQ(alloc->stats().bytes_cached, big_cls);
  void* r = alloc->allocate(big);  // the exact class finds it again
  EXPECT_EQ(r, p);
  void* s = alloc->allocate(far);  // half the size: a block of its own, the cache is empty anyway
  alloc->release(r, big);
  void* t = alloc->allocate(far);  // the cached 2 MiB block is twice too large: a new block
  EXPECT_NE(t, r);
  EXPECT_EQ(alloc->stats().cache_hits, 2u);
  void* small = alloc->allocate(1000);
  alloc->release(small, 1000);
  void* small2 = alloc->allocate(900);  // below 64 KiB: only its own 1024-byte class (both round to it)
  EXPECT_EQ(small2, small);
  alloc->release(small2, 900);
  void* small3 = alloc->allocate(700);  // its class is 768 bytes: the cached 1024-byte block is not taken
  EXPECT_NE(small3, small);
  for (auto [ptr, n] : {std::pair{s, far}, {t, far}, {small3, size_t{700}}}) alloc->release(ptr, n);
  EXPECT_EQ(alloc->stats().bytes_in_use, 0u);
}

}  // namespace
}  // namespace nanotrn
