// The forward-only rate of a device. See forward_rate.h.
#include "predict/forward_rate.h"

#include "base/error.h"
#include "predict/step_model.h"

namespace nanotrn::predict {

ForwardRate forward_rate(const recipe::Recipe& recipe, const hw::Device& device) {
  StepModel model(recipe, device);
  const StepTime& st = model.step(1, 1);
  ForwardRate r;
  for (const TimedOp& t : st.micro_ops) {
    if (t.op.pass == Pass::forward) r.micro_batch_forward_s += t.cost.seconds;
  }
  check(r.micro_batch_forward_s > 0, "forward_rate: the predicted forward of " + recipe.name + " takes no time");
  r.tokens_per_micro_batch = model.ranks() * model.rows_per_rank() * recipe.batch.seq_len;
  r.tokens_per_s = static_cast<double>(r.tokens_per_micro_batch) / r.micro_batch_forward_s;
  return r;
}

}  // namespace nanotrn::predict
