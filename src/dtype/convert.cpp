// Conversions between element types (rules in dtype/convert.h): bit manipulation on the f32 encoding, one generic
// rounding core for f16 / e4m3 / e5m2, the classic add-and-shift for bf16, constexpr decode tables for fp8.
// Not here: loops over candidate values or table searches when encoding; fenv changes. RNE is done in integers,
// except float <-> i32, which use the hardware conversions under the default (nearest-even) rounding mode.
#include "dtype/convert.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <limits>

#include "base/error.h"
#include "base/rng.h"

namespace nanotrn {

namespace {

constexpr size_t kParallelMin = size_t{1} << 15;

inline uint32_t bits_of(float x) { return std::bit_cast<uint32_t>(x); }
inline float float_of(uint32_t u) { return std::bit_cast<float>(u); }

constexpr uint32_t kAbsMask = 0x7FFFFFFFu;
constexpr uint32_t kF32Inf = 0x7F800000u;

// ---- The rounding core ----
// Rounds the magnitude with f32 bits `a` to a format with M mantissa bits and exponent bias B and an unbounded
// exponent range above, returning the code (biased exponent << M | mantissa). A code past the format's largest
// finite code means overflow; the caller clamps. inf / NaN (exponent field 255) just give a large code, which the
// callers clamp or replace; computing it anyway keeps the encoders branch-free. Rounding carries propagate into the
// exponent naturally (mantissa all-ones + 1 = next binade), and a subnormal that rounds up to 2^M is the min normal
// code.
template <int M, int B>
inline uint32_t round_magnitude(uint32_t a, bool stochastic, uint32_t r) {
  constexpr int kEmin = 1 - B;  // unbiased exponent of the min normal
  const uint32_t ef = a >> 23;
  const uint32_t sig = (a & 0x7FFFFFu) | (ef != 0 ? 0x800000u : 0u);  // value = sig * 2^(e - 23)
  const int e = ef != 0 ? static_cast<int>(ef) - 127 : -126;
  // Dropped bits: the target's quantum at this magnitude is 2^(max(e, kEmin) - M).
  const int d = 23 - M + (e < kEmin ? kEmin - e : 0);
  uint32_t kept;
  if (!stochastic) {
    // Round half to even by the add trick: a carry out of the dropped bits happens iff they exceed half, or
    // equal half with an odd kept part. sig < 2^24 so for d >= 25 the result is 0 either way.
    const uint32_t dd = static_cast<uint32_t>(std::min(d, 25));
    const uint32_t half_minus_1 = (1u << (dd - 1)) - 1u;
    kept = (sig + half_minus_1 + ((sig >> dd) & 1u)) >> dd;
  } else if (d <= 32) {
    const uint64_t mask = (uint64_t{1} << d) - 1u;
    kept = static_cast<uint32_t>((uint64_t{sig} + (uint64_t{r} & mask)) >> d);
  } else {
    // kept part is 0 (sig < 2^24 <= 2^d); only the top 32 of the d dropped bits take part.
    const int t = d - 32;
    const uint32_t top = t >= 24 ? 0u : sig >> t;
    kept = static_cast<uint32_t>((uint64_t{top} + r) >> 32);
  }
  const uint32_t base = e >= kEmin ? static_cast<uint32_t>(e + B - 1) << M : 0u;
  return base + kept;
}

// ---- bf16 ----
inline uint16_t enc_bf16(float x) {
  const uint32_t u = bits_of(x);
  const uint32_t rounded = (u + 0x7FFFu + ((u >> 16) & 1u)) >> 16;
  const uint32_t nan = (u >> 16) | 0x0040u;
  return static_cast<uint16_t>((u & kAbsMask) > kF32Inf ? nan : rounded);
}
inline uint16_t enc_bf16_sr(float x, uint32_t r) {
  const uint32_t u = bits_of(x);
  const uint32_t rounded = (u + (r & 0xFFFFu)) >> 16;  // inf + r keeps the inf pattern: its low 16 bits are 0
  const uint32_t nan = (u >> 16) | 0x0040u;
  return static_cast<uint16_t>((u & kAbsMask) > kF32Inf ? nan : rounded);
}
inline float dec_bf16(uint16_t b) { return float_of(uint32_t{b} << 16); }

// ---- f16 ----
// The encoders and decoders below are written as selects rather than early returns so that bulk loops vectorise.
inline uint16_t enc_f16(float x, bool stochastic, uint32_t r) {
  const uint32_t u = bits_of(x);
  const uint32_t sign = (u >> 16) & 0x8000u;
  const uint32_t a = u & kAbsMask;
  // inf (ef = 255) goes through the core as 2^128 and overflows like any large value; NaN is replaced below.
  const uint32_t code = std::min(round_magnitude<10, 15>(a, stochastic, r), 0x7C00u);
  const uint32_t nan = 0x7E00u | ((a >> 13) & 0x3FFu);
  return static_cast<uint16_t>(sign | (a > kF32Inf ? nan : code));
}
inline float dec_f16(uint16_t h) {
  const uint32_t sign = uint32_t{h & 0x8000u} << 16;
  const uint32_t mag = uint32_t{h & 0x7FFFu} << 13;  // exponent and mantissa fields moved to their f32 places
  const uint32_t exp = mag & 0x0F800000u;
  const uint32_t mant = h & 0x3FFu;
  // Subnormal mant * 2^-24: normalise in integers (no FP op, so the select stays vectorisable without
  // -fno-trapping-math): shift the leading one up to bit 9, p = its original position.
  uint32_t m = mant, p = 9;
  for (uint32_t k : {8u, 4u, 2u, 1u}) {
    const bool low = m < (1u << (10 - k));
    m = low ? m << k : m;
    p = low ? p - k : p;
  }
  const uint32_t subnormal = mant == 0 ? 0u : ((p + 103u) << 23) | ((m & 0x1FFu) << 14);  // 2^(p-24) * 1.xxx
  const uint32_t special = mag | kF32Inf;                                                 // inf, NaN (payload)
  const uint32_t normal = mag + ((127u - 15u) << 23);
  return float_of(sign | (exp == 0 ? subnormal : exp == 0x0F800000u ? special : normal));
}

// ---- fp8 (OFP8 v1.0) ----
inline uint8_t enc_e4m3(float x, bool stochastic, uint32_t r) {
  const uint32_t u = bits_of(x);
  const uint32_t sign = (u >> 24) & 0x80u;
  const uint32_t a = u & kAbsMask;
  // Saturating: anything past S.1111.110 (448), +-inf included, clamps to +-448. NaN -> S.1111.111.
  const uint32_t code = std::min(round_magnitude<3, 7>(a, stochastic, r), 0x7Eu);
  return static_cast<uint8_t>(sign | (a > kF32Inf ? 0x7Fu : code));
}
inline uint8_t enc_e5m2(float x, bool stochastic, uint32_t r) {
  const uint32_t u = bits_of(x);
  const uint32_t sign = (u >> 24) & 0x80u;
  const uint32_t a = u & kAbsMask;
  // Saturating: finite values past S.11110.11 (57344) clamp to +-57344; inf -> S.11111.00; NaN -> S.11111.10.
  const uint32_t code = std::min(round_magnitude<2, 15>(a, stochastic, r), 0x7Bu);
  return static_cast<uint8_t>(sign | (a > kF32Inf ? 0x7Eu : a == kF32Inf ? 0x7Cu : code));
}

constexpr float kQuietNaN = std::numeric_limits<float>::quiet_NaN();

// Field decode for a format with M mantissa bits, E exponent bits and bias B, ignoring special encodings.
template <int E, int M, int B>
constexpr float decode_fields(uint32_t code) {
  const uint32_t sign = (code >> (E + M)) & 1u;
  const uint32_t exp = (code >> M) & ((1u << E) - 1u);
  const uint32_t mant = code & ((1u << M) - 1u);
  float v;
  if (exp == 0) {
    v = static_cast<float>(mant) * std::bit_cast<float>(static_cast<uint32_t>(127 + 1 - B - M) << 23);
  } else {
    v = std::bit_cast<float>(((exp + static_cast<uint32_t>(127 - B)) << 23) | (mant << (23 - M)));
  }
  return sign ? -v : v;
}

constexpr std::array<float, 256> make_e4m3_table() {
  std::array<float, 256> t{};
  for (uint32_t c = 0; c < 256; ++c) {
    t[c] = (c & 0x7Fu) == 0x7Fu ? ((c & 0x80u) ? -kQuietNaN : kQuietNaN) : decode_fields<4, 3, 7>(c);
  }
  return t;
}
constexpr std::array<float, 256> make_e5m2_table() {
  std::array<float, 256> t{};
  for (uint32_t c = 0; c < 256; ++c) {
    const bool neg = (c & 0x80u) != 0;
    if ((c & 0x7Cu) == 0x7Cu) {
      const float special = (c & 0x03u) == 0 ? std::numeric_limits<float>::infinity() : kQuietNaN;
      t[c] = neg ? -special : special;
    } else {
      t[c] = decode_fields<5, 2, 15>(c);
    }
  }
  return t;
}
constexpr std::array<float, 256> kE4M3Table = make_e4m3_table();
constexpr std::array<float, 256> kE5M2Table = make_e5m2_table();

// ---- i32 ----
inline int32_t enc_i32(float x) {
  if (std::isnan(x)) return 0;
  if (x >= 2147483648.0f) return std::numeric_limits<int32_t>::max();
  if (x <= -2147483648.0f) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(std::nearbyint(x));  // default rounding mode: to nearest, ties to even
}
inline int32_t enc_i32_sr(float x, uint32_t r) {
  if (std::isnan(x)) return 0;
  if (x >= 2147483648.0f) return std::numeric_limits<int32_t>::max();
  if (x <= -2147483648.0f) return std::numeric_limits<int32_t>::min();
  const float fl = std::floor(x);
  const float frac = x - fl;  // exact: x and floor(x) are both multiples of ulp(x) and differ by < 1
  const bool up = static_cast<double>(r) < static_cast<double>(frac) * 4294967296.0;
  return static_cast<int32_t>(static_cast<int64_t>(fl) + (up ? 1 : 0));  // fl + 1 <= 2^31 - 1: |x| < 2^31 here
}
// i32 -> f32 rounding to odd (truncate, then set the last bit if anything was dropped). With 24 bits against at most
// 11 in the next target, a following round-to-nearest-even is then correctly rounded.
inline float i32_to_f32_odd(int32_t v) {
  const uint64_t m = v < 0 ? uint64_t{0} - static_cast<uint64_t>(static_cast<int64_t>(v)) : static_cast<uint64_t>(v);
  if (m < (uint64_t{1} << 24)) return static_cast<float>(v);  // exact
  const int shift = static_cast<int>(std::bit_width(m)) - 24;
  uint64_t kept = m >> shift;
  if ((m & ((uint64_t{1} << shift) - 1u)) != 0) kept |= 1u;
  const float f = std::ldexp(static_cast<float>(kept), shift);  // exact: kept < 2^24
  return v < 0 ? -f : f;
}

// ---- Element traits for the bulk loops ----
template <DType T>
struct Elem;
template <>
struct Elem<DType::f32> {
  using storage = float;
  static float dec(float v) { return v; }
  static float enc(float x) { return x; }
  static float enc_sr(float x, uint32_t) { return x; }
};
template <>
struct Elem<DType::bf16> {
  using storage = uint16_t;
  static float dec(uint16_t v) { return dec_bf16(v); }
  static uint16_t enc(float x) { return enc_bf16(x); }
  static uint16_t enc_sr(float x, uint32_t r) { return enc_bf16_sr(x, r); }
};
template <>
struct Elem<DType::f16> {
  using storage = uint16_t;
  static float dec(uint16_t v) { return dec_f16(v); }
  static uint16_t enc(float x) { return enc_f16(x, false, 0); }
  static uint16_t enc_sr(float x, uint32_t r) { return enc_f16(x, true, r); }
};
template <>
struct Elem<DType::f8e4m3> {
  using storage = uint8_t;
  static float dec(uint8_t v) { return kE4M3Table[v]; }
  static uint8_t enc(float x) { return enc_e4m3(x, false, 0); }
  static uint8_t enc_sr(float x, uint32_t r) { return enc_e4m3(x, true, r); }
};
template <>
struct Elem<DType::f8e5m2> {
  using storage = uint8_t;
  static float dec(uint8_t v) { return kE5M2Table[v]; }
  static uint8_t enc(float x) { return enc_e5m2(x, false, 0); }
  static uint8_t enc_sr(float x, uint32_t r) { return enc_e5m2(x, true, r); }
};
template <>
struct Elem<DType::i32> {
  using storage = int32_t;
  static float dec(int32_t v) { return static_cast<float>(v); }
  static int32_t enc(float x) { return enc_i32(x); }
  static int32_t enc_sr(float x, uint32_t r) { return enc_i32_sr(x, r); }
};

// Loads element i of type S as the f32 that the conversion to D starts from.
template <DType S, DType D>
inline float load(const void* src, size_t i) {
  typename Elem<S>::storage v;
  std::memcpy(&v, static_cast<const char*>(src) + i * sizeof(v), sizeof(v));
  if constexpr (S == DType::i32 && D != DType::f32 && D != DType::i32) {
    return i32_to_f32_odd(v);
  } else {
    return Elem<S>::dec(v);
  }
}

template <DType D>
inline void store(void* dst, size_t i, typename Elem<D>::storage v) {
  std::memcpy(static_cast<char*>(dst) + i * sizeof(v), &v, sizeof(v));
}

// One contiguous range, nearest-even: a plain loop over values (not the OpenMP shared struct), so it vectorises.
template <DType S, DType D>
void convert_range(const void* src, void* dst, size_t begin, size_t end) {
  for (size_t i = begin; i < end; ++i) store<D>(dst, i, Elem<D>::enc(load<S, D>(src, i)));
}

template <DType S, DType D>
void convert_loop(const void* src, void* dst, size_t n, Rounding mode, uint64_t seed, uint64_t stream,
                  uint64_t index0) {
  if (mode == Rounding::nearest_even) {
    constexpr size_t kChunk = 8192;
    const int64_t chunks = static_cast<int64_t>((n + kChunk - 1) / kChunk);
#pragma omp parallel for schedule(static) if (n >= kParallelMin)
    for (int64_t c = 0; c < chunks; ++c) {
      const size_t begin = static_cast<size_t>(c) * kChunk;
      convert_range<S, D>(src, dst, begin, std::min(n, begin + kChunk));
    }
  } else {
    for_each_random_u32(seed, stream, index0, n,
                        [&](size_t i, uint32_t r) { store<D>(dst, i, Elem<D>::enc_sr(load<S, D>(src, i), r)); });
  }
}

template <DType S>
void dispatch_dst(DType d, const void* src, void* dst, size_t n, Rounding mode, uint64_t seed, uint64_t stream,
                  uint64_t index0) {
  switch (d) {
    case DType::f32:
      return convert_loop<S, DType::f32>(src, dst, n, mode, seed, stream, index0);
    case DType::bf16:
      return convert_loop<S, DType::bf16>(src, dst, n, mode, seed, stream, index0);
    case DType::f16:
      return convert_loop<S, DType::f16>(src, dst, n, mode, seed, stream, index0);
    case DType::f8e4m3:
      return convert_loop<S, DType::f8e4m3>(src, dst, n, mode, seed, stream, index0);
    case DType::f8e5m2:
      return convert_loop<S, DType::f8e5m2>(src, dst, n, mode, seed, stream, index0);
    case DType::i32:
      return convert_loop<S, DType::i32>(src, dst, n, mode, seed, stream, index0);
  }
  throw Error("convert: invalid destination dtype " + std::to_string(static_cast<int>(d)));
}

}  // namespace

uint16_t f32_to_bf16(float x) { return enc_bf16(x); }
uint16_t f32_to_bf16_sr(float x, uint32_t r) { return enc_bf16_sr(x, r); }
float bf16_to_f32(uint16_t b) { return dec_bf16(b); }

uint16_t f32_to_f16(float x) { return enc_f16(x, false, 0); }
uint16_t f32_to_f16_sr(float x, uint32_t r) { return enc_f16(x, true, r); }
float f16_to_f32(uint16_t h) { return dec_f16(h); }

uint8_t f32_to_f8e4m3(float x) { return enc_e4m3(x, false, 0); }
uint8_t f32_to_f8e4m3_sr(float x, uint32_t r) { return enc_e4m3(x, true, r); }
float f8e4m3_to_f32(uint8_t b) { return kE4M3Table[b]; }

uint8_t f32_to_f8e5m2(float x) { return enc_e5m2(x, false, 0); }
uint8_t f32_to_f8e5m2_sr(float x, uint32_t r) { return enc_e5m2(x, true, r); }
float f8e5m2_to_f32(uint8_t b) { return kE5M2Table[b]; }

int32_t f32_to_i32(float x) { return enc_i32(x); }
int32_t f32_to_i32_sr(float x, uint32_t r) { return enc_i32_sr(x, r); }
float i32_to_f32(int32_t v) { return static_cast<float>(v); }

float round_to(DType t, float x, Rounding mode, uint32_t r) {
  const bool sr = mode == Rounding::stochastic;
  switch (t) {
    case DType::f32:
      return x;
    case DType::bf16:
      return dec_bf16(sr ? enc_bf16_sr(x, r) : enc_bf16(x));
    case DType::f16:
      return dec_f16(enc_f16(x, sr, r));
    case DType::f8e4m3:
      return kE4M3Table[enc_e4m3(x, sr, r)];
    case DType::f8e5m2:
      return kE5M2Table[enc_e5m2(x, sr, r)];
    case DType::i32:
      return static_cast<float>(sr ? enc_i32_sr(x, r) : enc_i32(x));
  }
  throw Error("round_to: invalid dtype " + std::to_string(static_cast<int>(t)));
}

void round_to_bf16(const float* src, float* dst, size_t n) {
  if (n == 0) return;
  check(src != nullptr && dst != nullptr, "round_to_bf16: null buffer with n = " + std::to_string(n));
  constexpr size_t kChunk = 8192;
  const int64_t chunks = static_cast<int64_t>((n + kChunk - 1) / kChunk);
#pragma omp parallel for schedule(static) if (n >= kParallelMin)
  for (int64_t c = 0; c < chunks; ++c) {
    const size_t begin = static_cast<size_t>(c) * kChunk, end = std::min(n, begin + kChunk);
    for (size_t i = begin; i < end; ++i) dst[i] = dec_bf16(enc_bf16(src[i]));
  }
}

void convert(const void* src, DType src_type, void* dst, DType dst_type, size_t n, Rounding mode, uint64_t seed,
             uint64_t stream, uint64_t index0) {
  if (n == 0) return;
  check(src != nullptr && dst != nullptr, "convert: null buffer with n = " + std::to_string(n));
  const size_t ss = dtype_size(src_type), ds = dtype_size(dst_type);
  check(ss != 0 && ds != 0, "convert: invalid dtype");
  const auto s0 = reinterpret_cast<uintptr_t>(src), d0 = reinterpret_cast<uintptr_t>(dst);
  const bool overlap = s0 < d0 + n * ds && d0 < s0 + n * ss;
  check(!overlap || (s0 == d0 && ss == ds),
        "convert: source and destination overlap (only exact in-place conversion between same-size types is allowed)");
  if (src_type == dst_type) {
    if (src != dst) std::memcpy(dst, src, n * ss);
    return;
  }
  switch (src_type) {
    case DType::f32:
      return dispatch_dst<DType::f32>(dst_type, src, dst, n, mode, seed, stream, index0);
    case DType::bf16:
      return dispatch_dst<DType::bf16>(dst_type, src, dst, n, mode, seed, stream, index0);
    case DType::f16:
      return dispatch_dst<DType::f16>(dst_type, src, dst, n, mode, seed, stream, index0);
    case DType::f8e4m3:
      return dispatch_dst<DType::f8e4m3>(dst_type, src, dst, n, mode, seed, stream, index0);
    case DType::f8e5m2:
      return dispatch_dst<DType::f8e5m2>(dst_type, src, dst, n, mode, seed, stream, index0);
    case DType::i32:
      return dispatch_dst<DType::i32>(dst_type, src, dst, n, mode, seed, stream, index0);
  }
}

}  // namespace nanotrn
