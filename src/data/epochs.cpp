// Epochs of the training data a run needs. See epochs.h.
#include "data/epochs.h"

#include "base/format.h"
#include "data/shard.h"
#include "data/synthetic.h"

namespace nanotrn::data {

DataEpochs epochs_needed(const std::string& train_glob, int64_t tokens) {
  DataEpochs e;
  e.tokens = tokens;
  if (is_synthetic_source(train_glob)) return e;
  const std::vector<std::string> files = glob_shards(train_glob);
  if (files.empty()) return e;
  for (const std::string& f : files) e.train_tokens += MappedShard(f, 0).view().count;
  if (e.train_tokens <= 0) return e;
  e.known = true;
  e.epochs = static_cast<double>(tokens) / static_cast<double>(e.train_tokens);
  return e;
}

std::string epochs_line(const DataEpochs& e) {
  std::string s = "the run's " + format_count(e.tokens) + " training tokens are " + format_number("%.2f", e.epochs) +
                  " epochs of data.train (" + format_count(e.train_tokens) + " tokens)";
  if (e.epochs > 4)
    s += ": the data repeats " + format_number("%.0f", e.epochs) +
         " times; beyond about 4 epochs repeated tokens are worth less than fresh ones (Muennighoff et al. 2023), so "
         "a larger corpus would train better";
  else if (e.epochs > 1)
    s += ": some data repeats (up to about 4 epochs costs little: Muennighoff et al. 2023)";
  return s;
}

}  // namespace nanotrn::data
