// Per-rank HBM use. See device_memory.h.
#include "predict/device_memory.h"

#include <algorithm>

#include "base/error.h"
#include "base/format.h"
#include "recipe/memory_need.h"

namespace nanotrn::predict {

double RankMemory::total() const {
  double t = 0;
  for (const MemoryItem& i : items) t += i.bytes;
  return t;
}

const MemoryItem& RankMemory::largest() const {
  check(!items.empty(), "RankMemory: no items");
  return *std::max_element(items.begin(), items.end(),
                           [](const MemoryItem& a, const MemoryItem& b) { return a.bytes < b.bytes; });
}

std::string RankMemory::describe() const {
  std::string s;
  for (const MemoryItem& i : items) {
    if (i.bytes > 0) s += i.name + " " + format_bytes(i.bytes) + ", ";
  }
  return s + "total " + format_bytes(total()) + " of " + format_bytes(capacity);
}

RankMemory rank_memory(const recipe::Recipe& r, const model::GptConfig& c, const Layout& l, DType dtype, int mtp_heads,
                       double capacity) {
  const model::ParamCounts n = model::count_params(c);
  const double params = static_cast<double>(n.total());
  const double e = static_cast<double>(dtype_size(dtype));
  const double dp = static_cast<double>(l.ranks);
  const int64_t zero = l.ranks > 1 ? r.launch.zero : 0;  // one rank has nothing to shard over
  const double d = static_cast<double>(c.model_dim), hd = static_cast<double>(c.head_dim);
  const double H = static_cast<double>(c.n_head), K = static_cast<double>(c.n_kv_head);
  const double m = static_cast<double>(c.mlp_mult) * d, depth = static_cast<double>(c.depth);
  const double tokens = static_cast<double>(l.rows_per_rank * r.batch.seq_len);
  const double block_params = static_cast<double>(n.block_matrices) / std::max(depth, 1.0);

  RankMemory out;
  out.capacity = capacity;
  const double weights = params * (4.0 + (dtype == DType::bf16 ? 2.0 : 0.0));
  out.items.push_back({"weights", zero >= 3 ? weights / dp : weights});
  if (zero >= 3) out.items.push_back({"weight gather buffer", 2 * block_params * e});
  out.items.push_back({"gradients", zero >= 2 ? params * 4.0 / dp : params * 4.0});
  const double opt = recipe::optimizer_state_bytes(c);
  out.items.push_back({"optimizer state", zero >= 1 ? opt / dp : opt});
  if (r.ema.decay > 0.0f) out.items.push_back({"EMA weights", params * 4.0});
  const double per_block = 4 * d + (H + 2 * K) * hd + (H + K) * hd + H * hd + 2 * m;
  const double block_bytes = (per_block * e + 4 * H) * tokens;
  const double head_bytes = (d * e + 4.0 * static_cast<double>(c.vocab_size) * mtp_heads) * tokens;
  const double acts =
      r.launch.recompute ? depth * d * e * tokens + block_bytes + head_bytes : depth * block_bytes + head_bytes;
  out.items.push_back({r.launch.recompute ? "activations (recompute)" : "activations", acts});
  if (l.ranks > 1) {
    const double grad_e = static_cast<double>(dtype_size(dtype));
    out.items.push_back({"collective buffer", zero >= 2 ? block_params * grad_e : params * grad_e});
  }
  return out;
}

void require_fits(const RankMemory& m, const recipe::Recipe& r, const model::GptConfig& c, const Layout& l, DType dtype,
                  int mtp_heads, const std::string& device_name) {
  if (m.fits()) return;
  auto fits_with = [&](recipe::Recipe changed, Layout layout) {
    return rank_memory(changed, c, layout, dtype, mtp_heads, m.capacity).fits();
  };
  std::string fix;
  if (!r.launch.recompute) {
    recipe::Recipe x = r;
    x.launch.recompute = true;
    if (fits_with(x, l)) fix = "launch.recompute=true";
  }
  for (int64_t z = r.launch.zero + 1; fix.empty() && l.ranks > 1 && z <= 3; z++) {
    recipe::Recipe x = r;
    x.launch.zero = z;
    if (fits_with(x, l)) fix = "launch.zero=" + std::to_string(z);
  }
  for (int64_t rows = l.rows_per_rank / 2; fix.empty() && rows >= 1; rows /= 2) {
    Layout x = l;
    x.rows_per_rank = rows;
    if (fits_with(r, x)) {
      fix = std::to_string(rows) + " rows per rank per micro-batch (batch.rows " + std::to_string(rows * l.ranks) +
            " with batch.phases[].accum scaled up to keep the tokens per step)";
    }
  }
  throw Error("predict: recipe '" + r.name + "' does not fit one rank's HBM on " + device_name + ": " + m.describe() +
              "; the largest item is " + m.largest().name + " (" + format_bytes(m.largest().bytes) + "). " +
              (fix.empty() ? "Neither recompute, ZeRO nor fewer rows makes it fit: use more chips or a smaller model"
                           : "Smallest change that fits: " + fix));
}

}  // namespace nanotrn::predict
