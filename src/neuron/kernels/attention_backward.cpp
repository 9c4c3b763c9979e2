// The flash-attention backward tile kernel (see attention_backward.h). Not here: execution or timing.
#include "neuron/kernels/attention_backward.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "base/error.h"
#include "neuron/kernels/attention_alibi.h"
#include "neuron/kernels/attention_bounds.h"

namespace nanotrn::neuron {
namespace {

constexpr int64_t kP = 128;
// Pipelined rotation (naive: one of each). An item's scores live from its A stage (step n - 2) to its B stage, its
// P and dS from B to C, its dS^T from C to D: 3 sets leave a step of slack each. A key tile's buffers are loaded at
// the first item of the tile before it and read until the D stage of its last item: 5 sets keep that load behind,
// in program order, every read of the set it overwrites (attention_backward.h).
constexpr int kItemSets = 3, kKeySets = 5, kAccSets = 2, kPsumItemSets = 3, kSmallPsumSets = 2;
constexpr int64_t kMinItemsPerHeadToOverlap = 4;

struct Geometry {
  int64_t heads = 1, seq = 0, d = 0, dkt = 1, qtiles = 0;
  float scale = 1;      // of the raw q.k (dQ, dK's factor)
  float exp_scale = 1;  // what the exp multiplies the held score by: scale, or the softcap (attention_mask.h)
  AttentionVariant variant;
  int64_t dk(int64_t kt) const { return std::min(kP, d - kt * kP); }  // rows of contraction tile kt
  int64_t kv(int64_t head) const { return head / variant.group; }
  int64_t group() const { return variant.group; }
};

// Query tile i against key tile j of head h; key tiles are counted over all heads by `key` (rotation index).
struct Item {
  int64_t head, j, i, key;
  bool first_of_key, last_of_key, first_of_head, last_of_head, cut, bounds_cut;
};

// Resident per head: query tiles of Q, dO, o [128, qtiles d]; Q^T, dO^T as dkt contraction tiles [dk, T] side by
// side; -lse and -D [128, qtiles]; the fp32 dQ accumulator [128, qtiles d]. Per key tile K, V [128, d] and K^T, V^T
// as dkt tiles [dk, 128] side by side.
struct HeadBufs {
  View q, dout, o, q_t, dout_t, nlse, delta, dq, prod, alibi, bounds;  // bounds: [128, 2 qtiles] (document bounds)
};
// prev_dk / prev_dv (GQA): the fp32 sums of the group's earlier query heads, read back from the partial tensors.
struct KeyBufs {
  View k, v, k_t, v_t, prev_dk, prev_dv;
};
// w (softcap only): 1 - tanh^2, the softcap's derivative factor.
struct ItemBufs {
  View p, ds, ds_t, diff, w;
};

class AttentionBackward {
 public:
  AttentionBackward(KernelBuilder& b, const AttentionBackwardIo& io, const Geometry& g, Schedule schedule,
                    int head_sets)
      : b_(b), io_(io), g_(g), naive_(schedule == Schedule::naive), head_sets_(head_sets) {}

  void run() {
    items_ = plan();
    allocate();
    partial_by_.assign(static_cast<size_t>(g_.heads / g_.group() * g_.qtiles), -1);
    partial_loaded_.assign(static_cast<size_t>(g_.heads * g_.qtiles), false);
    const auto count = static_cast<int64_t>(items_.size());
    if (naive_) {
      for (int64_t n = 0; n < count; ++n) {
        const Item& it = item(n);
        if (it.first_of_head) {
          load_head(it.head);
          prepare_head(it.head);
        }
        if (it.first_of_key) {
          load_key(n);
          prepare_key(n);
        }
        scores(n);
        probabilities(n);
        kv_gradients(n);
        q_gradient(n);
      }
      return;
    }
    // Heads overlap when two heads' state fits and every head is long enough that the next head's loads (issued at
    // the D stage of a head's first item) come after the last use of the set they overwrite; otherwise the pipeline
    // drains at each head.
    const int64_t per_head = count / g_.heads;
    overlap_heads_ = head_sets_ == 2 && per_head >= kMinItemsPerHeadToOverlap;
    if (overlap_heads_) {
      load_head(0);
      pipeline(0, count);
    } else {
      for (int64_t h = 0; h < g_.heads; ++h) {
        load_head(h);
        pipeline(h * per_head, (h + 1) * per_head);
      }
    }
  }

 private:
  std::vector<Item> plan() const {
    std::vector<Item> items;
    int64_t key = 0;
    for (int64_t h = 0; h < g_.heads; ++h) {
      const size_t head_start = items.size();
      for (int64_t j = 0; j < g_.qtiles; ++j, ++key) {
        const size_t key_start = items.size();
        for (int64_t i = 0; i < g_.qtiles; ++i) {
          const TileCut c = g_.variant.tile(i * kP, j * kP, kP, kP);
          if (c.any)
            items.push_back(
                {h, j, i, key, false, false, false, false, !c.all, !g_.variant.bounds_cover(i * kP, j * kP, kP, kP)});
        }
        check(items.size() > key_start, "attention_backward_kernel: a key tile no query sees");  // not for our masks
        items[key_start].first_of_key = true;
        items.back().last_of_key = true;
      }
      items[head_start].first_of_head = true;
      items.back().last_of_head = true;
    }
    return items;
  }

  int sets(int pipelined) const { return naive_ ? 1 : pipelined; }

  void allocate() {
    const int64_t qd = g_.qtiles * g_.d;
    for (int i = 0; i < head_sets_; ++i) {
      const std::string s = std::to_string(i);
      heads_[i] = {
          b_.sbuf("q" + s, kP, qd, DType::bf16),
          b_.sbuf("dout" + s, kP, qd, DType::bf16),
          b_.sbuf("o" + s, kP, qd, DType::bf16),
          b_.sbuf("q_t" + s, kP, g_.dkt * g_.seq, DType::bf16),
          b_.sbuf("dout_t" + s, kP, g_.dkt * g_.seq, DType::bf16),
          b_.sbuf("neg_lse" + s, kP, g_.qtiles, DType::f32),
          b_.sbuf("delta" + s, kP, g_.qtiles, DType::f32),
          b_.sbuf("dq_acc" + s, kP, qd, DType::f32),
          b_.sbuf("do_o" + s, kP, g_.d, DType::f32),
          g_.variant.alibi() ? b_.sbuf("alibi" + s, kP, alibi_columns(g_.seq, g_.variant.mask), DType::f32) : View{},
          g_.variant.bounded() ? b_.sbuf("bounds" + s, kP, 2 * g_.qtiles, DType::f32) : View{}};
    }
    if (g_.variant.bounded()) {
      bound_keys_ = b_.sbuf("bound_keys", kP, kP, DType::f32);
      bound_tmp_ = b_.sbuf("bound_tmp", kP, kP, DType::f32);
    }
    if (g_.variant.alibi()) alibi_diag_ = b_.sbuf("alibi_diag", kP, kP, DType::f32);
    if (g_.group() > 1) {  // GQA: the group's running dK / dV sums between its query heads, fp32 in HBM
      const int64_t rows = g_.heads / g_.group() * g_.seq;
      dk_partial_ = b_.hbm("dk_partial", rows, g_.d, DType::f32);
      dv_partial_ = b_.hbm("dv_partial", rows, g_.d, DType::f32);
      for (int i = 0; i < sets(kAccSets); ++i) {
        dk_sum_[i] = b_.sbuf("dk_sum" + std::to_string(i), kP, g_.d, DType::f32);
        dv_sum_[i] = b_.sbuf("dv_sum" + std::to_string(i), kP, g_.d, DType::f32);
      }
    }
    const DType kd = dtype_of(b_, io_.dk), vd = dtype_of(b_, io_.dv);
    for (int i = 0; i < sets(kKeySets); ++i) {
      const std::string s = std::to_string(i);
      keys_[i] = {b_.sbuf("k" + s, kP, g_.d, DType::bf16),
                  b_.sbuf("v" + s, kP, g_.d, DType::bf16),
                  b_.sbuf("k_t" + s, kP, g_.dkt * kP, DType::bf16),
                  b_.sbuf("v_t" + s, kP, g_.dkt * kP, DType::bf16),
                  g_.group() > 1 ? b_.sbuf("prev_dk" + s, kP, g_.d, DType::f32) : View{},
                  g_.group() > 1 ? b_.sbuf("prev_dv" + s, kP, g_.d, DType::f32) : View{}};
    }
    for (int i = 0; i < sets(kItemSets); ++i) {
      const std::string s = std::to_string(i);
      items_bufs_[i] = {b_.sbuf("p" + s, kP, kP, DType::bf16), b_.sbuf("ds" + s, kP, kP, DType::bf16),
                        b_.sbuf("ds_t" + s, kP, kP, DType::bf16), b_.sbuf("dp_minus_d" + s, kP, kP, DType::f32),
                        g_.variant.capped() ? b_.sbuf("softcap_w" + s, kP, kP, DType::f32) : View{}};
    }
    for (int i = 0; i < sets(kAccSets); ++i) {
      const std::string s = std::to_string(i);
      dk_out_[i] = b_.sbuf("dk_out" + s, kP, g_.d, kd);
      dv_out_[i] = b_.sbuf("dv_out" + s, kP, g_.d, vd);
    }
    // PSUM: scores and dP (one 512 B tile each per item set), dK / dV accumulators per key tile, the dQ part, the
    // bf16 transposes (dS^T, and the layout transposes of Q, dO, K, V).
    for (int i = 0; i < sets(kPsumItemSets); ++i) {
      const std::string s = std::to_string(i);
      s_[i] = b_.psum("scores" + s, kP, kP, DType::f32);
      dp_[i] = b_.psum("dp" + s, kP, kP, DType::f32);
    }
    for (int i = 0; i < sets(kAccSets); ++i) {
      const std::string s = std::to_string(i);
      dk_[i] = b_.psum("dk" + s, kP, g_.d, DType::f32);
      dv_[i] = b_.psum("dv" + s, kP, g_.d, DType::f32);
    }
    for (int i = 0; i < sets(kSmallPsumSets); ++i) {
      const std::string s = std::to_string(i);
      dq_part_[i] = b_.psum("dq_part" + s, kP, g_.d, DType::f32);
      ds_t_psum_[i] = b_.psum("ds_t_psum" + s, kP, kP, DType::bf16);
      layout_t_[i] = b_.psum("layout_t" + s, kP, kP, DType::bf16);
    }
  }

  View sl(const View& v, int64_t np, int64_t f0, int64_t nf) const { return b_.slice(v, 0, np, f0, nf); }
  View rows(const View& hbm, int64_t r0, int64_t nr) const { return b_.slice(hbm, r0, nr, 0, hbm.nf); }
  int queue(int base, int span, int& counter) const { return naive_ ? 0 : base + counter++ % span; }
  const Item& item(int64_t n) const { return items_[static_cast<size_t>(n)]; }
  const HeadBufs& head_bufs(int64_t h) const { return heads_[h % head_sets_]; }
  const KeyBufs& key_bufs(int64_t key) const { return keys_[key % sets(kKeySets)]; }
  const ItemBufs& item_bufs(int64_t n) const { return items_bufs_[n % sets(kItemSets)]; }
  int64_t acc(int64_t key) const { return key % sets(kAccSets); }
  const View& small_psum(const View* v, int64_t n) const { return v[n % sets(kSmallPsumSets)]; }
  View qcols(const View& v, int64_t i) const { return sl(v, kP, i * g_.d, g_.d); }  // query tile i of a [128, qt d]

  // Transposes a [128, d] bf16 tile into dkt tiles [dk, 128], tile kt at columns kt * stride of dst, through PSUM
  // (TensorE, then the copy on ScalarE when pipelined).
  void layout_transpose(const View& dst, int64_t f0, int64_t stride, const View& src) {
    for (int64_t kt = 0; kt < g_.dkt; ++kt) {
      const View t = sl(small_psum(layout_t_, layout_count_++), g_.dk(kt), 0, kP);
      b_.transpose(t, b_.slice(src, 0, kP, kt * kP, g_.dk(kt)));
      const View out = sl(dst, g_.dk(kt), f0 + kt * stride, kP);
      if (naive_)
        b_.copy(out, t);
      else
        b_.activation(out, t, Act::copy, 1.0f, 0.0f);
    }
  }

  void load_head(int64_t h) {
    const HeadBufs& hb = head_bufs(h);
    const int64_t r0 = h * g_.seq;
    for (int64_t i = 0; i < g_.qtiles; ++i) {
      b_.dma_copy(qcols(hb.q, i), rows(io_.q, r0 + i * kP, kP), queue(0, 8, head_queue_));
      b_.dma_copy(qcols(hb.dout, i), rows(io_.dout, r0 + i * kP, kP), queue(0, 8, head_queue_));
      b_.dma_copy(qcols(hb.o, i), rows(io_.o, r0 + i * kP, kP), queue(0, 8, head_queue_));
      b_.dma_copy(sl(hb.nlse, kP, i, 1), rows(io_.lse, r0 + i * kP, kP), queue(0, 8, head_queue_));
      if (g_.variant.bounded())
        b_.dma_copy(sl(hb.bounds, kP, 2 * i, 2), rows(io_.bounds, i * kP, kP), queue(0, 8, head_queue_));
    }
  }

  // Q^T and dO^T, -lse, -D = -rowsum(dO o), dQacc = 0.
  void prepare_head(int64_t h) {
    const HeadBufs& hb = head_bufs(h);
    for (int64_t i = 0; i < g_.qtiles; ++i) {
      layout_transpose(hb.q_t, i * kP, g_.seq, qcols(hb.q, i));
      layout_transpose(hb.dout_t, i * kP, g_.seq, qcols(hb.dout, i));
      b_.tensor_tensor(hb.prod, qcols(hb.dout, i), qcols(hb.o, i), AluOp::multiply);
      b_.reduce(sl(hb.delta, kP, i, 1), hb.prod, AluOp::add, /*negate=*/true);
    }
    b_.tensor_scalar(hb.nlse, hb.nlse, AluOp::multiply, -1.0f);
    b_.memset(hb.dq, 0.0f);
    if (g_.variant.alibi())
      build_alibi_tile(b_, hb.alibi, alibi_diag_, g_.seq, g_.variant.mask,
                       g_.variant.alibi_slopes[static_cast<size_t>(h)] / g_.exp_scale);
  }

  // K_j, V_j of the item's kv head; under GQA after the group's first query head also the group's dK / dV so far.
  void load_key(int64_t n) {
    const Item& it = item(n);
    const KeyBufs& kb = key_bufs(it.key);
    const int64_t r0 = g_.kv(it.head) * g_.seq + it.j * kP;
    b_.dma_copy(kb.k, rows(io_.k, r0, kP), queue(8, 2, key_queue_));
    b_.dma_copy(kb.v, rows(io_.v, r0, kP), queue(8, 2, key_queue_));
    // Early only when the previous query head's store of this tile is already issued (program order is the order
    // the hardware's semaphores follow); otherwise store_kv loads them right before the sum.
    if (g_.group() > 1 && it.head % g_.group() > 0 && partial_head(it) == it.head - 1) load_partial(it);
  }
  int64_t& partial_head(const Item& it) { return partial_by_[static_cast<size_t>(g_.kv(it.head) * g_.qtiles + it.j)]; }
  void load_partial(const Item& it) {
    const KeyBufs& kb = key_bufs(it.key);
    const int64_t r0 = g_.kv(it.head) * g_.seq + it.j * kP;
    b_.dma_copy(kb.prev_dk, rows(dk_partial_, r0, kP), queue(8, 2, key_queue_));
    b_.dma_copy(kb.prev_dv, rows(dv_partial_, r0, kP), queue(8, 2, key_queue_));
    partial_loaded_[static_cast<size_t>(it.key)] = true;
  }
  void prepare_key(int64_t n) {
    const KeyBufs& kb = key_bufs(item(n).key);
    layout_transpose(kb.k_t, 0, kP, kb.k);
    layout_transpose(kb.v_t, 0, kP, kb.v);
  }

  // A stage (TensorE): S = Q_i K_j^T, dP = dO_i V_j^T.
  void scores(int64_t n) {
    const Item& it = item(n);
    const HeadBufs& hb = head_bufs(it.head);
    const KeyBufs& kb = key_bufs(it.key);
    for (int64_t kt = 0; kt < g_.dkt; ++kt) {
      const int64_t dk = g_.dk(kt), q0 = kt * g_.seq + it.i * kP;
      b_.matmul(s_[n % sets(kPsumItemSets)], sl(hb.q_t, dk, q0, kP), sl(kb.k_t, dk, kt * kP, kP), kt > 0);
      b_.matmul(dp_[n % sets(kPsumItemSets)], sl(hb.dout_t, dk, q0, kP), sl(kb.v_t, dk, kt * kP, kP), kt > 0);
    }
  }

  // B stage: P = exp(scale S - lse) (ScalarE), the mask's edges (GpSimd), dS = (dP - D) P (VectorE). Softcap: S =
  // tanh(scale S / c) in place first (ScalarE), P = exp(c S - lse), and dS gains the factor 1 - S^2 (its square on
  // ScalarE, 1 - that and the product on VectorE) before the final scale of dQ, dK.
  void probabilities(int64_t n) {
    const Item& it = item(n);
    const HeadBufs& hb = head_bufs(it.head);
    const ItemBufs& ib = item_bufs(n);
    const View& s = s_[n % sets(kPsumItemSets)];
    if (g_.variant.capped()) {  // before ALiBi's bias joins S: w needs tanh alone
      b_.activation(s, s, Act::tanh, g_.scale / g_.variant.softcap, 0.0f);
      b_.activation(ib.w, s, Act::square, 1.0f, 0.0f);
    }
    if (g_.variant.alibi())
      b_.tensor_tensor(s, s, sl(hb.alibi, kP, alibi_column(g_.seq, it.i * kP, it.j * kP), kP), AluOp::add);
    if (it.bounds_cut)
      add_bounds_mask(b_, s, bound_keys_, bound_tmp_, sl(hb.bounds, kP, 2 * it.i, 1),
                      sl(hb.bounds, kP, 2 * it.i + 1, 1), it.j * kP);
    ActArgs e;
    e.scale = g_.exp_scale;
    e.bias_vector = sl(hb.nlse, kP, it.i, 1);
    b_.activation(ib.p, s, Act::exp, e);
    if (it.cut) {
      // affine_select keeps (p, f) where offset + p cm + f step >= 0; p is the query, f the key within the tile.
      const int64_t q0 = it.i * kP, k0 = it.j * kP;
      if (q0 < k0 + kP - 1 && g_.variant.mask != AttentionMask::none)  // the causal edge: query - key >= 0
        b_.affine_select(ib.p, ib.p, q0 - k0, 1, -1, 0.0f);
      if (g_.variant.mask == AttentionMask::sliding_window && q0 + kP - 1 - k0 >= g_.variant.window)
        b_.affine_select(ib.p, ib.p, g_.variant.window - 1 - q0 + k0, -1, 1, 0.0f);  // window - 1 - (q - k) >= 0
    }
    // dP - D: on VectorE when naive; pipelined on ScalarE (an identity activation with the bias vector -D), which
    // leaves VectorE the product and the dQ accumulation (VectorE is the busiest engine otherwise).
    const View& dp = dp_[n % sets(kPsumItemSets)];
    const View neg_d = sl(hb.delta, kP, it.i, 1);
    if (naive_) {
      b_.tensor_scalar(ib.diff, dp, AluOp::add, neg_d);
    } else {
      ActArgs a;
      a.bias_vector = neg_d;
      b_.activation(ib.diff, dp, Act::copy, a);
    }
    if (g_.variant.capped()) {
      b_.tensor_scalar(ib.w, ib.w, AluOp::multiply, -1.0f, AluOp::add, 1.0f);
      b_.tensor_tensor(ib.diff, ib.diff, ib.w, AluOp::multiply);
    }
    b_.tensor_tensor(ib.ds, ib.diff, ib.p, AluOp::multiply);
  }

  // C stage (TensorE): dV_j += P^T dO_i, dK_j += dS^T Q_i, dS^T; at a key tile's last item, dV_j and scale dK_j out.
  void kv_gradients(int64_t n) {
    const Item& it = item(n);
    const HeadBufs& hb = head_bufs(it.head);
    const ItemBufs& ib = item_bufs(n);
    const int64_t a = acc(it.key);
    b_.matmul(dv_[a], ib.p, qcols(hb.dout, it.i), /*accumulate=*/!it.first_of_key);
    b_.matmul(dk_[a], ib.ds, qcols(hb.q, it.i), /*accumulate=*/!it.first_of_key);
    const View t = small_psum(ds_t_psum_, n);
    b_.transpose(t, ib.ds);
    if (naive_)
      b_.copy(ib.ds_t, t);
    else
      b_.activation(ib.ds_t, t, Act::copy, 1.0f, 0.0f);
    if (it.last_of_key) store_kv(it, a);
  }

  // dV_j and scale dK_j out of PSUM. Under GQA the group's query heads add up in fp32: the first stores its part to
  // the partial tensors, each later one adds the sum so far (loaded with K_j), the last stores the total.
  void store_kv(const Item& it, int64_t a) {
    const int64_t r0 = g_.kv(it.head) * g_.seq + it.j * kP, r = it.head % g_.group();
    if (g_.group() == 1) {
      b_.copy(dv_out_[a], dv_[a]);
      b_.activation(dk_out_[a], dk_[a], Act::copy, g_.scale, 0.0f);
    } else {
      const KeyBufs& kb = key_bufs(it.key);
      if (r > 0 && !partial_loaded_[static_cast<size_t>(it.key)]) load_partial(it);
      b_.activation(dk_sum_[a], dk_[a], Act::copy, g_.scale, 0.0f);
      if (r == 0) {
        b_.copy(dv_sum_[a], dv_[a]);
      } else {
        b_.tensor_tensor(dv_sum_[a], dv_[a], kb.prev_dv, AluOp::add);
        b_.tensor_tensor(dk_sum_[a], dk_sum_[a], kb.prev_dk, AluOp::add);
      }
      if (r + 1 < g_.group()) {
        b_.dma_copy(rows(dv_partial_, r0, kP), dv_sum_[a], queue(10, 2, store_queue_));
        b_.dma_copy(rows(dk_partial_, r0, kP), dk_sum_[a], queue(10, 2, store_queue_));
        partial_head(it) = it.head;
        return;
      }
      b_.copy(dv_out_[a], dv_sum_[a]);
      b_.copy(dk_out_[a], dk_sum_[a]);
    }
    b_.dma_copy(rows(io_.dv, r0, kP), dv_out_[a], queue(10, 2, store_queue_));
    b_.dma_copy(rows(io_.dk, r0, kP), dk_out_[a], queue(10, 2, store_queue_));
  }

  // D stage: dQ_i += dS K_j (TensorE, then VectorE); at a head's last item, scale dQ and store it.
  void q_gradient(int64_t n) {
    const Item& it = item(n);
    const HeadBufs& hb = head_bufs(it.head);
    const View part = small_psum(dq_part_, n);
    b_.matmul(part, item_bufs(n).ds_t, key_bufs(it.key).k);
    const View acc_i = qcols(hb.dq, it.i);
    b_.tensor_tensor(acc_i, acc_i, part, AluOp::add);
    if (!it.last_of_head) return;
    for (int64_t i = 0; i < g_.qtiles; ++i) {
      const View a = qcols(hb.dq, i);
      b_.tensor_scalar(a, a, AluOp::multiply, g_.scale);
      b_.dma_copy(rows(io_.dq, it.head * g_.seq + i * kP, kP), a, queue(12, 4, dq_queue_));
    }
  }

  // Items [begin, end) software-pipelined: step s runs A(s + 2), B(s + 1), C(s), D(s - 1).
  void pipeline(int64_t begin, int64_t end) {
    auto in = [&](int64_t n) { return n >= begin && n < end; };
    for (int64_t s = begin - 2; s < end + 1; ++s) {
      const int64_t a = s + 2;
      if (in(a)) {
        const Item& it = item(a);
        if (it.first_of_head) prepare_head(it.head);
        if (a == begin) load_key(a);
        if (it.first_of_key) {
          // The next key tile's loads, one tile ahead.
          for (int64_t m = a + 1; m < end; ++m)
            if (item(m).first_of_key) {
              load_key(m);
              break;
            }
          prepare_key(a);
        }
        scores(a);
      }
      if (in(s + 1)) probabilities(s + 1);
      if (in(s)) kv_gradients(s);
      if (in(s - 1)) {
        q_gradient(s - 1);
        const Item& it = item(s - 1);
        if (overlap_heads_ && it.first_of_head && it.head + 1 < g_.heads) load_head(it.head + 1);
      }
    }
  }

  KernelBuilder& b_;
  const AttentionBackwardIo& io_;
  Geometry g_;
  bool naive_;
  int head_sets_;
  bool overlap_heads_ = false;
  std::vector<Item> items_;
  HeadBufs heads_[2];
  KeyBufs keys_[kKeySets];
  ItemBufs items_bufs_[kItemSets];
  View dk_out_[kAccSets], dv_out_[kAccSets];
  View s_[kPsumItemSets], dp_[kPsumItemSets], dk_[kAccSets], dv_[kAccSets];
  View dq_part_[kSmallPsumSets], ds_t_psum_[kSmallPsumSets], layout_t_[kSmallPsumSets];
  View bound_keys_, bound_tmp_;
  View alibi_diag_, dk_partial_, dv_partial_, dk_sum_[kAccSets], dv_sum_[kAccSets];
  std::vector<int64_t> partial_by_;   // per (kv head, key tile): the query head whose sum the partial tensors hold
  std::vector<bool> partial_loaded_;  // per key tile (Item::key): its prev_dk / prev_dv are loaded
  int64_t layout_count_ = 0;
  int head_queue_ = 0, key_queue_ = 0, store_queue_ = 0, dq_queue_ = 0;
};

std::string shape_of(const View& v) {
  return std::string("[").append(std::to_string(v.np)).append(", ").append(std::to_string(v.nf)).append("]");
}

}  // namespace

void attention_backward_kernel(KernelBuilder& b, const AttentionBackwardIo& io, int64_t heads,
                               const AttentionVariant& variant, Schedule schedule, float scale,
                               std::source_location loc) {
  check_hbm_operands(b, "attention_backward_kernel", {io.q, io.k, io.v, io.o, io.dout, io.lse, io.dq, io.dk, io.dv},
                     loc);
  check(heads >= 1, "[shape] attention_backward_kernel needs heads >= 1", loc);
  try {
    check_attention_variant(variant, heads, io.q.np / heads);
  } catch (const Error& e) {
    throw Error(std::string("[shape] attention_backward_kernel: ") + e.what(), loc);
  }
  if (variant.bounded()) check_bounds_tensor(b, "attention_backward_kernel", io.bounds, io.q.np / heads, loc);
  for (const View* x : {&io.q, &io.k, &io.v, &io.o, &io.dout, &io.lse, &io.dq, &io.dk, &io.dv})
    check(dtype_of(b, *x) != DType::i32, "[shape] attention_backward_kernel operands must be float tensors", loc);
  Geometry g;
  g.heads = heads;
  g.d = io.q.nf;
  g.seq = io.q.np / heads;
  g.variant = variant;
  const std::string shapes = "q " + shape_of(io.q) + ", k " + shape_of(io.k) + ", v " + shape_of(io.v) + ", o " +
                             shape_of(io.o) + ", dout " + shape_of(io.dout) + ", lse " + shape_of(io.lse) + ", dq " +
                             shape_of(io.dq) + ", dk " + shape_of(io.dk) + ", dv " + shape_of(io.dv) + ", heads " +
                             std::to_string(heads) + ", group " + std::to_string(variant.group);
  bool same = g.seq * heads == io.q.np && io.lse.np == io.q.np && io.lse.nf == 1;
  for (const View* x : {&io.o, &io.dout, &io.dq}) same = same && x->np == io.q.np && x->nf == io.q.nf;
  for (const View* x : {&io.k, &io.v, &io.dk, &io.dv})
    same = same && x->np * variant.group == io.q.np && x->nf == io.q.nf;
  check(same,
        "[shape] attention_backward_kernel needs q, o, dout, dq [heads T, d], k, v, dk, dv [heads / group T, d] and "
        "lse [heads T, 1]; got " +
            shapes,
        loc);
  check(g.seq > 0 && g.seq % kP == 0,
        "[shape] attention_backward_kernel needs T a multiple of 128; got T = " + std::to_string(g.seq) + " (" +
            shapes + ")",
        loc);
  // d = 384 or 512 would need the six [128, d] fp32 gradient accumulators in more PSUM banks than remain.
  check(g.d >= 1 && (g.d <= kP || g.d == 2 * kP),
        "[shape] attention_backward_kernel needs d <= 128 or d = 256 (head_dim on the partitions, in 128-row "
        "contraction tiles); got d = " +
            std::to_string(g.d),
        loc);
  g.dkt = ceil_div(g.d, kP);
  g.qtiles = g.seq / kP;
  g.scale = scale > 0 ? scale : static_cast<float>(1.0 / std::sqrt(static_cast<double>(g.d)));
  g.exp_scale = variant.exp_scale(g.scale);
  // Per partition: a head's state (q, dout, o bf16 and the fp32 dQ accumulator as query tiles; Q^T, dO^T [d, T];
  // -lse, D; the dO o product), and the key, item and output sets.
  const bool naive = schedule == Schedule::naive;
  const int64_t qd = g.qtiles * g.d, out_bytes = 4;
  const int64_t head = 3 * qd * 2 + 2 * g.dkt * g.seq * 2 + 2 * g.qtiles * 4 + qd * 4 + g.d * 4 +
                       (variant.alibi() ? alibi_columns(g.seq, variant.mask) * 4 : 0) +
                       (variant.bounded() ? 2 * g.qtiles * 4 : 0);
  const int64_t rest = (naive ? 1 : kKeySets) * (2 * g.d * 2 + 2 * g.dkt * kP * 2) +
                       (naive ? 1 : kItemSets) * (3 * kP * 2 + kP * 4 * (variant.capped() ? 2 : 1)) +
                       (naive ? 1 : kAccSets) * 2 * g.d * out_bytes + (variant.alibi() ? kP * 4 : 0) +
                       (variant.bounded() ? 2 * kP * 4 : 0) +
                       (variant.group > 1 ? ((naive ? 1 : kKeySets) + (naive ? 1 : kAccSets)) * 2 * g.d * 4 : 0);
  const auto cap = static_cast<int64_t>(b.spec().sbuf_bytes_per_partition.value);
  check(head + rest <= cap,
        "[sbuf-capacity] attention_backward_kernel keeps one head's Q, dO, o, Q^T, dO^T and fp32 dQ resident: T = " +
            std::to_string(g.seq) + ", d = " + std::to_string(g.d) + " needs about " + std::to_string(head + rest) +
            " B per partition of " + std::to_string(cap),
        loc);
  const int head_sets = !naive && 2 * head + rest <= cap ? 2 : 1;
  AttentionBackward(b, io, g, schedule, head_sets).run();
}

}  // namespace nanotrn::neuron
