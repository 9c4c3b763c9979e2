// Text corpora: reading sources, the deterministic train/validation split, and the prepared corpus folder.
//
//   CorpusInfo c = prepare_default_corpus("out/data/corpus");       // Brown corpus -> train.jsonl / val.jsonl
//   CorpusInfo c = prepare_corpus({"my_texts/", "web.jsonl"}, "out/data/corpus", {.val_fraction = 0.05});
//   std::vector<Document> val = read_corpus_split("out/data/corpus", "val");
//
// Sources: a directory (every regular file under it, sorted by path, hidden files skipped), a .jsonl file (one
// document per line, jsonl.h) or any other file (one document). Text must be valid UTF-8 (else an Error naming the
// file and byte offset). Document ids: the path (or the JSONL id); Brown samples are "brown/ca01" ...
// Split: a document is in validation when split_hash(id) < val_fraction (split_hash is FNV-1a 64 of the id, mixed by
// the splitmix64 finaliser, scaled to [0, 1)); so a document's side never depends on the other documents, and adding
// training text never changes the validation set.
// Prepared folder: train.jsonl and val.jsonl ({"id", "text"} per line) and corpus.json (format "nanotrn-corpus",
// version 1, sources, val_fraction and the counts below), written last: a folder with a valid corpus.json for the
// same sources and fraction is reused as is.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/document.h"

namespace nanotrn::data {

// Where `nanotrn data prepare`, `tokenizer train` and `data tokenize` put their outputs by default.
inline constexpr const char* kDefaultCorpusDir = "out/data/corpus";
inline constexpr const char* kDefaultTokenizerDir = "out/tokenizer";
inline constexpr const char* kDefaultShardDir = "out/data/tokens";

double split_hash(std::string_view id);
bool is_validation(std::string_view id, double val_fraction);

std::vector<Document> read_source(const std::string& path);

struct SplitCounts {
  int64_t docs = 0, bytes = 0, chars = 0;
};

struct CorpusInfo {
  std::string dir;
  std::vector<std::string> sources;  // "brown" for the default corpus
  double val_fraction = 0.1;
  SplitCounts train, val;
  bool reused = false;  // true when an existing prepared folder was valid and kept
};

struct PrepareOptions {
  double val_fraction = 0.1;
  bool force = false;  // rebuild even when the folder is valid
};

CorpusInfo prepare_corpus(const std::vector<std::string>& sources, const std::string& out_dir,
                          const PrepareOptions& options = {});
// The Brown corpus (brown.h) into out_dir; returns quickly when out_dir already holds it.
CorpusInfo prepare_default_corpus(const std::string& out_dir, const PrepareOptions& options = {});

// corpus.json of a prepared folder; throws when it is missing or malformed.
CorpusInfo read_corpus_info(const std::string& dir);
// split: "train" or "val".
std::vector<Document> read_corpus_split(const std::string& dir, const std::string& split);

}  // namespace nanotrn::data
