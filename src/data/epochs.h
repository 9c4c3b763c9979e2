// How many passes over the training shards a run needs: one rule for `predict`, `train` and `forecast`, which all
// say it, because a budget that loops over a small corpus many times trains on repeated data (and repeated data
// bends the scaling law: Muennighoff et al. 2023, "Scaling Data-Constrained Language Models").
//
//   DataEpochs e = epochs_needed("out/data/tokens/train_*.bin", 50'331'648);   // e.known, e.train_tokens, e.epochs
//   if (e.known) print(epochs_line(e));   // "the run's 50,331,648 tokens are 33.43 epochs of data.train (...)"
//
// The shards' token counts come from their headers (data/shard.h; each file is mapped and its size checked). A
// source that is not shards (synthetic:..., no file matching the glob yet) is not known: nothing to say.
#pragma once

#include <cstdint>
#include <string>

namespace nanotrn::data {

struct DataEpochs {
  bool known = false;
  int64_t tokens = 0;        // what the run trains on
  int64_t train_tokens = 0;  // what data.train holds
  double epochs = 0;         // tokens / train_tokens
};

DataEpochs epochs_needed(const std::string& train_glob, int64_t tokens);
// One line: the epochs, and from more than one epoch on that the data repeats (from 4 on: that the repetition
// costs loss a fresh-token law does not see; Muennighoff et al. find up to ~4 epochs nearly as good as fresh data).
std::string epochs_line(const DataEpochs& e);

}  // namespace nanotrn::data
