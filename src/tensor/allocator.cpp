#include "tensor/allocator.h"

#include <cstdlib>
#include <new>

namespace nanotrn {

static constexpr size_t kAlignment = 64;

size_t CachingAllocator::size_class(size_t bytes) {
  const size_t small_step = 256, large_step = 64 * 1024, large_from = 1024 * 1024;
  if (bytes == 0) return small_step;
  const size_t step = bytes < large_from ? small_step : large_step;
  return (bytes + step - 1) / step * step;
}

CachingAllocator::~CachingAllocator() { empty_cache(); }

void* CachingAllocator::allocate(size_t bytes) {
  const size_t cls = size_class(bytes);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.allocations++;
    auto it = free_lists_.find(cls);
    if (it != free_lists_.end() && !it->second.empty()) {
      void* p = it->second.back();
      it->second.pop_back();
      stats_.cache_hits++;
      stats_.bytes_cached -= cls;
      stats_.bytes_in_use += cls;
      if (stats_.bytes_in_use > stats_.peak_bytes_in_use) stats_.peak_bytes_in_use = stats_.bytes_in_use;
      return p;
    }
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

void CachingAllocator::release(void* ptr, size_t bytes) {
  if (!ptr) return;
  const size_t cls = size_class(bytes);
  std::lock_guard<std::mutex> lock(mutex_);
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
