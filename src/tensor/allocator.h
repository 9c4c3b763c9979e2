// A caching host allocator: 64-byte aligned blocks, kept in per-size free lists when released so that the training
// loop, which asks for the same sizes every step, stops calling malloc after the first step.
//
//   auto alloc = std::make_shared<CachingAllocator>();
//   void* p = alloc->allocate(4096);  ...  alloc->release(p, 4096);   // back to the cache, not to the OS
//   alloc->stats().bytes_in_use / peak_bytes_in_use / bytes_cached
//
// Sizes are rounded up to a size class (multiples of 256 B below 1 MiB, of 64 KiB above) so that near-equal requests
// share blocks; a request of 64 KiB or more with no cached block of its class takes the smallest cached block up to a
// quarter larger (shapes that vary a little between calls, like CORE's examples, then reuse memory rather than fault
// in fresh pages; the training loop asks for the same sizes every step and always finds its own). Thread-safe (one
// mutex; allocation is not on any inner loop). Not here: device memory, arenas with fixed capacity (the software
// NeuronCore has its own SBUF/PSUM allocators).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace nanotrn {

struct AllocatorStats {
  size_t bytes_in_use = 0;       // handed out and not yet released
  size_t peak_bytes_in_use = 0;  // high-water mark of bytes_in_use since construction or reset_peak()
  size_t bytes_cached = 0;       // released, held in the free lists
  uint64_t allocations = 0;      // calls to allocate()
  uint64_t cache_hits = 0;       // of those, served from the free lists
};

class CachingAllocator {
 public:
  CachingAllocator() = default;
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  // Returns a 64-byte aligned block of at least `bytes` bytes (a unique non-null pointer even for 0 bytes).
  void* allocate(size_t bytes);
  // Returns a block obtained from allocate(bytes) with the same `bytes`.
  void release(void* ptr, size_t bytes);
  // Frees every cached block back to the OS.
  void empty_cache();
  void reset_peak();
  AllocatorStats stats() const;

  static size_t size_class(size_t bytes);
  static constexpr size_t kLargeFrom = 1024 * 1024;  // from here classes step by 64 KiB
  static constexpr size_t kShareFrom = 64 * 1024;    // from here a request may take a larger cached class

 private:
  void* take_cached(size_t cls);

  mutable std::mutex mutex_;
  std::map<size_t, std::vector<void*>> free_lists_;
  std::unordered_map<void*, size_t> larger_;  // blocks handed out for a smaller class: their own class
  AllocatorStats stats_;
};

}  // namespace nanotrn
