// The one rule for "these shards were made by this tokenizer", used by `train` and `eval bpb` alike (through
// train/shard_source.cpp) before a single id is read.
//
//   check_shards_match_tokenizer("out/data/tokens", tok, "out/tokenizer", "nanotrn data setup --recipe cpu-tiny");
//
// A folder that data::tokenize_corpus wrote holds shards.json, which records the tokenizer's fingerprint (a content
// hash: every id's bytes, the vocabulary size and BOS; tokenize_corpus.h) and its vocabulary size. Both must equal
// those of `tok`, else an Error names shards.json and the tokenizer folder with both values and the command that
// rebuilds the shards (`retokenize`). A shards.json without them (written before they were recorded) is an Error
// too: such shards cannot be shown to match, and a mismatch would score a wrong val_bpb with exit 0; re-tokenizing
// is one command. A folder without shards.json (shards from another tool) cannot be checked: the function returns
// false, and callers say so where the run describes its data.
#pragma once

#include <optional>
#include <string>

#include "tokenizer/tokenizer.h"

namespace nanotrn::data {

bool check_shards_match_tokenizer(const std::string& shards_dir, const tokenizer::Tokenizer& tok,
                                  const std::string& tokenizer_path, const std::string& retokenize);
// The same for a recipe's shard glob (data.train, data.val: "dir/train_*.bin"): the folder is the glob's parent.
bool check_shard_glob_matches_tokenizer(const std::string& glob, const tokenizer::Tokenizer& tok,
                                        const std::string& tokenizer_path, const std::string& retokenize);

// The corpus half of the same question, which a run only warns about (data.corpus is what `data setup` tokenizes, not
// what training reads): a message when the glob's shards.json records another corpus fingerprint than
// corpus_dir/corpus.json (tokenize_corpus.h); nullopt when they agree or either file is missing.
std::optional<std::string> shard_corpus_mismatch(const std::string& glob, const std::string& corpus_dir);

}  // namespace nanotrn::data
