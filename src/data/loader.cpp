// The data loader. See loader.h.
#include "data/loader.h"

#include <algorithm>
#include <numeric>

#include "base/error.h"
#include "base/rng.h"

namespace nanotrn::data {

Loader::Loader(std::vector<std::string> shard_paths, LoaderOptions opt) : opt_(opt), paths_(std::move(shard_paths)) {
  check(opt_.rows > 0 && opt_.seq_len > 0, "loader: rows and seq_len must be positive, got " +
                                               std::to_string(opt_.rows) + " x " + std::to_string(opt_.seq_len));
  check(opt_.world > 0 && opt_.rank >= 0 && opt_.rank < opt_.world,
        "loader: rank " + std::to_string(opt_.rank) + " is outside world " + std::to_string(opt_.world));
  check(opt_.vocab_size > 0, "loader: vocab_size must be set (got " + std::to_string(opt_.vocab_size) + ")");
  check(opt_.bos >= 0 && opt_.bos < opt_.vocab_size, "loader: bos " + std::to_string(opt_.bos) +
                                                         " is outside the vocabulary [0, " +
                                                         std::to_string(opt_.vocab_size) + ")");
  check(opt_.streams > 0 && opt_.buffer_docs > 0, "loader: streams and buffer_docs must be positive");
  check(!paths_.empty(), "loader: no shards");
  for (size_t s = 0; s < paths_.size(); ++s) {
    shards_.emplace_back(paths_[s], opt_.vocab_size);
    const ShardView& v = shards_.back().view();
    int64_t start = 0;
    for (int64_t i = 1; i <= v.count; ++i) {
      if (i == v.count || v.at(i) == opt_.bos) {
        if (i > start) docs_.push_back({static_cast<int32_t>(s), start, i - start});
        start = i;
      }
    }
  }
  per_rank_ = static_cast<int64_t>(docs_.size()) / opt_.world;
  check(per_rank_ > 0,
        "loader: " + std::to_string(docs_.size()) + " documents cannot feed " + std::to_string(opt_.world) + " ranks");
  opt_.streams = static_cast<int>(std::min<int64_t>(opt_.streams, opt_.rows));  // streams no row reads never move
  cursor_.resize(opt_.streams);
  for (int s = 0; s < opt_.streams; ++s) cursor_[s] = {s, 0};
  row_.resize(opt_.seq_len + 1);
}

const Loader::Doc& Loader::doc_at(int64_t p) {
  const int64_t epoch = p / per_rank_, j = p % per_rank_;
  auto it = orders_.find(epoch);
  if (it == orders_.end()) {
    // Keep the epochs that the buffer and the streams can span at once (two for any dataset larger than them).
    const size_t keep = 2 + static_cast<size_t>((opt_.streams + opt_.buffer_docs) / per_rank_);
    if (orders_.size() >= keep) orders_.erase(orders_.begin());
    std::vector<int64_t> order(docs_.size());
    std::iota(order.begin(), order.end(), 0);
    if (opt_.shuffle) {
      uint64_t k = 0;
      for (int64_t i = static_cast<int64_t>(order.size()) - 1; i > 0; --i) {
        const uint64_t r = (static_cast<uint64_t>(random_u32(opt_.seed, static_cast<uint64_t>(epoch), k)) << 32) |
                           random_u32(opt_.seed, static_cast<uint64_t>(epoch), k + 1);
        k += 2;
        std::swap(order[i], order[r % static_cast<uint64_t>(i + 1)]);
      }
    }
    it = orders_.emplace(epoch, std::move(order)).first;
  }
  return docs_[it->second[opt_.rank + opt_.world * j]];
}

void Loader::fill_best_fit(int32_t* row) {
  const int64_t n = opt_.seq_len + 1;
  int64_t pos = 0;
  while (pos < n) {
    while (static_cast<int64_t>(buffer_.size()) < opt_.buffer_docs) buffer_.push_back(next_doc_++);
    const int64_t remaining = n - pos;
    int64_t best = -1, best_len = 0, shortest = 0, shortest_len = 0;
    for (size_t i = 0; i < buffer_.size(); ++i) {
      const int64_t len = doc_at(buffer_[i]).len;
      if (len <= remaining && len > best_len) {
        best = static_cast<int64_t>(i);
        best_len = len;
      }
      if (i == 0 || len < shortest_len) {
        shortest = static_cast<int64_t>(i);
        shortest_len = len;
      }
    }
    const int64_t pick = best >= 0 ? best : shortest;
    const Doc& d = doc_at(buffer_[pick]);
    const int64_t take = std::min(d.len, remaining);
    shards_[d.shard].view().copy(d.start, take, row + pos);
    pos += take;
    buffer_.erase(buffer_.begin() + pick);
  }
}

void Loader::fill_stream(int stream, int32_t* row) {
  const int64_t n = opt_.seq_len + 1;
  auto& [p, off] = cursor_[stream];
  int64_t q = p, o = off;  // a reading cursor; the stream itself advances by seq_len only
  for (int64_t pos = 0; pos < n;) {
    const Doc& d = doc_at(q);
    const int64_t take = std::min(d.len - o, n - pos);
    shards_[d.shard].view().copy(d.start + o, take, row + pos);
    pos += take;
    o += take;
    if (o == d.len) {
      q += opt_.streams;
      o = 0;
    }
  }
  // Advance the stream by exactly seq_len tokens.
  int64_t left = opt_.seq_len;
  while (left > 0) {
    const int64_t avail = doc_at(p).len - off;
    if (left < avail) {
      off += left;
      left = 0;
    } else {
      left -= avail;
      p += opt_.streams;
      off = 0;
    }
  }
}

void Loader::next(int32_t* inputs, int32_t* targets) {
  const int64_t t = opt_.seq_len;
  for (int64_t r = 0; r < opt_.rows; ++r) {
    if (opt_.layout == Layout::best_fit) {
      fill_best_fit(row_.data());
    } else {
      fill_stream(static_cast<int>(r % opt_.streams), row_.data());
    }
    std::copy(row_.begin(), row_.begin() + t, inputs + r * t);
    std::copy(row_.begin() + 1, row_.end(), targets + r * t);
  }
}

uint64_t Loader::fingerprint() const {
  uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&h](uint64_t v) {
    h ^= v;
    h *= 0x100000001b3ull;
  };
  mix(docs_.size());
  for (const MappedShard& s : shards_) mix(static_cast<uint64_t>(s.view().count));
  for (const Doc& d : docs_) mix(static_cast<uint64_t>(d.len));
  return h;
}

nlohmann::json Loader::state() const {
  nlohmann::json j;
  j["version"] = 1;
  j["layout"] = std::string(layout_name(opt_.layout));
  j["seed"] = opt_.seed;
  j["shuffle"] = opt_.shuffle;
  j["rank"] = opt_.rank;
  j["world"] = opt_.world;
  j["data"] = fingerprint();
  if (opt_.layout == Layout::best_fit) {
    j["next_doc"] = next_doc_;
    j["buffer"] = buffer_;
  } else {
    nlohmann::json c = nlohmann::json::array();
    for (const auto& [p, off] : cursor_) c.push_back({p, off});
    j["streams"] = c;
  }
  return j;
}

void Loader::restore(const nlohmann::json& state) {
  try {
    check(state.at("version") == 1, "loader: unsupported state version");
    check(state.at("layout") == std::string(layout_name(opt_.layout)) && state.at("seed") == opt_.seed &&
              state.at("shuffle") == opt_.shuffle && state.at("rank") == opt_.rank && state.at("world") == opt_.world,
          "loader: the state belongs to a loader with another layout, seed, shuffle, rank or world");
    check(state.at("data") == fingerprint(), "loader: the state belongs to other shards");
    if (opt_.layout == Layout::best_fit) {
      next_doc_ = state.at("next_doc").get<int64_t>();
      buffer_ = state.at("buffer").get<std::vector<int64_t>>();
      for (int64_t p : buffer_) check(p >= 0 && p < next_doc_, "loader: corrupt state (buffer)");
    } else {
      const auto& c = state.at("streams");
      check(c.is_array() && c.size() == cursor_.size(), "loader: the state has another number of streams");
      for (size_t s = 0; s < cursor_.size(); ++s) {
        cursor_[s] = {c[s].at(0).get<int64_t>(), c[s].at(1).get<int64_t>()};
        check(cursor_[s].first >= 0 && cursor_[s].second >= 0 && cursor_[s].second < doc_at(cursor_[s].first).len,
              "loader: corrupt state (stream " + std::to_string(s) + ")");
      }
    }
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("loader: malformed state: ") + e.what());
  }
}

int64_t Loader::epoch() const {
  if (opt_.layout == Layout::best_fit) return next_doc_ / per_rank_;
  int64_t p = cursor_[0].first;
  for (const auto& c : cursor_) p = std::min(p, c.first);
  return p / per_rank_;
}

}  // namespace nanotrn::data
