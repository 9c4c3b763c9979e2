// Corpus sources, split and prepared folders. See corpus.h.
#include "data/corpus.h"
#include "base/json_parse.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/file.h"
#include "base/format.h"
#include "data/brown.h"
#include "data/jsonl.h"
#include "data/split_text.h"
#include "io/crc32c.h"
#include "io/parquet.h"

namespace nanotrn::data {

namespace fs = std::filesystem;

double split_hash(std::string_view id) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : id) {
    h ^= static_cast<uint8_t>(c);
    h *= 0x100000001b3ull;
  }
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebull;
  h ^= h >> 31;
  return static_cast<double>(h >> 11) * 0x1.0p-53;
}

bool is_validation(std::string_view id, double val_fraction) { return split_hash(id) < val_fraction; }

namespace {

// The end of every message about a file of no format read_source reads.
const char* kFormats =
    "not a source format nanotrn reads (plain UTF-8 text without NUL bytes, JSON Lines named .jsonl, or Parquet)";

// A plain text file: valid UTF-8 and no NUL byte, else it is not text (a binary file, another encoding).
Document read_text_file(const std::string& path, const std::string& id) {
  const std::vector<uint8_t> bytes = read_file(path);
  Document d{id, std::string(bytes.begin(), bytes.end())};
  const size_t bad = find_invalid_utf8(d.text), nul = d.text.find('\0');
  if (nul < bad) throw Error(path + ": byte " + std::to_string(nul) + ": a NUL byte; " + kFormats);
  check(bad == std::string::npos, path + ": byte " + std::to_string(bad) + ": not valid UTF-8; " + kFormats);
  return d;
}

// One document per non-null value of a Parquet file's text column, with id "<id_base>#<row>".
std::vector<Document> read_parquet_source(const std::string& path, const std::string& id_base, const std::string& field,
                                          const SourceLog& log) {
  std::vector<Document> docs;
  const io::ParquetReadStats s = io::read_parquet_rows(path, field, [&](uint64_t row, std::string_view text) {
    const size_t bad = find_invalid_utf8(text);
    check(bad == std::string_view::npos, path + ": row " + std::to_string(row) + ": the text of column '" + field +
                                             "' is not valid UTF-8 at byte " + std::to_string(bad));
    docs.push_back({id_base + "#" + std::to_string(row), std::string(text)});
  });
  if (log) {
    log(path + ": " + std::to_string(s.values) + " documents from column '" + field + "' of " + std::to_string(s.rows) +
        " rows (" + std::to_string(s.nulls) + " null rows skipped)");
  }
  return docs;
}

// One file of a source, named `id` in its documents' ids; `alone`: given by itself rather than found in a directory.
std::vector<Document> read_file_source(const fs::path& file, const std::string& id, bool alone,
                                       const std::string& field, const SourceLog& log) {
  switch (source_format(file.string())) {
    case SourceFormat::parquet:
      return read_parquet_source(file.string(), id, field, log);
    case SourceFormat::jsonl:
      return read_jsonl(file.string(), field, id);
    case SourceFormat::text:
      break;
  }
  if (alone) return split_text(read_text_file(file.string(), id)).docs;
  return {read_text_file(file.string(), id)};
}

SplitCounts count(const std::vector<Document>& docs) {
  SplitCounts c;
  for (const Document& d : docs) {
    ++c.docs;
    c.bytes += static_cast<int64_t>(d.text.size());
    c.chars += static_cast<int64_t>(count_utf8_chars(d.text));
  }
  return c;
}

std::string crc_hex(const std::string& bytes) {
  char buf[9];
  std::snprintf(buf, sizeof buf, "%08x", crc32c(bytes.data(), bytes.size()));
  return buf;
}

nlohmann::json counts_json(const SplitCounts& c) {
  return {{"docs", c.docs},
          {"bytes", c.bytes},
          {"chars", c.chars},
          {"file_bytes", c.file_bytes},
          {"file_crc32c", c.file_crc32c}};
}

SplitCounts counts_from(const nlohmann::json& j) {
  SplitCounts c;
  c.docs = j.at("docs").get<int64_t>();
  c.bytes = j.at("bytes").get<int64_t>();
  c.chars = j.at("chars").get<int64_t>();
  if (j.contains("file_bytes") && j.contains("file_crc32c")) {
    c.file_bytes = j.at("file_bytes").get<int64_t>();
    c.file_crc32c = j.at("file_crc32c").get<std::string>();
  }
  return c;
}

const char* kRebuild =
    "rebuild the corpus with `nanotrn data prepare --force` and its sources (or `nanotrn data setup`, which rebuilds "
    "a damaged default corpus)";

// The one rule for a split file: it is what corpus.json recorded when the corpus was prepared.
void check_split_file(const CorpusInfo& info, const std::string& split, const std::string& content) {
  const SplitCounts& c = split == "train" ? info.train : info.val;
  const std::string path = info.dir + "/" + split + ".jsonl";
  check(c.file_bytes >= 0 && !c.file_crc32c.empty(),
        info.dir + "/corpus.json records no size and checksum for " + split +
            ".jsonl (it predates them), so the file cannot be checked; " + kRebuild);
  check(static_cast<int64_t>(content.size()) == c.file_bytes,
        path + " has " + std::to_string(content.size()) + " bytes but corpus.json recorded " +
            std::to_string(c.file_bytes) + " (" + std::to_string(c.docs) +
            " documents) when the corpus was prepared: the file changed since; " + kRebuild);
  const std::string crc = crc_hex(content);
  check(crc == c.file_crc32c, path + " has CRC-32C " + crc + " but corpus.json recorded " + c.file_crc32c +
                                  " when the corpus was prepared: the file changed since; " + kRebuild);
}

std::string read_text(const std::string& path) {
  const std::vector<uint8_t> bytes = read_file(path);
  return std::string(bytes.begin(), bytes.end());
}

void write_text(const std::string& path, const std::string& text) { write_file_atomic(path, text.data(), text.size()); }

}  // namespace

SourceFormat source_format(const std::string& file) {
  if (io::looks_like_parquet(file)) return SourceFormat::parquet;
  const fs::path extension = fs::path(file).extension();
  check(extension != ".parquet", file + ": byte 0: no PAR1 magic, so not the Parquet file its name says; " + kFormats);
  return extension == ".jsonl" ? SourceFormat::jsonl : SourceFormat::text;
}

SplitText read_text_source(const std::string& path) {
  return split_text(read_text_file(path, fs::path(path).filename().string()));
}

std::vector<Document> read_source(const std::string& path, const std::string& field, const SourceLog& log) {
  check(fs::exists(path), "data: no such file or directory: " + path);
  if (!fs::is_directory(path)) return read_file_source(path, fs::path(path).filename().string(), true, field, log);
  std::vector<fs::path> files;
  for (auto it = fs::recursive_directory_iterator(path); it != fs::recursive_directory_iterator(); ++it) {
    const std::string name = it->path().filename().string();
    if (!name.empty() && name[0] == '.') {
      if (it->is_directory()) it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file()) files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  std::vector<Document> docs;
  for (const fs::path& f : files) {
    for (Document& d : read_file_source(f, f.lexically_relative(path).generic_string(), false, field, log))
      docs.push_back(std::move(d));
  }
  return docs;
}

CorpusInfo read_corpus_info(const std::string& dir) {
  const std::string path = dir + "/corpus.json";
  check(fs::exists(path), "data: " + dir + " is not a prepared corpus (no corpus.json); run `nanotrn data prepare`");
  const std::vector<uint8_t> bytes = read_file(path);
  try {
    const nlohmann::json j = nanotrn::parse_json(bytes);
    check(j.at("format") == "nanotrn-corpus" && j.at("version") == 1, path + ": not a version-1 nanotrn corpus");
    CorpusInfo info;
    info.dir = dir;
    info.sources = j.at("sources").get<std::vector<std::string>>();
    info.val_fraction = j.at("val_fraction").get<double>();
    info.field = j.value("field", std::string(kDefaultTextField));  // recorded only when not the default
    info.train = counts_from(j.at("train"));
    info.val = counts_from(j.at("val"));
    return info;
  } catch (const nlohmann::json::exception& e) {
    throw Error(path + ": malformed: " + e.what());
  }
}

namespace {

// Whether dir holds a verified corpus of these sources, fraction and field; *why says why not (empty: no corpus
// there).
bool reusable(const std::string& dir, const std::vector<std::string>& sources, double val_fraction,
              const std::string& field, std::string* why) {
  if (!fs::exists(dir + "/corpus.json")) return false;
  try {
    const CorpusInfo info = verify_corpus(dir);
    if (info.sources != sources) {
      *why = "it was prepared from other sources";
    } else if (info.val_fraction != val_fraction) {
      *why = "it was prepared with validation fraction " + format_number("%g", info.val_fraction) + ", not " +
             format_number("%g", val_fraction);
    } else if (info.field != field) {
      *why = "its text was read from field '" + info.field + "', not '" + field + "'";
    } else {
      return true;
    }
  } catch (const Error& e) {
    *why = e.message();
  }
  return false;
}

CorpusInfo write_corpus(std::vector<Document> docs, const std::vector<std::string>& sources, const std::string& out_dir,
                        double val_fraction, const std::string& field) {
  check(val_fraction >= 0.0 && val_fraction < 1.0,
        "data: the validation fraction must be in [0, 1), got " + std::to_string(val_fraction));
  std::vector<Document> train, val;
  for (Document& d : docs) (is_validation(d.id, val_fraction) ? val : train).push_back(std::move(d));
  check(!train.empty(), "data: no training documents after the split");
  make_directories(out_dir);
  CorpusInfo info{out_dir, sources, val_fraction, field, count(train), count(val), false, ""};
  for (const std::string split : {"train", "val"}) {
    const std::string text = format_jsonl(split == "train" ? train : val);
    write_text(out_dir + "/" + split + ".jsonl", text);
    SplitCounts& c = split == "train" ? info.train : info.val;
    c.file_bytes = static_cast<int64_t>(text.size());
    c.file_crc32c = crc_hex(text);
  }
  nlohmann::ordered_json j;
  j["format"] = "nanotrn-corpus";
  j["version"] = 1;
  j["sources"] = sources;
  j["val_fraction"] = val_fraction;
  if (field != kDefaultTextField) j["field"] = field;
  j["train"] = counts_json(info.train);
  j["val"] = counts_json(info.val);
  write_text(out_dir + "/corpus.json", j.dump(2) + "\n");
  return info;
}

}  // namespace

CorpusInfo prepare_corpus(const std::vector<std::string>& sources, const std::string& out_dir,
                          const PrepareOptions& options) {
  check(!sources.empty(), "data: no sources to prepare");
  std::string why;
  if (!options.force && reusable(out_dir, sources, options.val_fraction, options.field, &why)) {
    CorpusInfo info = read_corpus_info(out_dir);
    info.reused = true;
    return info;
  }
  std::vector<Document> docs;
  for (const std::string& s : sources) {
    for (Document& d : read_source(s, options.field, options.say)) docs.push_back(std::move(d));
  }
  CorpusInfo info = write_corpus(std::move(docs), sources, out_dir, options.val_fraction, options.field);
  info.rebuilt_because = why;
  return info;
}

CorpusInfo prepare_default_corpus(const std::string& out_dir, const PrepareOptions& options) {
  const std::vector<std::string> sources = {"brown"};
  std::string why;
  if (!options.force && reusable(out_dir, sources, options.val_fraction, kDefaultTextField, &why)) {
    CorpusInfo info = read_corpus_info(out_dir);
    info.reused = true;
    return info;
  }
  CorpusInfo info =
      write_corpus(read_brown(find_brown_dir()), sources, out_dir, options.val_fraction, kDefaultTextField);
  info.rebuilt_because = why;
  return info;
}

std::vector<Document> read_corpus_split(const std::string& dir, const std::string& split) {
  check(split == "train" || split == "val", "data: split must be \"train\" or \"val\", got \"" + split + "\"");
  const std::string path = dir + "/" + split + ".jsonl";
  check(fs::exists(path), "data: no " + path + "; run `nanotrn data prepare`");
  const CorpusInfo info = read_corpus_info(dir);
  const std::string content = read_text(path);
  check_split_file(info, split, content);
  return parse_jsonl(content, path);
}

CorpusInfo verify_corpus(const std::string& dir) {
  const CorpusInfo info = read_corpus_info(dir);
  for (const std::string split : {"train", "val"}) {
    const std::string path = dir + "/" + split + ".jsonl";
    check(fs::exists(path), "data: no " + path + "; " + kRebuild);
    check_split_file(info, split, read_text(path));
  }
  return info;
}

}  // namespace nanotrn::data
