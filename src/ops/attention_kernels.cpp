// Tiled (flash-style) self-attention host kernels: see attention_kernels.h for the contract.
// How. Queries and keys are cut into 64 x 64 tiles; a tile the causal / window mask hides entirely is skipped, and
// inside a partly masked tile the products skip the hidden 8-row x 16-column pieces, so causal costs about half.
//  - Forward, per (b, h, query block): key-major score tiles S^T = K (scale Q)^T, so k and v rows are read in place
//    and only the query block is transposed, once; online softmax (running max and sum per query) vectorised across
//    the 64 queries of the tile.
//  - Backward: delta_i = <dout_i, out_i>. Per (b, kv head, key block): query-major tiles S = Q (scale K)^T,
//    P = exp(S - lse), dP = dout V^T, dS = P (dP - delta) (times 1 - tanh^2 under softcap) accumulate dv += P^T dout
//    and dk += dS^T Q over the group's query heads and visible query blocks. dq is accumulated in the same pass when
//    the (b, kv head) items keep every thread busy (each item owns its queries' dq rows), else by a second pass per
//    (b, h, query block) in key-major tiles that computes the same S, P and dS bits. No atomics; the result does not
//    depend on the thread count.
// Products go through one register-blocked micro-kernel written with GCC/Clang vector extensions (the compiler maps
// it to AVX-512, AVX2, SSE or NEON; only the fused multiply-add is spelled out, see madd). The elementwise work (exp,
// tanh, masks) is plain loops that -O3 vectorises, with a polynomial exp because libm's is not vectorised without
// -ffast-math. Not here: tensors, autograd, other dtypes, dropout, an fp64 reference (src/ref/attention_ref.h).
#include "ops/attention_kernels.h"

#include <omp.h>

#if defined(__AVX__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <string>

#include "base/error.h"
#include "ops/fast_math.h"

namespace nanotrn {
namespace {

constexpr int64_t kBq = 64;   // queries per tile
constexpr int64_t kBk = 64;   // keys per tile
constexpr int64_t kPad = 16;  // tile rows of length D are padded to a multiple of this (zeros)
// Vector width and micro-kernel rows: the accumulators (kRows x 2 vectors) plus operands must fit the registers.
#if defined(__AVX512F__)
constexpr int kLanes = 16;  // 32 zmm registers: 8 x 2 accumulators
constexpr int kRows = 8;
#elif defined(__AVX__)
constexpr int kLanes = 8;  // 16 ymm registers: 4 x 2 accumulators
constexpr int kRows = 4;
#else
constexpr int kLanes = 4;  // 128-bit SSE / NEON
constexpr int kRows = 4;
#endif
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// Vec lives in registers (natural alignment); VecU is the same vector at float alignment for loads and stores
// anywhere in a row. (Loading through memcpy into an under-aligned register type made GCC 12 split every 256-bit
// access into two 128-bit halves bounced through the stack on AVX2: a 14x slower kernel, docs/PERFORMANCE.md.)
typedef float Vec __attribute__((vector_size(kLanes * sizeof(float))));
typedef float VecU __attribute__((vector_size(kLanes * sizeof(float)), aligned(alignof(float)), may_alias));

inline Vec load_vec(const float* p) { return *reinterpret_cast<const VecU*>(p); }
inline void store_vec(float* p, const Vec& v) { *reinterpret_cast<VecU*>(p) = v; }

// acc + s * b with the rounding written out: one fused multiply-add where the ISA has one, else a multiply and an
// add. This file is compiled with -ffp-contract=off (CMakeLists.txt), so no other expression is fused behind the
// source's back: every rounding is the source's, and the query-major and key-major tile layouts, which compute the
// same sums in the same order, give the same bits on every ISA (the backward's thread-count independence rests on
// this).
inline Vec madd(const Vec& acc, float s, const Vec& b) {
#if defined(__AVX512F__)
  return reinterpret_cast<Vec>(
      _mm512_fmadd_ps(_mm512_set1_ps(s), reinterpret_cast<__m512>(b), reinterpret_cast<__m512>(acc)));
#elif defined(__FMA__) && defined(__AVX__)
  return reinterpret_cast<Vec>(
      _mm256_fmadd_ps(_mm256_set1_ps(s), reinterpret_cast<__m256>(b), reinterpret_cast<__m256>(acc)));
#else
  return acc + s * b;
#endif
}

// Keeps v in a register: an empty asm that claims to change it, so the compiler cannot re-read it from memory. GCC
// tuned for Zen (-march=znver3, the release build on a Zen 3) otherwise folds the load of each B vector into every
// multiply-add that reads it, R loads where one will do: the micro-kernel then waits on loads (30-40 % slower on a
// Zen 3, docs/PERFORMANCE.md "Attention"). No arithmetic changes.
inline void in_register(Vec& v) {
#if defined(__GNUC__) && defined(__x86_64__)
  asm("" : "+v"(v));
#else
  (void)v;
#endif
}

int64_t round_up(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

// ---- The micro-kernel: C[R x NV * kLanes] (+)= A(R x kk) * B[kk x NV * kLanes] in registers ----
// A(i, k) = a[i * lai + k * lak] (any strides: a row-major or a transposed operand, one element broadcast at a
// time), B rows contiguous with stride ldb. Every output element is one chain of multiply-adds over k in order,
// whatever R and NV, so results do not depend on how a product is split into micro-tiles.
template <int R, int NV, bool kAcc>
inline void micro_tile(float* c, int64_t ldc, const float* a, int64_t lai, int64_t lak, const float* b, int64_t ldb,
                       int64_t kk) {
  Vec acc[R][NV];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < NV; ++v) acc[r][v] = kAcc ? load_vec(c + r * ldc + v * kLanes) : Vec{};
  for (int64_t k = 0; k < kk; ++k) {
    Vec bv[NV];
    for (int v = 0; v < NV; ++v) {
      bv[v] = load_vec(b + k * ldb + v * kLanes);
      in_register(bv[v]);
    }
    for (int r = 0; r < R; ++r) {
      const float s = a[r * lai + k * lak];
      for (int v = 0; v < NV; ++v) acc[r][v] = madd(acc[r][v], s, bv[v]);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < NV; ++v) store_vec(c + r * ldc + v * kLanes, acc[r][v]);
}

// A half-open index range; per row block of C, the columns to compute or the k (reduction) indices to use.
struct Range {
  int64_t lo, hi;
};
struct AllOf {
  Range operator()(int64_t, int64_t) const { return {0, std::numeric_limits<int64_t>::max()}; }
};

// C[m x n] (+)= A(m x kk) * B[kk x n], where for the row block [i, i + r) only the columns cols(i, r) (widened to
// whole vectors) and the reduction indices ks(i, r) are used. That is how masked parts of causal and window tiles
// are skipped: the ranges are computed from the masks, and everything outside them is masked anyway. Without
// accumulation (kAcc false) the skipped columns are set to `fill`.
template <bool kAcc, class Cols = AllOf, class Ks = AllOf>
void tile_gemm(float* c, int64_t ldc, const float* a, int64_t lai, int64_t lak, const float* b, int64_t ldb, int64_t m,
               int64_t n, int64_t kk, Cols cols = {}, Ks ks = {}, float fill = 0.0f) {
  for (int64_t i = 0; i < m;) {
    const int64_t r = m - i >= kRows ? kRows : 1;
    const Range cr = cols(i, r), kr = ks(i, r);
    // Columns [j_lo, j_hi) in whole vectors (n is a multiple of kLanes); reduction indices [k_lo, k_lo + k_n).
    const int64_t j_lo = std::min(n, std::max<int64_t>(0, cr.lo) / kLanes * kLanes);
    const int64_t j_hi = std::max(j_lo, std::min(n, round_up(std::clamp<int64_t>(cr.hi, 0, n), kLanes)));
    int64_t k_lo = std::max<int64_t>(0, kr.lo);
    const int64_t k_n = std::max<int64_t>(0, std::min(kk, kr.hi) - k_lo);
    if (k_n == 0) k_lo = 0;
    float* ci = c + i * ldc;
    const float* ai = a + i * lai + k_lo * lak;
    const float* bk = b + k_lo * ldb;
    if (!kAcc)
      for (int64_t rr = 0; rr < r; ++rr) {
        std::fill(ci + rr * ldc, ci + rr * ldc + j_lo, fill);
        std::fill(ci + rr * ldc + j_hi, ci + rr * ldc + n, fill);
      }
    int64_t j = j_lo;
    if (r == kRows) {
      for (; j + 2 * kLanes <= j_hi; j += 2 * kLanes)
        micro_tile<kRows, 2, kAcc>(ci + j, ldc, ai, lai, lak, bk + j, ldb, k_n);
      for (; j < j_hi; j += kLanes) micro_tile<kRows, 1, kAcc>(ci + j, ldc, ai, lai, lak, bk + j, ldb, k_n);
    } else {
      for (; j + 2 * kLanes <= j_hi; j += 2 * kLanes)
        micro_tile<1, 2, kAcc>(ci + j, ldc, ai, lai, lak, bk + j, ldb, k_n);
      for (; j < j_hi; j += kLanes) micro_tile<1, 1, kAcc>(ci + j, ldc, ai, lai, lak, bk + j, ldb, k_n);
    }
    i += r;
  }
}

// ---- Problem description and tile geometry ----

struct Problem {
  int64_t B, Tq, Tk, H, Hkv, D;
  int64_t Dp;     // D rounded up to kPad
  int64_t group;  // H / Hkv
  int64_t off;    // Tk - Tq: pos_q(i) = i + off
  int64_t nqb, nkb;
  float scale;
  AttentionMods mods;

  int64_t q_row(int64_t b, int64_t i, int64_t h) const { return ((b * Tq + i) * H + h) * D; }
  int64_t kv_row(int64_t b, int64_t j, int64_t g) const { return ((b * Tk + j) * Hkv + g) * D; }

  // Whether some (query, key) pair of tile (qb, kb) can pass the causal and window masks. Every pass uses this, so
  // all visit the same tiles in the same order.
  bool tile_visible(int64_t qb, int64_t kb) const {
    const int64_t q_first = qb * kBq + off, q_last = std::min(Tq, (qb + 1) * kBq) - 1 + off;
    const int64_t k_first = kb * kBk, k_last = std::min(Tk, (kb + 1) * kBk) - 1;
    if (mods.causal && k_first > q_last) return false;
    if (mods.window > 0 && q_first - k_last >= mods.window) return false;
    return true;
  }
  // Tile-relative keys (of a tile starting at key j0) that the causal and window masks let queries
  // i0 + [r_first, r_last] see; a superset of the visible ones.
  Range keys_seen_by(int64_t i0, int64_t j0, int64_t r_first, int64_t r_last) const {
    Range r{0, std::numeric_limits<int64_t>::max()};
    if (mods.causal) r.hi = i0 + r_last + off - j0 + 1;
    if (mods.window > 0) r.lo = i0 + r_first + off - mods.window + 1 - j0;
    return r;
  }
  // Tile-relative queries (of a tile starting at query i0) that may see keys j0 + [r_first, r_last].
  Range queries_seeing(int64_t i0, int64_t j0, int64_t r_first, int64_t r_last) const {
    Range r{0, std::numeric_limits<int64_t>::max()};
    if (mods.causal) r.lo = j0 + r_first - off - i0;
    if (mods.window > 0) r.hi = j0 + r_last + mods.window - off - i0;
    return r;
  }
  // Whether the tile is full and every pair in it passes every mask (then no per-element masking is needed).
  bool tile_all_visible(int64_t i0, int64_t nq, int64_t j0, int64_t nk) const {
    if (mods.segment_ids || nq < kBq || nk < kBk) return false;
    const int64_t q_first = i0 + off, q_last = i0 + nq - 1 + off, k_last = j0 + nk - 1;
    if (mods.causal && k_last > q_first) return false;
    if (mods.window > 0 && q_last - j0 >= mods.window) return false;
    return true;
  }
};

// Per-thread tile buffers, one aligned allocation. Sizes depend on D only.
struct Tiles {
  float* qt;   // [D][kBq]   query tile transposed (forward: times scale)
  float* dot;  // [D][kBq]   dout tile transposed (dq pass)
  float* kt;   // [D][kBk]   key tile transposed, times scale (dk/dv pass)
  float* vt;   // [D][kBk]   value tile transposed (dk/dv pass)
  float* ks;   // [kBk][D]   key rows times scale (dq pass)
  float* kr;   // [kBk][Dp]  key rows, zero-padded (when D % kPad != 0)
  float* vr;   // [kBk][Dp]  value rows, zero-padded (when D % kPad != 0)
  float* qr;   // [kBq][Dp]  query rows, zero-padded (when D % kPad != 0)
  float* dor;  // [kBq][Dp]  dout rows, zero-padded (when D % kPad != 0)
  float* s;    // [64][64]   scores, then probabilities (S^T [kBk][kBq] in the forward and dq pass)
  float* ds;   // [64][64]   dP, then dS (same layout as s)
  float* g;    // [64][64]   softcap derivative 1 - tanh^2
  float* acc;  // [kBq][Dp]  forward output accumulator / dq tile
  float* dk;   // [kBk][Dp]
  float* dv;   // [kBk][Dp]
  float* m;    // [kBq]      running max (forward)
  float* l;    // [kBq]      running sum (forward)
  float* base = nullptr;

  static int64_t floats(int64_t Dp) { return 4 * Dp * 64 + 8 * 64 * Dp + 3 * 64 * 64 + 2 * 64; }
  explicit Tiles(int64_t Dp) {
    static_assert(kBq == 64 && kBk == 64, "floats() assumes 64 x 64 tiles");
    base = static_cast<float*>(::operator new (sizeof(float) * floats(Dp), std::align_val_t{64}));
    float* p = base;
    auto take = [&p](int64_t n) {
      float* r = p;
      p += n;
      return r;
    };
    qt = take(Dp * kBq), dot = take(Dp * kBq), kt = take(Dp * kBk), vt = take(Dp * kBk);
    ks = take(kBk * Dp), kr = take(kBk * Dp), vr = take(kBk * Dp), qr = take(kBq * Dp), dor = take(kBq * Dp);
    acc = take(kBq * Dp), dk = take(kBk * Dp), dv = take(kBk * Dp);
    s = take(kBq * kBk), ds = take(kBq * kBk), g = take(kBq * kBk);
    m = take(kBq), l = take(kBq);
  }
  ~Tiles() { ::operator delete (base, std::align_val_t{64}); }
  Tiles(const Tiles&) = delete;
  Tiles& operator=(const Tiles&) = delete;
};

// Copy `n` rows of length D (source stride `ld`) into a tile with row stride `ldd` times `mul`, zero-filling
// columns [D, ldd).
void copy_rows(float* dst, int64_t ldd, const float* src, int64_t ld, int64_t n, int64_t D, float mul) {
  for (int64_t r = 0; r < n; ++r) {
    const float* s = src + r * ld;
    float* d = dst + r * ldd;
    for (int64_t c = 0; c < D; ++c) d[c] = s[c] * mul;
    for (int64_t c = D; c < ldd; ++c) d[c] = 0.0f;
  }
}

// Copy `n` rows of length D (source stride `ld`) transposed into a [D][64] tile times `mul`; columns [n, 64) are
// zero.
void copy_transposed(float* dst, const float* src, int64_t ld, int64_t n, int64_t D, float mul) {
  for (int64_t j = 0; j < n; ++j) {
    const float* s = src + j * ld;
    for (int64_t c = 0; c < D; ++c) dst[c * 64 + j] = s[c] * mul;
  }
  if (n < 64)
    for (int64_t c = 0; c < D; ++c) std::fill(dst + c * 64 + n, dst + (c + 1) * 64, 0.0f);
}

// Ask for `n` rows of length D (stride `ld`) to be brought into cache: issued one tile ahead, it hides the latency
// of the strided rows of q, k, v and dout, which the hardware prefetcher does not follow well.
void prefetch_rows(const float* src, int64_t ld, int64_t n, int64_t D) {
  for (int64_t r = 0; r < n; ++r)
    for (int64_t c = 0; c < D; c += 16) __builtin_prefetch(src + r * ld + c);
}

// A row-major operand whose rows are read as kPad-multiples: the source itself when D is one, otherwise a
// zero-padded copy in `scratch`.
struct RowsOperand {
  const float* ptr;
  int64_t ld;
};
RowsOperand padded_rows(const Problem& p, const float* src, int64_t ld, int64_t n, float* scratch) {
  if (p.D == p.Dp) return {src, ld};
  copy_rows(scratch, p.Dp, src, ld, n, p.D, 1.0f);
  return {scratch, p.Dp};
}

// ---- Score modifiers, written once as scalar functions so that both tile layouts compute identical bits ----

struct ModParams {
  float cap, inv_cap, slope;
  bool alibi;
};

ModParams mod_params(const Problem& p, int64_t h) {
  const AttentionMods& md = p.mods;
  return {md.softcap, md.softcap > 0.0f ? 1.0f / md.softcap : 0.0f, md.alibi_slopes ? md.alibi_slopes[h] : 0.0f,
          md.alibi_slopes != nullptr};
}

// softcap then ALiBi on one raw score; dist = |pos_q - pos_k| as float; *g receives 1 - tanh^2 (softcap only).
inline float modify(float s, float dist, const ModParams& mp, float* g) {
  if (mp.cap > 0.0f) {
    const float t = fast_tanh(s * mp.inv_cap);
    s = mp.cap * t;
    *g = 1.0f - t * t;
  }
  if (mp.alibi) s = s - mp.slope * dist;
  return s;
}

// Score tile in query-major layout s[i][j] (rows i < nq of queries i0.., columns j of keys j0.., 64 columns, nk
// valid): modifiers, then masks (masked and invalid keys become -inf). g (when non-null) gets the softcap factor.
void mods_query_major(const Problem& p, const ModParams& mp, int64_t b, int64_t i0, int64_t nq, int64_t j0, int64_t nk,
                      float* s, float* g) {
  const AttentionMods& md = p.mods;
  const int32_t* seg = md.segment_ids ? md.segment_ids + b * p.Tk : nullptr;
  const bool mask = !p.tile_all_visible(i0, nq, j0, nk);
  float gdummy[64];
  for (int64_t i = 0; i < nq; ++i) {
    float* row = s + i * 64;
    float* grow = g ? g + i * 64 : gdummy;
    const int64_t pq = i0 + i + p.off;
    if (mp.cap > 0.0f || mp.alibi) {
      const float d0 = static_cast<float>(pq - j0);
      for (int64_t j = 0; j < 64; ++j) row[j] = modify(row[j], std::fabs(d0 - static_cast<float>(j)), mp, &grow[j]);
    }
    if (!mask) continue;
    int64_t lo = 0, hi = nk;  // keys of this row visible by causal / window, tile-relative
    if (md.causal) hi = std::min(hi, pq - j0 + 1);
    if (md.window > 0) lo = std::max(lo, pq - md.window + 1 - j0);
    if (seg) {
      const int32_t sq = seg[pq];
      const int32_t* sk = seg + j0;
      for (int64_t j = 0; j < nk; ++j) row[j] = (j >= lo && j < hi && sk[j] == sq) ? row[j] : kNegInf;
      for (int64_t j = nk; j < 64; ++j) row[j] = kNegInf;
    } else {
      for (int64_t j = 0; j < 64; ++j) row[j] = (j >= lo && j < hi) ? row[j] : kNegInf;
    }
  }
}

// The same for a key-major tile st[j][i] (rows j < nk of keys j0.., 64 columns of queries i0.., nq valid).
void mods_key_major(const Problem& p, const ModParams& mp, int64_t b, int64_t i0, int64_t nq, int64_t j0, int64_t nk,
                    float* st, float* g) {
  const AttentionMods& md = p.mods;
  const int32_t* seg = md.segment_ids ? md.segment_ids + b * p.Tk : nullptr;
  const bool mask = !p.tile_all_visible(i0, nq, j0, nk);
  float gdummy[64];
  for (int64_t j = 0; j < nk; ++j) {
    float* row = st + j * 64;
    float* grow = g ? g + j * 64 : gdummy;
    const int64_t pk = j0 + j;
    if (mp.cap > 0.0f || mp.alibi) {
      const float e0 = static_cast<float>(i0 + p.off - pk);  // pos_q(i) - pos_k = e0 + i
      for (int64_t i = 0; i < 64; ++i) row[i] = modify(row[i], std::fabs(e0 + static_cast<float>(i)), mp, &grow[i]);
    }
    if (!mask) continue;
    int64_t lo = 0, hi = nq;  // queries that see this key by causal / window, tile-relative
    if (md.causal) lo = std::max(lo, pk - p.off - i0);
    if (md.window > 0) hi = std::min(hi, pk + md.window - p.off - i0);
    if (seg) {
      const int32_t sk = seg[pk];
      const int32_t* sq = seg + i0 + p.off;
      for (int64_t i = 0; i < nq; ++i) row[i] = (i >= lo && i < hi && sq[i] == sk) ? row[i] : kNegInf;
      for (int64_t i = nq; i < 64; ++i) row[i] = kNegInf;
    } else {
      for (int64_t i = 0; i < 64; ++i) row[i] = (i >= lo && i < hi) ? row[i] : kNegInf;
    }
  }
}

inline float prob(float s, float lse) { return fast_exp(s - lse); }
inline float dscore(float p, float dp, float delta, float g) { return p * (dp - delta) * g; }

// ---- Forward: one (b, h, query block); key-major score tiles S^T = K Q^T so K and V are read in place ----

struct FwdArgs {
  float* out;
  float* lse;
  const float *q, *k, *v;
};

void forward_block(const Problem& p, Tiles& t, const FwdArgs& a, int64_t b, int64_t h, int64_t qb) {
  const int64_t D = p.D, Dp = p.Dp, kvh = h / p.group, ldkv = p.Hkv * D;
  const int64_t i0 = qb * kBq, nq = std::min(kBq, p.Tq - i0);
  const ModParams mp = mod_params(p, h);
  copy_transposed(t.qt, a.q + p.q_row(b, i0, h), p.H * D, nq, D, p.scale);
  std::memset(t.acc, 0, sizeof(float) * kBq * Dp);
  float* m = t.m;
  float* l = t.l;
  std::fill(m, m + kBq, kNegInf);
  std::fill(l, l + kBq, 0.0f);
  for (int64_t kb = 0; kb < p.nkb; ++kb) {
    if (!p.tile_visible(qb, kb)) continue;
    const int64_t j0 = kb * kBk, nk = std::min(kBk, p.Tk - j0);
    const float* kp = a.k + p.kv_row(b, j0, kvh);
    if (kb + 1 < p.nkb) {
      const int64_t n_next = std::min(kBk, p.Tk - j0 - kBk);
      prefetch_rows(kp + kBk * ldkv, ldkv, n_next, D);
      prefetch_rows(a.v + p.kv_row(b, j0 + kBk, kvh), ldkv, n_next, D);
    }
    float* st = t.s;
    const auto keys_of_queries = [&](int64_t r, int64_t n) { return p.keys_seen_by(i0, j0, r, r + n - 1); };
    const auto queries_of_keys = [&](int64_t r, int64_t n) { return p.queries_seeing(i0, j0, r, r + n - 1); };
    tile_gemm<false>(st, kBq, kp, ldkv, 1, t.qt, kBq, nk, kBq, D, queries_of_keys, AllOf{}, kNegInf);
    if (mp.cap > 0.0f || mp.alibi || !p.tile_all_visible(i0, nq, j0, nk))
      mods_key_major(p, mp, b, i0, nq, j0, nk, st, nullptr);
    // Online softmax, vectorised across the 64 query columns.
    float tile_max[kBq], ref[kBq], alpha[kBq], sum[kBq];
    std::fill(tile_max, tile_max + kBq, kNegInf);
    for (int64_t j = 0; j < nk; ++j) {
      const float* row = st + j * kBq;
      for (int64_t i = 0; i < kBq; ++i) tile_max[i] = row[i] > tile_max[i] ? row[i] : tile_max[i];
    }
    for (int64_t i = 0; i < kBq; ++i) {
      const float m_new = tile_max[i] > m[i] ? tile_max[i] : m[i];
      ref[i] = m_new == kNegInf ? 0.0f : m_new;  // nothing visible yet: exp(-inf - 0) = 0, never NaN
      alpha[i] = fast_exp(m[i] - ref[i]);
      m[i] = m_new;
      sum[i] = 0.0f;
    }
    for (int64_t j = 0; j < nk; ++j) {
      float* row = st + j * kBq;
      for (int64_t i = 0; i < kBq; ++i) {
        const float e = fast_exp(row[i] - ref[i]);
        row[i] = e;
        sum[i] += e;
      }
    }
    for (int64_t i = 0; i < kBq; ++i) l[i] = l[i] * alpha[i] + sum[i];
    for (int64_t i = 0; i < nq; ++i) {
      if (alpha[i] == 1.0f) continue;
      float* o = t.acc + i * Dp;
      for (int64_t c = 0; c < Dp; ++c) o[c] *= alpha[i];
    }
    const RowsOperand vop = padded_rows(p, a.v + p.kv_row(b, j0, kvh), ldkv, nk, t.vr);
    tile_gemm<true>(t.acc, Dp, st, 1, kBq, vop.ptr, vop.ld, nq, Dp, nk, AllOf{}, keys_of_queries);
  }
  for (int64_t i = 0; i < nq; ++i) {
    float* o = a.out + p.q_row(b, i0 + i, h);
    const float* acc = t.acc + i * Dp;
    const float inv = l[i] > 0.0f ? 1.0f / l[i] : 0.0f;
    for (int64_t c = 0; c < D; ++c) o[c] = acc[c] * inv;
    if (a.lse) a.lse[(b * p.H + h) * p.Tq + i0 + i] = l[i] > 0.0f ? m[i] + std::log(l[i]) : kNegInf;
  }
}

// ---- Backward ----

struct BwdArgs {
  float *dq, *dk, *dv;
  const float *dout, *q, *k, *v, *lse;
  const float* delta;  // [B, H, Tq]
};

// dk, dv for key block kb of kv head kvh (all query heads of its group, all visible query blocks), in query-major
// tiles S = Q (scale K)^T: the key block is transposed once, queries and dout are read in place. When dq_global is
// given (then D is a multiple of kPad), also accumulates the unscaled dq of those queries into it: the fused
// single-pass backward.
void dkdv_block(const Problem& p, Tiles& t, const BwdArgs& a, int64_t b, int64_t kvh, int64_t kb, float* dq_global) {
  const int64_t D = p.D, Dp = p.Dp, ldq = p.H * D, ldkv = p.Hkv * D;
  const int64_t j0 = kb * kBk, nk = std::min(kBk, p.Tk - j0);
  const float* kp = a.k + p.kv_row(b, j0, kvh);
  if (kb + 1 < p.nkb) {
    const int64_t n_next = std::min(kBk, p.Tk - j0 - kBk);
    prefetch_rows(kp + kBk * ldkv, ldkv, n_next, D);
    prefetch_rows(a.v + p.kv_row(b, j0 + kBk, kvh), ldkv, n_next, D);
  }
  copy_transposed(t.kt, kp, ldkv, nk, D, p.scale);
  copy_transposed(t.vt, a.v + p.kv_row(b, j0, kvh), ldkv, nk, D, 1.0f);
  std::memset(t.dk, 0, sizeof(float) * kBk * Dp);
  std::memset(t.dv, 0, sizeof(float) * kBk * Dp);
  const bool cap = p.mods.softcap > 0.0f;
  for (int64_t hh = 0; hh < p.group; ++hh) {
    const int64_t h = kvh * p.group + hh;
    const ModParams mp = mod_params(p, h);
    const float* lse = a.lse + (b * p.H + h) * p.Tq;
    const float* delta = a.delta + (b * p.H + h) * p.Tq;
    for (int64_t qb = 0; qb < p.nqb; ++qb) {
      if (!p.tile_visible(qb, kb)) continue;
      const int64_t i0 = qb * kBq, nq = std::min(kBq, p.Tq - i0);
      const float* qp = a.q + p.q_row(b, i0, h);
      const float* dop = a.dout + p.q_row(b, i0, h);
      if (i0 + kBq < p.Tq) {
        const int64_t n_next = std::min(kBq, p.Tq - i0 - kBq);
        prefetch_rows(qp + kBq * ldq, ldq, n_next, D);
        prefetch_rows(dop + kBq * ldq, ldq, n_next, D);
      }
      const auto keys_of_queries = [&](int64_t r, int64_t n) { return p.keys_seen_by(i0, j0, r, r + n - 1); };
      const auto queries_of_keys = [&](int64_t r, int64_t n) { return p.queries_seeing(i0, j0, r, r + n - 1); };
      tile_gemm<false>(t.s, kBk, qp, ldq, 1, t.kt, kBk, nq, kBk, D, keys_of_queries, AllOf{}, kNegInf);
      tile_gemm<false>(t.ds, kBk, dop, ldq, 1, t.vt, kBk, nq, kBk, D, keys_of_queries, AllOf{}, 0.0f);
      if (cap || mp.alibi || !p.tile_all_visible(i0, nq, j0, nk)) mods_query_major(p, mp, b, i0, nq, j0, nk, t.s, t.g);
      for (int64_t i = 0; i < nq; ++i) {
        float* pr = t.s + i * kBk;
        float* dr = t.ds + i * kBk;
        const float L = lse[i0 + i], dl = delta[i0 + i];
        if (L == kNegInf) {  // no visible key: no probability mass, no gradient
          std::fill(pr, pr + kBk, 0.0f);
          std::fill(dr, dr + kBk, 0.0f);
          continue;
        }
        if (cap) {
          const float* gr = t.g + i * kBk;
          for (int64_t j = 0; j < kBk; ++j) {
            pr[j] = prob(pr[j], L);
            dr[j] = dscore(pr[j], dr[j], dl, gr[j]);
          }
        } else {
          for (int64_t j = 0; j < kBk; ++j) {
            pr[j] = prob(pr[j], L);
            dr[j] = dscore(pr[j], dr[j], dl, 1.0f);
          }
        }
      }
      const RowsOperand dov = padded_rows(p, dop, ldq, nq, t.dor);
      const RowsOperand qv = padded_rows(p, qp, ldq, nq, t.qr);
      tile_gemm<true>(t.dv, Dp, t.s, 1, kBk, dov.ptr, dov.ld, nk, Dp, nq, AllOf{}, queries_of_keys);
      tile_gemm<true>(t.dk, Dp, t.ds, 1, kBk, qv.ptr, qv.ld, nk, Dp, nq, AllOf{}, queries_of_keys);
      if (dq_global)
        tile_gemm<true>(dq_global + p.q_row(b, i0, h), ldq, t.ds, kBk, 1, kp, ldkv, nq, Dp, nk, AllOf{},
                        keys_of_queries);
    }
  }
  for (int64_t j = 0; j < nk; ++j) {
    float* dkr = a.dk + p.kv_row(b, j0 + j, kvh);
    float* dvr = a.dv + p.kv_row(b, j0 + j, kvh);
    const float* dks = t.dk + j * Dp;
    for (int64_t c = 0; c < D; ++c) dkr[c] = p.scale * dks[c];
    std::memcpy(dvr, t.dv + j * Dp, sizeof(float) * D);
  }
}

// dq for query block qb of head h (the second pass of the two-pass backward), in key-major tiles
// S^T = (scale K) Q^T: queries and dout are transposed once. Computes the same bits for S, P and dS as dkdv_block.
void dq_block(const Problem& p, Tiles& t, const BwdArgs& a, int64_t b, int64_t h, int64_t qb) {
  const int64_t D = p.D, Dp = p.Dp, kvh = h / p.group, ldkv = p.Hkv * D;
  const int64_t i0 = qb * kBq, nq = std::min(kBq, p.Tq - i0);
  const ModParams mp = mod_params(p, h);
  const bool cap = p.mods.softcap > 0.0f;
  copy_transposed(t.qt, a.q + p.q_row(b, i0, h), p.H * D, nq, D, 1.0f);
  copy_transposed(t.dot, a.dout + p.q_row(b, i0, h), p.H * D, nq, D, 1.0f);
  std::memset(t.acc, 0, sizeof(float) * kBq * Dp);
  const float* lse = a.lse + (b * p.H + h) * p.Tq + i0;
  const float* delta = a.delta + (b * p.H + h) * p.Tq + i0;
  // Per query column: lse, delta, and 1 (0 for padding columns and rows with no visible key, whose P is 0).
  float L[kBq], dl[kBq], live[kBq];
  for (int64_t i = 0; i < kBq; ++i) L[i] = 0.0f, dl[i] = 0.0f, live[i] = 0.0f;
  for (int64_t i = 0; i < nq; ++i)
    if (lse[i] != kNegInf) L[i] = lse[i], dl[i] = delta[i], live[i] = 1.0f;
  for (int64_t kb = 0; kb < p.nkb; ++kb) {
    if (!p.tile_visible(qb, kb)) continue;
    const int64_t j0 = kb * kBk, nk = std::min(kBk, p.Tk - j0);
    const float* kp = a.k + p.kv_row(b, j0, kvh);
    if (kb + 1 < p.nkb) {
      const int64_t n_next = std::min(kBk, p.Tk - j0 - kBk);
      prefetch_rows(kp + kBk * ldkv, ldkv, n_next, D);
      prefetch_rows(a.v + p.kv_row(b, j0 + kBk, kvh), ldkv, n_next, D);
    }
    copy_rows(t.ks, D, kp, ldkv, nk, D, p.scale);
    const auto keys_of_queries = [&](int64_t r, int64_t n) { return p.keys_seen_by(i0, j0, r, r + n - 1); };
    const auto queries_of_keys = [&](int64_t r, int64_t n) { return p.queries_seeing(i0, j0, r, r + n - 1); };
    tile_gemm<false>(t.s, kBq, t.ks, D, 1, t.qt, kBq, nk, kBq, D, queries_of_keys, AllOf{}, kNegInf);
    tile_gemm<false>(t.ds, kBq, a.v + p.kv_row(b, j0, kvh), ldkv, 1, t.dot, kBq, nk, kBq, D, queries_of_keys, AllOf{},
                     0.0f);
    if (cap || mp.alibi || !p.tile_all_visible(i0, nq, j0, nk)) mods_key_major(p, mp, b, i0, nq, j0, nk, t.s, t.g);
    for (int64_t j = 0; j < nk; ++j) {
      float* pr = t.s + j * kBq;
      float* dr = t.ds + j * kBq;
      if (cap) {
        const float* gr = t.g + j * kBq;
        for (int64_t i = 0; i < kBq; ++i) {
          const float pv = prob(pr[i], L[i]) * live[i];
          dr[i] = dscore(pv, dr[i], dl[i], gr[i]);
        }
      } else {
        for (int64_t i = 0; i < kBq; ++i) {
          const float pv = prob(pr[i], L[i]) * live[i];
          dr[i] = dscore(pv, dr[i], dl[i], 1.0f);
        }
      }
    }
    const RowsOperand kv = padded_rows(p, kp, ldkv, nk, t.kr);
    tile_gemm<true>(t.acc, Dp, t.ds, 1, kBq, kv.ptr, kv.ld, nq, Dp, nk, AllOf{}, keys_of_queries);
  }
  for (int64_t i = 0; i < nq; ++i) {
    float* d = a.dq + p.q_row(b, i0 + i, h);
    const float* acc = t.acc + i * Dp;
    for (int64_t c = 0; c < D; ++c) d[c] = p.scale * acc[c];
  }
}

// ---- Arguments ----

Problem make_problem(int64_t B, int64_t Tq, int64_t Tk, int64_t H, int64_t Hkv, int64_t D, const AttentionMods& mods) {
  auto positive = [](int64_t x, const char* name) {
    check(x > 0, std::string("attention: ") + name + " must be positive, got " + std::to_string(x));
  };
  positive(B, "B");
  positive(Tq, "Tq");
  positive(Tk, "Tk");
  positive(H, "H");
  positive(Hkv, "Hkv");
  positive(D, "D");
  check(H % Hkv == 0,
        "attention: H (" + std::to_string(H) + ") must be a multiple of Hkv (" + std::to_string(Hkv) + ")");
  check(Tq <= Tk, "attention: Tq (" + std::to_string(Tq) + ") must not exceed Tk (" + std::to_string(Tk) + ")");
  check(mods.window >= 0, "attention: window must be >= 0, got " + std::to_string(mods.window));
  check(mods.softcap >= 0.0f && std::isfinite(mods.softcap),
        "attention: softcap must be finite and >= 0, got " + std::to_string(mods.softcap));
  check(std::isfinite(mods.scale), "attention: scale must be finite, got " + std::to_string(mods.scale));
  Problem p{};
  p.B = B, p.Tq = Tq, p.Tk = Tk, p.H = H, p.Hkv = Hkv, p.D = D;
  p.Dp = round_up(D, kPad);
  p.group = H / Hkv;
  p.off = Tk - Tq;
  p.nqb = (Tq + kBq - 1) / kBq;
  p.nkb = (Tk + kBk - 1) / kBk;
  p.scale = mods.scale != 0.0f ? mods.scale : static_cast<float>(1.0 / std::sqrt(static_cast<double>(D)));
  p.mods = mods;
  return p;
}

void check_pointer(const void* ptr, const char* name) {
  check(ptr != nullptr, std::string("attention: ") + name + " must not be null");
}

}  // namespace

int64_t attention_workspace_bytes(bool backward, int64_t B, int64_t Tq, int64_t H, int64_t D, int threads) {
  const int64_t per_thread = static_cast<int64_t>(sizeof(float)) * Tiles::floats(round_up(D, kPad));
  const int64_t delta = backward ? static_cast<int64_t>(sizeof(float)) * B * H * Tq : 0;
  return static_cast<int64_t>(std::max(threads, 1)) * per_thread + delta;
}

void attention_forward(float* out, float* lse, const float* q, const float* k, const float* v, int64_t B, int64_t Tq,
                       int64_t Tk, int64_t H, int64_t Hkv, int64_t D, const AttentionMods& mods) {
  const Problem p = make_problem(B, Tq, Tk, H, Hkv, D, mods);
  check_pointer(out, "out");
  check_pointer(q, "q");
  check_pointer(k, "k");
  check_pointer(v, "v");
  const FwdArgs a{out, lse, q, k, v};
  const int64_t items = B * H * p.nqb;
#pragma omp parallel
  {
    Tiles t(p.Dp);
    // Heaviest (last, for causal) query blocks first for load balance.
#pragma omp for schedule(dynamic, 1)
    for (int64_t it = 0; it < items; ++it) {
      const int64_t qb = p.nqb - 1 - it % p.nqb, bh = it / p.nqb;
      forward_block(p, t, a, bh / H, bh % H, qb);
    }
  }
}

void attention_backward(float* dq, float* dk, float* dv, const float* dout, const float* q, const float* k,
                        const float* v, const float* out, const float* lse, int64_t B, int64_t Tq, int64_t Tk,
                        int64_t H, int64_t Hkv, int64_t D, const AttentionMods& mods, const float* dlse) {
  const Problem p = make_problem(B, Tq, Tk, H, Hkv, D, mods);
  check_pointer(dq, "dq");
  check_pointer(dk, "dk");
  check_pointer(dv, "dv");
  check_pointer(dout, "dout");
  check_pointer(q, "q");
  check_pointer(k, "k");
  check_pointer(v, "v");
  check_pointer(out, "out");
  check_pointer(lse, "lse");

  // delta[b, h, i] = <dout_i, out_i>, summed in a fixed lane order.
  const auto delta = std::unique_ptr<float[]>(new float[static_cast<size_t>(B * H * Tq)]);
  const int64_t rows = B * Tq * H;
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    const float* o = out + r * D;
    const float* g = dout + r * D;
    float lanes[kPad] = {};
    int64_t c = 0;
    for (; c + kPad <= D; c += kPad)
      for (int l = 0; l < kPad; ++l) lanes[l] += o[c + l] * g[c + l];
    for (int l = 0; c < D; ++c, ++l) lanes[l] += o[c] * g[c];
    float s = 0.0f;
    for (int l = 0; l < kPad; ++l) s += lanes[l];
    const int64_t h = r % H, bi = r / H;  // r = (b * Tq + i) * H + h
    const size_t at = static_cast<size_t>(((bi / Tq) * H + h) * Tq + bi % Tq);
    delta[at] = dlse ? s - dlse[at] : s;
  }
  const BwdArgs a{dq, dk, dv, dout, q, k, v, lse, delta.get()};

  // Fused single pass (dq accumulated by the (b, kv head) that owns it) when there are enough such items to keep
  // every thread busy; otherwise dk/dv per (b, kv head, key block) and a second pass for dq. Both run the same
  // arithmetic in the same order, so the choice (which depends on the thread count) does not change any bit.
  const int threads = omp_get_max_threads();
  const int64_t owners = B * Hkv;
  const bool fused = D % kPad == 0 && (owners % threads == 0 || owners >= 4 * threads);
  if (fused) {
    std::memset(dq, 0, sizeof(float) * static_cast<size_t>(B * Tq * H * D));
#pragma omp parallel
    {
      Tiles t(p.Dp);
#pragma omp for schedule(dynamic, 1)
      for (int64_t it = 0; it < owners; ++it)
        for (int64_t kb = 0; kb < p.nkb; ++kb) dkdv_block(p, t, a, it / Hkv, it % Hkv, kb, dq);
    }
    const int64_t n = B * Tq * H * D;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i) dq[i] = p.scale * dq[i];
    return;
  }
#pragma omp parallel
  {
    Tiles t(p.Dp);
    // Key blocks in order: for causal the first ones see the most queries (heaviest first).
#pragma omp for schedule(dynamic, 1) nowait
    for (int64_t it = 0; it < owners * p.nkb; ++it) {
      const int64_t kb = it % p.nkb, bg = it / p.nkb;
      dkdv_block(p, t, a, bg / Hkv, bg % Hkv, kb, nullptr);
    }
#pragma omp for schedule(dynamic, 1)
    for (int64_t it = 0; it < B * H * p.nqb; ++it) {
      const int64_t qb = p.nqb - 1 - it % p.nqb, bh = it / p.nqb;
      dq_block(p, t, a, bh / H, bh % H, qb);
    }
  }
}

}  // namespace nanotrn
