// The functional executor (see executor.h for the numerics contract). Not here: timing, rule checks the builder
// already made.
#include "neuron/sim/executor.h"

#include <algorithm>
#include <cmath>

#include "base/error.h"
#include "base/rng.h"

namespace nanotrn::neuron {
namespace {

float apply_act(Act a, float x) {
  switch (a) {
    case Act::copy:
      return x;
    case Act::exp:
      return std::exp(x);
    case Act::tanh:
      return std::tanh(x);
    case Act::sigmoid:
      return 1.0f / (1.0f + std::exp(-x));
    case Act::relu:
      return x > 0.0f ? x : 0.0f;
    case Act::silu:
      return x / (1.0f + std::exp(-x));
    case Act::gelu_tanh: {
      const float c = 0.7978845608028654f;  // sqrt(2 / pi)
      return 0.5f * x * (1.0f + std::tanh(c * (x + 0.044715f * x * x * x)));
    }
    case Act::square:
      return x * x;
    case Act::rsqrt:
      return 1.0f / std::sqrt(x);
    case Act::reciprocal:
      return 1.0f / x;
  }
  return x;
}

float apply_alu(AluOp op, float a, float b) {
  switch (op) {
    case AluOp::add:
      return a + b;
    case AluOp::subtract:
      return a - b;
    case AluOp::multiply:
      return a * b;
    case AluOp::max:
      return std::fmax(a, b);
    case AluOp::min:
      return std::fmin(a, b);
  }
  return a;
}

// Flat element index of (p, f) of view v in its buffer's row-major storage (rectangle or HBM access pattern).
size_t flat(const View& v, const Buffer& b, int64_t p, int64_t f) {
  if (v.pattern) return static_cast<size_t>(v.p0 * b.cols + v.f0 + p * v.ps + f * v.fs);
  return static_cast<size_t>((v.p0 + p) * b.cols + v.f0 + f);
}

}  // namespace

Executor::Executor(const Program& program, uint64_t seed, ExecutorMode mode)
    : program_(program), seed_(seed), mode_(mode) {
  stores_.resize(program.buffers.size());
  for (size_t i = 0; i < program.buffers.size(); ++i) {
    const size_t n = static_cast<size_t>(program.buffers[i].rows * program.buffers[i].cols);
    stores_[i].data.assign(n, 0.0f);
    stores_[i].written.assign(n, 0);
    stores_[i].by_matmul.assign(n, 0);
  }
}

float& Executor::at(const View& v, int64_t p, int64_t f) {
  const Buffer& b = program_.buffers[static_cast<size_t>(v.buffer)];
  return stores_[static_cast<size_t>(v.buffer)].data[flat(v, b, p, f)];
}

void Executor::set(const View& v, std::span<const float> values) {
  check(v.buffer >= 0 && v.buffer < static_cast<int>(program_.buffers.size()), "Executor::set: unknown buffer");
  check(values.size() == static_cast<size_t>(v.np * v.nf),
        "Executor::set: expected " + std::to_string(v.np * v.nf) + " values, got " + std::to_string(values.size()));
  const Buffer& b = program_.buffers[static_cast<size_t>(v.buffer)];
  Store& s = stores_[static_cast<size_t>(v.buffer)];
  for (int64_t p = 0; p < v.np; ++p)
    for (int64_t f = 0; f < v.nf; ++f) {
      const size_t i = flat(v, b, p, f);
      s.data[i] = round_to(b.dtype, values[static_cast<size_t>(p * v.nf + f)]);
      s.written[i] = 1;
      s.by_matmul[i] = 0;
    }
}

std::vector<float> Executor::get(const View& v) const {
  check(v.buffer >= 0 && v.buffer < static_cast<int>(program_.buffers.size()), "Executor::get: unknown buffer");
  const Buffer& b = program_.buffers[static_cast<size_t>(v.buffer)];
  const Store& s = stores_[static_cast<size_t>(v.buffer)];
  std::vector<float> out(static_cast<size_t>(v.np * v.nf));
  for (int64_t p = 0; p < v.np; ++p)
    for (int64_t f = 0; f < v.nf; ++f) {
      const size_t i = flat(v, b, p, f);
      if (!s.written[i])
        throw Error("[uninitialized-read] reading " + std::string(memory_name(b.memory)) + " '" + b.name + "' [" +
                    std::to_string(v.p0 + p) + ", " + std::to_string(v.f0 + f) + "] which was never written");
      out[static_cast<size_t>(p * v.nf + f)] = s.data[i];
    }
  return out;
}

float Executor::load(const View& v, int64_t p, int64_t f, const Instruction& ins) const {
  const Buffer& b = program_.buffers[static_cast<size_t>(v.buffer)];
  const Store& s = stores_[static_cast<size_t>(v.buffer)];
  const size_t i = flat(v, b, p, f);
  if (!s.written[i])
    throw Error(std::string("[uninitialized-read] ") + opcode_name(ins.op) + " reads " + memory_name(b.memory) + " '" +
                    b.name + "' [" + std::to_string(v.p0 + p) + ", " + std::to_string(v.f0 + f) +
                    "], which no input or earlier instruction wrote",
                ins.where);
  return s.data[i];
}

void Executor::store(const View& v, int64_t p, int64_t f, float x, const Instruction& ins, size_t index) {
  const Buffer& b = program_.buffers[static_cast<size_t>(v.buffer)];
  Store& s = stores_[static_cast<size_t>(v.buffer)];
  const size_t i = flat(v, b, p, f);
  const uint32_t r =
      ins.rounding == Rounding::stochastic ? random_u32(seed_, index, static_cast<uint64_t>(p * v.nf + f)) : 0u;
  s.data[i] = round_to(b.dtype, x, ins.rounding, r);
  s.written[i] = 1;
  s.by_matmul[i] = ins.op == Opcode::matmul;
}

void Executor::run() {
  for (size_t i = 0; i < program_.instructions.size(); ++i) step(i);
}

void Executor::step(size_t index) {
  if (mode_ == ExecutorMode::fast && step_fast(index)) return;
  step_reference(index);
}

void Executor::step_reference(size_t index) {
  const Instruction& ins = program_.instructions.at(index);
  const View& d = ins.dst;
  switch (ins.op) {
    case Opcode::dma_copy:
    case Opcode::copy: {
      std::vector<float> tmp(static_cast<size_t>(d.np * d.nf));  // read all first: src and dst may overlap
      for (int64_t p = 0; p < d.np; ++p)
        for (int64_t f = 0; f < d.nf; ++f) tmp[static_cast<size_t>(p * d.nf + f)] = load(ins.srcs[0], p, f, ins);
      for (int64_t p = 0; p < d.np; ++p)
        for (int64_t f = 0; f < d.nf; ++f) store(d, p, f, tmp[static_cast<size_t>(p * d.nf + f)], ins, index);
      break;
    }
    case Opcode::matmul: {
      const int64_t k_size = ins.srcs[0].np;
      const bool strict_psum = program_.target == "v2" || program_.target == "v3";
      auto index_of = [&](const View& v, int64_t p, int64_t f) {
        return flat(v, program_.buffers[static_cast<size_t>(v.buffer)], p, f);
      };
      // double-row: srcs {st0, mv0, st1, mv1}; MX: {st0, mv0, .., st3, mv3, st_scale, mv_scale}
      const int64_t rows = ins.mx ? 4 : ins.double_row ? 2 : 1;
      auto buffer_name = [&](const View& v) { return program_.buffers[static_cast<size_t>(v.buffer)].name; };
      std::vector<float> out(static_cast<size_t>(d.np * d.nf));
      for (int64_t m = 0; m < d.np; ++m)
        for (int64_t n = 0; n < d.nf; ++n) {
          float acc = ins.accumulate ? load(d, m, n, ins) : 0.0f;
          if (ins.accumulate && strict_psum && !stores_[static_cast<size_t>(d.buffer)].by_matmul[index_of(d, m, n)])
            throw Error("[psum-accumulate] matmul accumulates onto PSUM '" + buffer_name(d) + "' [" +
                            std::to_string(d.p0 + m) + ", " + std::to_string(d.f0 + n) +
                            "], last written by a non-matmul instruction (undefined on NeuronCore-" + program_.target +
                            "; the first matmul into a PSUM location must overwrite)",
                        ins.where);
          for (int64_t j = 0; j < rows; ++j)
            for (int64_t k = 0; k < k_size; ++k) {
              float prod = load(ins.srcs[2 * j], k, m, ins) * load(ins.srcs[2 * j + 1], k, n, ins);  // exact
              if (ins.mx) {  // E8M0 block scales: exact powers of two
                const auto e = static_cast<int>(load(ins.srcs[8], k / 8, m, ins) + load(ins.srcs[9], k / 8, n, ins));
                prod = std::ldexp(prod, e);
              }
              acc += prod;
            }
          out[static_cast<size_t>(m * d.nf + n)] = acc;
        }
      for (int64_t m = 0; m < d.np; ++m)
        for (int64_t n = 0; n < d.nf; ++n) store(d, m, n, out[static_cast<size_t>(m * d.nf + n)], ins, index);
      break;
    }
    case Opcode::transpose: {
      const View& s = ins.srcs[0];
      for (int64_t p = 0; p < s.np; ++p)
        for (int64_t f = 0; f < s.nf; ++f) store(d, f, p, load(s, p, f, ins), ins, index);
      break;
    }
    case Opcode::activation: {
      for (int64_t p = 0; p < d.np; ++p) {
        const float bias = ins.vector_operand ? load(ins.srcs.back(), p, 0, ins) : ins.bias;
        const float scale = ins.scale_vector ? load(ins.srcs[1], p, 0, ins) : ins.scale;
        float sum = 0.0f;
        for (int64_t f = 0; f < d.nf; ++f) {
          const float y = apply_act(ins.act, load(ins.srcs[0], p, f, ins) * scale + bias);
          sum += y;
          store(d, p, f, y, ins, index);
        }
        if (ins.has_reduce_dst) store(ins.reduce_dst, p, 0, sum, ins, index);
      }
      break;
    }
    case Opcode::reciprocal: {
      for (int64_t p = 0; p < d.np; ++p)
        for (int64_t f = 0; f < d.nf; ++f) store(d, p, f, 1.0f / load(ins.srcs[0], p, f, ins), ins, index);
      break;
    }
    case Opcode::tensor_tensor: {
      for (int64_t p = 0; p < d.np; ++p)
        for (int64_t f = 0; f < d.nf; ++f)
          store(d, p, f, apply_alu(ins.alu0, load(ins.srcs[0], p, f, ins), load(ins.srcs[1], p, f, ins)), ins, index);
      break;
    }
    case Opcode::tensor_scalar: {
      for (int64_t p = 0; p < d.np; ++p)
        for (int64_t f = 0; f < d.nf; ++f) {
          const float s0 = ins.vector_operand ? load(ins.srcs[1], p, 0, ins) : ins.scale;
          float x = apply_alu(ins.alu0, load(ins.srcs[0], p, f, ins), s0);
          if (ins.has_op1) x = apply_alu(ins.alu1, x, ins.bias);
          store(d, p, f, x, ins, index);
        }
      break;
    }
    case Opcode::reduce: {
      const View& s = ins.srcs[0];
      for (int64_t p = 0; p < s.np; ++p) {
        float acc = load(s, p, 0, ins);
        for (int64_t f = 1; f < s.nf; ++f) acc = apply_alu(ins.alu0, acc, load(s, p, f, ins));
        store(d, p, 0, ins.negate ? -acc : acc, ins, index);
      }
      break;
    }
    case Opcode::memset: {
      for (int64_t p = 0; p < d.np; ++p)
        for (int64_t f = 0; f < d.nf; ++f) store(d, p, f, ins.value, ins, index);
      break;
    }
    case Opcode::iota: {
      for (int64_t p = 0; p < d.np; ++p)
        for (int64_t f = 0; f < d.nf; ++f) {
          const int64_t v = ins.iota_offset + p * ins.channel_multiplier + f * ins.step;
          store(d, p, f, static_cast<float>(static_cast<int32_t>(v)), ins, index);
        }
      break;
    }
    case Opcode::affine_select: {
      for (int64_t p = 0; p < d.np; ++p)
        for (int64_t f = 0; f < d.nf; ++f) {
          const int64_t v = ins.iota_offset + p * ins.channel_multiplier + f * ins.step;
          store(d, p, f, v >= 0 ? load(ins.srcs[0], p, f, ins) : ins.value, ins, index);
        }
      break;
    }
  }
}

namespace {

bool overlaps(const View& a, const View& b) {
  if (a.buffer != b.buffer) return false;
  if (a.pattern || b.pattern) return true;
  return a.p0 < b.p0 + b.np && b.p0 < a.p0 + a.np && a.f0 < b.f0 + b.nf && b.f0 < a.f0 + a.nf;
}
bool same_rect(const View& a, const View& b) {
  return a.buffer == b.buffer && !a.pattern && !b.pattern && a.p0 == b.p0 && a.np == b.np && a.f0 == b.f0 &&
         a.nf == b.nf;
}

}  // namespace

std::vector<float> Executor::gather(const View& v, const Instruction& ins) const {
  const Buffer& b = program_.buffers[static_cast<size_t>(v.buffer)];
  const Store& s = stores_[static_cast<size_t>(v.buffer)];
  std::vector<float> out(static_cast<size_t>(v.np * v.nf));
  if (v.pattern) {
    for (int64_t p = 0; p < v.np; ++p)
      for (int64_t f = 0; f < v.nf; ++f) out[static_cast<size_t>(p * v.nf + f)] = load(v, p, f, ins);
    return out;
  }
  for (int64_t p = 0; p < v.np; ++p) {
    const size_t base = flat(v, b, p, 0);
    const uint8_t* w = s.written.data() + base;
    const uint8_t* miss = std::find(w, w + v.nf, uint8_t{0});
    if (miss != w + v.nf) load(v, p, miss - w, ins);  // throws, naming the element
    std::copy_n(s.data.data() + base, v.nf, out.data() + p * v.nf);
  }
  return out;
}

void Executor::scatter(const View& v, const float* values, const Instruction& ins, size_t index) {
  const Buffer& b = program_.buffers[static_cast<size_t>(v.buffer)];
  Store& s = stores_[static_cast<size_t>(v.buffer)];
  const bool identity = b.dtype == DType::f32 && ins.rounding == Rounding::nearest_even;
  const uint8_t by_matmul = ins.op == Opcode::matmul;
  for (int64_t p = 0; p < v.np; ++p) {
    const float* row = values + p * v.nf;
    if (v.pattern || !identity) {
      for (int64_t f = 0; f < v.nf; ++f) store(v, p, f, row[f], ins, index);
      continue;
    }
    const size_t base = flat(v, b, p, 0);
    std::copy_n(row, v.nf, s.data.data() + base);
    std::fill_n(s.written.data() + base, v.nf, uint8_t{1});
    std::fill_n(s.by_matmul.data() + base, v.nf, by_matmul);
  }
}

bool Executor::step_fast(size_t index) {
  const Instruction& ins = program_.instructions.at(index);
  const View& d = ins.dst;
  // Element-for-element ops may read the very rectangle they write; anything else overlapping takes the reference
  // path, whose element order is then observable.
  const bool elementwise =
      ins.op == Opcode::tensor_tensor || ins.op == Opcode::reciprocal || ins.op == Opcode::affine_select ||
      ins.op == Opcode::copy || ins.op == Opcode::dma_copy ||
      (ins.op == Opcode::tensor_scalar && !ins.vector_operand) ||
      (ins.op == Opcode::activation && !ins.vector_operand && !ins.scale_vector && !ins.has_reduce_dst);
  for (const View& src : ins.srcs)
    if (overlaps(d, src) && !(elementwise && same_rect(d, src))) return false;
  if (ins.has_reduce_dst) {
    if (overlaps(ins.reduce_dst, d)) return false;
    for (const View& src : ins.srcs)
      if (overlaps(ins.reduce_dst, src)) return false;
  }
  const auto np = d.np, nf = d.nf;
  std::vector<float> out(static_cast<size_t>(np * nf));
  switch (ins.op) {
    case Opcode::dma_copy:
    case Opcode::copy:
      out = gather(ins.srcs[0], ins);
      break;
    case Opcode::matmul: {
      if (ins.mx) return false;  // the E8M0 scales: per-element exponents, the reference path
      const int64_t K = ins.srcs[0].np, M = np, N = nf;
      const int64_t pairs = ins.double_row ? 2 : 1;
      if (ins.accumulate) {
        out = gather(d, ins);
        const bool strict_psum = program_.target == "v2" || program_.target == "v3";
        if (strict_psum) {
          const Buffer& b = program_.buffers[static_cast<size_t>(d.buffer)];
          const Store& s = stores_[static_cast<size_t>(d.buffer)];
          for (int64_t m = 0; m < M; ++m) {
            const uint8_t* bm = s.by_matmul.data() + flat(d, b, m, 0);
            if (std::find(bm, bm + N, uint8_t{0}) != bm + N) return false;  // the reference path names the element
          }
        }
      }
      std::vector<std::vector<float>> st, mv;
      for (int64_t j = 0; j < pairs; ++j) {
        st.push_back(gather(ins.srcs[static_cast<size_t>(2 * j)], ins));
        mv.push_back(gather(ins.srcs[static_cast<size_t>(2 * j + 1)], ins));
      }
      float* o = out.data();
#pragma omp parallel for schedule(static) if (M * N * K * pairs > (int64_t{1} << 18))
      for (int64_t m = 0; m < M; ++m) {
        float* acc = o + m * N;
        for (int64_t j = 0; j < pairs; ++j) {
          const float* a = st[static_cast<size_t>(j)].data();
          const float* bmat = mv[static_cast<size_t>(j)].data();
          for (int64_t k = 0; k < K; ++k) {
            const float x = a[k * M + m];
            const float* row = bmat + k * N;
            for (int64_t n = 0; n < N; ++n) acc[n] += x * row[n];  // the product rounded, then the fp32 add
          }
        }
      }
      break;
    }
    case Opcode::transpose: {
      const View& s = ins.srcs[0];
      const std::vector<float> in = gather(s, ins);
      for (int64_t p = 0; p < s.np; ++p)
        for (int64_t f = 0; f < s.nf; ++f)
          out[static_cast<size_t>(f * s.np + p)] = in[static_cast<size_t>(p * s.nf + f)];
      break;
    }
    case Opcode::activation: {
      const std::vector<float> in = gather(ins.srcs[0], ins);
      const std::vector<float> bias = ins.vector_operand ? gather(ins.srcs.back(), ins) : std::vector<float>{};
      const std::vector<float> scale = ins.scale_vector ? gather(ins.srcs[1], ins) : std::vector<float>{};
      std::vector<float> sums(static_cast<size_t>(np));
      for (int64_t p = 0; p < np; ++p) {
        const float b = ins.vector_operand ? bias[static_cast<size_t>(p)] : ins.bias;
        const float sc = ins.scale_vector ? scale[static_cast<size_t>(p)] : ins.scale;
        float sum = 0.0f;
        const float* x = in.data() + p * nf;
        float* y = out.data() + p * nf;
        for (int64_t f = 0; f < nf; ++f) {
          y[f] = apply_act(ins.act, x[f] * sc + b);
          sum += y[f];
        }
        sums[static_cast<size_t>(p)] = sum;
      }
      scatter(d, out.data(), ins, index);
      if (ins.has_reduce_dst) scatter(ins.reduce_dst, sums.data(), ins, index);
      return true;
    }
    case Opcode::reciprocal: {
      out = gather(ins.srcs[0], ins);
      for (float& x : out) x = 1.0f / x;
      break;
    }
    case Opcode::tensor_tensor: {
      const std::vector<float> a = gather(ins.srcs[0], ins), b = gather(ins.srcs[1], ins);
      for (size_t i = 0; i < out.size(); ++i) out[i] = apply_alu(ins.alu0, a[i], b[i]);
      break;
    }
    case Opcode::tensor_scalar: {
      const std::vector<float> a = gather(ins.srcs[0], ins);
      const std::vector<float> v = ins.vector_operand ? gather(ins.srcs[1], ins) : std::vector<float>{};
      for (int64_t p = 0; p < np; ++p) {
        const float s0 = ins.vector_operand ? v[static_cast<size_t>(p)] : ins.scale;
        for (int64_t f = 0; f < nf; ++f) {
          const auto i = static_cast<size_t>(p * nf + f);
          float x = apply_alu(ins.alu0, a[i], s0);
          if (ins.has_op1) x = apply_alu(ins.alu1, x, ins.bias);
          out[i] = x;
        }
      }
      break;
    }
    case Opcode::reduce: {
      const View& s = ins.srcs[0];
      const std::vector<float> in = gather(s, ins);
      for (int64_t p = 0; p < s.np; ++p) {
        const float* x = in.data() + p * s.nf;
        float acc = x[0];
        for (int64_t f = 1; f < s.nf; ++f) acc = apply_alu(ins.alu0, acc, x[f]);
        out[static_cast<size_t>(p)] = ins.negate ? -acc : acc;
      }
      break;
    }
    case Opcode::memset:
      std::fill(out.begin(), out.end(), ins.value);
      break;
    case Opcode::iota:
    case Opcode::affine_select:  // reads only the kept elements (a masked one may be unwritten)
      for (int64_t p = 0; p < np; ++p)
        for (int64_t f = 0; f < nf; ++f) {
          const int64_t v = ins.iota_offset + p * ins.channel_multiplier + f * ins.step;
          out[static_cast<size_t>(p * nf + f)] = ins.op == Opcode::iota ? static_cast<float>(static_cast<int32_t>(v))
                                                 : v >= 0               ? load(ins.srcs[0], p, f, ins)
                                                                        : ins.value;
        }
      break;
  }
  scatter(d, out.data(), ins, index);
  return true;
}

}  // namespace nanotrn::neuron
