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
  return s + "total " + format_bytes(total()) + " of " + format_bytes(capacity) +
         (capacity_of.empty() ? "" : " (" + capacity_of + ")");
}

RankMemory rank_memory(const recipe::Recipe& r, const model::GptConfig& c, const Layout& l, DType dtype, int mtp_heads,
                       int64_t accum, double capacity) {
  const int64_t tpn = l.tp;
  const TpShard sh = tp_shard(c, tpn);
  const double tp = static_cast<double>(tpn);
  const bool sp = tpn > 1 && r.launch.sequence_parallel;
  // What one rank holds: the tensor-parallel shard of the parameters, its experts / ep (lowering.h).
  const double pp = static_cast<double>(l.pp);
  const double params = static_cast<double>(rank_parameters(c, tpn, l.ep)) / pp;
  const double e = static_cast<double>(dtype_size(dtype));
  const double dp = static_cast<double>(l.ranks);
  const int64_t zero = l.ranks > 1 ? r.launch.zero : 0;  // one rank has nothing to shard over
  const double d = static_cast<double>(c.model_dim), hd = static_cast<double>(c.head_dim);
  const double H = static_cast<double>(sh.heads), K = static_cast<double>(sh.kv_heads);
  const double m = static_cast<double>(sh.mlp);
  const double depth = static_cast<double>((c.depth + l.pp - 1) / l.pp);  // the first stage's blocks
  const double in_flight = static_cast<double>(std::min(l.pp, std::max<int64_t>(accum, 1)));
  const double tokens = static_cast<double>(l.rows_per_rank * r.batch.seq_len);
  const double rank_blocks = static_cast<double>(rank_block_parameters(c, tpn, l.ep));
  const double block_params = rank_blocks / static_cast<double>(std::max<int64_t>(c.depth, 1));

  RankMemory out;
  out.capacity = capacity;
  const double weights = params * (4.0 + (dtype == DType::bf16 ? 2.0 : 0.0));
  out.items.push_back({"weights", zero >= 3 ? weights / dp : weights});
  if (zero >= 3) out.items.push_back({"weight gather buffer", 2 * block_params * e});
  out.items.push_back({"gradients", zero >= 2 ? params * 4.0 / dp : params * 4.0});
  const double matrices = rank_blocks / pp;  // split evenly
  const double opt = recipe::optimizer_state_bytes(matrices, params - matrices, r.optim.kind);
  out.items.push_back({"optimizer state", zero >= 1 ? opt / dp : opt});
  if (r.ema.decay > 0.0f) out.items.push_back({"EMA weights", params * 4.0});
  // Width-d tensors are replicated over the tp ranks, or split by sequence parallelism.
  const double dw = sp ? d / tp : d;
  const double mlp_saved = model::gated(c.activation) ? 3 : 2;  // (gate, up,) pre- and post-activation
  // A mixture of experts keeps each token's k expert activations, its k routed copies and its router scores.
  const double k = static_cast<double>(std::max<int64_t>(c.experts_per_token, 1));
  const double mlp_acts = c.experts > 0 ? k * (mlp_saved * m + 2 * d) + static_cast<double>(c.experts) : mlp_saved * m;
  const double per_block = 4 * dw + (H + 2 * K) * hd + (H + K) * hd + H * hd + mlp_acts;
  const double block_bytes = (per_block * e + 4 * H) * tokens;
  const double head_bytes = (dw * e + 4.0 * static_cast<double>(sh.vocab) * mtp_heads) * tokens;
  const double acts =
      (r.launch.recompute ? in_flight * depth * dw * e * tokens + block_bytes : in_flight * depth * block_bytes) +
      head_bytes;
  out.items.push_back({r.launch.recompute ? "activations (recompute)" : "activations", acts});
  if (l.ranks > 1) {
    const double grad_e = static_cast<double>(dtype_size(dtype));
    out.items.push_back({"collective buffer", zero >= 2 ? block_params * grad_e : params * grad_e});
  }
  return out;
}

void require_fits(const RankMemory& m, const recipe::Recipe& r, const model::GptConfig& c, const Layout& l, DType dtype,
                  int mtp_heads, int64_t accum, const std::string& device_name) {
  if (m.fits()) return;
  auto fits_with = [&](recipe::Recipe changed, Layout layout) {
    return rank_memory(changed, c, layout, dtype, mtp_heads, accum, m.capacity).fits();
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
  // More expert parallelism: each rank holds fewer experts.
  for (int64_t ep = l.ep * 2; fix.empty() && c.experts > 0 && ep <= l.ranks && c.experts % ep == 0 && l.ranks % ep == 0;
       ep *= 2) {
    Layout x = l;
    x.ep = ep;
    if (fits_with(r, x)) fix = "launch.ep=" + std::to_string(ep);
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
              (fix.empty() ? "Neither recompute, ZeRO nor fewer rows makes it fit: use more chips, tensor or pipeline "
                             "parallelism (launch.tp, launch.pp, launch.ep), or a smaller model"
                           : "Smallest change that fits: " + fix));
}

}  // namespace nanotrn::predict
