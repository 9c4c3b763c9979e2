#include "tensor/allocator.h"

#include <cstdlib>
#include <new>

namespace nanotrn {

static constexpr size_t kAlignment = 64;

size_t CachingAllocator::size_class(size_t bytes) {
  const size_t small_step = 256, large_step = 64 * 1024;
  if (bytes == 0) return small_step;
  const size_t step = bytes < kLargeFrom ? small_step : large_step;
  return (bytes + step - 1) / step * step;
}

CachingAllocator::~CachingAllocator() { empty_cache(); }

void* CachingAllocator::allocate(size_t bytes) {
  const size_t cls = size_class(bytes);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.allocations++;
    if (void* p = take_cached(cls)) return p;
  }
  void* p = std::aligned_alloc(kAlignment, cls);
  if (!p) {
    empty_cache();  // give the cache back and retry once before failing
    p = std::aligned_alloc(kAlignment, cls);
    if (!p) throw std::bad_alloc();
  }
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.bytes_in_use += cls;
  if (stats_.bytes_in_use > stats_.peak_bytes_in_use) stats_.peak_bytes_in_use = stats_.bytes_in_use;
  return p;
}

// The block of class `cls`, or from 64 KiB on of the smallest cached class up to a quarter larger (shapes that vary a
// little from call to call, as CORE's examples do, reuse each other's memory instead of faulting in new pages).
// Looks at the classes in that range only. Called with the mutex held; nullptr when nothing fits.
void* CachingAllocator::take_cached(size_t cls) {
  const size_t largest = cls < kShareFrom ? cls : cls + cls / 4;
  auto it = free_lists_.lower_bound(cls);
  while (it != free_lists_.end() && it->first <= largest && it->second.empty()) ++it;
  if (it == free_lists_.end() || it->first > largest) return nullptr;
  const size_t got = it->first;
  void* p = it->second.back();
  it->second.pop_back();
  if (got != cls) larger_[p] = got;
  stats_.cache_hits++;
  stats_.bytes_cached -= got;
  stats_.bytes_in_use += got;
  if (stats_.bytes_in_use > stats_.peak_bytes_in_use) stats_.peak_bytes_in_use = stats_.bytes_in_use;
  return p;
}

void CachingAllocator::release(void* ptr, size_t bytes) {
  if (!ptr) return;
  size_t cls = size_class(bytes);
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = larger_.find(ptr); it != larger_.end()) {
    cls = it->second;
    larger_.erase(it);
  }
  free_lists_[cls].push_back(ptr);
  stats_.bytes_in_use -= cls;
  stats_.bytes_cached += cls;
}

void CachingAllocator::empty_cache() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [cls, list] : free_lists_) {
    for (void* p : list) std::free(p);
    stats_.bytes_cached -= cls * list.size();
    list.clear();
  }
  free_lists_.clear();
}

void CachingAllocator::reset_peak() {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.peak_bytes_in_use = stats_.bytes_in_use;
}

AllocatorStats CachingAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

}  // namespace nanotrn
