// Token sources from a recipe. See data_setup.h.
#include "train/data_setup.h"

#include "base/error.h"
#include "data/synthetic.h"

namespace nanotrn::train {

TrainerData open_training_data(const recipe::Recipe& r, const std::string& setup_command) {
  const int32_t V = static_cast<int32_t>(r.model.vocab_size);
  const std::string& train = r.data.train;
  if (data::is_synthetic_source(train)) {
    const std::string kind = train.substr(std::string(data::kSyntheticPrefix).size());
    check(kind == "random" || kind == "pattern",
          "data.train '" + train + "': synthetic sources are synthetic:random and synthetic:pattern");
    auto make = kind == "random" ? make_random_source : make_pattern_source;
    TrainerData d;
    d.train = make(V, r.seed);
    d.val = make(V, r.seed + 1000003);
    d.token_bytes.assign(static_cast<size_t>(V), 1);
    d.description = d.train->describe() + " (every token counts as 1 byte: val_bpb is bits per token)";
    return d;
  }
  return open_shard_data(r, setup_command);
}

TrainerData open_validation_data(const recipe::Recipe& r, const std::string& setup_command) {
  if (data::is_synthetic_source(r.data.train)) {
    TrainerData d = open_training_data(r, setup_command);
    d.train.reset();
    return d;
  }
  return open_shard_data(r, setup_command, /*with_train=*/false);
}

}  // namespace nanotrn::train
