// Tests of dtype/convert.h and dtype_from_name. Every check compares against an independent reference: values
// decoded with std::ldexp from the sign/exponent/mantissa fields (OCP OFP8 v1.0 formulas for fp8), nearest-value
// search over those decoded tables in double (ties to the even code), the compiler's _Float16 conversion, and
// exact integer arithmetic. Never the function under test against itself.
// Not here: performance (bench/), the simulator's use of round_to.
#include "dtype/convert.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/rng.h"
#include "dtype/dtype.h"

namespace nanotrn {
namespace {

uint32_t bits(float x) { return std::bit_cast<uint32_t>(x); }
float from_bits(uint32_t u) { return std::bit_cast<float>(u); }

// ---- Independent reference model of a narrow float format ----
struct Format {
  const char* name;
  DType type;
  int exp_bits, man_bits, bias;
  uint32_t max_code;       // largest finite positive code
  uint32_t overflow_code;  // positive result for finite values past max: inf (bf16, f16) or max (fp8, saturating)
  uint32_t inf_code;       // positive result for +inf input
  uint32_t sign_bit;
  std::function<uint32_t(float)> rne;
  std::function<uint32_t(float, uint32_t)> sr;
  std::function<float(uint32_t)> dec;
  std::vector<double> values;  // values[c] for codes 0..max_code: positive finite values, increasing with c
  double virtual_next;         // the value after max if the exponent range went on (max + ulp(max))

  // Value of a finite code from its fields: (-1)^s * 2^(1-bias) * 0.m (subnormal) or 2^(e-bias) * 1.m.
  double field_value(uint32_t code) const {
    const uint32_t sign = code & sign_bit;
    const uint32_t exp = (code >> man_bits) & ((1u << exp_bits) - 1);
    const uint32_t man = code & ((1u << man_bits) - 1);
    const double v = exp == 0 ? std::ldexp(double(man), 1 - bias - man_bits)
                              : std::ldexp(double((1u << man_bits) + man), int(exp) - bias - man_bits);
    return sign ? -v : v;
  }
};

Format make_format(const char* name, DType type, int e, int m, int bias, uint32_t max_code, uint32_t overflow_code,
                   uint32_t inf_code, uint32_t sign_bit, std::function<uint32_t(float)> rne,
                   std::function<uint32_t(float, uint32_t)> sr, std::function<float(uint32_t)> dec) {
  Format f{name, type, e, m, bias, max_code, overflow_code, inf_code, sign_bit, rne, sr, dec, {}, 0};
  for (uint32_t c = 0; c <= max_code; ++c) f.values.push_back(f.field_value(c));
  f.virtual_next = 2 * f.values[max_code] - f.values[max_code - 1];
  return f;
}

const std::vector<Format>& formats() {
  static const std::vector<Format> all = {
      make_format(
          "bf16", DType::bf16, 8, 7, 127, 0x7F7F, 0x7F80, 0x7F80, 0x8000, [](float x) { return f32_to_bf16(x); },
          [](float x, uint32_t r) { return f32_to_bf16_sr(x, r); },
          [](uint32_t c) { return bf16_to_f32(uint16_t(c)); }),
      make_format(
          "f16", DType::f16, 5, 10, 15, 0x7BFF, 0x7C00, 0x7C00, 0x8000, [](float x) { return f32_to_f16(x); },
          [](float x, uint32_t r) { return f32_to_f16_sr(x, r); }, [](uint32_t c) { return f16_to_f32(uint16_t(c)); }),
      make_format(
          "f8e4m3", DType::f8e4m3, 4, 3, 7, 0x7E, 0x7E, 0x7E, 0x80, [](float x) { return f32_to_f8e4m3(x); },
          [](float x, uint32_t r) { return f32_to_f8e4m3_sr(x, r); },
          [](uint32_t c) { return f8e4m3_to_f32(uint8_t(c)); }),
      make_format(
          "f8e5m2", DType::f8e5m2, 5, 2, 15, 0x7B, 0x7B, 0x7C, 0x80, [](float x) { return f32_to_f8e5m2(x); },
          [](float x, uint32_t r) { return f32_to_f8e5m2_sr(x, r); },
          [](uint32_t c) { return f8e5m2_to_f32(uint8_t(c)); }),
  };
  return all;
}

// The two neighbours of |x| (non-NaN) as codes: lo <= |x| <= hi; lo == hi when |x| is representable. A neighbour
// past max is reported as the format's overflow code.
struct Neighbours {
  uint32_t lo, hi;
  double lo_value, hi_value;
  bool exact;
};
Neighbours neighbours(const Format& f, double ax) {
  if (ax >= f.virtual_next) return {f.overflow_code, f.overflow_code, f.virtual_next, f.virtual_next, true};
  const auto it = std::upper_bound(f.values.begin(), f.values.end(), ax);
  const uint32_t lo = uint32_t(it - f.values.begin()) - 1;
  const double lo_value = f.values[lo];
  if (lo_value == ax) return {lo, lo, lo_value, lo_value, true};
  const uint32_t hi = lo + 1;
  const double hi_value = hi <= f.max_code ? f.values[hi] : f.virtual_next;
  return {lo, hi > f.max_code ? f.overflow_code : hi, lo_value, hi_value, false};
}

// Round to nearest, ties to the even code, with the format's overflow / saturation rule. NaN excluded.
uint32_t reference_rne(const Format& f, double x) {
  const uint32_t sign = std::signbit(x) ? f.sign_bit : 0;
  const double ax = std::fabs(x);
  if (std::isinf(ax)) return sign | f.inf_code;
  const Neighbours n = neighbours(f, ax);
  if (n.exact) return sign | n.lo;
  const double dl = ax - n.lo_value, du = n.hi_value - ax;  // exact: same binade, few significant bits
  uint32_t code;
  if (dl < du) {
    code = n.lo;
  } else if (du < dl) {
    code = n.hi;
  } else {
    // Tie: the even code. The upper neighbour's own code (before overflow mapping) is lo + 1.
    code = (n.lo % 2 == 0) ? n.lo : n.hi;
  }
  return sign | code;
}

bool is_nan_code(const Format& f, uint32_t code) {
  const uint32_t mag = code & (f.sign_bit - 1);
  if (f.type == DType::f8e4m3) return mag == 0x7F;
  const uint32_t exp_all = ((1u << f.exp_bits) - 1) << f.man_bits;
  return (mag & exp_all) == exp_all && (mag & ((1u << f.man_bits) - 1)) != 0;
}

std::string hex(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%X", v);
  return buf;
}

// ---- Decoding: every bit pattern against the field formula ----

// round_to_bf16 gives the bits of a round trip through bf16 (convert there and back) for every kind of value:
// ties, the largest finite, overflow to inf, subnormals, signed zeros, infinities and NaNs; in place as well.
TEST(Convert, RoundToBf16IsTheRoundTripThroughBf16) {
  std::vector<float> v = {0.0f,
                          -0.0f,
                          1.0f,
                          -1.5f,
                          3.14159f,
                          1e-40f,
                          -1e-42f,
                          3.3895e38f,
                          3.4e38f,
                          -3.4e38f,
                          std::numeric_limits<float>::infinity(),
                          -std::numeric_limits<float>::infinity(),
                          std::numeric_limits<float>::quiet_NaN(),
                          std::bit_cast<float>(0x7F800001u),
                          std::bit_cast<float>(0x3F808000u),
                          std::bit_cast<float>(0x3F818000u)};  // ties: even, up
  for (uint32_t i = 0; i < 100000; i++) v.push_back(std::bit_cast<float>(i * 42949u + 12345u));
  std::vector<uint16_t> b(v.size());
  std::vector<float> want(v.size()), got(v.size()), in_place = v;
  convert(v.data(), DType::f32, b.data(), DType::bf16, v.size());
  convert(b.data(), DType::bf16, want.data(), DType::f32, v.size());
  round_to_bf16(v.data(), got.data(), v.size());
  round_to_bf16(in_place.data(), in_place.data(), v.size());
  for (size_t i = 0; i < v.size(); i++) {
    ASSERT_EQ(std::bit_cast<uint32_t>(got[i]), std::bit_cast<uint32_t>(want[i])) << "value " << i;
    ASSERT_EQ(std::bit_cast<uint32_t>(in_place[i]), std::bit_cast<uint32_t>(want[i])) << "value " << i;
  }
}

TEST(Convert, DecodeEveryBitPatternMatchesFieldFormula) {
  for (const Format& f : formats()) {
    const uint32_t patterns = f.sign_bit * 2;
    size_t nans = 0, infs = 0;
    for (uint32_t c = 0; c < patterns; ++c) {
      const float got = f.dec(c);
      const uint32_t mag = c & (f.sign_bit - 1);
      if (is_nan_code(f, c)) {
        ++nans;
        EXPECT_TRUE(std::isnan(got)) << f.name << " " << hex(c);
      } else if (mag > f.max_code) {  // exponent all ones, mantissa 0: infinity (not for e4m3)
        ++infs;
        ASSERT_NE(f.type, DType::f8e4m3);
        EXPECT_TRUE(std::isinf(got)) << f.name << " " << hex(c);
        EXPECT_EQ(std::signbit(got), (c & f.sign_bit) != 0);
      } else {
        EXPECT_EQ(double(got), f.field_value(c)) << f.name << " " << hex(c);
        EXPECT_EQ(std::signbit(got), (c & f.sign_bit) != 0) << f.name << " " << hex(c);  // -0 stays -0
      }
    }
    // OFP8 Table 2: e4m3 has exactly the two NaNs S.1111.111 and no infinities; e5m2 has 6 NaNs and 2 infinities.
    const size_t want_nans = f.type == DType::f8e4m3   ? 2
                             : f.type == DType::f8e5m2 ? 6
                             : f.type == DType::f16    ? 2 * 1023
                                                       : 2 * 127;
    EXPECT_EQ(nans, want_nans) << f.name;
    EXPECT_EQ(infs, f.type == DType::f8e4m3 ? 0u : 2u) << f.name;
  }
}

TEST(Convert, Bf16DecodeIsTheTopHalfOfTheF32Pattern) {
  for (uint32_t b = 0; b < 65536; ++b) {
    const uint32_t expect = b << 16;
    float ref;
    std::memcpy(&ref, &expect, 4);
    EXPECT_EQ(bits(bf16_to_f32(uint16_t(b))), bits(ref)) << hex(b);  // NaN payloads included
  }
}

TEST(Convert, F16DecodeMatchesCompilerFloat16) {
  for (uint32_t h = 0; h < 65536; ++h) {
    const uint16_t h16 = uint16_t(h);
    _Float16 c;
    std::memcpy(&c, &h16, 2);
    const float ref = float(c), got = f16_to_f32(h16);
    if (std::isnan(ref)) {
      EXPECT_TRUE(std::isnan(got)) << hex(h);
    } else {
      EXPECT_EQ(bits(got), bits(ref)) << hex(h);
    }
  }
}

TEST(Convert, Fp8LandmarkValuesPerOcpSpec) {
  EXPECT_EQ(f8e4m3_to_f32(0x7E), 448.0f);  // S.1111.110: max normal
  EXPECT_EQ(f8e4m3_to_f32(0xFE), -448.0f);
  EXPECT_EQ(f8e4m3_to_f32(0x08), std::ldexp(1.0f, -6));           // min normal
  EXPECT_EQ(f8e4m3_to_f32(0x07), 0.875f * std::ldexp(1.0f, -6));  // max subnormal
  EXPECT_EQ(f8e4m3_to_f32(0x01), std::ldexp(1.0f, -9));           // min subnormal
  EXPECT_EQ(f8e4m3_to_f32(0x78), 256.0f);                         // S.1111.000 is a normal number, not inf
  EXPECT_TRUE(std::isnan(f8e4m3_to_f32(0x7F)));
  EXPECT_TRUE(std::isnan(f8e4m3_to_f32(0xFF)));
  EXPECT_EQ(f8e5m2_to_f32(0x7B), 57344.0f);  // S.11110.11: max normal
  EXPECT_EQ(f8e5m2_to_f32(0x04), std::ldexp(1.0f, -14));
  EXPECT_EQ(f8e5m2_to_f32(0x03), 0.75f * std::ldexp(1.0f, -14));
  EXPECT_EQ(f8e5m2_to_f32(0x01), std::ldexp(1.0f, -16));
  EXPECT_EQ(f8e5m2_to_f32(0x7C), std::numeric_limits<float>::infinity());
  EXPECT_EQ(f8e5m2_to_f32(0xFC), -std::numeric_limits<float>::infinity());
  for (uint8_t nan : {0x7D, 0x7E, 0x7F, 0xFD, 0xFE, 0xFF}) EXPECT_TRUE(std::isnan(f8e5m2_to_f32(nan)));
  EXPECT_EQ(f16_to_f32(0x7BFF), 65504.0f);
  EXPECT_EQ(f16_to_f32(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(bf16_to_f32(0x0001), std::ldexp(1.0f, -133));
}

// ---- Round trips: encode(decode(c)) == c for every non-NaN pattern; NaN stays (quiet) NaN ----

TEST(Convert, EncodeOfDecodeIsIdentityForEveryNonNanPattern) {
  for (const Format& f : formats()) {
    for (uint32_t c = 0; c < f.sign_bit * 2; ++c) {
      const float x = f.dec(c);
      const uint32_t back = f.rne(x);
      if (is_nan_code(f, c)) {
        EXPECT_TRUE(is_nan_code(f, back)) << f.name << " " << hex(c) << " -> " << hex(back);
      } else {
        EXPECT_EQ(back, c) << f.name << " " << hex(c);
      }
      for (uint32_t r : {0u, 1u, 0x8000u, 0xFFFFu, 0x7FFFFFFFu, 0xFFFFFFFFu, 0x9E3779B9u}) {
        const uint32_t sr = f.sr(x, r);
        if (is_nan_code(f, c)) {
          EXPECT_TRUE(is_nan_code(f, sr)) << f.name << " " << hex(c);
        } else {
          ASSERT_EQ(sr, c) << f.name << " " << hex(c) << " r=" << hex(r);  // representable: unchanged for any r
        }
      }
    }
  }
}

TEST(Convert, NanEncodingsAreAsDocumented) {
  const float qnan = std::numeric_limits<float>::quiet_NaN();
  const float snan = from_bits(0x7F800001u);  // signalling NaN whose payload is only in the low bits
  const float neg_snan = from_bits(0xFF800001u);
  EXPECT_EQ(f32_to_bf16(snan), 0x7FC0);  // truncation alone would give the inf pattern 0x7F80
  EXPECT_EQ(f32_to_bf16(neg_snan), 0xFFC0);
  EXPECT_EQ(f32_to_bf16(qnan), 0x7FC0);
  EXPECT_EQ(f32_to_bf16(from_bits(0x7FAB0000u)), 0x7FEB);  // payload kept, quiet bit set
  EXPECT_EQ(f32_to_bf16_sr(snan, 0xFFFFFFFFu), 0x7FC0);
  EXPECT_EQ(f32_to_f16(snan), 0x7E00);
  EXPECT_EQ(f32_to_f16(neg_snan), 0xFE00);
  EXPECT_EQ(f32_to_f16_sr(qnan, 0xFFFFFFFFu), 0x7E00);
  EXPECT_EQ(f32_to_f8e4m3(qnan), 0x7F);
  EXPECT_EQ(f32_to_f8e4m3(-qnan), 0xFF);
  EXPECT_EQ(f32_to_f8e4m3_sr(snan, 0xFFFFFFFFu), 0x7F);
  EXPECT_EQ(f32_to_f8e5m2(qnan), 0x7E);
  EXPECT_EQ(f32_to_f8e5m2(-qnan), 0xFE);
  EXPECT_EQ(f32_to_f8e5m2_sr(neg_snan, 0xFFFFFFFFu), 0xFE);
}

TEST(Convert, OverflowAndSaturationAreAsDocumented) {
  const float inf = std::numeric_limits<float>::infinity();
  // bf16 / f16: IEEE overflow to inf.
  EXPECT_EQ(f32_to_bf16(from_bits(0x7F7F7FFFu)), 0x7F7F);  // just below the max/2^128 midpoint
  EXPECT_EQ(f32_to_bf16(from_bits(0x7F7F8000u)), 0x7F80);  // the midpoint: tie to even -> inf
  EXPECT_EQ(f32_to_bf16(std::numeric_limits<float>::max()), 0x7F80);
  EXPECT_EQ(f32_to_bf16(-inf), 0xFF80);
  EXPECT_EQ(f32_to_f16(65504.0f), 0x7BFF);
  EXPECT_EQ(f32_to_f16(65519.99f), 0x7BFF);
  EXPECT_EQ(f32_to_f16(65520.0f), 0x7C00);
  EXPECT_EQ(f32_to_f16(-1e6f), 0xFC00);
  EXPECT_EQ(f32_to_f16(inf), 0x7C00);
  EXPECT_EQ(f32_to_f16_sr(65505.0f, 0xFFFFFFFFu), 0x7C00);  // SR past max rounds up to inf
  EXPECT_EQ(f32_to_f16_sr(65505.0f, 0), 0x7BFF);
  // e4m3: saturating, no inf.
  EXPECT_EQ(f32_to_f8e4m3(448.0f), 0x7E);
  EXPECT_EQ(f32_to_f8e4m3(463.99f), 0x7E);
  EXPECT_EQ(f32_to_f8e4m3(464.0f), 0x7E);  // tie between 448 and (non-existent) 480: even mantissa 110
  EXPECT_EQ(f32_to_f8e4m3(470.0f), 0x7E);  // would round to 480 = S.1111.111, the NaN pattern: saturates
  EXPECT_EQ(f32_to_f8e4m3(1e30f), 0x7E);
  EXPECT_EQ(f32_to_f8e4m3(inf), 0x7E);
  EXPECT_EQ(f32_to_f8e4m3(-inf), 0xFE);
  EXPECT_EQ(f32_to_f8e4m3(std::numeric_limits<float>::max()), 0x7E);
  EXPECT_EQ(f32_to_f8e4m3_sr(470.0f, 0xFFFFFFFFu), 0x7E);
  EXPECT_EQ(f32_to_f8e4m3_sr(-inf, 0xFFFFFFFFu), 0xFE);
  // e5m2: saturating for finite values, inf stays inf.
  EXPECT_EQ(f32_to_f8e5m2(57344.0f), 0x7B);
  EXPECT_EQ(f32_to_f8e5m2(61440.0f), 0x7B);  // tie with the would-be 65536
  EXPECT_EQ(f32_to_f8e5m2(70000.0f), 0x7B);
  EXPECT_EQ(f32_to_f8e5m2(-1e38f), 0xFB);
  EXPECT_EQ(f32_to_f8e5m2(inf), 0x7C);
  EXPECT_EQ(f32_to_f8e5m2(-inf), 0xFC);
  EXPECT_EQ(f32_to_f8e5m2_sr(60000.0f, 0xFFFFFFFFu), 0x7B);
  EXPECT_EQ(f32_to_f8e5m2_sr(inf, 0xFFFFFFFFu), 0x7C);
  // Underflow keeps the sign.
  EXPECT_EQ(f32_to_f8e4m3(-1e-10f), 0x80);
  EXPECT_EQ(f32_to_f8e5m2(-1e-10f), 0x80);
  EXPECT_EQ(f32_to_f16(-1e-10f), 0x8000);
  EXPECT_EQ(f32_to_bf16(-1e-45f), 0x8000);
}

// ---- RNE against the reference: ties, near-ties, and dense sweeps ----

// For every pair of adjacent finite values (and max / the would-be next value), the exact midpoint and its f32
// neighbours, both signs. The midpoint has one bit more than the format, so it is exact in f32 for all four.
TEST(Convert, RneOnConstructedTiesAndNearTies) {
  for (const Format& f : formats()) {
    for (uint32_t c = 0; c <= f.max_code; ++c) {
      const double lo = f.values[c], hi = c < f.max_code ? f.values[c + 1] : f.virtual_next;
      const double mid = (lo + hi) / 2;
      const float m = float(mid);
      ASSERT_EQ(double(m), mid) << f.name;
      for (float x : {m, std::nextafter(m, 0.0f), std::nextafter(m, std::numeric_limits<float>::infinity()), float(lo),
                      std::nextafter(float(lo), std::numeric_limits<float>::infinity())}) {
        for (float sx : {x, -x}) {
          ASSERT_EQ(f.rne(sx), reference_rne(f, sx)) << f.name << " x=" << sx << " " << hex(bits(sx));
        }
      }
      // The tie goes to the even code (or to overflow/saturation past max).
      const uint32_t even = (c % 2 == 0) ? c : (c + 1 <= f.max_code ? c + 1 : f.overflow_code);
      ASSERT_EQ(f.rne(m), even) << f.name << " tie above " << hex(c);
    }
  }
}

// Every f32 pattern on a stride (both signs), plus a denser stride over each format's own range.
TEST(Convert, RneDenseSweepMatchesNearestTableEntry) {
  for (const Format& f : formats()) {
    auto check = [&](uint32_t u) {
      for (uint32_t s : {0u, 0x80000000u}) {
        const float x = from_bits(u | s);
        const uint32_t got = f.rne(x), want = reference_rne(f, x);
        if (got != want) {
          ADD_FAILURE() << f.name << " x=" << x << " (" << hex(u | s) << ") got " << hex(got) << " want " << hex(want);
          return false;
        }
      }
      return true;
    };
    for (uint64_t u = 0; u <= 0x7F800000u; u += 1009) {
      if (!check(uint32_t(u))) break;
    }
    // The format's range: from a quarter of the min subnormal to twice the max.
    const uint32_t lo = bits(float(f.values[1] / 4)), hi = bits(float(f.virtual_next * 2));
    const uint32_t stride = std::max<uint32_t>(1, (hi - lo) / 3'000'000);
    for (uint64_t u = lo; u <= hi; u += stride) {
      if (!check(uint32_t(u))) break;
    }
  }
}

TEST(Convert, Bf16RneOnRandomFloatsMatchesNeighbourReference) {
  std::mt19937 gen(12345);
  const Format& f = formats()[0];
  for (int i = 0; i < 2'000'000; ++i) {
    const float x = from_bits(gen());
    if (std::isnan(x)) continue;
    ASSERT_EQ(f32_to_bf16(x), reference_rne(f, x)) << hex(bits(x));
  }
}

// f32 -> f16 agrees with the compiler's _Float16 conversion (F16C or libgcc soft-fp, both IEEE RNE).
TEST(Convert, F16EncodeMatchesCompilerFloat16) {
  auto compiler = [](float x) {
    const _Float16 h = static_cast<_Float16>(x);
    uint16_t b;
    std::memcpy(&b, &h, 2);
    return b;
  };
  auto expect_same = [&](float x) {
    const uint16_t want = compiler(x), got = f32_to_f16(x);
    if (std::isnan(x)) {
      EXPECT_EQ(got & 0x7E00, 0x7E00) << hex(bits(x));
    } else {
      ASSERT_EQ(got, want) << "x=" << x << " " << hex(bits(x));
    }
  };
  std::mt19937 gen(777);
  for (int i = 0; i < 1'000'000; ++i) expect_same(from_bits(gen()));  // every exponent
  std::uniform_int_distribution<uint32_t> exp_in_range(127 - 27, 127 + 17), mant(0, 0x7FFFFF);
  for (int i = 0; i < 2'000'000; ++i) {  // around the f16 range: subnormals, normals, overflow
    expect_same(from_bits((gen() & 0x80000000u) | (exp_in_range(gen) << 23) | mant(gen)));
  }
  // Edges: ties and near-ties at every f16 code, subnormal boundaries, overflow threshold, specials.
  for (uint32_t c = 0; c < 0x7C00; ++c) {
    const float lo = f16_to_f32(uint16_t(c));
    const float hi = c < 0x7BFF ? f16_to_f32(uint16_t(c + 1)) : 65536.0f;
    const float mid = (lo + hi) / 2;
    for (float x : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e9f), lo}) {
      expect_same(x);
      expect_same(-x);
    }
  }
  for (float x : {0.0f, -0.0f, std::ldexp(1.0f, -25), std::ldexp(1.0f, -25) * 1.0000001f, std::ldexp(3.0f, -25),
                  std::ldexp(1.0f, -14), std::ldexp(1023.0f, -24), std::ldexp(2047.0f, -25), 65504.0f, 65519.0f,
                  65520.0f, 1e10f, std::numeric_limits<float>::infinity(), std::numeric_limits<float>::denorm_min(),
                  std::numeric_limits<float>::quiet_NaN()}) {
    expect_same(x);
    expect_same(-x);
  }
}

// ---- Stochastic rounding ----

TEST(Convert, SrResultIsAlwaysOneOfTheTwoNeighbours) {
  std::mt19937 gen(4242);
  for (const Format& f : formats()) {
    const int max_exp = int(std::ilogb(f.virtual_next)) + 1;
    const int min_exp = int(std::ilogb(f.values[1])) - 3;
    std::uniform_int_distribution<int> exp(min_exp, std::min(max_exp, 127));
    std::uniform_int_distribution<uint32_t> mant(0, 0x7FFFFF);
    for (int i = 0; i < 300'000; ++i) {
      const int e = std::max(exp(gen), -126);
      const float x = from_bits((gen() & 0x80000000u) | (uint32_t(e + 127) << 23) | mant(gen));
      const uint32_t r = random_u32(1, 2, uint64_t(i));
      const uint32_t got = f.sr(x, r);
      const Neighbours n = neighbours(f, std::fabs(double(x)));
      const uint32_t sign = std::signbit(x) ? f.sign_bit : 0;
      ASSERT_TRUE(got == (sign | n.lo) || got == (sign | n.hi))
          << f.name << " x=" << x << " got " << hex(got) << " neighbours " << hex(n.lo) << "," << hex(n.hi);
    }
  }
}

// The documented rule exactly: with d dropped bits, round up iff dropped + (r mod 2^d) >= 2^d. Over all 2^d values
// of r's low bits the number of round-ups equals the dropped bits, so the probability is exactly the fraction.
TEST(Convert, SrRoundsUpWithProbabilityEqualToTheFractionExactly) {
  std::mt19937 gen(99);
  for (int trial = 0; trial < 40; ++trial) {
    // bf16: 16 dropped bits, normal and f32-subnormal inputs.
    const uint32_t hi_bits = (trial % 2 ? 0x3F80u : 0x0001u) + uint32_t(gen() % 64);
    const uint32_t frac = gen() & 0xFFFFu;
    const float x = from_bits(hi_bits << 16 | frac);
    uint32_t ups = 0;
    for (uint32_t r = 0; r < 65536; ++r) ups += f32_to_bf16_sr(x, r | (gen() << 16)) != f32_to_bf16_sr(x, 0);
    EXPECT_EQ(ups, frac) << hex(bits(x));
    // f16 normal: 13 dropped bits.
    const uint32_t frac13 = gen() & 0x1FFFu;
    const float y = from_bits((uint32_t(127 + int(gen() % 20) - 10) << 23) | (gen() & 0x7FE000u) | frac13);
    ups = 0;
    for (uint32_t r = 0; r < 8192; ++r) ups += f32_to_f16_sr(y, r) != f32_to_f16_sr(y, 0);
    EXPECT_EQ(ups, frac13) << hex(bits(y));
  }
  // e4m3 subnormal: x = 2^-12 is 1/8 of the min subnormal 2^-9 (23 + 3 dropped bits): exactly 2^23 of 2^26 r values
  // round up, i.e. those with low 26 bits >= 2^26 - 2^23. Check the threshold on both sides.
  const float x = std::ldexp(1.0f, -12);
  EXPECT_EQ(f32_to_f8e4m3_sr(x, (1u << 26) - (1u << 23) - 1), 0x00);
  EXPECT_EQ(f32_to_f8e4m3_sr(x, (1u << 26) - (1u << 23)), 0x01);
  EXPECT_EQ(f32_to_f8e4m3_sr(x, 0xFC000000u | ((1u << 26) - (1u << 23) - 1)), 0x00);  // bits above d ignored
}

TEST(Convert, SrMeanConvergesToTheInput) {
  const int draws = 100'000;
  for (const Format& f : formats()) {
    std::vector<double> xs = {1.0 / 3,
                              -2.7182818,
                              0.1,
                              100.7,
                              f.values[1] * 0.3,
                              f.values[5] * 1.7,
                              -f.values[f.max_code] * 0.97,
                              f.values[f.max_code / 2] * 1.01};
    for (double xd : xs) {
      const float x = float(xd);
      const Neighbours n = neighbours(f, std::fabs(double(x)));
      if (n.exact || n.hi_value >= f.virtual_next) continue;
      double sum = 0;
      for (int i = 0; i < draws; ++i) sum += f.dec(f.sr(x, random_u32(2024, 7, uint64_t(i))));
      const double mean = sum / draws;
      const double p = (std::fabs(double(x)) - n.lo_value) / (n.hi_value - n.lo_value);
      const double se = (n.hi_value - n.lo_value) * std::sqrt(p * (1 - p) / draws);
      EXPECT_NEAR(mean, double(x), 4 * se + 1e-12 * std::fabs(double(x))) << f.name << " x=" << x << " p=" << p;
    }
  }
}

// ---- round_to ----

TEST(Convert, RoundToIsDecodeOfEncode) {
  std::mt19937 gen(31337);
  for (int i = 0; i < 200'000; ++i) {
    const float x =
        i < 100'000 ? from_bits(gen()) : std::ldexp(float(int(gen() % 20001) - 10000), int(gen() % 40) - 30);
    const uint32_t r = gen();
    for (const Format& f : formats()) {
      const float want = f.dec(f.rne(x)), want_sr = f.dec(f.sr(x, r));
      const float got = round_to(f.type, x), got_sr = round_to(f.type, x, Rounding::stochastic, r);
      if (std::isnan(want)) {
        ASSERT_TRUE(std::isnan(got));
        ASSERT_TRUE(std::isnan(got_sr));
      } else {
        ASSERT_EQ(bits(got), bits(want)) << f.name << " " << x;
        ASSERT_EQ(bits(got_sr), bits(want_sr)) << f.name << " " << x;
      }
    }
    if (!std::isnan(x)) {
      ASSERT_EQ(bits(round_to(DType::f32, x)), bits(x));
    }
  }
  EXPECT_EQ(round_to(DType::i32, 2.5f), 2.0f);
  EXPECT_EQ(round_to(DType::i32, -3.5f), -4.0f);
  EXPECT_EQ(round_to(DType::i32, 1e10f), 2147483648.0f);
  EXPECT_EQ(round_to(DType::i32, std::numeric_limits<float>::quiet_NaN()), 0.0f);
  EXPECT_TRUE(std::isnan(round_to(DType::f32, std::numeric_limits<float>::quiet_NaN())));
}

// ---- i32 ----

TEST(Convert, I32RulesAreAsDocumented) {
  constexpr int32_t kMax = std::numeric_limits<int32_t>::max(), kMin = std::numeric_limits<int32_t>::min();
  const float inf = std::numeric_limits<float>::infinity();
  const std::pair<float, int32_t> cases[] = {
      {0.5f, 0},
      {1.5f, 2},
      {2.5f, 2},
      {3.5f, 4},
      {-0.5f, 0},
      {-2.5f, -2},
      {-3.5f, -4},
      {2.4999998f, 2},
      {-0.0f, 0},
      {7.0f, 7},
      {2147483520.0f, 2147483520},
      {2147483648.0f, kMax},
      {3e9f, kMax},
      {-2147483648.0f, kMin},
      {-3e9f, kMin},
      {inf, kMax},
      {-inf, kMin},
      {std::numeric_limits<float>::quiet_NaN(), 0},
      {-std::numeric_limits<float>::quiet_NaN(), 0},
  };
  for (auto [x, want] : cases) EXPECT_EQ(f32_to_i32(x), want) << x;
  for (auto [x, want] : cases) {
    if (std::isnan(x) || std::isinf(x) || std::fabs(x) >= 2147483648.0f || x == std::floor(x)) {
      EXPECT_EQ(f32_to_i32_sr(x, 0xFFFFFFFFu), want) << x;  // integral, saturated or NaN: unchanged by r
    }
  }
  // SR: floor or ceil, mean -> x; threshold r < frac * 2^32.
  EXPECT_EQ(f32_to_i32_sr(2.25f, 0x3FFFFFFFu), 3);
  EXPECT_EQ(f32_to_i32_sr(2.25f, 0x40000000u), 2);
  EXPECT_EQ(f32_to_i32_sr(-2.25f, 0xBFFFFFFFu), -2);  // floor -3, frac 0.75
  EXPECT_EQ(f32_to_i32_sr(-2.25f, 0xC0000000u), -3);
  double sum = 0;
  for (int i = 0; i < 100'000; ++i) {
    const int32_t v = f32_to_i32_sr(-7.3f, random_u32(5, 5, uint64_t(i)));
    ASSERT_TRUE(v == -8 || v == -7);
    sum += v;
  }
  EXPECT_NEAR(sum / 100'000, -7.3, 4 * std::sqrt(0.3 * 0.7 / 100'000));
  EXPECT_EQ(i32_to_f32(16777217), 16777216.0f);  // tie -> even
  EXPECT_EQ(i32_to_f32(16777219), 16777220.0f);
  EXPECT_EQ(i32_to_f32(kMax), 2147483648.0f);
  EXPECT_EQ(i32_to_f32(kMin), -2147483648.0f);
}

// i32 -> narrow floats is correctly rounded from the exact integer: no double rounding through f32.
TEST(Convert, I32ToNarrowFloatIsCorrectlyRounded) {
  std::vector<int32_t> vals = {0,
                               1,
                               -1,
                               255,
                               256,
                               257,
                               4097,
                               65519,
                               65520,
                               100000,
                               447,
                               449,
                               464,
                               465,
                               61440,
                               16777217,
                               16777219,
                               -16777217,
                               (1 << 24) + (1 << 16) + 1,
                               -((1 << 24) + (1 << 16) + 1),
                               (1 << 24) + (1 << 16),
                               (1 << 30) + (1 << 22) + 1,
                               std::numeric_limits<int32_t>::max(),
                               std::numeric_limits<int32_t>::min()};
  std::mt19937 gen(5);
  for (int i = 0; i < 20000; ++i) vals.push_back(int32_t(gen()) >> (gen() % 31));
  for (const Format& f : formats()) {
    std::vector<uint8_t> out(vals.size() * 2);
    convert(vals.data(), DType::i32, out.data(), f.type, vals.size());
    for (size_t i = 0; i < vals.size(); ++i) {
      uint32_t got = 0;
      std::memcpy(&got, out.data() + i * dtype_size(f.type), dtype_size(f.type));
      ASSERT_EQ(got, reference_rne(f, double(vals[i]))) << f.name << " " << vals[i];
    }
  }
  // The classic trap: 2^24 + 2^16 + 1 is just above the bf16 midpoint 2^24 + 2^16, but rounds to exactly that
  // midpoint in f32, from where a second RNE would go down to 2^24.
  int32_t trap = (1 << 24) + (1 << 16) + 1;
  uint16_t b = 0;
  convert(&trap, DType::i32, &b, DType::bf16, 1);
  EXPECT_EQ(bf16_to_f32(b), float((1 << 24) + (1 << 17)));
}

// ---- Bulk convert ----

// Source values in every type, built from a float list through the (already verified) scalar encoders.
std::vector<float> sample_floats() {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> v = {0.0f,        -0.0f,
                          1.0f,        -1.0f,
                          0.1f,        1.0f / 3,
                          2.5f,        -3.5f,
                          448.0f,      470.0f,
                          57344.0f,    65504.0f,
                          65520.0f,    1e6f,
                          -1e30f,      1e-3f,
                          1e-6f,       1e-8f,
                          1e-40f,      inf,
                          -inf,        std::numeric_limits<float>::quiet_NaN(),
                          123456.789f, -7.75f};
  std::mt19937 gen(8);
  for (int i = 0; i < 200; ++i)
    v.push_back(std::ldexp(float(int(gen() % 2001) - 1000) / 1000.0f, int(gen() % 36) - 20));
  return v;
}

struct Codec {
  DType type;
  std::function<float(const void*, size_t)> load;                   // element i as f32 (exact)
  std::function<void(void*, size_t, float, bool, uint32_t)> store;  // encode (RNE or SR with r)
};
const std::vector<Codec>& codecs() {
  static const std::vector<Codec> all = {
      {DType::f32, [](const void* p, size_t i) { return static_cast<const float*>(p)[i]; },
       [](void* p, size_t i, float x, bool, uint32_t) { static_cast<float*>(p)[i] = x; }},
      {DType::bf16, [](const void* p, size_t i) { return bf16_to_f32(static_cast<const uint16_t*>(p)[i]); },
       [](void* p, size_t i, float x, bool sr, uint32_t r) {
         static_cast<uint16_t*>(p)[i] = sr ? f32_to_bf16_sr(x, r) : f32_to_bf16(x);
       }},
      {DType::f16, [](const void* p, size_t i) { return f16_to_f32(static_cast<const uint16_t*>(p)[i]); },
       [](void* p, size_t i, float x, bool sr, uint32_t r) {
         static_cast<uint16_t*>(p)[i] = sr ? f32_to_f16_sr(x, r) : f32_to_f16(x);
       }},
      {DType::f8e4m3, [](const void* p, size_t i) { return f8e4m3_to_f32(static_cast<const uint8_t*>(p)[i]); },
       [](void* p, size_t i, float x, bool sr, uint32_t r) {
         static_cast<uint8_t*>(p)[i] = sr ? f32_to_f8e4m3_sr(x, r) : f32_to_f8e4m3(x);
       }},
      {DType::f8e5m2, [](const void* p, size_t i) { return f8e5m2_to_f32(static_cast<const uint8_t*>(p)[i]); },
       [](void* p, size_t i, float x, bool sr, uint32_t r) {
         static_cast<uint8_t*>(p)[i] = sr ? f32_to_f8e5m2_sr(x, r) : f32_to_f8e5m2(x);
       }},
      {DType::i32, [](const void* p, size_t i) { return float(static_cast<const int32_t*>(p)[i]); },
       [](void* p, size_t i, float x, bool sr, uint32_t r) {
         static_cast<int32_t*>(p)[i] = sr ? f32_to_i32_sr(x, r) : f32_to_i32(x);
       }},
  };
  return all;
}

bool same_element(DType t, const uint8_t* a, const uint8_t* b) {
  // NaNs of float types compare by class (payload bits of a NaN are not part of the contract across types).
  if (t == DType::f32) {
    float x, y;
    std::memcpy(&x, a, 4), std::memcpy(&y, b, 4);
    if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
  }
  return std::memcmp(a, b, dtype_size(t)) == 0;
}

// Every (src, dst) pair, both rounding modes, on a small array: equals decode-then-encode by the scalar functions
// (with r = random_u32(seed, stream, index0 + i) under SR). i32 sources are kept within 2^24 here so the f32
// intermediate is exact; larger ints are covered by I32ToNarrowFloatIsCorrectlyRounded.
TEST(Convert, EveryPairOfTypesMatchesTheScalarFunctions) {
  const std::vector<float> xs = sample_floats();
  const size_t n = xs.size();
  const uint64_t seed = 77, stream = 3, index0 = 1000;
  for (const Codec& s : codecs()) {
    std::vector<uint8_t> src(n * 4);
    for (size_t i = 0; i < n; ++i) {
      float x = xs[i];
      if (s.type == DType::i32) x = std::clamp(x, -16777216.0f, 16777216.0f);
      s.store(src.data(), i, x, false, 0);
    }
    for (const Codec& d : codecs()) {
      for (Rounding mode : {Rounding::nearest_even, Rounding::stochastic}) {
        const bool sr = mode == Rounding::stochastic;
        std::vector<uint8_t> got(n * 4 + 4, 0xAB), want(n * 4 + 4, 0xAB);
        convert(src.data(), s.type, got.data(), d.type, n, mode, seed, stream, index0);
        for (size_t i = 0; i < n; ++i) {
          if (s.type == d.type) {
            std::memcpy(want.data() + i * dtype_size(d.type), src.data() + i * dtype_size(s.type), dtype_size(d.type));
          } else {
            d.store(want.data(), i, s.load(src.data(), i), sr, random_u32(seed, stream, index0 + i));
          }
        }
        for (size_t i = 0; i < n; ++i) {
          const size_t off = i * dtype_size(d.type);
          ASSERT_TRUE(same_element(d.type, got.data() + off, want.data() + off))
              << dtype_name(s.type) << " -> " << dtype_name(d.type) << (sr ? " SR" : " RNE") << " element " << i
              << " (x=" << xs[i] << ")";
        }
        EXPECT_EQ(got[n * dtype_size(d.type)], 0xAB) << "wrote past the end";
      }
    }
  }
}

TEST(Convert, BulkBf16FastPathsMatchScalarAtParallelSizes) {
  std::vector<uint16_t> all(65536);
  for (uint32_t b = 0; b < 65536; ++b) all[b] = uint16_t(b);
  std::vector<float> f(65536);
  convert(all.data(), DType::bf16, f.data(), DType::f32, all.size());
  for (uint32_t b = 0; b < 65536; ++b) ASSERT_EQ(bits(f[b]), b << 16);
  std::mt19937 gen(1);
  std::vector<float> x(300'001);
  for (float& v : x) v = from_bits(gen());
  std::vector<uint16_t> y(x.size());
  convert(x.data(), DType::f32, y.data(), DType::bf16, x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i])) {
      ASSERT_EQ(y[i] & 0x7FC0, 0x7FC0);
    } else {
      ASSERT_EQ(y[i], reference_rne(formats()[0], x[i])) << hex(bits(x[i]));
    }
  }
}

// Bulk SR depends only on (seed, stream, index0 + i): not on the thread count, not on how the array is split.
TEST(Convert, BulkSrIsIndependentOfThreadsAndSplitting) {
  const size_t n = 100'003;
  std::mt19937 gen(2);
  std::vector<float> x(n);
  for (float& v : x) v = std::ldexp(float(int(gen() % 20001) - 10000) / 10000.0f, int(gen() % 30) - 14);
  const int saved = omp_get_max_threads();
  for (const Codec& d : codecs()) {
    if (d.type == DType::f32) continue;
    const size_t ds = dtype_size(d.type);
    std::vector<uint8_t> one(n * ds), two(n * ds), split(n * ds), want(n * ds);
    omp_set_num_threads(1);
    convert(x.data(), DType::f32, one.data(), d.type, n, Rounding::stochastic, 123, 9, 50);
    omp_set_num_threads(2);
    convert(x.data(), DType::f32, two.data(), d.type, n, Rounding::stochastic, 123, 9, 50);
    const size_t k = 40'001;  // odd split point: index0 not a multiple of 4 for the second part
    convert(x.data(), DType::f32, split.data(), d.type, k, Rounding::stochastic, 123, 9, 50);
    convert(x.data() + k, DType::f32, split.data() + k * ds, d.type, n - k, Rounding::stochastic, 123, 9, 50 + k);
    for (size_t i = 0; i < n; ++i) d.store(want.data(), i, x[i], true, random_u32(123, 9, 50 + i));
    EXPECT_EQ(one, two) << dtype_name(d.type);
    EXPECT_EQ(one, split) << dtype_name(d.type);
    EXPECT_EQ(one, want) << dtype_name(d.type);
    // A different stream gives a different rounding pattern.
    std::vector<uint8_t> other(n * ds);
    convert(x.data(), DType::f32, other.data(), d.type, n, Rounding::stochastic, 123, 10, 50);
    EXPECT_NE(one, other) << dtype_name(d.type);
  }
  omp_set_num_threads(saved);
}

TEST(Convert, InPlaceAndOverlapRules) {
  std::vector<float> buf = {1.5f, 2.5f, -7.2f, 1e10f};
  convert(buf.data(), DType::f32, buf.data(), DType::i32, buf.size());  // same size: in place is allowed
  int32_t ints[4];
  std::memcpy(ints, buf.data(), sizeof ints);
  EXPECT_EQ(ints[0], 2);
  EXPECT_EQ(ints[1], 2);
  EXPECT_EQ(ints[2], -7);
  EXPECT_EQ(ints[3], std::numeric_limits<int32_t>::max());
  std::vector<uint8_t> raw(64);
  EXPECT_THROW(convert(raw.data(), DType::bf16, raw.data(), DType::f32, 8), Error);     // grows in place
  EXPECT_THROW(convert(raw.data(), DType::f32, raw.data() + 2, DType::f32, 4), Error);  // shifted overlap
  EXPECT_THROW(convert(nullptr, DType::f32, raw.data(), DType::bf16, 1), Error);
  EXPECT_NO_THROW(convert(nullptr, DType::f32, nullptr, DType::bf16, 0));
}

// ---- dtype_from_name ----

TEST(DTypeNames, ParsesEveryAliasAndRejectsOthers) {
  const std::pair<const char*, DType> aliases[] = {
      {"f32", DType::f32},         {"fp32", DType::f32},      {"bf16", DType::bf16},       {"f16", DType::f16},
      {"fp16", DType::f16},        {"f8e4m3", DType::f8e4m3}, {"fp8_e4m3", DType::f8e4m3}, {"f8e5m2", DType::f8e5m2},
      {"fp8_e5m2", DType::f8e5m2}, {"i32", DType::i32},       {"int32", DType::i32},       {"fp8e4m3", DType::f8e4m3},
  };
  for (auto [text, t] : aliases) EXPECT_EQ(dtype_from_name(text), t) << text;
  for (DType t : {DType::f32, DType::bf16, DType::f16, DType::f8e4m3, DType::f8e5m2, DType::i32}) {
    EXPECT_EQ(dtype_from_name(dtype_name(t)), t);
  }
  for (const char* bad : {"fp64", "", "BF16", "bf16 ", "e4m3"}) {
    try {
      dtype_from_name(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_NE(e.message().find("'" + std::string(bad) + "'"), std::string::npos) << e.message();
    }
  }
}

TEST(DTypeNames, AFieldTakingSomeDtypesRefusesTheOthersByName) {
  EXPECT_EQ(dtype_from_name("fp32", {DType::f32, DType::bf16}, "train.precision"), DType::f32);
  EXPECT_EQ(dtype_from_name("bf16", {DType::f32, DType::bf16}, "train.precision"), DType::bf16);
  for (const char* bad : {"f16", "fp8", ""}) {
    try {
      dtype_from_name(bad, {DType::f32, DType::bf16}, "train.precision");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.message(), "train.precision must be one of f32, bf16, got '" + std::string(bad) + "'");
    }
  }
}

}  // namespace
}  // namespace nanotrn
