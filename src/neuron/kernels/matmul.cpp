// The tiled matmul tile kernel (see matmul.h). Not here: execution or timing (run the recorded program).
#include "neuron/kernels/matmul.h"

#include <algorithm>
#include <string>
#include <vector>

#include "base/error.h"

namespace nanotrn::neuron {
namespace {

constexpr int64_t kTm = 128, kTn = 512, kTk = 128;
constexpr int kStaging = 4;  // fp32 [128, 512] SBUF tiles a PSUM bank is copied to before its store

int64_t round_up(int64_t x, int64_t unit) { return ceil_div(x, unit) * unit; }
auto size_of(DType t) { return static_cast<int64_t>(dtype_size(t)); }

bool double_row(const NeuronCoreSpec& s, DType compute) {
  return (compute == DType::f8e4m3 || compute == DType::f8e5m2) && s.fp8_double_row_speedup.value >= 2;
}

int psum_banks(const NeuronCoreSpec& s) {
  return static_cast<int>(s.psum_bytes_per_partition.value / s.psum_bank_bytes.value);
}

// Sum over the tiles of `x` split into `tile`s of max(floor, tile width): cycles of a row of matmuls or copies.
double tile_cycles(int64_t x, int64_t tile, double floor) {
  const int64_t rem = x % tile;
  return static_cast<double>(x / tile * tile) + (rem > 0 ? std::max(floor, static_cast<double>(rem)) : 0.0);
}

// SBUF bytes per partition of a blocking (the tiles the kernel allocates, all multiples of 16 bytes).
int64_t sbuf_need(const MatmulBlocking& blk, int64_t k, DType compute) {
  const int64_t es = size_of(compute);
  if (blk.mode == MatmulAccumulate::resident_k) {
    const int64_t kt = ceil_div(k, kTk);
    return 2 * kt * (blk.m_cols + kTn) * es + kStaging * kTn * 4;
  }
  const int64_t kb = blk.k_rows / kTk, operands = 2 * kb * (blk.m_cols + blk.n_cols) * es;
  if (blk.mode == MatmulAccumulate::psum) return operands + kStaging * kTn * 4;
  return operands + 2 * (blk.m_cols / kTm * blk.n_cols * 4);  // two accumulators (store overlaps the next block)
}

// SBUF bytes per partition already allocated in `b` (the kernel's tiles go after them).
int64_t sbuf_used(const KernelBuilder& b) {
  int64_t used = 0;
  for (const Buffer& buf : b.program().buffers)
    if (buf.memory == Memory::sbuf) used = std::max(used, buf.offset + buf.cols * size_of(buf.dtype));
  return used;
}

std::string blocking_str(const MatmulBlocking& blk) {
  const char* mode = blk.mode == MatmulAccumulate::resident_k ? "resident_k"
                     : blk.mode == MatmulAccumulate::sbuf     ? "sbuf"
                                                              : "psum";
  return std::string(mode) + " m_cols " + std::to_string(blk.m_cols) + ", n_cols " + std::to_string(blk.n_cols) +
         ", k_rows " + std::to_string(blk.k_rows);
}

// The rules of MatmulBlocking (matmul.h), and the SBUF it needs against what is free.
void check_blocking(const KernelBuilder& b, const MatmulBlocking& blk, int64_t k, DType compute,
                    std::source_location loc) {
  const NeuronCoreSpec& s = b.spec();
  const bool resident = blk.mode == MatmulAccumulate::resident_k;
  bool ok = blk.m_cols > 0 && blk.m_cols % kTm == 0 && blk.n_cols > 0 && blk.n_cols % kTn == 0;
  if (resident) ok = ok && blk.m_cols <= 512 && blk.n_cols == kTn;
  if (!resident) ok = ok && blk.k_rows > 0 && blk.k_rows % kTk == 0;
  if (!resident && double_row(s, compute)) ok = ok && (blk.k_rows % (2 * kTk) == 0 || blk.k_rows >= k);
  if (blk.mode == MatmulAccumulate::psum) ok = ok && blk.m_cols / kTm * (blk.n_cols / kTn) <= psum_banks(s);
  check(ok, "[shape] matmul_kernel: invalid blocking (" + blocking_str(blk) + ")", loc);
  const int64_t need = sbuf_need(blk, k, compute);
  const int64_t free = static_cast<int64_t>(s.sbuf_bytes_per_partition.value) - sbuf_used(b);
  check(need <= free,
        "[sbuf-capacity] matmul_kernel pipelined (" + blocking_str(blk) + ", K = " + std::to_string(k) + ") needs " +
            std::to_string(need) + " bytes per partition, " + std::to_string(free) + " free",
        loc);
}

// The matmuls of one output tile over the first `tiles` K tiles of its operand blocks into PSUM view `acc`:
// a_v(t) / b_v(t) give K tile t's stationary [tk, tm] and moving [tk, tn] views, `k_left` is the number of K rows
// from tile 0 to the end of K. fp8 on v3/v4 (`dbl`): two full K tiles per double-row matmul. `first`: the first
// matmul overwrites the bank (else every one accumulates).
template <typename AView, typename BView>
void tile_matmuls(KernelBuilder& b, const View& acc, bool dbl, int64_t tiles, int64_t k_left, bool first, AView&& a_v,
                  BView&& b_v) {
  for (int64_t t = 0; t < tiles;) {
    const int64_t left = k_left - t * kTk;
    const bool acc_on = !(first && t == 0);
    if (dbl && t + 1 < tiles && left >= 2 * kTk) {
      b.matmul_double_row(acc, a_v(t), a_v(t + 1), b_v(t), b_v(t + 1), acc_on);
      t += 2;
    } else {
      b.matmul(acc, a_v(t), b_v(t), acc_on);
      t += 1;
    }
  }
}

// Naive: one SBUF buffer per operand, every DMA on queue 0, every operand tile reloaded per output tile.
void naive_kernel(KernelBuilder& b, const View& a_t, const View& bm, const View& c, DType compute) {
  const int64_t k_size = a_t.np, m_size = a_t.nf, n_size = bm.nf;
  const View ta = b.sbuf("a_tile", kTk, kTm, compute), tb = b.sbuf("b_tile", kTk, kTn, compute);
  const View acc = b.psum("acc", kTm, kTn, DType::f32), res = b.sbuf("c_tile", kTm, kTn, DType::f32);
  for (int64_t m0 = 0; m0 < m_size; m0 += kTm) {
    const int64_t tm = std::min(kTm, m_size - m0);
    for (int64_t n0 = 0; n0 < n_size; n0 += kTn) {
      const int64_t tn = std::min(kTn, n_size - n0);
      const View acc_v = b.slice(acc, 0, tm, 0, tn);
      for (int64_t k0 = 0; k0 < k_size; k0 += kTk) {
        const int64_t tk = std::min(kTk, k_size - k0);
        const View a_v = b.slice(ta, 0, tk, 0, tm), b_v = b.slice(tb, 0, tk, 0, tn);
        b.dma_copy(a_v, b.slice(a_t, k0, tk, m0, tm), 0);
        b.dma_copy(b_v, b.slice(bm, k0, tk, n0, tn), 0);
        b.matmul(acc_v, a_v, b_v, /*accumulate=*/k0 > 0);
      }
      const View r_v = b.slice(res, 0, tm, 0, tn);
      b.copy(r_v, acc_v);
      b.dma_copy(b.slice(c, m0, tm, n0, tn), r_v, 0);
    }
  }
}

std::vector<View> psum_banks_tiles(KernelBuilder& b) {
  std::vector<View> acc(static_cast<size_t>(psum_banks(b.spec())));
  for (size_t i = 0; i < acc.size(); ++i) acc[i] = b.psum("acc" + std::to_string(i), kTm, kTn, DType::f32);
  return acc;
}

// DMA queue rotation: A loads on 0-3, B loads on 4-11, C stores on 12-15.
struct Queues {
  int a = 0, b = 0, c = 0;
  int next_a() { return a++ % 4; }
  int next_b() { return 4 + b++ % 8; }
  int next_c() { return 12 + c++ % 4; }
};

// resident_k: see matmul.h.
void resident_kernel(KernelBuilder& b, const View& a_t, const View& bm, const View& c, DType compute, int64_t bm_cols) {
  const int64_t k_size = a_t.np, m_size = a_t.nf, n_size = bm.nf;
  const int64_t kt_count = ceil_div(k_size, kTk);
  const bool dbl = double_row(b.spec(), compute);
  View ablk[2], bstrip[2], res[kStaging];
  for (int i = 0; i < 2; ++i) {
    ablk[i] = b.sbuf("a_block" + std::to_string(i), kTk, kt_count * bm_cols, compute);
    bstrip[i] = b.sbuf("b_strip" + std::to_string(i), kTk, kt_count * kTn, compute);
  }
  for (int i = 0; i < kStaging; ++i) res[i] = b.sbuf("c_tile" + std::to_string(i), kTm, kTn, DType::f32);
  const std::vector<View> acc = psum_banks_tiles(b);
  Queues q;
  int block = 0, strip = 0, tile = 0;
  for (int64_t m0 = 0; m0 < m_size; m0 += bm_cols, ++block) {
    const int64_t bmw = std::min(bm_cols, m_size - m0);
    const View& ab = ablk[block % 2];
    // The A block [K, bmw]: one DMA per K tile, issued a block ahead of use by the in-order queues' WAR waits.
    for (int64_t kt = 0; kt < kt_count; ++kt) {
      const int64_t k0 = kt * kTk, tk = std::min(kTk, k_size - k0);
      b.dma_copy(b.slice(ab, 0, tk, kt * bm_cols, bmw), b.slice(a_t, k0, tk, m0, bmw), q.next_a());
    }
    for (int64_t n0 = 0; n0 < n_size; n0 += kTn, ++strip) {
      const int64_t tn = std::min(kTn, n_size - n0);
      const View& bs = bstrip[strip % 2];
      for (int64_t kt = 0; kt < kt_count; ++kt) {
        const int64_t k0 = kt * kTk, tk = std::min(kTk, k_size - k0);
        b.dma_copy(b.slice(bs, 0, tk, kt * kTn, tn), b.slice(bm, k0, tk, n0, tn), q.next_b());
      }
      for (int64_t mi = 0; mi < bmw; mi += kTm, ++tile) {
        const int64_t tm = std::min(kTm, bmw - mi);
        const View acc_v = b.slice(acc[static_cast<size_t>(tile) % acc.size()], 0, tm, 0, tn);
        auto tk = [&](int64_t t) { return std::min(kTk, k_size - t * kTk); };
        tile_matmuls(
            b, acc_v, dbl, kt_count, k_size, /*first=*/true,
            [&](int64_t t) { return b.slice(ab, 0, tk(t), t * bm_cols + mi, tm); },
            [&](int64_t t) { return b.slice(bs, 0, tk(t), t * kTn, tn); });
        const View r_v = b.slice(res[tile % kStaging], 0, tm, 0, tn);
        b.copy(r_v, acc_v);
        b.dma_copy(b.slice(c, m0 + mi, tm, n0, tn), r_v, q.next_c());
      }
    }
  }
}

// The double-buffered operand blocks of the K-blocked plans and the loads filling them.
struct OperandBlocks {
  View a[2], b[2];
  int64_t m_cols = 0, n_cols = 0;
  int next = 0;

  // Loads K rows [k0, k0 + kw) of A_T columns [m0, m0 + mw) and of B columns [n0, n0 + nw) into the next buffer
  // pair, one DMA per K tile and operand; returns the buffer index.
  int load(KernelBuilder& kb, Queues& q, const View& a_t, const View& bm, int64_t k0, int64_t kw, int64_t m0,
           int64_t mw, int64_t n0, int64_t nw) {
    const int i = next++ % 2;
    for (int64_t t = 0; t * kTk < kw; ++t) {
      const int64_t tk = std::min(kTk, kw - t * kTk);
      kb.dma_copy(kb.slice(a[i], 0, tk, t * m_cols, mw), kb.slice(a_t, k0 + t * kTk, tk, m0, mw), q.next_a());
      kb.dma_copy(kb.slice(b[i], 0, tk, t * n_cols, nw), kb.slice(bm, k0 + t * kTk, tk, n0, nw), q.next_b());
    }
    return i;
  }
};

// The on-chip tiles of the K-blocked plans. sbuf: two accumulators (output blocks alternate, so one block's
// stores overlap the next block), each one [128, n_cols] fp32 tile per M tile; psum: the SBUF tiles a bank is
// copied to before its store.
struct KBlockedTiles {
  OperandBlocks ops;
  std::vector<View> acc[2], staging, banks;

  KBlockedTiles(KernelBuilder& b, const MatmulBlocking& blk, DType compute) {
    ops.m_cols = blk.m_cols;
    ops.n_cols = blk.n_cols;
    const int64_t kb_tiles = blk.k_rows / kTk;
    for (int i = 0; i < 2; ++i) {
      ops.a[i] = b.sbuf("a_block" + std::to_string(i), kTk, kb_tiles * blk.m_cols, compute);
      ops.b[i] = b.sbuf("b_block" + std::to_string(i), kTk, kb_tiles * blk.n_cols, compute);
    }
    if (blk.mode == MatmulAccumulate::psum)
      for (int i = 0; i < kStaging; ++i) staging.push_back(b.sbuf("c_tile" + std::to_string(i), kTm, kTn, DType::f32));
    else
      for (int a = 0; a < 2; ++a)
        for (int64_t i = 0; i < blk.m_cols / kTm; ++i)
          acc[a].push_back(b.sbuf("c_acc" + std::to_string(a) + "_" + std::to_string(i), kTm, blk.n_cols, DType::f32));
    banks = psum_banks_tiles(b);
  }
};

// sbuf: a tile's K-block partial sum (PSUM) into its accumulator: VectorE copy on the first K block, add after.
void accumulate(KernelBuilder& b, const View& dst, const View& partial, bool first) {
  if (first)
    b.copy(dst, partial);
  else
    b.tensor_tensor(dst, dst, partial, AluOp::add);
}

// sbuf / psum: see matmul.h.
void kblocked_kernel(KernelBuilder& b, const View& a_t, const View& bm, const View& c, DType compute,
                     const MatmulBlocking& blk) {
  const int64_t k_size = a_t.np, m_size = a_t.nf, n_size = bm.nf;
  const bool in_psum = blk.mode == MatmulAccumulate::psum, dbl = double_row(b.spec(), compute);
  KBlockedTiles tiles(b, blk, compute);
  Queues q;
  int64_t rotation = 0, evicted = 0, out_block = 0;  // PSUM bank rotation (sbuf); staging rotation (psum)
  for (int64_t m0 = 0; m0 < m_size; m0 += blk.m_cols) {
    const int64_t bmw = std::min(blk.m_cols, m_size - m0);
    for (int64_t n0 = 0; n0 < n_size; n0 += blk.n_cols, ++out_block) {
      const int64_t bnw = std::min(blk.n_cols, n_size - n0);
      const std::vector<View>& acc = tiles.acc[out_block % 2];
      for (int64_t k0 = 0; k0 < k_size; k0 += blk.k_rows) {
        const int64_t kw = std::min(blk.k_rows, k_size - k0);
        const bool first = k0 == 0, last = k0 + kw == k_size;
        const int buf = tiles.ops.load(b, q, a_t, bm, k0, kw, m0, bmw, n0, bnw);
        auto tk = [&](int64_t t) { return std::min(kTk, kw - t * kTk); };
        for (int64_t mi = 0; mi < bmw; mi += kTm) {
          const int64_t tm = std::min(kTm, bmw - mi);
          for (int64_t ni = 0; ni < bnw; ni += kTn) {
            const int64_t tn = std::min(kTn, bnw - ni);
            const size_t bank = in_psum ? static_cast<size_t>(mi / kTm * (blk.n_cols / kTn) + ni / kTn)
                                        : static_cast<size_t>(rotation++) % tiles.banks.size();
            const View part = b.slice(tiles.banks[bank], 0, tm, 0, tn);
            tile_matmuls(
                b, part, dbl, ceil_div(kw, kTk), k_size - k0, /*first=*/!in_psum || first,
                [&](int64_t t) { return b.slice(tiles.ops.a[buf], 0, tk(t), t * blk.m_cols + mi, tm); },
                [&](int64_t t) { return b.slice(tiles.ops.b[buf], 0, tk(t), t * blk.n_cols + ni, tn); });
            if (!in_psum) {
              accumulate(b, b.slice(acc[static_cast<size_t>(mi / kTm)], 0, tm, ni, tn), part, first);
            } else if (last) {  // evict the finished tile
              const View r_v = b.slice(tiles.staging[static_cast<size_t>(evicted++ % kStaging)], 0, tm, 0, tn);
              b.copy(r_v, part);
              b.dma_copy(b.slice(c, m0 + mi, tm, n0 + ni, tn), r_v, q.next_c());
            }
          }
          if (!in_psum && last)  // the finished accumulator row strip [tm, bnw]
            b.dma_copy(b.slice(c, m0 + mi, tm, n0, bnw), b.slice(acc[static_cast<size_t>(mi / kTm)], 0, tm, 0, bnw),
                       q.next_c());
        }
      }
    }
  }
}

}  // namespace

double MatmulEstimate::score() const {
  return std::max({tensor_ns, 1.25 * dma_ns, 1.25 * vector_ns}) + fill_ns + 0.1 * (dma_ns + vector_ns);
}

MatmulEstimate estimate_matmul(const NeuronCoreSpec& s, int64_t m, int64_t k, int64_t n, DType in, DType compute,
                               const MatmulBlocking& blk) {
  MatmulEstimate e;
  const bool resident = blk.mode == MatmulAccumulate::resident_k;
  const int64_t tiles_m = ceil_div(m, kTm), kt = ceil_div(k, kTk);
  const double min_ii = s.min_ii_cycles.value, ovh = s.dma_descriptor_overhead_bytes.value;
  // TensorE: every [<=128, <=128] x [<=128, <=512] matmul (pairs of K tiles when double-row), the same for any plan.
  const double k_steps = double_row(s, compute) ? static_cast<double>(kt / 2 + kt % 2) : static_cast<double>(kt);
  const double fp32 = compute == DType::f32 ? s.matmul_fp32_factor.value : 1.0;
  const double row_cycles = tile_cycles(n, kTn, s.matmul_min_ii_cycles.value);
  e.tensor_ns = static_cast<double>(tiles_m) * k_steps * row_cycles * fp32 / s.tensor_clock_ghz.value;
  // DMA: each load row is one descriptor (bytes = the larger side); A and B re-read once per block of the other.
  const double ld = static_cast<double>(std::max(size_of(in), size_of(compute)));
  const int64_t blocks_m = ceil_div(m, blk.m_cols), blocks_n = resident ? 1 : ceil_div(n, blk.n_cols);
  const int64_t b_rows_per_k = resident ? ceil_div(n, kTn) : blocks_n;  // B DMAs per K row and M block
  const double a_bytes = static_cast<double>(k) * static_cast<double>(blocks_n) *
                         (static_cast<double>(m) * ld + ovh * static_cast<double>(blocks_m));
  const double b_bytes = static_cast<double>(k) * static_cast<double>(blocks_m) *
                         (static_cast<double>(n) * ld + ovh * static_cast<double>(b_rows_per_k));
  const int64_t c_rows = blk.mode == MatmulAccumulate::sbuf ? blocks_n : ceil_div(n, kTn);
  const double c_bytes = static_cast<double>(m) * (static_cast<double>(n) * 4 + ovh * static_cast<double>(c_rows));
  const double bw = s.dma_total_bytes_per_ns();
  // Each double-buffered load block has one block's compute to arrive in, and pays the fixed DMA latency once
  // (its transfers run in parallel on the queues).
  const double load_blocks = resident ? static_cast<double>(blocks_m * (1 + ceil_div(n, kTn)))
                                      : static_cast<double>(blocks_m * blocks_n * ceil_div(k, blk.k_rows));
  e.dma_ns = (a_bytes + b_bytes + c_bytes) / bw + load_blocks * s.dma_fixed_latency_ns.value;
  e.hbm_bytes = static_cast<double>(k) * ld * (static_cast<double>(m * blocks_n) + static_cast<double>(n * blocks_m)) +
                static_cast<double>(m * n) * 4;
  // VectorE: one PSUM copy per output tile, or one copy / add per output tile and K block (sbuf).
  const double k_blocks = blk.mode == MatmulAccumulate::sbuf ? static_cast<double>(ceil_div(k, blk.k_rows)) : 1.0;
  e.vector_ns = static_cast<double>(tiles_m) * k_blocks * tile_cycles(n, kTn, min_ii) / s.vector_clock_ghz.value;
  // Fill: the first block's loads before the first matmuls can run.
  const int64_t first_k = resident ? k : std::min(k, blk.k_rows);
  e.fill_ns = s.dma_fixed_latency_ns.value +
              static_cast<double>(first_k) * static_cast<double>(blk.m_cols + (resident ? kTn : blk.n_cols)) * ld / bw;
  e.sbuf_bytes = sbuf_need(blk, k, compute);
  return e;
}

MatmulBlocking plan_matmul(const NeuronCoreSpec& s, int64_t m, int64_t k, int64_t n, DType in, DType compute,
                           int64_t sbuf_bytes) {
  const int64_t avail = sbuf_bytes > 0 ? sbuf_bytes : static_cast<int64_t>(s.sbuf_bytes_per_partition.value);
  // resident_k at its full width (4 KiB of slack, as the schedule always had).
  MatmulBlocking resident;
  resident.m_cols = std::min<int64_t>(512, round_up(m, kTm));
  resident.k_rows = k;
  if (sbuf_need(resident, k, compute) + 4096 <= avail) return resident;
  // Otherwise the best-scoring K-blocked plan that fits, over power-of-two block sizes (in tiles, capped at the
  // problem): irregular blocks (e.g. 11 M tiles, 10 K tiles) time worse than their estimate in the model.
  const int64_t tiles_m = ceil_div(m, kTm), tiles_n = ceil_div(n, kTn), kt = ceil_div(k, kTk);
  const int64_t k_unit = double_row(s, compute) ? 2 : 1;
  const int banks = psum_banks(s);
  auto sizes = [](int64_t tiles, int64_t unit) {
    std::vector<int64_t> out;
    for (int64_t t = unit; t < tiles; t *= 2) out.push_back(t);
    out.push_back(round_up(tiles, unit));  // the whole dimension in one block
    return out;
  };
  MatmulBlocking best;
  MatmulEstimate best_e;
  bool found = false;
  for (MatmulAccumulate mode : {MatmulAccumulate::sbuf, MatmulAccumulate::psum})
    for (int64_t i : sizes(tiles_m, 1))
      for (int64_t j : sizes(tiles_n, 1)) {
        if (mode == MatmulAccumulate::psum && i * j > banks) continue;
        for (int64_t t : sizes(kt, k_unit)) {
          const MatmulBlocking cand{mode, i * kTm, j * kTn, t * kTk};
          if (sbuf_need(cand, k, compute) > avail) break;  // grows with t
          const MatmulEstimate e = estimate_matmul(s, m, k, n, in, compute, cand);
          const double d = e.score() - best_e.score();
          if (!found || d < -1e-9 || (d <= 1e-9 && e.dma_ns + e.vector_ns < best_e.dma_ns + best_e.vector_ns)) {
            best = cand;
            best_e = e;
            found = true;
          }
        }
      }
  check(found, "[sbuf-capacity] matmul_kernel pipelined: no blocking fits in " + std::to_string(avail) +
                   " bytes per partition");
  return best;
}

void matmul_kernel_blocked(KernelBuilder& b, const View& a_t, const View& bm, const View& c, DType compute,
                           const MatmulBlocking& blk, std::source_location loc) {
  check_blocking(b, blk, a_t.np, compute, loc);
  if (blk.mode == MatmulAccumulate::resident_k)
    resident_kernel(b, a_t, bm, c, compute, blk.m_cols);
  else
    kblocked_kernel(b, a_t, bm, c, compute, blk);
}

void matmul_kernel(KernelBuilder& b, const View& a_t, const View& bm, const View& c, DType compute,
                   MatmulSchedule schedule, std::source_location loc) {
  check_hbm_operands(b, "matmul_kernel", {a_t, bm, c}, loc);
  check(dtype_of(b, c) == DType::f32, "[shape] matmul_kernel output must be fp32", loc);
  const int64_t k_size = a_t.np, m_size = a_t.nf, n_size = bm.nf;
  check(bm.np == k_size && c.np == m_size && c.nf == n_size,
        "[shape] matmul_kernel needs a_t [K,M], b [K,N], c [M,N]; got K = " + std::to_string(k_size) + " / " +
            std::to_string(bm.np) + ", c [" + std::to_string(c.np) + ", " + std::to_string(c.nf) + "]",
        loc);
  if (schedule == MatmulSchedule::naive) {
    naive_kernel(b, a_t, bm, c, compute);
    return;
  }
  const DType da = dtype_of(b, a_t), db = dtype_of(b, bm);
  const DType in = size_of(da) >= size_of(db) ? da : db;
  const int64_t free = static_cast<int64_t>(b.spec().sbuf_bytes_per_partition.value) - sbuf_used(b);
  matmul_kernel_blocked(b, a_t, bm, c, compute, plan_matmul(b.spec(), m_size, k_size, n_size, in, compute, free), loc);
}

}  // namespace nanotrn::neuron
