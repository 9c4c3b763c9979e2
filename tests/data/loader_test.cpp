// The loader: best-fit packing against an independent reference, stream rows, determinism, exact state restore,
// rank sharding and epoch wrap-around.
#include "data/loader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "base/error.h"
#include "data/shard.h"
#include "data/temp_dir.h"

namespace nanotrn::data {
namespace {

constexpr int32_t kVocab = 1000, kBos = 999;

// Document i: BOS, i, then (i * 7 + k) % 900 for k = 0 .. len-3; lengths vary from 2 to 41.
std::vector<int32_t> make_doc(int i) {
  const int len = 2 + (i * 37) % 40;
  std::vector<int32_t> d = {kBos, i};
  for (int k = 0; k + 2 < len; ++k) d.push_back((i * 7 + k) % 900);
  return d;
}

// Writes n documents into `shards` files; returns the paths.
std::vector<std::string> make_shards(const testing::TempDir& dir, int n, int shards) {
  std::vector<std::string> paths;
  for (int s = 0; s < shards; ++s) {
    std::vector<int32_t> tokens;
    for (int i = s; i < n; i += shards) {
      const auto d = make_doc(i);
      tokens.insert(tokens.end(), d.begin(), d.end());
    }
    std::string name = "s";
    name += std::to_string(s);
    paths.push_back(dir / (name + ".bin"));
    write_shard(paths.back(), tokens, kVocab);
  }
  return paths;
}

LoaderOptions opts(int64_t rows, int64_t t, Layout layout, bool shuffle = true, uint64_t seed = 1) {
  LoaderOptions o;
  o.rows = rows;
  o.seq_len = t;
  o.layout = layout;
  o.shuffle = shuffle;
  o.seed = seed;
  o.bos = kBos;
  o.vocab_size = kVocab;
  return o;
}

struct Batch {
  std::vector<int32_t> x, y;
  bool operator==(const Batch&) const = default;
};

Batch next(Loader& l) {
  const auto& o = l.options();
  Batch b{std::vector<int32_t>(o.rows * o.seq_len), std::vector<int32_t>(o.rows * o.seq_len)};
  l.next(b.x.data(), b.y.data());
  return b;
}

// Best-fit packing written from the rule's words, over an explicit document sequence.
std::vector<std::vector<int32_t>> reference_best_fit(const std::vector<std::vector<int32_t>>& seq, size_t buffer_size,
                                                     int64_t row_len, int n_rows) {
  std::vector<std::vector<int32_t>> buffer, rows;
  size_t next = 0;
  for (int r = 0; r < n_rows; ++r) {
    std::vector<int32_t> row;
    while (static_cast<int64_t>(row.size()) < row_len) {
      while (buffer.size() < buffer_size) buffer.push_back(seq[next++ % seq.size()]);
      const size_t room = row_len - row.size();
      int best = -1;
      for (size_t i = 0; i < buffer.size(); ++i) {
        if (buffer[i].size() <= room && (best < 0 || buffer[i].size() > buffer[best].size()))
          best = static_cast<int>(i);
      }
      if (best < 0) {  // crop the shortest
        best = 0;
        for (size_t i = 1; i < buffer.size(); ++i) {
          if (buffer[i].size() < buffer[best].size()) best = static_cast<int>(i);
        }
      }
      const auto& d = buffer[best];
      row.insert(row.end(), d.begin(), d.begin() + static_cast<std::ptrdiff_t>(std::min(d.size(), room)));
      buffer.erase(buffer.begin() + best);
    }
    rows.push_back(row);
  }
  return rows;
}

TEST(Loader, BestFitMatchesTheReferenceAndStartsEveryRowWithBos) {
  testing::TempDir dir;
  const auto paths = make_shards(dir, 120, 1);
  LoaderOptions o = opts(4, 63, Layout::best_fit, /*shuffle=*/false);
  o.buffer_docs = 10;
  Loader l(paths, o);
  std::vector<std::vector<int32_t>> seq;
  for (int i = 0; i < 120; ++i) seq.push_back(make_doc(i));
  const auto want = reference_best_fit(seq, 10, 64, 4 * 20);
  for (int b = 0; b < 20; ++b) {
    const Batch got = next(l);
    for (int r = 0; r < 4; ++r) {
      const auto& row = want[b * 4 + r];
      ASSERT_EQ(got.x[r * 63], kBos);
      for (int t = 0; t < 63; ++t) {
        ASSERT_EQ(got.x[r * 63 + t], row[t]) << "batch " << b << " row " << r << " t " << t;
        ASSERT_EQ(got.y[r * 63 + t], row[t + 1]);
      }
    }
  }
  EXPECT_GE(l.epoch(), 1);  // 120 short documents are used up after 20 batches of 4 x 64 tokens
}

TEST(Loader, BestFitCropsWhenNoDocumentFits) {
  // Every document (2..41 tokens) is longer than a row of 2 tokens: each row is a cropped document: BOS, id.
  testing::TempDir dir;
  const auto paths = make_shards(dir, 50, 1);
  LoaderOptions o = opts(3, 1, Layout::best_fit, false);
  o.buffer_docs = 5;
  Loader l(paths, o);
  const Batch b = next(l);
  for (int r = 0; r < 3; ++r) EXPECT_EQ(b.x[r], kBos);
  std::set<int32_t> ids(b.y.begin(), b.y.end());
  EXPECT_EQ(ids.size(), 3u);  // three different documents, each cropped to its first two tokens
}

TEST(Loader, StreamRowsAreContiguousPerStream) {
  testing::TempDir dir;
  const auto paths = make_shards(dir, 60, 2);
  LoaderOptions o = opts(4, 16, Layout::stream, false);
  o.streams = 2;
  Loader l(paths, o);
  // Without shuffling the rank's documents come in file order (shard 0 holds even ids, then shard 1 odd ids).
  std::vector<std::vector<int32_t>> order;
  for (int i = 0; i < 60; i += 2) order.push_back(make_doc(i));
  for (int i = 1; i < 60; i += 2) order.push_back(make_doc(i));
  std::vector<int32_t> stream[2];
  for (int rep = 0; rep < 3; ++rep) {
    for (size_t p = 0; p < order.size(); ++p) {
      stream[p % 2].insert(stream[p % 2].end(), order[p].begin(), order[p].end());
    }
  }
  int64_t at[2] = {0, 0};
  for (int b = 0; b < 5; ++b) {
    const Batch got = next(l);
    for (int r = 0; r < 4; ++r) {
      const int s = r % 2;
      for (int t = 0; t < 16; ++t) {
        ASSERT_EQ(got.x[r * 16 + t], stream[s][at[s] + t]) << "batch " << b << " row " << r;
        ASSERT_EQ(got.y[r * 16 + t], stream[s][at[s] + t + 1]);
      }
      at[s] += 16;
    }
  }
}

TEST(Loader, SameArgumentsSameBatchesAndSeedsMatter) {
  testing::TempDir dir;
  const auto paths = make_shards(dir, 300, 3);
  for (Layout layout : {Layout::best_fit, Layout::stream}) {
    Loader a(paths, opts(4, 32, layout, true, 7)), b(paths, opts(4, 32, layout, true, 7)),
        c(paths, opts(4, 32, layout, true, 8));
    bool differs = false;
    for (int i = 0; i < 10; ++i) {
      const Batch ba = next(a);
      EXPECT_EQ(ba, next(b));
      differs = differs || !(ba == next(c));
    }
    EXPECT_TRUE(differs);
  }
  // The validation loader: no shuffle, same rows every time it is made.
  Loader v1(paths, opts(2, 32, Layout::best_fit, false, 1)), v2(paths, opts(2, 32, Layout::best_fit, false, 99));
  for (int i = 0; i < 5; ++i) EXPECT_EQ(next(v1), next(v2));
}

TEST(Loader, RestoredStateContinuesBitIdentically) {
  testing::TempDir dir;
  const auto paths = make_shards(dir, 60, 2);
  for (Layout layout : {Layout::best_fit, Layout::stream}) {
    LoaderOptions o = opts(3, 40, layout, true, 5);
    o.buffer_docs = 16;
    Loader a(paths, o);
    for (int i = 0; i < 37; ++i) next(a);  // well into the second epoch
    const nlohmann::json s = a.state();
    const int64_t epoch = a.epoch();
    EXPECT_GE(epoch, 1);
    std::vector<Batch> want;
    for (int i = 0; i < 30; ++i) want.push_back(next(a));
    Loader b(paths, o);
    b.restore(nlohmann::json::parse(s.dump()));
    EXPECT_EQ(b.epoch(), epoch);
    for (int i = 0; i < 30; ++i) ASSERT_EQ(next(b), want[i]) << "batch " << i;
    LoaderOptions other = o;
    other.seed = 6;
    Loader c(paths, other);
    EXPECT_THROW(c.restore(s), Error);
  }
}

TEST(Loader, RanksSplitEachEpochsDocuments) {
  testing::TempDir dir;
  const auto paths = make_shards(dir, 101, 1);
  std::set<int32_t> seen[2];
  for (int rank = 0; rank < 2; ++rank) {
    LoaderOptions o = opts(1, 1, Layout::stream, true, 3);  // one token per step: the rank's exact token stream
    o.rank = rank;
    o.world = 2;
    o.streams = 1;
    Loader l(paths, o);
    EXPECT_EQ(l.documents_per_rank(), 50);  // 101 documents: one is left out of every epoch
    while (l.epoch() == 0) {
      const Batch b = next(l);
      if (b.x[0] == kBos) {
        EXPECT_TRUE(seen[rank].insert(b.y[0]).second) << "document " << b.y[0] << " twice";
      }
    }
    EXPECT_EQ(seen[rank].size(), 50u);
  }
  std::set<int32_t> both;
  std::set_intersection(seen[0].begin(), seen[0].end(), seen[1].begin(), seen[1].end(),
                        std::inserter(both, both.begin()));
  EXPECT_TRUE(both.empty());
}

TEST(Loader, RejectsBadShardsAndOptions) {
  testing::TempDir dir;
  write_shard(dir / "big.bin", std::vector<int32_t>{kBos, 5, 1200}, 2000);
  try {
    Loader l({dir / "big.bin"}, opts(1, 4, Layout::best_fit));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.message(), dir / "big.bin" + ": byte 1028: token 2 is 1200, not below the vocabulary size 1000");
  }
  const auto paths = make_shards(dir, 10, 1);
  LoaderOptions o = opts(1, 4, Layout::best_fit);
  o.world = 20;
  EXPECT_THROW(Loader(paths, o), Error);
}

}  // namespace
}  // namespace nanotrn::data
