// Text corpora: reading sources, the deterministic train/validation split, and the prepared corpus folder.
//
//   CorpusInfo c = prepare_default_corpus("out/data/corpus");       // Brown corpus -> train.jsonl / val.jsonl
//   CorpusInfo c = prepare_corpus({"my_texts/", "web.jsonl"}, "out/data/corpus", {.val_fraction = 0.05});
//   CorpusInfo c = prepare_corpus({"shards/"}, "out/data/corpus", {.field = "content", .say = print});  // Parquet
//   std::vector<Document> val = read_corpus_split("out/data/corpus", "val");
//
// Sources: a directory (every regular file under it, sorted by path, hidden files skipped) or one file. A file is read
// by its format (source_format), never guessed at:
//   Parquet     the PAR1 magic at offset 0, whatever the name: one document per non-null value of the text column
//               `field` (io/parquet.h; null rows are skipped and counted, an unknown column is an Error listing the
//               file's columns); a ".parquet" name without the magic is an Error;
//   JSON Lines  a ".jsonl" name: one document per line, its text in the string field `field` (jsonl.h);
//   plain text  anything else, which must be valid UTF-8 without NUL bytes: under a directory one document, given
//               alone its paragraphs (or lines: split_text.h), so that one book still has a training and a validation
//               side.
// A file that is none of these (a binary file, text in another encoding) is an Error naming it and the byte offset
// of the first byte that is not text, and saying which formats are read; text from JSONL and Parquet must be valid
// UTF-8 too (an Error naming the file and line, or row). Document ids do not depend on where the source lives: a
// file under a directory is named by its path relative to that directory ("sub/a.txt"), a file given alone by its
// name; a paragraph is "book.txt#12", a Parquet value "<name>#<row>" (its row in the file, nulls counted:
// "shard-00.parquet#7"), a JSONL line its id (jsonl.h); Brown samples are "brown/ca01" ...
// Split: a document is in validation when split_hash(id) < val_fraction (split_hash is FNV-1a 64 of the id, mixed by
// the splitmix64 finaliser, scaled to [0, 1)); so a document's side never depends on the other documents, and adding
// training text never changes the validation set.
// Prepared folder: train.jsonl and val.jsonl ({"id", "text"} per line) and corpus.json (format "nanotrn-corpus",
// version 1, sources, val_fraction, the field when it is not "text", the counts below and each file's size and
// CRC-32C), written last. A folder is only as good as its files: reading a split (read_corpus_split) or checking a
// folder (verify_corpus) compares the file with what corpus.json recorded, and a file that changed since (cut,
// edited) or a corpus.json that records no checksum (older builds) is an Error naming the file and how to rebuild
// it. prepare_corpus reuses a folder only when it verifies for the same sources, fraction and field, and otherwise
// rebuilds it and says why (rebuilt_because).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "data/document.h"
#include "data/split_text.h"

namespace nanotrn::data {

// Where `nanotrn data prepare`, `tokenizer train` and `data tokenize` put their outputs by default.
inline constexpr const char* kDefaultCorpusDir = "out/data/corpus";
inline constexpr const char* kDefaultTokenizerDir = "out/tokenizer";
inline constexpr const char* kDefaultShardDir = "out/data/tokens";

// The field of a JSONL line and the column of a Parquet file that hold a document's text, unless told otherwise.
inline constexpr const char* kDefaultTextField = "text";

double split_hash(std::string_view id);
bool is_validation(std::string_view id, double val_fraction);

// How read_source reads one file (see the top of this file); a ".parquet" name without the magic is an Error.
enum class SourceFormat { text, jsonl, parquet };
SourceFormat source_format(const std::string& file);

// A line of progress for the log (one per Parquet file: its documents and the null rows skipped); null: quiet.
using SourceLog = std::function<void(const std::string&)>;

std::vector<Document> read_source(const std::string& path, const std::string& field = kDefaultTextField,
                                  const SourceLog& log = nullptr);
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
  std::string field = kDefaultTextField;  // the JSONL field / Parquet column the text was read from
  SplitCounts train, val;
  bool reused = false;          // true when an existing prepared folder was valid and kept
  std::string rebuilt_because;  // why an existing folder was not kept (empty: it was, or there was none)
};

struct PrepareOptions {
  double val_fraction = 0.1;
  bool force = false;                     // rebuild even when the folder is valid
  std::string field = kDefaultTextField;  // the text field of JSONL sources and the text column of Parquet ones
  SourceLog say = nullptr;                // read_source's log lines (not called when the folder is kept)
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
