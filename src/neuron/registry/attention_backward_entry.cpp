// The flash-attention backward kernel's definition (kernels/attention_backward.h): dq, dk, dv of stacked heads from
// q, k, v, o, dout [heads T, d] and the fp32 log-sum-exp [heads T, 1]; an SPMD launch gives each core whole kv
// groups. Its inputs, check and bound: attention_backward_check.h.
#include "neuron/kernels/attention_backward.h"
#include "neuron/registry/attention_backward_check.h"
#include "neuron/registry/attention_params.h"
#include "neuron/registry/builtin_kernels.h"

namespace nanotrn::neuron {

KernelDefinition<AttentionShape> attention_backward_definition() {
  KernelDefinition<AttentionShape> d;
  d.name = "attention_bwd";
  d.description =
      "flash-attention backward dq, dk, dv of stacked heads from q, k, v, o, dout [heads T, d] and the fp32 "
      "log-sum-exp [heads T, 1] (T % 128 == 0, d <= 128 or 256; same masks, ALiBi and GQA as attention): P "
      "recomputed per 128 x 128 tile, masked tiles skipped, dK / dV accumulated in PSUM over each key tile's "
      "queries, dQ in SBUF; pipelined: items software-pipelined over 4 stages (kernels/attention_backward.h)";
  set_attention_parts(d);
  d.build = [](KernelBuilder& b, const AttentionShape& s, const KernelContext& c, KernelIo& io) {
    check_attention_shape(s, c.cores);
    const int64_t t = s.seq, hd = s.head_dim, g = s.variant.group, rows = s.heads * t, kv_rows = rows / g;
    auto tensor = [&](const char* name, int64_t r) { return b.hbm(name, r, hd, c.dtype); };
    const View q = io.add_input(tensor("q", rows));
    const View k = io.add_input(tensor("k", kv_rows));
    const View v = io.add_input(tensor("v", kv_rows));
    const View y = io.add_input(tensor("o", rows));
    const View dy = io.add_input(tensor("dout", rows));
    const View lse = io.add_input(b.hbm("lse", rows, 1, DType::f32));
    const View bounds = s.variant.bounded() ? io.add_input(b.hbm("bounds", t, 2, DType::f32)) : View{};
    const View dq = tensor("dq", rows);
    const View dk = tensor("dk", kv_rows);
    const View dv = tensor("dv", kv_rows);
    const auto [lo, hi] = core_share(s.heads / g, c.core, c.cores);  // whole kv groups per core
    auto mine = [&](const View& x) {
      const int64_t per = x.np == rows ? g * t : t;  // query-head or kv-head rows (the same when g = 1)
      return b.slice(x, lo * per, (hi - lo) * per, 0, x.nf);
    };
    const View wq = io.add_output(dq, mine(dq));
    const View wk = io.add_output(dk, mine(dk));
    const View wv = io.add_output(dv, mine(dv));
    attention_backward_kernel(b,
                              {.q = mine(q),
                               .k = mine(k),
                               .v = mine(v),
                               .o = mine(y),
                               .dout = mine(dy),
                               .lse = mine(lse),
                               .dq = wq,
                               .dk = wk,
                               .dv = wv,
                               .bounds = bounds},
                              (hi - lo) * g, heads_variant(s.variant, lo * g, hi * g), c.schedule);
  };
  d.inputs = make_attention_backward_inputs;
  d.check = check_attention_backward;
  d.flops = attention_backward_flops;
  d.hbm_bytes = [](const AttentionShape& s, DType t) {
    const auto q = static_cast<double>(s.heads * s.seq * s.head_dim * static_cast<int64_t>(dtype_size(t)));
    const double kv = q / static_cast<double>(s.variant.group);
    return 3 * q + 2 * kv + 4 * static_cast<double>(s.heads * s.seq)  // q, o, dout, k, v, lse in
           + q + 2 * kv;                                              // dq, dk, dv out
  };
  return d;
}

}  // namespace nanotrn::neuron
