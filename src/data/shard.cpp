// .bin token shards. See shard.h.
#include "data/shard.h"

#include <fcntl.h>
#include <glob.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/error.h"
#include "base/file.h"

namespace nanotrn::data {

namespace {

void put_u32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

int32_t get_i32(const uint8_t* p) {
  return static_cast<int32_t>(static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
                              (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24));
}

}  // namespace

std::vector<uint8_t> encode_shard(std::span<const int32_t> tokens, int32_t vocab_size) {
  check(vocab_size > 0, "shard: vocab_size must be positive, got " + std::to_string(vocab_size));
  check(tokens.size() <= 0x7FFFFFFFu, "shard: " + std::to_string(tokens.size()) + " tokens do not fit one shard");
  const bool narrow = vocab_size <= 65536;
  const size_t width = narrow ? 2 : 4;
  std::vector<uint8_t> out(kShardHeaderBytes + width * tokens.size(), 0);
  put_u32(out.data(), static_cast<uint32_t>(narrow ? kShardMagic16 : kShardMagic32));
  put_u32(out.data() + 4, static_cast<uint32_t>(narrow ? kShardVersion16 : kShardVersion32));
  put_u32(out.data() + 8, static_cast<uint32_t>(tokens.size()));
  uint8_t* p = out.data() + kShardHeaderBytes;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const int32_t t = tokens[i];
    check(t >= 0 && t < vocab_size, "shard: token " + std::to_string(i) + " is " + std::to_string(t) +
                                        ", outside the vocabulary [0, " + std::to_string(vocab_size) + ")");
    if (narrow) {
      p[2 * i] = static_cast<uint8_t>(t);
      p[2 * i + 1] = static_cast<uint8_t>(t >> 8);
    } else {
      put_u32(p + 4 * i, static_cast<uint32_t>(t));
    }
  }
  return out;
}

void write_shard(const std::string& path, std::span<const int32_t> tokens, int32_t vocab_size) {
  write_file_atomic(path, encode_shard(tokens, vocab_size));
}

ShardView parse_shard(const uint8_t* data, size_t size, const std::string& name, int32_t vocab_size) {
  const std::string at = name + ": byte ";
  check(size >= kShardHeaderBytes, at + std::to_string(size) + ": truncated header: the file has " +
                                       std::to_string(size) + " bytes, a shard header needs 1024");
  const int32_t magic = get_i32(data), version = get_i32(data + 4), count = get_i32(data + 8);
  int width = 0;
  if (magic == kShardMagic16) {
    width = 2;
    check(version == kShardVersion16, at + "4: version " + std::to_string(version) + " with magic 20240520 (expected " +
                                          std::to_string(kShardVersion16) + ")");
  } else if (magic == kShardMagic32) {
    width = 4;
    check(version == kShardVersion32, at + "4: version " + std::to_string(version) + " with magic 20240801 (expected " +
                                          std::to_string(kShardVersion32) + ")");
  } else {
    throw Error(at + "0: wrong magic " + std::to_string(magic) + " (expected 20240520, or 20240801 for uint32 ids)");
  }
  check(count >= 0, at + "8: negative token count " + std::to_string(count));
  const uint64_t want = kShardHeaderBytes + static_cast<uint64_t>(width) * static_cast<uint64_t>(count);
  check(size >= want, at + std::to_string(size - (size - kShardHeaderBytes) % width) + ": truncated: the header says " +
                          std::to_string(count) + " tokens (" + std::to_string(want) + " bytes) but the file has " +
                          std::to_string(size) + " bytes");
  check(size == want, at + std::to_string(want) + ": " + std::to_string(size - want) +
                          " trailing bytes after the header's " + std::to_string(count) + " tokens");
  ShardView view{data + kShardHeaderBytes, count, width};
  if (vocab_size > 0) {
    for (int64_t i = 0; i < count; ++i) {
      const int32_t t = view.at(i);
      if (t >= vocab_size || t < 0) {
        throw Error(at + std::to_string(kShardHeaderBytes + width * i) + ": token " + std::to_string(i) + " is " +
                    std::to_string(static_cast<uint32_t>(t)) + ", not below the vocabulary size " +
                    std::to_string(vocab_size));
      }
    }
  }
  return view;
}

MappedShard::MappedShard(const std::string& path, int32_t vocab_size) : path_(path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  check(fd >= 0, "shard: cannot open " + path + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int e = errno;
    ::close(fd);
    throw Error("shard: cannot stat " + path + ": " + std::strerror(e));
  }
  size_ = static_cast<size_t>(st.st_size);
  if (size_ > 0) {
    map_ = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    const int e = errno;
    ::close(fd);
    if (map_ == MAP_FAILED) {
      map_ = nullptr;
      throw Error("shard: cannot mmap " + path + ": " + std::strerror(e));
    }
  } else {
    ::close(fd);
  }
  try {
    static const uint8_t kEmpty = 0;
    view_ = parse_shard(map_ ? static_cast<const uint8_t*>(map_) : &kEmpty, size_, path, vocab_size);
  } catch (...) {
    release();
    throw;
  }
}

void MappedShard::release() {
  if (map_ != nullptr) ::munmap(map_, size_);
  map_ = nullptr;
  size_ = 0;
}

MappedShard::~MappedShard() { release(); }

MappedShard::MappedShard(MappedShard&& other) noexcept
    : path_(std::move(other.path_)), map_(other.map_), size_(other.size_), view_(other.view_) {
  other.map_ = nullptr;
  other.size_ = 0;
}

MappedShard& MappedShard::operator=(MappedShard&& other) noexcept {
  if (this != &other) {
    release();
    path_ = std::move(other.path_);
    map_ = other.map_;
    size_ = other.size_;
    view_ = other.view_;
    other.map_ = nullptr;
    other.size_ = 0;
  }
  return *this;
}

std::vector<std::string> glob_shards(const std::string& pattern) {
  glob_t g{};
  const int rc = ::glob(pattern.c_str(), 0, nullptr, &g);
  std::vector<std::string> out;
  if (rc == 0) {
    for (size_t i = 0; i < g.gl_pathc; i++) out.emplace_back(g.gl_pathv[i]);
  }
  ::globfree(&g);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<int32_t> read_shard_ids(const std::vector<std::string>& paths, int32_t vocab_size) {
  std::vector<int32_t> out;
  for (const std::string& p : paths) {
    const MappedShard s(p, vocab_size);
    const ShardView v = s.view();
    const size_t at = out.size();
    out.resize(at + static_cast<size_t>(v.count));
    v.copy(0, v.count, out.data() + at);
  }
  return out;
}

}  // namespace nanotrn::data
