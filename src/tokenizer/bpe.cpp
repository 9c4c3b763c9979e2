// Byte-level BPE encode/decode. See bpe.h.
#include "tokenizer/bpe.h"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <queue>

#include "base/error.h"
#include "base/file.h"
#include "base/utf8.h"
#include "tokenizer/tiktoken_file.h"

namespace nanotrn::tokenizer {

namespace {

// Open-addressing map from an adjacent pair (a << 32 | b) to the id of the token a+b; built once, then read-only.
class PairMap {
 public:
  void build(const std::vector<std::pair<uint64_t, int32_t>>& entries) {
    size_t cap = 16;
    shift_ = 60;
    while (cap < entries.size() * 2) {
      cap *= 2;
      --shift_;
    }
    keys_.assign(cap, kEmpty);
    values_.assign(cap, -1);
    mask_ = cap - 1;
    for (const auto& [k, v] : entries) {
      size_t i = slot(k);
      while (keys_[i] != kEmpty && keys_[i] != k) i = (i + 1) & mask_;
      if (keys_[i] == k && values_[i] <= v) continue;  // keep the lowest rank for a pair
      keys_[i] = k;
      values_[i] = v;
    }
  }
  int32_t find(int32_t a, int32_t b) const {
    const uint64_t k = (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b);
    for (size_t i = slot(k);; i = (i + 1) & mask_) {
      if (keys_[i] == k) return values_[i];
      if (keys_[i] == kEmpty) return -1;
    }
  }

 private:
  static constexpr uint64_t kEmpty = ~uint64_t{0};
  // Fibonacci hashing: the top bits of the product depend on every bit of the key.
  size_t slot(uint64_t k) const { return static_cast<size_t>((k * 0x9E3779B97F4A7C15ull) >> shift_); }
  std::vector<uint64_t> keys_;
  std::vector<int32_t> values_;
  size_t mask_ = 0;
  int shift_ = 60;
};

// A fast hash of a byte string (8 bytes per step), well mixed in its low bits.
inline uint64_t hash_bytes(std::string_view s) {
  const char* p = s.data();
  size_t n = s.size();
  uint64_t h = 0x243F6A8885A308D3ull ^ (n * 0x9E3779B97F4A7C15ull);
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
    h ^= h >> 31;
    p += 8;
    n -= 8;
  }
  if (n > 0) {
    uint64_t w = 0;
    std::memcpy(&w, p, n);
    h = (h ^ w) * 0x94D049BB133111EBull;
  }
  h ^= h >> 32;
  h *= 0xD6E8FEB86659FD93ull;
  return h ^ (h >> 32);
}

// Open-addressing map from non-empty byte strings (views that must outlive the map) to V; linear probing, grows at
// half load.
template <class V>
class ViewMap {
 public:
  explicit ViewMap(size_t capacity = 16) { reset(capacity); }
  void reset(size_t capacity) {
    size_t cap = 16;
    while (cap < capacity) cap *= 2;
    slots_.assign(cap, Slot{});
    mask_ = cap - 1;
    size_ = 0;
  }
  size_t size() const { return size_; }
  const V* find(std::string_view key, uint64_t hash) const {
    for (size_t i = hash & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.key.empty()) return nullptr;
      if (s.hash == hash && s.key == key) return &s.value;
    }
  }
  // Inserts unless the key is present; returns the stored value.
  const V& insert(std::string_view key, uint64_t hash, V value) {
    if ((size_ + 1) * 2 > slots_.size()) grow();
    size_t i = hash & mask_;
    for (; !slots_[i].key.empty(); i = (i + 1) & mask_) {
      if (slots_[i].hash == hash && slots_[i].key == key) return slots_[i].value;
    }
    slots_[i] = Slot{key, hash, value};
    ++size_;
    return slots_[i].value;
  }

 private:
  struct Slot {
    std::string_view key;
    uint64_t hash = 0;
    V value{};
  };
  void grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    reset(old.size() * 2);
    for (const Slot& s : old) {
      if (!s.key.empty()) insert(s.key, s.hash, s.value);
    }
  }
  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

// Per-call (per-thread) memo of multi-token chunks: chunk text -> ids. Keys view the caller's text.
struct ChunkCache {
  static constexpr size_t kMaxEntries = size_t{1} << 16;
  static constexpr size_t kMaxChunk = 64;
  ViewMap<std::pair<uint32_t, uint32_t>> index{4096};  // -> (offset, count) in pool
  std::vector<int32_t> pool;
};

constexpr size_t kShortChunk = 48;  // longer chunks merge through a heap instead of a quadratic scan

}  // namespace

struct Bpe::Impl {
  PairMap pairs;
  ViewMap<int32_t> by_bytes;  // token bytes (views into Bpe::tokens_) -> id
  int32_t byte_token[256];
  Pretokenizer split;

  explicit Impl(std::string_view pattern) : split(pattern) {}

  void merge_short(std::vector<int32_t>* parts) const {
    std::vector<int32_t>& p = *parts;
    while (p.size() > 1) {
      int32_t best = -1;
      size_t at = 0;
      for (size_t i = 0; i + 1 < p.size(); ++i) {
        const int32_t m = pairs.find(p[i], p[i + 1]);
        if (m >= 0 && (best < 0 || m < best)) {
          best = m;
          at = i;
        }
      }
      if (best < 0) return;
      p[at] = best;
      p.erase(p.begin() + static_cast<std::ptrdiff_t>(at) + 1);
    }
  }

  // The same merges as merge_short, in O(n log n): a linked list of parts and a min-heap of (rank, position).
  void merge_long(std::vector<int32_t>* parts) const {
    std::vector<int32_t>& p = *parts;
    const int32_t n = static_cast<int32_t>(p.size());
    std::vector<int32_t> next(n), prev(n);
    for (int32_t i = 0; i < n; ++i) {
      next[i] = i + 1 < n ? i + 1 : -1;
      prev[i] = i - 1;
    }
    using Entry = std::pair<int32_t, int32_t>;  // (merged id, left position)
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;
    for (int32_t i = 0; i + 1 < n; ++i) {
      const int32_t m = pairs.find(p[i], p[i + 1]);
      if (m >= 0) heap.push({m, i});
    }
    std::vector<bool> alive(n, true);
    while (!heap.empty()) {
      const auto [m, i] = heap.top();
      heap.pop();
      if (!alive[i] || next[i] < 0 || pairs.find(p[i], p[next[i]]) != m) continue;  // stale entry
      const int32_t j = next[i];
      p[i] = m;
      alive[j] = false;
      next[i] = next[j];
      if (next[j] >= 0) prev[next[j]] = i;
      if (prev[i] >= 0) {
        const int32_t r = pairs.find(p[prev[i]], p[i]);
        if (r >= 0) heap.push({r, prev[i]});
      }
      if (next[i] >= 0) {
        const int32_t r = pairs.find(p[i], p[next[i]]);
        if (r >= 0) heap.push({r, i});
      }
    }
    std::vector<int32_t> out;
    for (int32_t i = 0; i >= 0 && i < n; i = next[i]) out.push_back(p[i]);
    p.swap(out);
  }

  void encode_chunk(std::string_view chunk, std::vector<int32_t>* out, ChunkCache* cache,
                    std::vector<int32_t>* scratch) const {
    if (chunk.size() == 1) {
      out->push_back(byte_token[static_cast<uint8_t>(chunk[0])]);
      return;
    }
    const uint64_t hash = hash_bytes(chunk);
    if (const int32_t* id = by_bytes.find(chunk, hash)) {
      out->push_back(*id);
      return;
    }
    const bool cacheable = chunk.size() <= ChunkCache::kMaxChunk;
    if (cacheable) {
      if (const auto* hit = cache->index.find(chunk, hash)) {
        const int32_t* first = cache->pool.data() + hit->first;
        out->insert(out->end(), first, first + hit->second);
        return;
      }
    }
    scratch->clear();
    for (char c : chunk) scratch->push_back(byte_token[static_cast<uint8_t>(c)]);
    if (chunk.size() <= kShortChunk) {
      merge_short(scratch);
    } else {
      merge_long(scratch);
    }
    out->insert(out->end(), scratch->begin(), scratch->end());
    if (cacheable) {
      if (cache->index.size() >= ChunkCache::kMaxEntries) {
        cache->index.reset(4096);
        cache->pool.clear();
      }
      cache->index.insert(
          chunk, hash,
          std::make_pair(static_cast<uint32_t>(cache->pool.size()), static_cast<uint32_t>(scratch->size())));
      cache->pool.insert(cache->pool.end(), scratch->begin(), scratch->end());
    }
  }

  void encode_text(std::string_view text, std::vector<int32_t>* out, ChunkCache* cache) const {
    std::vector<std::string_view> chunks;
    std::vector<int32_t> scratch;
    split.split(text, &chunks);
    for (std::string_view c : chunks) encode_chunk(c, out, cache, &scratch);
  }
};

std::vector<std::string> reserved_specials(int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back("<|reserved_" + std::to_string(i) + "|>");
  return out;
}

Bpe::Bpe(std::vector<std::string> tokens, std::vector<std::string> specials, std::string pattern)
    : tokens_(std::move(tokens)), specials_(std::move(specials)), pattern_(std::move(pattern)) {
  impl_ = std::make_unique<Impl>(pattern_);
  check(tokens_.size() < (size_t{1} << 31) - specials_.size(), "bpe: too many tokens");
  std::fill(std::begin(impl_->byte_token), std::end(impl_->byte_token), -1);
  impl_->by_bytes.reset(tokens_.size() * 2);
  for (size_t i = 0; i < tokens_.size(); ++i) {
    const std::string& t = tokens_[i];
    check(!t.empty(), "bpe: token " + std::to_string(i) + " is empty");
    const int32_t first = impl_->by_bytes.insert(t, hash_bytes(t), static_cast<int32_t>(i));
    check(first == static_cast<int32_t>(i),
          "bpe: token " + std::to_string(i) + " repeats the bytes of token " + std::to_string(first));
    if (t.size() == 1) impl_->byte_token[static_cast<uint8_t>(t[0])] = static_cast<int32_t>(i);
  }
  for (int b = 0; b < 256; ++b) {
    check(impl_->byte_token[b] >= 0, "bpe: byte " + std::to_string(b) + " has no token (no byte fallback)");
  }
  // Every way of writing a token as two tokens is a mergeable pair (tiktoken merges any adjacent pair whose bytes
  // concatenate to a token).
  std::vector<std::pair<uint64_t, int32_t>> entries;
  for (size_t i = 0; i < tokens_.size(); ++i) {
    const std::string_view t = tokens_[i];
    for (size_t k = 1; k < t.size(); ++k) {
      const int32_t* a = impl_->by_bytes.find(t.substr(0, k), hash_bytes(t.substr(0, k)));
      if (a == nullptr) continue;
      const int32_t* b = impl_->by_bytes.find(t.substr(k), hash_bytes(t.substr(k)));
      if (b == nullptr) continue;
      entries.push_back({(static_cast<uint64_t>(*a) << 32) | static_cast<uint32_t>(*b), static_cast<int32_t>(i)});
    }
  }
  impl_->pairs.build(entries);
}

Bpe::~Bpe() = default;
Bpe::Bpe(Bpe&&) noexcept = default;
Bpe& Bpe::operator=(Bpe&&) noexcept = default;

std::vector<int32_t> Bpe::encode(std::string_view text) const {
  std::vector<int32_t> out;
  out.reserve(text.size() / 3 + 1);
  ChunkCache cache;
  impl_->encode_text(text, &out, &cache);
  return out;
}

std::vector<std::vector<int32_t>> Bpe::encode_batch(std::span<const std::string_view> docs, int threads) const {
  std::vector<std::vector<int32_t>> out(docs.size());
  const int nt = threads > 0 ? threads : omp_get_max_threads();
  const int64_t n = static_cast<int64_t>(docs.size());
#pragma omp parallel num_threads(nt)
  {
    ChunkCache cache;
#pragma omp for schedule(dynamic, 4)
    for (int64_t i = 0; i < n; ++i) impl_->encode_text(docs[i], &out[i], &cache);
  }
  return out;
}

std::string Bpe::decode(std::span<const int32_t> ids) const {
  std::string out;
  for (int32_t id : ids) out += token(id);
  return out;
}

int32_t Bpe::bos_id() const {
  check(!specials_.empty(), "bpe: the tokenizer has no special tokens, so no BOS");
  return n_ranks();
}

const std::string& Bpe::token(int32_t id) const {
  check(id >= 0 && id < vocab_size(),
        "bpe: token id " + std::to_string(id) + " is outside the vocabulary [0, " + std::to_string(vocab_size()) + ")");
  return id < n_ranks() ? tokens_[id] : specials_[id - n_ranks()];
}

namespace {

// Bytes of s after Python's bytes.decode("utf-8", errors="replace").encode("utf-8"): each maximal invalid subpart
// becomes U+FFFD (3 bytes).
int32_t utf8_reencoded_length(std::string_view s) {
  int32_t len = 0;
  for (size_t i = 0; i < s.size();) {
    const Utf8Step st = utf8_step(s, i);
    len += st.valid ? static_cast<int32_t>(st.length) : 3;
    i += st.length;
  }
  return len;
}

}  // namespace

std::vector<int32_t> Bpe::token_bytes(TokenBytes how) const {
  std::vector<int32_t> out(vocab_size(), 0);
  for (int32_t i = 0; i < n_ranks(); ++i) {
    out[i] = how == TokenBytes::raw ? static_cast<int32_t>(tokens_[i].size()) : utf8_reencoded_length(tokens_[i]);
  }
  return out;
}

}  // namespace nanotrn::tokenizer

// ---- files

namespace nanotrn::tokenizer {

void Bpe::save(const std::string& dir) const {
  make_directories(dir);
  const std::string ranks = format_tiktoken(tokens_);
  write_file_atomic(dir + "/tokenizer.tiktoken", ranks.data(), ranks.size());
  const std::string meta = format_bpe_meta({pattern_, specials_});
  write_file_atomic(dir + "/tokenizer.json", meta.data(), meta.size());
}

Bpe Bpe::load(const std::string& dir_or_file) {
  std::string rank_path = dir_or_file, meta_path;
  if (std::filesystem::is_directory(dir_or_file)) {
    rank_path = dir_or_file + "/tokenizer.tiktoken";
    meta_path = dir_or_file + "/tokenizer.json";
  }
  check(std::filesystem::exists(rank_path), "bpe: no tiktoken rank file at " + rank_path);
  const std::vector<uint8_t> rank_bytes = read_file(rank_path);
  std::vector<std::string> tokens =
      parse_tiktoken(std::string_view(reinterpret_cast<const char*>(rank_bytes.data()), rank_bytes.size()), rank_path);
  BpeMeta meta{std::string(kSplitPattern), reserved_specials(4)};
  if (!meta_path.empty() && std::filesystem::exists(meta_path)) {
    const std::vector<uint8_t> m = read_file(meta_path);
    meta = parse_bpe_meta(std::string_view(reinterpret_cast<const char*>(m.data()), m.size()), meta_path);
    try {
      const Pretokenizer compiles(meta.pattern);
    } catch (const Error& e) {
      throw Error(meta_path + ": \"pattern\": " + e.message(), e.where());
    }
  }
  try {
    return Bpe(std::move(tokens), std::move(meta.specials), std::move(meta.pattern));
  } catch (const Error& e) {
    throw Error(rank_path + ": " + e.message(), e.where());
  }
}

}  // namespace nanotrn::tokenizer
