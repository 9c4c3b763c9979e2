// Token shards: the llm.c / modded-nanogpt `.bin` format (recipe-spec §4.2), written and read strictly.
//
//   write_shard("out/data/train_000000.bin", tokens, /*vocab_size=*/8192);   // uint16 ids (V <= 65,536)
//   MappedShard shard("out/data/train_000000.bin", 8192);                    // mmap + full validation
//   int32_t id = shard.view().at(17);
//
// Layout: a header of 256 little-endian int32 words, then `count` tokens.
//   words [0] magic, [1] version, [2] count N, [3..255] zero.
//   magic 20240520, version 1: N uint16 ids (file size 1024 + 2N), the format the speedrun community uses.
//   magic 20240801, version 7: N uint32 ids (file size 1024 + 4N), llm.c's variant for vocabularies > 65,536.
// Reading checks the magic/version pair, that the size is exactly the header plus N ids, and that every id is below
// the vocabulary size; each error names the file and the byte offset where the problem is.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace nanotrn::data {

inline constexpr int32_t kShardMagic16 = 20240520;
inline constexpr int32_t kShardVersion16 = 1;
inline constexpr int32_t kShardMagic32 = 20240801;
inline constexpr int32_t kShardVersion32 = 7;
inline constexpr size_t kShardHeaderBytes = 1024;

// The shard file's bytes; uint16 ids when vocab_size <= 65,536, else uint32. Throws on an id outside [0, vocab).
std::vector<uint8_t> encode_shard(std::span<const int32_t> tokens, int32_t vocab_size);
void write_shard(const std::string& path, std::span<const int32_t> tokens, int32_t vocab_size);

// Read-only view of a validated shard's ids (they stay in the file mapping or buffer the view was made from).
struct ShardView {
  const uint8_t* ids = nullptr;  // first id byte (just after the header)
  int64_t count = 0;
  int width = 2;  // bytes per id
  int32_t at(int64_t i) const {
    if (width == 2) return static_cast<int32_t>(ids[2 * i] | (ids[2 * i + 1] << 8));
    const uint8_t* p = ids + 4 * i;
    return static_cast<int32_t>(static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
                                (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24));
  }
  void copy(int64_t first, int64_t n, int32_t* out) const {
    for (int64_t i = 0; i < n; ++i) out[i] = at(first + i);
  }
};

// Validates bytes as a shard; `name` is used in errors. vocab_size <= 0 skips the id check.
ShardView parse_shard(const uint8_t* data, size_t size, const std::string& name, int32_t vocab_size);

// A shard file mapped into memory (read-only, MAP_PRIVATE) and validated by parse_shard. Move-only.
class MappedShard {
 public:
  MappedShard(const std::string& path, int32_t vocab_size);
  ~MappedShard();
  MappedShard(MappedShard&& other) noexcept;
  MappedShard& operator=(MappedShard&& other) noexcept;
  MappedShard(const MappedShard&) = delete;
  MappedShard& operator=(const MappedShard&) = delete;

  const ShardView& view() const { return view_; }
  const std::string& path() const { return path_; }

 private:
  void release();
  std::string path_;
  void* map_ = nullptr;
  size_t size_ = 0;
  ShardView view_;
};

// The files a shard glob (data.train, data.val: "out/data/tokens/train_*.bin") matches, sorted; empty when none.
std::vector<std::string> glob_shards(const std::string& pattern);
// Every id of the shards, in order (each validated against vocab_size as MappedShard does).
std::vector<int32_t> read_shard_ids(const std::vector<std::string>& paths, int32_t vocab_size);

}  // namespace nanotrn::data
