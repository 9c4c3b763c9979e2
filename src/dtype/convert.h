// Exact conversions between the element types of dtype/dtype.h, scalar and bulk, with round-to-nearest-even or
// stochastic rounding. Every narrow float is held as its bit pattern (uint16_t / uint8_t).
//
//   uint16_t b = f32_to_bf16(x);                  float y = bf16_to_f32(b);
//   float q = round_to(DType::f8e4m3, x);         // "fake-quantise": nearest e4m3 value, as a float
//   convert(src, DType::f32, dst, DType::bf16, n);  // bulk, OpenMP-parallel, vectorised f32 <-> bf16 path
//   round_to_bf16(src, dst, n);                      // f32 -> nearest bf16 value, kept as f32 (one pass)
//
// Not here: arithmetic in narrow types (the host computes in fp32), scaling / amax bookkeeping for fp8 (callers
// scale before converting), non-saturating fp8 modes.
//
// ---- Formats ---------------------------------------------------------------------------------------------------
//  type    bits  exp bias  max finite            min normal  min subnormal  inf  NaN
//  bf16    16    8   127   0x7F7F ~3.39e38       2^-126      2^-133         yes  exp=255, mant!=0
//  f16     16    5   15    0x7BFF 65504          2^-14       2^-24          yes  exp=31,  mant!=0
//  f8e4m3  8     4   7     0x7E   448            2^-6        2^-9           no   S.1111.111 only (0x7F, 0xFF)
//  f8e5m2  8     5   15    0x7B   57344          2^-14       2^-16          yes  S.11111.{01,10,11}
// fp8 encodings are those of the OCP 8-bit Floating Point Specification (OFP8), Revision 1.0 (2023-06-20), Tables 1
// and 2: e4m3 has no infinities and reuses S.1111.{000..110} as normal numbers, which is why its max is 448.
//
// ---- Rounding to nearest (Rounding::nearest_even) ------------------------------------------------------------------
//  * Finite values round to the nearest representable value, ties to the even mantissa (IEEE 754 roundTiesToEven,
//    which OFP8 section 5.2 also prescribes). Subnormals of every target are produced and decoded exactly; results
//    that underflow keep their sign (-tiny -> -0).
//  * bf16, f16: IEEE overflow: a value that rounds beyond max finite becomes +-inf (f16: |x| >= 65520 -> inf).
//    +-inf -> +-inf.
//  * fp8: SATURATING conversion (OFP8 section 5.2 leaves saturation to the implementation; this is the mode of
//    Trainium/NKI casts and of most ML frameworks' training casts): a finite value whose rounding would exceed the
//    max normal becomes +-max normal (e4m3 +-448, e5m2 +-57344). Infinities: e4m3 has none, so +-inf -> +-448;
//    e5m2 keeps +-inf -> +-inf.
//  * NaN -> NaN, never an error:  bf16: quiet NaN, sign and top payload bits kept ((bits >> 16) | 0x0040);
//    f16: quiet NaN, sign and top 9 payload bits kept (0x7E00 | ...);  e4m3: 0x7F / 0xFF (the only NaNs, sign kept);
//    e5m2: canonical quiet NaN 0x7E / 0xFE (sign kept). Decoding a NaN gives a float NaN (bf16/f16 payload kept).
//
// ---- Stochastic rounding (Rounding::stochastic, the *_sr functions) ------------------------------------------------
//  The result is one of the two representable neighbours of x, rounding away from zero (up in magnitude) with
//  probability equal to the fractional distance from the lower neighbour, for r uniform on 32 bits. Precisely: when
//  the conversion drops d low bits of x's significand (d = 16 for bf16; 13 / 20 / 21 for normal f16 / e4m3 / e5m2
//  results; more for their subnormals), the low d bits of r are added to the dropped bits and the sum is truncated,
//  i.e. round up iff dropped + (r mod 2^d) >= 2^d. When d > 32 only the top 32 dropped bits take part (the
//  probability is then exact to 2^-32). Values exactly representable are returned unchanged for every r.
//  Overflow under SR: bf16 / f16 results that round beyond max finite become +-inf (IEEE-like); fp8 saturates to
//  +-max exactly as under RNE. NaN and inf are handled as under RNE.
//
// ---- i32 ---------------------------------------------------------------------------------------------------------
//  float -> i32: round to nearest, ties to even (SR: floor or ceil, up with probability frac(x), r compared with
//    frac * 2^32); saturating: x >= 2^31 -> INT32_MAX, x <= -2^31 -> INT32_MIN, +-inf likewise; NaN -> 0 (a value,
//    not an error, so bulk conversion never throws on data).
//  i32 -> f32: round to nearest even (|i| > 2^24 loses bits). i32 -> bf16 / f16 / fp8: correctly rounded from the
//    exact integer (a round-to-odd f32 intermediate makes the second rounding exact; no double-rounding error).
//    Under SR the probability is taken from that f32 intermediate (exact for |i| <= 2^24).
#pragma once

#include <cstddef>
#include <cstdint>

#include "dtype/dtype.h"

namespace nanotrn {

enum class Rounding : uint8_t { nearest_even, stochastic };

// ---- Scalar conversions ----
uint16_t f32_to_bf16(float x);                 // round to nearest even
uint16_t f32_to_bf16_sr(float x, uint32_t r);  // stochastic: add r's low 16 bits below the kept mantissa, truncate
float bf16_to_f32(uint16_t b);                 // exact

uint16_t f32_to_f16(float x);
uint16_t f32_to_f16_sr(float x, uint32_t r);
float f16_to_f32(uint16_t h);  // exact

uint8_t f32_to_f8e4m3(float x);  // saturating
uint8_t f32_to_f8e4m3_sr(float x, uint32_t r);
float f8e4m3_to_f32(uint8_t b);  // exact

uint8_t f32_to_f8e5m2(float x);  // saturating (inf stays inf)
uint8_t f32_to_f8e5m2_sr(float x, uint32_t r);
float f8e5m2_to_f32(uint8_t b);  // exact

int32_t f32_to_i32(float x);                 // nearest even, saturating, NaN -> 0
int32_t f32_to_i32_sr(float x, uint32_t r);  // floor or ceil, saturating, NaN -> 0
float i32_to_f32(int32_t v);                 // nearest even

// Round a float to the nearest value representable in `t` and return it as float (the "fake-quantise" used by the
// simulator): decode(encode(x)). For t = f32 it returns x unchanged (NaN included); for t = i32 it returns
// (float)f32_to_i32(x), so x >= 2^31 gives 2^31 (INT32_MAX rounded to float). `r` is used only for stochastic mode.
float round_to(DType t, float x, Rounding mode = Rounding::nearest_even, uint32_t r = 0);

// Rounds n floats to their nearest bf16 values (round to nearest even, the rules above) and keeps them as f32: the
// bits of convert() to bf16 and back, in one pass and without the 16-bit copy (the operands of the emulated bf16
// GEMM path, which multiplies them in f32). src == dst is allowed. OpenMP-parallel for large n.
void round_to_bf16(const float* src, float* dst, size_t n);

// Converts n elements of src_type at `src` into dst_type at `dst`, with the rules above. Every float element goes
// through its exact f32 value, so each conversion rounds once. Stochastic rounding draws
// r = random_u32(seed, stream, index0 + i) (base/rng.h) for element i, so results are reproducible and independent
// of the thread count; nearest_even ignores seed/stream/index0. Same-type conversion is a copy. OpenMP-parallel for
// large n. src and dst must not overlap, except that src == dst is allowed when both types have the same size
// (in-place); anything else throws nanotrn::Error, as do null pointers with n > 0.
void convert(const void* src, DType src_type, void* dst, DType dst_type, size_t n,
             Rounding mode = Rounding::nearest_even, uint64_t seed = 0, uint64_t stream = 0, uint64_t index0 = 0);

}  // namespace nanotrn
