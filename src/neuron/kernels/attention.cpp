// The fused attention tile kernel (see attention.h). Not here: execution or timing.
#include "neuron/kernels/attention.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "base/error.h"
#include "neuron/kernels/attention_alibi.h"
#include "neuron/kernels/attention_bounds.h"

namespace nanotrn::neuron {
namespace {

constexpr int64_t kP = 128, kBlock = 512;
constexpr float kMasked = -1e30f;  // exp(scale * (S + kMasked) - max) underflows to exactly 0
// Pipelined buffer rotation (naive: one of each). A block's SBUF buffers live from its statistics to its accumulator
// update, six pipeline steps; its scores in PSUM four, P V three, P^T one. Query tiles are loaded kQueryAhead tiles
// ahead of their first scores. PSUM: 4 score banks + 2 P^T (one bank) + 3 P V (4 d bytes each): 8 banks at d = 512.
constexpr int kHeadSets = 2, kQuerySets = 12, kBlockSets = 8, kScoreBanks = 4, kPvSets = 3, kPtPsumSets = 2;
constexpr int64_t kQueryAhead = 2;
constexpr int kBoundsCut = -2;  // Item::cuts: the chunk needs the document-bounds mask (attention_bounds.h)
// Pipelined step s: scores and statistics of block s + kScoresAhead, exponentials of s + kExpAhead, P^T of s, P V of
// s - 1, the accumulator of s - kAccumulateBehind (3 / 1 / 2: 95 us for 8 x 1024 x 128 on v3; 2 / 1 / 2: 116 us,
// 4 / 1 / 2: 101 us).
constexpr int64_t kScoresAhead = 3, kExpAhead = 1, kAccumulateBehind = 2;

struct Geometry {
  int64_t heads = 1, seq = 0, d = 0, dkt = 1, qtiles = 0, kv_heads = 1;
  DType out = DType::bf16;
  float scale = 1;      // of the raw q.k
  float exp_scale = 1;  // what the exp multiplies the held score by: scale, or the softcap (attention_mask.h)
  AttentionVariant variant;
  int64_t dk(int64_t kt) const { return std::min(kP, d - kt * kP); }  // rows of contraction tile kt
  int64_t kv(int64_t head) const { return head / variant.group; }
  // The ALiBi bias tile of a head (attention_alibi.h).
  int64_t bias_cols() const { return alibi_columns(seq, variant.mask); }
  int bias_sets = 1;
};

// One key block of one query tile: keys [k0, k0 + w) of query tile `qtile` (queries [128 qtile, 128 qtile + 128)) of
// head `head`; `seq` counts query tiles over all heads.
struct Item {
  int64_t head, qtile, seq, k0, w;
  int block;
  bool first, last;
  // 128-key chunks of the block the mask cuts: (chunk, mask tile: -1 the causal diagonal, kBoundsCut the document
  // bounds, else a window edge's index).
  std::vector<std::pair<int64_t, int>> cuts;
};

// Resident per kv head: K^T as dkt tiles [dk, T] side by side, V as T/128 tiles [128, d] side by side.
struct HeadBufs {
  View kt, v;
};
// Per query tile: Q^T tiles, the running -max (raw scores), the running exp bias (scale * that) of the last two
// blocks, the running sum, the fp32 accumulator, 1 / sum, the output tile and (document bounds) its rows' bounds.
struct QueryState {
  View q, mr, bias[2], l, acc, rl, out, bounds;
};
// Per key block (SBUF): -max of the block, P, its row sum, alpha, P^T.
struct BlockBufs {
  View mx, p, rs, alpha, pt;
};

class Attention {
 public:
  Attention(KernelBuilder& b, const View& q_t, const View& k_t, const View& v, const View& o, const View& bounds,
            const Geometry& g, Schedule schedule)
      : b_(b), qt_(q_t), kt_(k_t), v_(v), o_(o), bounds_(bounds), g_(g), naive_(schedule == Schedule::naive) {}

  void run() {
    items_ = plan();
    // Pipelined: kv head j + sets is loaded after the last P V of kv head j, which is issued after the scores of the
    // kScoresAhead + 1 items behind it: the sets in between must hold that many items (short heads need more sets).
    const auto per_kv = static_cast<int64_t>(items_.size()) / g_.kv_heads;
    kv_sets_ = naive_ ? 1 : static_cast<int>(std::max<int64_t>(kHeadSets, 1 + ceil_div(kScoresAhead + 1, per_kv)));
    allocate();
    if (g_.variant.mask != AttentionMask::none) {
      b_.memset(mask_, 0.0f);
      b_.affine_select(mask_, mask_, /*offset=*/0, /*channel_multiplier=*/1, /*step=*/-1, kMasked);  // query >= key
    }
    if (g_.variant.alibi()) {
      alibi_diag_ = b_.sbuf("alibi_diag", kP, kP, DType::f32);
      for (int i = 0; i < g_.bias_sets; ++i)
        alibi_[i] = b_.sbuf("alibi" + std::to_string(i), kP, g_.bias_cols(), DType::f32);
    }
    for (size_t e = 0; e < edge_diffs_.size(); ++e) {  // keep key - query > -window, i.e. k0 - q0 + f - p + W - 1 >= 0
      b_.memset(edges_[e], 0.0f);
      b_.affine_select(edges_[e], edges_[e], g_.variant.window - 1 - edge_diffs_[e], -1, 1, kMasked);
    }
    const auto count = static_cast<int64_t>(items_.size());
    if (naive_) {
      for (int64_t n = 0; n < count; ++n) {
        scores(n);
        cap_scores(n);
        statistics(n);
        exponentials(n);
        transpose_p(n);
        p_times_v(n);
        accumulate(n);
      }
      return;
    }
    // Step s issues, in this order: scores(s + 3) (TensorE), accumulate(s - 2) (VectorE), statistics(s + 3)
    // (VectorE), exponentials(s + 1) (ScalarE), transpose_p(s) (TensorE, then the ScalarE copy), p_times_v(s - 1)
    // (TensorE). Every instruction's inputs were produced a step earlier (statistics: right after its scores), so
    // the in-order engine queues do not wait on work queued behind them on another engine. Under softcap the tanh
    // of block s + 3 goes on ScalarE after exponentials(s + 1) (ahead of them it would hold ScalarE until the
    // scores are done), and the statistics follow it a step later: statistics(s + 2).
    for (int64_t j = 0; j < kv_sets_ && j < g_.kv_heads; ++j) load_head(j);
    for (int64_t q = 0; q < kQueryAhead && q < g_.heads * g_.qtiles; ++q) load_query(q);
    auto in = [&](int64_t n) { return n >= 0 && n < count; };
    const int64_t stats_ahead = g_.variant.capped() ? kScoresAhead - 1 : kScoresAhead;
    for (int64_t s = -kScoresAhead; s < count + kAccumulateBehind; ++s) {
      if (in(s + kScoresAhead)) scores(s + kScoresAhead);
      if (in(s - kAccumulateBehind)) accumulate(s - kAccumulateBehind);
      if (in(s + stats_ahead)) statistics(s + stats_ahead);
      if (in(s + kExpAhead)) exponentials(s + kExpAhead);
      if (in(s + kScoresAhead)) cap_scores(s + kScoresAhead);
      if (in(s)) transpose_p(s);
      if (in(s - 1)) p_times_v(s - 1);
    }
  }

 private:
  // Per query tile the keys from the first 128-key chunk the mask leaves any of to the last (after the diagonal
  // for causal and windowed masks: fully masked chunks are skipped), in blocks of up to 512; the chunks the mask cuts
  // get a mask tile added to their scores.
  std::vector<Item> plan() {
    std::vector<Item> items;
    int64_t seq = 0;
    const AttentionVariant& var = g_.variant;
    for (int64_t h = 0; h < g_.heads; ++h)
      for (int64_t i = 0; i < g_.qtiles; ++i, ++seq) {
        const int64_t q0 = i * kP;
        int64_t end = var.mask == AttentionMask::none ? g_.seq : q0 + kP, begin = 0;
        while (!var.tile(q0, begin, kP, kP).any) begin += kP;
        while (!var.tile(q0, end - kP, kP, kP).any) end -= kP;  // document bounds end before the mask does
        int block = 0;
        for (int64_t k0 = begin; k0 < end; k0 += kBlock, ++block) {
          const int64_t w = std::min(kBlock, end - k0);
          Item it{h, i, seq, k0, w, block, k0 == begin, k0 + w == end, {}};
          for (int64_t c = 0; c < w / kP; ++c) {
            const int64_t kc = k0 + c * kP;
            if (var.tile(q0, kc, kP, kP).all) continue;
            if (var.mask != AttentionMask::none && kc + kP - 1 > q0) it.cuts.push_back({c, -1});  // the diagonal
            if (var.mask == AttentionMask::sliding_window && q0 + kP - 1 - kc >= var.window)
              it.cuts.push_back({c, edge_index(q0 - kc)});
            if (!var.bounds_cover(q0, kc, kP, kP)) it.cuts.push_back({c, kBoundsCut});
          }
          items.push_back(std::move(it));
        }
      }
    return items;
  }
  int edge_index(int64_t diff) {
    for (size_t e = 0; e < edge_diffs_.size(); ++e)
      if (edge_diffs_[e] == diff) return static_cast<int>(e);
    edge_diffs_.push_back(diff);
    return static_cast<int>(edge_diffs_.size() - 1);
  }

  int sets(int pipelined) const { return naive_ ? 1 : pipelined; }

  void allocate() {
    for (int i = 0; i < kv_sets_; ++i) {
      const std::string s = std::to_string(i);
      heads_.push_back({b_.sbuf("k_t" + s, kP, g_.dkt * g_.seq, DType::bf16),
                        b_.sbuf("v" + s, kP, g_.seq / kP * g_.d, DType::bf16)});
    }
    mask_ = b_.sbuf("mask", kP, kP, DType::f32);
    if (g_.variant.bounded()) {
      bound_keys_ = b_.sbuf("bound_keys", kP, kP, DType::f32);
      bound_tmp_ = b_.sbuf("bound_tmp", kP, kP, DType::f32);
    }
    for (size_t e = 0; e < edge_diffs_.size(); ++e)
      edges_.push_back(b_.sbuf("window_edge" + std::to_string(e), kP, kP, DType::f32));
    for (int i = 0; i < sets(kQuerySets); ++i) {
      const std::string s = std::to_string(i);
      QueryState& q = query_[i];
      q.q = b_.sbuf("q_t" + s, kP, g_.dkt * kP, DType::bf16);
      q.mr = b_.sbuf("negmax" + s, kP, 1, DType::f32);
      q.bias[0] = b_.sbuf("bias0_" + s, kP, 1, DType::f32);
      q.bias[1] = b_.sbuf("bias1_" + s, kP, 1, DType::f32);
      q.l = b_.sbuf("sum" + s, kP, 1, DType::f32);
      q.rl = b_.sbuf("rsum" + s, kP, 1, DType::f32);
      q.acc = b_.sbuf("acc" + s, kP, g_.d, DType::f32);
      q.out = b_.sbuf("o" + s, kP, g_.d, g_.out);
      if (g_.variant.bounded()) q.bounds = b_.sbuf("bounds" + s, kP, 2, DType::f32);
    }
    for (int i = 0; i < sets(kBlockSets); ++i) {
      const std::string s = std::to_string(i);
      block_[i] = {b_.sbuf("blockmax" + s, kP, 1, DType::f32), b_.sbuf("p" + s, kP, kBlock, DType::bf16),
                   b_.sbuf("rowsum" + s, kP, 1, DType::f32), b_.sbuf("alpha" + s, kP, 1, DType::f32),
                   b_.sbuf("p_t" + s, kP, kBlock, DType::bf16)};
    }
    // PSUM: scores one bank each, the P^T tiles (bf16, 1 KiB: two per bank), then P V (4 d <= 2 KiB each).
    for (int i = 0; i < sets(kScoreBanks); ++i) s_[i] = b_.psum("scores" + std::to_string(i), kP, kBlock, DType::f32);
    for (int i = 0; i < sets(kPtPsumSets); ++i)
      pt_psum_[i] = b_.psum("p_t_psum" + std::to_string(i), kP, kBlock, DType::bf16);
    for (int i = 0; i < sets(kPvSets); ++i) pv_[i] = b_.psum("pv" + std::to_string(i), kP, g_.d, DType::f32);
  }

  View sl(const View& v, int64_t np, int64_t f0, int64_t nf) const { return b_.slice(v, 0, np, f0, nf); }
  int queue(int base, int span, int& counter) const { return naive_ ? 0 : base + counter++ % span; }
  const Item& item(int64_t n) const { return items_[static_cast<size_t>(n)]; }
  const HeadBufs& head_bufs(int64_t kv) const { return heads_[static_cast<size_t>(kv % kv_sets_)]; }
  const View& alibi_bufs(int64_t h) const { return alibi_[h % g_.bias_sets]; }
  QueryState& query_state(int64_t seq) { return query_[seq % sets(kQuerySets)]; }
  BlockBufs& block_bufs(int64_t n) { return block_[n % sets(kBlockSets)]; }
  const View& scores_psum(int64_t n) const { return s_[n % sets(kScoreBanks)]; }
  const View& pt_psum(int64_t n) const { return pt_psum_[n % sets(kPtPsumSets)]; }
  const View& pv_psum(int64_t n) const { return pv_[n % sets(kPvSets)]; }

  // K^T in 512-column chunks and V in 128-row tiles of kv head h, so the first blocks can start before the whole head
  // arrives.
  void load_head(int64_t h) {
    const HeadBufs& hb = head_bufs(h);
    for (int64_t kt = 0; kt < g_.dkt; ++kt)
      for (int64_t c0 = 0; c0 < g_.seq; c0 += kBlock) {
        const int64_t w = std::min(kBlock, g_.seq - c0);
        b_.dma_copy(sl(hb.kt, g_.dk(kt), kt * g_.seq + c0, w), b_.slice(kt_, kt * kP, g_.dk(kt), h * g_.seq + c0, w),
                    queue(4, 4, k_queue_));
      }
    for (int64_t c = 0; c < g_.seq / kP; ++c)
      b_.dma_copy(sl(hb.v, kP, c * g_.d, g_.d), b_.slice(v_, h * g_.seq + c * kP, kP, 0, g_.d), queue(8, 4, v_queue_));
  }

  void load_query(int64_t seq) {
    const int64_t h = seq / g_.qtiles, q0 = seq % g_.qtiles * kP;
    QueryState& qs = query_state(seq);
    for (int64_t kt = 0; kt < g_.dkt; ++kt)
      b_.dma_copy(sl(qs.q, g_.dk(kt), kt * kP, kP), b_.slice(qt_, kt * kP, g_.dk(kt), h * g_.seq + q0, kP),
                  queue(0, 4, q_queue_));
    if (g_.variant.bounded()) b_.dma_copy(qs.bounds, b_.slice(bounds_, q0, kP, 0, 2), queue(0, 4, q_queue_));
  }

  // Loads (naive: on demand; pipelined: a later query tile; kv heads in p_times_v), then S = Q^T K on TensorE. A kv
  // head is loaded once for the `group` query heads that read it.
  void scores(int64_t n) {
    const Item& it = item(n);
    if (it.first) {
      if (naive_) {
        if (it.qtile == 0 && it.head % g_.variant.group == 0) load_head(g_.kv(it.head));
        load_query(it.seq);
      } else if (it.seq + kQueryAhead < g_.heads * g_.qtiles) {
        load_query(it.seq + kQueryAhead);
      }
    }
    const HeadBufs& hb = head_bufs(g_.kv(it.head));
    const QueryState& qs = query_state(it.seq);
    const View s = sl(scores_psum(n), kP, 0, it.w);
    for (int64_t kt = 0; kt < g_.dkt; ++kt)
      b_.matmul(s, sl(qs.q, g_.dk(kt), kt * kP, kP), sl(hb.kt, g_.dk(kt), kt * g_.seq + it.k0, it.w),
                /*accumulate=*/kt > 0);
  }

  // Softcap (ScalarE, in place in PSUM): S = tanh(scale S / c); the exp then scales by c (g_.exp_scale).
  void cap_scores(int64_t n) {
    if (!g_.variant.capped()) return;
    const View s = sl(scores_psum(n), kP, 0, item(n).w);
    b_.activation(s, s, Act::tanh, g_.scale / g_.variant.softcap, 0.0f);
  }

  void build_alibi(int64_t h) {
    build_alibi_tile(b_, alibi_bufs(h), alibi_diag_, g_.seq, g_.variant.mask,
                     g_.variant.alibi_slopes[static_cast<size_t>(h)] / g_.exp_scale);
  }

  // VectorE: ALiBi's bias, the diagonal mask, the block's -max and the running -max.
  void statistics(int64_t n) {
    const Item& it = item(n);
    QueryState& qs = query_state(it.seq);
    const View s = sl(scores_psum(n), kP, 0, it.w);
    if (g_.variant.alibi()) {
      if (it.qtile == 0 && it.first) build_alibi(it.head);
      b_.tensor_tensor(s, s, sl(alibi_bufs(it.head), kP, alibi_column(g_.seq, it.qtile * kP, it.k0), it.w), AluOp::add);
    }
    for (const auto& [c, tile] : it.cuts) {
      const View chunk = sl(scores_psum(n), kP, c * kP, kP);
      if (tile == kBoundsCut)
        add_bounds_mask(b_, chunk, bound_keys_, bound_tmp_, sl(qs.bounds, kP, 0, 1), sl(qs.bounds, kP, 1, 1),
                        it.k0 + c * kP);
      else
        b_.tensor_tensor(chunk, chunk, tile < 0 ? mask_ : edges_[static_cast<size_t>(tile)], AluOp::add);
    }
    if (it.first) {
      b_.reduce(qs.mr, s, AluOp::max, /*negate=*/true);
    } else {
      const BlockBufs& bb = block_bufs(n);
      b_.reduce(bb.mx, s, AluOp::max, /*negate=*/true);
      b_.tensor_tensor(qs.mr, qs.mr, bb.mx, AluOp::min);
    }
  }

  // ScalarE: the exp bias, alpha, P = exp(scale S + bias) with its row sum, the running sum.
  void exponentials(int64_t n) {
    const Item& it = item(n);
    QueryState& qs = query_state(it.seq);
    const BlockBufs& bb = block_bufs(n);
    const View& bias = qs.bias[it.block % 2];
    b_.activation(bias, qs.mr, Act::copy, g_.exp_scale, 0.0f);
    if (!it.first) {
      ActArgs a;  // alpha = exp(bias - previous bias) = exp(scale (max_previous - max))
      a.scale = -1.0f;
      a.bias_vector = bias;
      b_.activation(bb.alpha, qs.bias[(it.block + 1) % 2], Act::exp, a);
    }
    ActArgs e;
    e.scale = g_.exp_scale;
    e.bias_vector = bias;
    e.reduce_into = it.first ? qs.l : bb.rs;
    b_.activation(sl(bb.p, kP, 0, it.w), sl(scores_psum(n), kP, 0, it.w), Act::exp, e);
    if (!it.first) {
      ActArgs u;  // l = l * alpha + rowsum
      u.scale_vector = bb.alpha;
      u.bias_vector = bb.rs;
      b_.activation(qs.l, qs.l, Act::copy, u);
    }
  }

  // P^T per 128-key chunk on TensorE into one PSUM bank, copied to SBUF (naive: VectorE; pipelined: ScalarE, which
  // balances VectorE's max, mask and accumulator work).
  void transpose_p(int64_t n) {
    const Item& it = item(n);
    const BlockBufs& bb = block_bufs(n);
    for (int64_t c = 0; c < it.w / kP; ++c) b_.transpose(sl(pt_psum(n), kP, c * kP, kP), sl(bb.p, kP, c * kP, kP));
    const View pt = sl(bb.pt, kP, 0, it.w), src = sl(pt_psum(n), kP, 0, it.w);
    if (naive_)
      b_.copy(pt, src);
    else
      b_.activation(pt, src, Act::copy, 1.0f, 0.0f);
  }

  // O = P V on TensorE, accumulating the block's 128-key chunks. Pipelined: after the last read of a kv head's set
  // (its group's last P V; every score of it was issued earlier), the kv head two ahead is loaded into that set.
  void p_times_v(int64_t n) {
    const Item& it = item(n);
    const int64_t kv = g_.kv(it.head);
    const HeadBufs& hb = head_bufs(kv);
    const BlockBufs& bb = block_bufs(n);
    for (int64_t c = 0; c < it.w / kP; ++c)
      b_.matmul(pv_psum(n), sl(bb.pt, kP, c * kP, kP), sl(hb.v, kP, (it.k0 / kP + c) * g_.d, g_.d),
                /*accumulate=*/c > 0);
    const bool last_of_kv = it.last && it.qtile + 1 == g_.qtiles && (it.head + 1) % g_.variant.group == 0;
    if (!naive_ && last_of_kv && kv + kv_sets_ < g_.kv_heads) load_head(kv + kv_sets_);
  }

  // VectorE: acc = acc * alpha + O (first block: a copy; a single-block query tile finishes from PSUM), and after
  // the last block o = acc / l, stored.
  void accumulate(int64_t n) {
    const Item& it = item(n);
    QueryState& qs = query_state(it.seq);
    const View& pv = pv_psum(n);
    if (it.first && it.last) {
      finish(it, qs, pv);
      return;
    }
    if (it.first) {
      b_.copy(qs.acc, pv);
    } else {
      b_.tensor_scalar(qs.acc, qs.acc, AluOp::multiply, block_bufs(n).alpha);
      b_.tensor_tensor(qs.acc, qs.acc, pv, AluOp::add);
    }
    if (it.last) finish(it, qs, qs.acc);
  }

  void finish(const Item& it, QueryState& qs, const View& acc) {
    b_.reciprocal(qs.rl, qs.l);
    b_.tensor_scalar(qs.out, acc, AluOp::multiply, qs.rl);
    b_.dma_copy(b_.slice(o_, it.head * g_.seq + it.qtile * kP, kP, 0, g_.d), qs.out, queue(12, 4, o_queue_));
  }

  KernelBuilder& b_;
  const View &qt_, &kt_, &v_, &o_, &bounds_;
  Geometry g_;
  bool naive_;
  std::vector<Item> items_;
  int kv_sets_ = 1;
  std::vector<HeadBufs> heads_;
  QueryState query_[kQuerySets];
  BlockBufs block_[kBlockSets];
  View s_[kScoreBanks], pt_psum_[kPtPsumSets], pv_[kPvSets], mask_, alibi_[2], alibi_diag_, bound_keys_, bound_tmp_;
  std::vector<int64_t> edge_diffs_;  // q0 - k0 of the chunks a window's lower edge cuts
  std::vector<View> edges_;
  int q_queue_ = 0, k_queue_ = 0, v_queue_ = 0, o_queue_ = 0;
};

}  // namespace

void attention_kernel(KernelBuilder& b, const View& q_t, const View& k_t, const View& v, const View& o, int64_t heads,
                      Schedule schedule, float scale, std::source_location loc) {
  attention_kernel(b, q_t, k_t, v, o, heads, AttentionVariant{}, schedule, scale, loc);
}

void attention_kernel(KernelBuilder& b, const View& q_t, const View& k_t, const View& v, const View& o, int64_t heads,
                      const AttentionVariant& variant, Schedule schedule, float scale, std::source_location loc) {
  check(!variant.bounded(),
        "[shape] attention_kernel: document bounds need the bounds tensor [T, 2] (the overload "
        "that takes it)",
        loc);
  attention_kernel(b, q_t, k_t, v, o, View{}, heads, variant, schedule, scale, loc);
}

void attention_kernel(KernelBuilder& b, const View& q_t, const View& k_t, const View& v, const View& o,
                      const View& bounds, int64_t heads, const AttentionVariant& variant, Schedule schedule,
                      float scale, std::source_location loc) {
  check_hbm_operands(b, "attention_kernel", {q_t, k_t, v, o}, loc);
  check(heads >= 1, "[shape] attention_kernel needs heads >= 1", loc);
  try {
    check_attention_variant(variant, heads, q_t.nf / heads);
  } catch (const Error& e) {
    throw Error(std::string("[shape] attention_kernel: ") + e.what(), loc);
  }
  if (variant.bounded()) check_bounds_tensor(b, "attention_kernel", bounds, q_t.nf / heads, loc);
  auto buffer = [&](const View& x) -> const Buffer& { return b.program().buffers.at(static_cast<size_t>(x.buffer)); };
  Geometry g;
  g.heads = heads;
  g.kv_heads = heads / variant.group;
  g.variant = variant;
  g.d = q_t.np;
  g.seq = q_t.nf / heads;
  g.out = buffer(o).dtype;
  check(g.out != DType::i32 && buffer(q_t).dtype != DType::i32 && buffer(k_t).dtype != DType::i32 &&
            buffer(v).dtype != DType::i32,
        "[shape] attention_kernel operands must be float tensors", loc);
  const std::string shapes = "q_t [" + std::to_string(q_t.np) + ", " + std::to_string(q_t.nf) + "], k_t [" +
                             std::to_string(k_t.np) + ", " + std::to_string(k_t.nf) + "], v [" + std::to_string(v.np) +
                             ", " + std::to_string(v.nf) + "], o [" + std::to_string(o.np) + ", " +
                             std::to_string(o.nf) + "], heads " + std::to_string(heads) + ", group " +
                             std::to_string(variant.group);
  check(g.seq * heads == q_t.nf && k_t.np == g.d && k_t.nf * variant.group == q_t.nf && v.np == k_t.nf && v.nf == g.d &&
            o.np == q_t.nf && o.nf == g.d,
        "[shape] attention_kernel needs q_t [d, heads T], k_t [d, heads / group T], v [heads / group T, d], o [heads "
        "T, d]; got " +
            shapes,
        loc);
  check(g.seq > 0 && g.seq % kP == 0,
        "[shape] attention_kernel needs T a multiple of 128; got T = " + std::to_string(g.seq) + " (" + shapes + ")",
        loc);
  check(g.d >= 1 && (g.d <= kP || (g.d % kP == 0 && g.d <= kBlock)),
        "[shape] attention_kernel needs d <= 128 or a multiple of 128 up to 512; got d = " + std::to_string(g.d), loc);
  g.dkt = ceil_div(g.d, kP);
  g.qtiles = g.seq / kP;
  g.scale = scale > 0 ? scale : static_cast<float>(1.0 / std::sqrt(static_cast<double>(g.d)));
  g.exp_scale = variant.exp_scale(g.scale);
  // K and V of a head stay resident (two heads in flight when pipelined), beside the block and query-tile sets.
  const int head_sets = schedule == Schedule::naive ? 1 : 2, sets = schedule == Schedule::naive ? 1 : 3;
  const int64_t need =
      head_sets * (g.dkt * g.seq + g.seq / kP * g.d) * 2 + kP * 4 +
      sets * (g.dkt * kP * 2 + 6 * 4 + g.d * (4 + static_cast<int64_t>(dtype_size(g.out))) + 2 * kBlock * 2 + 3 * 4) +
      64 * (4 * sets + 4) + (variant.bounded() ? 2 * kP * 4 + sets * 2 * 4 : 0);
  const auto cap = static_cast<int64_t>(b.spec().sbuf_bytes_per_partition.value);
  // ALiBi: one fp32 bias tile per head in flight (two when they fit, else the next head's waits for the last block
  // of the one before) and the diagonal tile.
  const int64_t bias = variant.alibi() ? g.bias_cols() * 4 : 0, diag = variant.alibi() ? kP * 4 : 0;
  g.bias_sets = schedule != Schedule::naive && need + 2 * bias + diag <= cap ? 2 : 1;
  check(need + bias + diag <= cap,
        "[sbuf-capacity] attention_kernel keeps K and V of a head resident" +
            std::string(variant.alibi() ? " and its ALiBi bias tile" : "") + ": T = " + std::to_string(g.seq) +
            ", d = " + std::to_string(g.d) + " needs about " + std::to_string(need + bias + diag) +
            " B per partition of " + std::to_string(cap),
        loc);
  Attention(b, q_t, k_t, v, o, bounds, g, schedule).run();
}

}  // namespace nanotrn::neuron
