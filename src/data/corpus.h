// Text corpora: reading sources, the deterministic train/validation split, and the prepared corpus folder.
//
//   CorpusInfo c = prepare_default_corpus("out/data/corpus");       // Brown corpus -> train.jsonl / val.jsonl
//   CorpusInfo c = prepare_corpus({"my_texts/", "web.jsonl"}, "out/data/corpus", {.val_fraction = 0.05});
//   std::vector<Document> val = read_corpus_split("out/data/corpus", "val");
//
// Sources: a directory (every regular file under it, sorted by path, hidden files skipped), a .jsonl file (one
// document per line, jsonl.h) or any other file: under a directory one document, given alone its paragraphs (or
// lines: split_text.h), so that one book still has a training and a validation side. Text must be valid UTF-8 (else
// an Error naming the file and byte offset). Document ids do not depend on where the source lives: a file under a
// directory is its path relative to that directory ("sub/a.txt"), a file given alone its name and paragraph
// ("book.txt#12"), a JSONL line its id (jsonl.h); Brown samples are "brown/ca01" ...
// Split: a document is in validation when split_hash(id) < val_fraction (split_hash is FNV-1a 64 of the id, mixed by
// the splitmix64 finaliser, scaled to [0, 1)); so a document's side never depends on the other documents, and adding
// training text never changes the validation set.
// Prepared folder: train.jsonl and val.jsonl ({"id", "text"} per line) and corpus.json (format "nanotrn-corpus",
// version 1, sources, val_fraction, the counts below and each file's size and CRC-32C), written last. A folder is
// only as good as its files: reading a split (read_corpus_split) or checking a folder (verify_corpus) compares the
// file with what corpus.json recorded, and a file that changed since (cut, edited) or a corpus.json that records no
// checksum (older builds) is an Error naming the file and how to rebuild it. prepare_corpus reuses a folder only
// when it verifies for the same sources and fraction, and otherwise rebuilds it and says why (rebuilt_because).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/document.h"
#include "data/split_text.h"

namespace nanotrn::data {

// Where `nanotrn data prepare`, `tokenizer train` and `data tokenize` put their outputs by default.
inline constexpr const char* kDefaultCorpusDir = "out/data/corpus";
inline constexpr const char* kDefaultTokenizerDir = "out/tokenizer";
inline constexpr const char* kDefaultShardDir = "out/data/tokens";

double split_hash(std::string_view id);
bool is_validation(std::string_view id, double val_fraction);

std::vector<Document> read_source(const std::string& path);
// What read_source makes of a lone plain text file, with how it was split (for a log line).
SplitText read_text_source(const std::string& path);

struct SplitCounts {
  int64_t docs = 0, bytes = 0, chars = 0;  // bytes: of the documents' text
  int64_t file_bytes = -1;                 // size of <split>.jsonl; -1 when corpus.json does not record it
  std::string file_crc32c;                 // its CRC-32C, 8 hex digits; empty when not recorded
};

struct CorpusInfo {
  std::string dir;
  std::vector<std::string> sources;  // "brown" for the default corpus
  double val_fraction = 0.1;
  SplitCounts train, val;
  bool reused = false;          // true when an existing prepared folder was valid and kept
  std::string rebuilt_because;  // why an existing folder was not kept (empty: it was, or there was none)
};

struct PrepareOptions {
  double val_fraction = 0.1;
  bool force = false;  // rebuild even when the folder is valid
};

CorpusInfo prepare_corpus(const std::vector<std::string>& sources, const std::string& out_dir,
                          const PrepareOptions& options = {});
// The Brown corpus (brown.h) into out_dir; returns quickly when out_dir already holds it.
CorpusInfo prepare_default_corpus(const std::string& out_dir, const PrepareOptions& options = {});

// corpus.json of a prepared folder; throws when it is missing or malformed. Checks no file: see verify_corpus.
CorpusInfo read_corpus_info(const std::string& dir);
// read_corpus_info, and both split files against it (reads them).
CorpusInfo verify_corpus(const std::string& dir);
// split: "train" or "val"; the file is checked against corpus.json first.
std::vector<Document> read_corpus_split(const std::string& dir, const std::string& split);

}  // namespace nanotrn::data
