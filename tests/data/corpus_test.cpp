// Corpus sources: JSONL errors with file and line, UTF-8 checks, the hash split, Brown detagging, prepared folders
// and their files checked against corpus.json (a cut or edited split file is an error, or rebuilt by prepare);
// Parquet sources against the fixtures of tests/io/parquet/ (written by arrow-rs and hyparquet, each with the .jsonl
// of its rows), the text field (--field) of Parquet and JSONL sources, and files of no format read refused.
#include "data/corpus.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/file.h"
#include "data/brown.h"
#include "data/jsonl.h"
#include "data/temp_dir.h"
#include "support/error_of.h"
#include "support/source_path.h"

namespace nanotrn::data {
namespace {

void write_text(const std::string& path, const std::string& s) { write_file_atomic(path, s.data(), s.size()); }

// How every refusal of a file of no format read ends.
const std::string kFormatsReadNote =
    "not a source format nanotrn reads (plain UTF-8 text without NUL bytes, JSON Lines named .jsonl, or Parquet)";

std::string jsonl_error(const std::string& content) {
  try {
    parse_jsonl(content, "c.jsonl");
  } catch (const Error& e) {
    return e.message();
  }
  return "";
}

TEST(Jsonl, ReadsTextAndIds) {
  const auto docs =
      parse_jsonl("{\"text\": \"a\\nb\", \"id\": \"x\"}\n\n{\"text\": \"\\u00e9\", \"n\": 1}\r\n", "c.jsonl");
  ASSERT_EQ(docs.size(), 2u);
  EXPECT_EQ(docs[0].id, "x");
  EXPECT_EQ(docs[0].text, "a\nb");
  EXPECT_EQ(docs[1].id, "c.jsonl:3");
  EXPECT_EQ(docs[1].text, "\xc3\xa9");
  EXPECT_EQ(parse_jsonl(format_jsonl(docs), "d").at(1).text, docs[1].text);
}

TEST(Jsonl, EveryBadLineNamesFileAndLine) {
  EXPECT_EQ(jsonl_error("{\"text\": \"a\"}\n{\"body\": \"b\"}\n"), "c.jsonl:2: no \"text\" field");
  EXPECT_EQ(jsonl_error("{\"text\": 5}"), "c.jsonl:1: the \"text\" field is not a string");
  EXPECT_EQ(jsonl_error("\n\n[1]"), "c.jsonl:3: expected a JSON object");
  EXPECT_EQ(jsonl_error("{\"text\": \"a\"}\n{\"text\": \"a\"").rfind("c.jsonl:2: not valid JSON", 0), 0u);
}

TEST(Utf8, FindsTheFirstInvalidByte) {
  EXPECT_EQ(find_invalid_utf8("abc \xc3\xa9 \xe4\xb8\xad \xf0\x9f\x99\x82"), std::string::npos);
  EXPECT_EQ(find_invalid_utf8("ab\x80"), 2u);
  EXPECT_EQ(find_invalid_utf8("ab\xc3"), 2u);             // truncated
  EXPECT_EQ(find_invalid_utf8("a\xc0\xaf"), 1u);          // overlong
  EXPECT_EQ(find_invalid_utf8("a\xed\xa0\x80"), 1u);      // surrogate
  EXPECT_EQ(find_invalid_utf8("a\xf4\x90\x80\x80"), 1u);  // > U+10FFFF
  EXPECT_EQ(count_utf8_chars("a\xc3\xa9\xe4\xb8\xad"), 3u);
}

TEST(Split, IsAStableFunctionOfTheIdAlone) {
  // Fraction of ids landing in validation is close to the flag, and each id's side is fixed.
  int val = 0;
  for (int i = 0; i < 20000; ++i) val += is_validation("doc" + std::to_string(i), 0.1);
  EXPECT_NEAR(val / 20000.0, 0.1, 0.01);
  EXPECT_EQ(is_validation("brown/ca01", 0.1), is_validation(std::string("brown/") + "ca01", 0.1));
  for (int i = 0; i < 100; ++i) {
    const double h = split_hash("id" + std::to_string(i));
    EXPECT_GE(h, 0.0);
    EXPECT_LT(h, 1.0);
    EXPECT_EQ(is_validation("id" + std::to_string(i), 0.0), false);
  }
}

// The split rule pinned: which of doc0 ... doc199 land in validation at 10 %, and three hashes to the bit. The
// expected values were computed outside nanotrn by an independent implementation of the rule corpus.h states
// (FNV-1a 64 of the id, the splitmix64 finaliser, the top 53 bits scaled to [0, 1)); a changed rule fails here.
TEST(Split, PinnedIdsAndHashes) {
  std::vector<int> val;
  for (int i = 0; i < 200; ++i)
    if (is_validation("doc" + std::to_string(i), 0.1)) val.push_back(i);
  EXPECT_EQ(val, (std::vector<int>{5, 19, 30, 36, 72, 99, 103, 115, 135, 142, 152, 157, 190}));
  EXPECT_EQ(split_hash("brown/ca01"), 0x1.96160dab13af0p-2);
  EXPECT_EQ(split_hash(""), 0x1.ea542bd3536bdp-1);
  EXPECT_EQ(split_hash("j1"), 0x1.28bcac0fadafcp-1);
}

TEST(Brown, DetagsToRunningText) {
  const std::string tagged =
      "\n\n\tThe/at jury/nn said/vbd ``/`` no/at evidence/nn ''/'' ,/, and/cc (/( Atlanta's/np$ )/) "
      "didn't/dod* object/vb ./.\n"
      "It/pps was/bedz 1913/cd ;/. ok/uh ?/.\n\n\n\tNew/jj-hl paragraph/nn-hl ./.-hl\n";
  EXPECT_EQ(detag_brown(tagged),
            "The jury said \"no evidence\", and (Atlanta's) didn't object. It was 1913; ok?\n\nNew paragraph.\n");
}

TEST(Prepare, SplitsDirectoriesAndJsonlAndReusesTheFolder) {
  testing::TempDir dir;
  std::filesystem::create_directories(dir / "src/sub");
  std::filesystem::create_directories(dir / "src/.hidden");
  for (int i = 0; i < 40; ++i) write_text(dir / ("src/f" + std::to_string(i) + ".txt"), "text " + std::to_string(i));
  write_text(dir / "src/.hidden/skip.txt", "never read");
  write_text(dir / "src/sub/more.jsonl", "{\"id\": \"j1\", \"text\": \"from jsonl\"}\n");
  const CorpusInfo info = prepare_corpus({dir / "src"}, dir / "out", {.val_fraction = 0.25});
  EXPECT_FALSE(info.reused);
  EXPECT_EQ(info.train.docs + info.val.docs, 41);
  const auto train = read_corpus_split(dir / "out", "train");
  const auto val = read_corpus_split(dir / "out", "val");
  EXPECT_EQ(static_cast<int64_t>(train.size()), info.train.docs);
  EXPECT_EQ(static_cast<int64_t>(val.size()), info.val.docs);
  for (const Document& d : val) EXPECT_TRUE(is_validation(d.id, 0.25)) << d.id;
  for (const Document& d : train) {
    EXPECT_FALSE(is_validation(d.id, 0.25)) << d.id;
    EXPECT_NE(d.text, "never read");
  }
  // Adding training text never changes the validation set.
  for (int i = 40; i < 80; ++i) write_text(dir / ("src/f" + std::to_string(i) + ".txt"), "more " + std::to_string(i));
  const CorpusInfo again = prepare_corpus({dir / "src"}, dir / "out", {.val_fraction = 0.25});
  EXPECT_TRUE(again.reused);  // same sources and fraction: kept as is
  prepare_corpus({dir / "src"}, dir / "out2", {.val_fraction = 0.25});
  std::vector<std::string> a, b;
  for (const Document& d : val) a.push_back(d.id);
  for (const Document& d : read_corpus_split(dir / "out2", "val")) {
    if (d.id.starts_with("f") && std::stoi(d.id.substr(1)) < 40) b.push_back(d.id);
    if (d.id == "j1") b.push_back(d.id);
  }
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  EXPECT_EQ(a, b);
}

TEST(Prepare, DirectoryIdsAreRelativeToTheSource) {
  testing::TempDir dir;
  std::filesystem::create_directories(dir / "src/sub");
  write_text(dir / "src/sub/a.txt", "alpha");
  write_text(dir / "src/sub/b.jsonl", "{\"text\": \"beta\"}\n");
  const std::vector<Document> docs = read_source(dir / "src");
  ASSERT_EQ(docs.size(), 2u);
  EXPECT_EQ(docs[0].id, "sub/a.txt");
  EXPECT_EQ(docs[0].text, "alpha");
  EXPECT_EQ(docs[1].id, "sub/b.jsonl:1");
  EXPECT_EQ(read_source(dir / "src/sub/b.jsonl").at(0).id, "b.jsonl:1");  // given alone: its name
}

TEST(Prepare, ALoneTextFileIsSplitIntoParagraphsWhereverItLives) {
  testing::TempDir dir;
  std::string book;
  const std::string words(200, 'w');
  for (int i = 0; i < 2000; ++i) book += "Paragraph " + std::to_string(i) + " line one.\nline two " + words + "\n\n";
  std::filesystem::create_directories(dir / "here");
  std::filesystem::create_directories(dir / "there/deeper");
  write_text(dir / "here/book.txt", book);
  write_text(dir / "there/deeper/book.txt", book);
  const std::vector<Document> docs = read_source(dir / "here/book.txt");
  // Documents of several paragraphs (split_text.h: up to 8,000 bytes), each paragraph break kept as a blank line.
  ASSERT_GT(docs.size(), 40u);
  EXPECT_EQ(docs[7].id, "book.txt#7");
  EXPECT_EQ(docs[0].text.rfind("Paragraph 0 line one.\nline two " + words + "\n\nParagraph 1 line one.", 0), 0u);
  const CorpusInfo a = prepare_corpus({dir / "here/book.txt"}, dir / "out_a", {.val_fraction = 0.2});
  const CorpusInfo b = prepare_corpus({dir / "there/deeper/book.txt"}, dir / "out_b", {.val_fraction = 0.2});
  EXPECT_EQ(a.train.docs + a.val.docs, static_cast<int64_t>(docs.size()));
  EXPECT_GT(a.train.docs, 0);
  EXPECT_GT(a.val.docs, 0);  // about a fifth; none would be a split_hash far from uniform
  std::vector<std::string> va, vb;
  for (const Document& d : read_corpus_split(dir / "out_a", "val")) va.push_back(d.id);
  for (const Document& d : read_corpus_split(dir / "out_b", "val")) vb.push_back(d.id);
  EXPECT_EQ(va, vb);  // the same book gives the same split, wherever it lives
}

TEST(Prepare, InvalidUtf8NamesFileAndByte) {
  testing::TempDir dir;
  write_text(dir / "bad.txt", "fine\xff");
  try {
    read_source(dir / "bad.txt");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.message(), dir / "bad.txt" + ": byte 4: not valid UTF-8; " + kFormatsReadNote);
  }
  write_text(dir / "bad.jsonl", "{\"text\": \"a\"}\n{\"txt\": \"b\"}\n");
  try {
    read_source(dir / "bad.jsonl");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.message(), dir / "bad.jsonl" + ":2: no \"text\" field");
  }
}

TEST(Prepare, ACutOrEditedSplitFileIsRefusedThenRebuilt) {
  testing::TempDir dir;
  std::string jsonl;
  for (int i = 0; i < 120; ++i)
    jsonl += "{\"id\": \"d" + std::to_string(i) + "\", \"text\": \"document " + std::to_string(i) + "\"}\n";
  write_text(dir / "in.jsonl", jsonl);
  const CorpusInfo info = prepare_corpus({dir / "in.jsonl"}, dir / "out", {.val_fraction = 0.2});
  const std::string train = dir / "out/train.jsonl";
  const std::vector<uint8_t> full = read_file(train);

  // Keep the first 30 lines: still valid JSONL, so only the recorded size can tell.
  std::string cut(full.begin(), full.end());
  size_t end = 0;
  for (int line = 0; line < 30; ++line) end = cut.find('\n', end) + 1;
  cut.resize(end);
  write_text(train, cut);
  for (const std::string& msg : {testing_support::error_message_of([&] { read_corpus_split(dir / "out", "train"); }),
                                 testing_support::error_message_of([&] { verify_corpus(dir / "out"); })}) {
    EXPECT_NE(msg.find(train + " has " + std::to_string(cut.size()) + " bytes but corpus.json recorded " +
                       std::to_string(full.size())),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find("nanotrn data prepare --force"), std::string::npos) << msg;
  }
  EXPECT_NO_THROW(read_corpus_split(dir / "out", "val"));  // the other file is intact

  // Same size, one character changed: the checksum tells.
  std::string edited(full.begin(), full.end());
  edited[edited.find("document")] = 'D';
  write_text(train, edited);
  EXPECT_NE(
      testing_support::error_message_of([&] { read_corpus_split(dir / "out", "train"); }).find(train + " has CRC-32C "),
      std::string::npos);

  // prepare on the damaged folder rebuilds it from the sources and says why.
  const CorpusInfo rebuilt = prepare_corpus({dir / "in.jsonl"}, dir / "out", {.val_fraction = 0.2});
  EXPECT_FALSE(rebuilt.reused);
  EXPECT_NE(rebuilt.rebuilt_because.find(train + " has CRC-32C"), std::string::npos) << rebuilt.rebuilt_because;
  EXPECT_EQ(read_file(train), full);
  EXPECT_EQ(static_cast<int64_t>(read_corpus_split(dir / "out", "train").size()), info.train.docs);
  EXPECT_TRUE(prepare_corpus({dir / "in.jsonl"}, dir / "out", {.val_fraction = 0.2}).reused);

  // A corpus.json of an older build (no file sizes or checksums) cannot vouch for its files.
  const std::vector<uint8_t> meta = read_file(dir / "out/corpus.json");
  nlohmann::json j = nlohmann::json::parse(meta.begin(), meta.end());
  for (const char* split : {"train", "val"}) {
    j[split].erase("file_bytes");
    j[split].erase("file_crc32c");
  }
  write_text(dir / "out/corpus.json", j.dump());
  const std::string old = testing_support::error_message_of([&] { read_corpus_split(dir / "out", "train"); });
  EXPECT_NE(old.find("corpus.json records no size and checksum for train.jsonl"), std::string::npos) << old;
}

const std::string kParquetDir = testing_support::source_path("tests/io/parquet/");

// A fixture's rows as its writer was given them (its .jsonl): id "<file>#<row>" -> the text of `column`, nulls left
// out; *nulls counts them.
std::map<std::string, std::string> fixture_rows(const std::string& fixture, const std::string& column,
                                                int64_t* nulls = nullptr) {
  const std::vector<uint8_t> bytes = read_file(kParquetDir + fixture + ".jsonl");
  std::istringstream lines(std::string(bytes.begin(), bytes.end()));
  std::map<std::string, std::string> rows;
  int64_t row = 0, skipped = 0;
  for (std::string line; std::getline(lines, line); row++) {
    const nlohmann::json j = nlohmann::json::parse(line).at(column);
    if (j.is_null())
      skipped++;
    else
      rows[fixture + ".parquet#" + std::to_string(row)] = j.get<std::string>();
  }
  if (nulls) *nulls = skipped;
  return rows;
}

// Both splits of a prepared folder, by id.
std::map<std::string, std::string> corpus_documents(const std::string& dir) {
  std::map<std::string, std::string> docs;
  for (const char* split : {"train", "val"}) {
    for (Document& d : read_corpus_split(dir, split)) EXPECT_TRUE(docs.emplace(d.id, std::move(d.text)).second);
  }
  return docs;
}

// Snappy and zstd, v1 and v2 pages, dictionary-encoded and not, nulls, several row groups and pages, both writers:
// the prepared corpus holds exactly the fixture's non-null rows, byte for byte, each under "<file>#<row>".
TEST(PrepareParquet, DocumentsAreTheFixtureRowsByteForByte) {
  testing::TempDir dir;
  for (const std::string fixture : {"v2_dict_snappy", "v1_dict_zstd", "required_v2_dict_zstd", "nulls_v1_dict_snappy",
                                    "nulls_v2_plain_zstd", "row_groups_pages_v2", "hyparquet_v2_dict_snappy"}) {
    SCOPED_TRACE(fixture);
    int64_t nulls = 0;
    const std::map<std::string, std::string> want = fixture_rows(fixture, "text", &nulls);
    const std::string path = kParquetDir + fixture + ".parquet";
    std::vector<std::string> log;
    const CorpusInfo info =
        prepare_corpus({path}, dir / fixture, {.say = [&](const std::string& l) { log.push_back(l); }});
    EXPECT_EQ(corpus_documents(dir / fixture), want);
    EXPECT_EQ(info.train.docs + info.val.docs, static_cast<int64_t>(want.size()));
    EXPECT_GT(info.val.docs, 0);
    const std::string rows = std::to_string(static_cast<int64_t>(want.size()) + nulls);
    EXPECT_EQ(log,
              std::vector<std::string>{path + ": " + std::to_string(want.size()) + " documents from column 'text' of " +
                                       rows + " rows (" + std::to_string(nulls) + " null rows skipped)"});
    // read_source gives them in file order.
    std::vector<std::string> in_order;
    for (const Document& d : read_source(path)) in_order.push_back(d.text);
    std::vector<std::string> want_order;
    for (int64_t row = 0; want_order.size() < want.size(); row++) {
      const auto it = want.find(fixture + ".parquet#" + std::to_string(row));
      if (it != want.end()) want_order.push_back(it->second);
    }
    EXPECT_EQ(in_order, want_order);
  }
}

TEST(PrepareParquet, IdsAreThePathUnderTheDirectoryAndTheMagicDecides) {
  testing::TempDir dir;
  std::filesystem::create_directories(dir / "src/sub");
  std::filesystem::copy_file(kParquetDir + "nulls_v2_plain_zstd.parquet", dir / "src/sub/shard.parquet");
  std::filesystem::copy_file(kParquetDir + "v1_dict_zstd.parquet", dir / "src/shard.data");  // a name that says nothing
  write_text(dir / "src/notes.txt", "plain text");
  const std::vector<Document> docs = read_source(dir / "src");
  std::map<std::string, std::string> got;
  for (const Document& d : docs) got[d.id] = d.text;
  std::map<std::string, std::string> want;
  for (const auto& [id, text] : fixture_rows("v1_dict_zstd", "text"))
    want["shard.data#" + id.substr(id.find('#') + 1)] = text;
  for (const auto& [id, text] : fixture_rows("nulls_v2_plain_zstd", "text"))
    want["sub/shard.parquet#" + id.substr(id.find('#') + 1)] = text;
  want["notes.txt"] = "plain text";
  EXPECT_EQ(got, want);
  EXPECT_EQ(docs.size(), want.size());  // no id twice
}

// --field picks the column; corpus.json records it when it is not "text", so another --field rebuilds the folder.
TEST(PrepareParquet, FieldChoosesTheColumnAndIsRecorded) {
  testing::TempDir dir;
  const std::string path = kParquetDir + "columns.parquet";
  const CorpusInfo title = prepare_corpus({path}, dir / "out", {.val_fraction = 0.2, .field = "title"});
  EXPECT_EQ(title.field, "title");
  EXPECT_EQ(corpus_documents(dir / "out"), fixture_rows("columns", "title"));
  const std::vector<uint8_t> meta = read_file(dir / "out/corpus.json");
  EXPECT_EQ(nlohmann::json::parse(meta.begin(), meta.end()).at("field"), "title");
  EXPECT_EQ(read_corpus_info(dir / "out").field, "title");
  EXPECT_TRUE(prepare_corpus({path}, dir / "out", {.val_fraction = 0.2, .field = "title"}).reused);

  const CorpusInfo text = prepare_corpus({path}, dir / "out", {.val_fraction = 0.2});
  EXPECT_FALSE(text.reused);
  EXPECT_EQ(text.rebuilt_because, "its text was read from field 'title', not 'text'");
  EXPECT_EQ(corpus_documents(dir / "out"), fixture_rows("columns", "text"));
  const std::vector<uint8_t> plain = read_file(dir / "out/corpus.json");
  EXPECT_FALSE(nlohmann::json::parse(plain.begin(), plain.end()).contains("field"));  // the default: as before
  EXPECT_EQ(read_corpus_info(dir / "out").field, "text");
  EXPECT_TRUE(prepare_corpus({path}, dir / "out", {.val_fraction = 0.2}).reused);
}

TEST(PrepareParquet, FieldAppliesToJsonl) {
  testing::TempDir dir;
  std::string jsonl;
  for (int i = 0; i < 30; ++i) jsonl += "{\"body\": \"document " + std::to_string(i) + "\", \"text\": 5}\n";
  write_text(dir / "in.jsonl", jsonl);
  const std::vector<Document> docs = read_source(dir / "in.jsonl", "body");
  ASSERT_EQ(docs.size(), 30u);
  EXPECT_EQ(docs[3].id, "in.jsonl:4");
  EXPECT_EQ(docs[3].text, "document 3");
  EXPECT_EQ(testing_support::error_message_of([&] { read_source(dir / "in.jsonl"); }),
            dir / "in.jsonl" + ":1: the \"text\" field is not a string");
  EXPECT_EQ(testing_support::error_message_of([&] { read_source(dir / "in.jsonl", "title"); }),
            dir / "in.jsonl" + ":1: no \"title\" field");
  const CorpusInfo info = prepare_corpus({dir / "in.jsonl"}, dir / "out", {.val_fraction = 0.2, .field = "body"});
  EXPECT_EQ(info.train.docs + info.val.docs, 30);
  EXPECT_EQ(read_corpus_info(dir / "out").field, "body");
}

TEST(PrepareParquet, AnUnknownColumnNamesTheFileAndListsItsColumns) {
  testing::TempDir dir;
  const std::string path = kParquetDir + "columns.parquet";
  const std::string msg =
      testing_support::error_message_of([&] { prepare_corpus({path}, dir / "out", {.field = "body"}); });
  EXPECT_EQ(msg.rfind(path + ": no column 'body'; the file's columns: ", 0), 0u) << msg;
  for (const char* column : {"id", "title", "text", "tags", "score"}) {
    EXPECT_NE(msg.find(std::string(column) + " ("), std::string::npos) << column << " in " << msg;
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "out/corpus.json"));
}

TEST(PrepareParquet, InvalidUtf8NamesTheFileAndTheRow) {
  testing::TempDir dir;
  // A PLAIN, uncompressed file: its values' bytes lie in the file as they are, so one can be broken in place.
  const std::vector<uint8_t> original = read_file(kParquetDir + "v1_uncompressed.parquet");
  std::string bytes(original.begin(), original.end());
  const std::map<std::string, std::string> rows = fixture_rows("v1_uncompressed", "text");
  int64_t row = 0;
  while (!rows.at("v1_uncompressed.parquet#" + std::to_string(row)).starts_with("Plain ASCII")) row++;
  bytes[bytes.find("Plain ASCII") + 2] = '\xff';
  write_text(dir / "broken.parquet", bytes);
  EXPECT_EQ(testing_support::error_message_of([&] { read_source(dir / "broken.parquet"); }),
            dir / "broken.parquet" + ": row " + std::to_string(row) +
                ": the text of column 'text' is not valid UTF-8 at byte 2");
}

// A binary file is never tokenized as text: in a directory or alone, whether its bytes are not UTF-8 or are UTF-8
// with a NUL byte (a uint16 token shard of small ids is), it is refused naming the file and the byte.
TEST(PrepareParquet, AFileOfNoFormatReadIsRefusedNamingFileAndOffset) {
  testing::TempDir dir;
  std::filesystem::create_directories(dir / "src");
  write_text(dir / "src/a.txt", "fine text");
  write_text(dir / "src/.DS_Store", std::string("\0\0\0\1Bud1\xff", 9));  // hidden: skipped as before
  EXPECT_EQ(read_source(dir / "src").size(), 1u);

  write_text(dir / "src/tokens.bin", std::string("ab\x05\0\x07\0", 6));  // valid UTF-8, but a NUL at byte 3
  const std::string nul = dir / "src/tokens.bin" + ": byte 3: a NUL byte; " + kFormatsReadNote;
  EXPECT_EQ(testing_support::error_message_of([&] { read_source(dir / "src"); }), nul);
  EXPECT_EQ(testing_support::error_message_of([&] { read_source(dir / "src/tokens.bin"); }), nul);
  EXPECT_EQ(testing_support::error_message_of([&] { prepare_corpus({dir / "src"}, dir / "out"); }), nul);
  EXPECT_FALSE(std::filesystem::exists(dir / "out/corpus.json"));
  std::filesystem::remove(dir / "src/tokens.bin");

  write_text(dir / "src/image.png", "\x89PNG\r\n\x1a\n");
  const std::string png = dir / "src/image.png" + ": byte 0: not valid UTF-8; " + kFormatsReadNote;
  EXPECT_EQ(testing_support::error_message_of([&] { read_source(dir / "src"); }), png);
  EXPECT_EQ(testing_support::error_message_of([&] { read_source(dir / "src/image.png"); }), png);
}

TEST(PrepareParquet, AParquetNameWithoutTheMagicIsRefused) {
  testing::TempDir dir;
  std::filesystem::create_directories(dir / "src");
  write_text(dir / "src/shard.parquet", "text, not Parquet");  // valid UTF-8: still not read as text
  const std::string msg =
      dir / "src/shard.parquet" + ": byte 0: no PAR1 magic, so not the Parquet file its name says; " + kFormatsReadNote;
  EXPECT_EQ(testing_support::error_message_of([&] { read_source(dir / "src/shard.parquet"); }), msg);
  EXPECT_EQ(testing_support::error_message_of([&] { read_source(dir / "src"); }), msg);
  EXPECT_EQ(testing_support::error_message_of([&] { source_format(dir / "src/shard.parquet"); }), msg);
  write_text(dir / "src/empty.parquet", "");
  EXPECT_EQ(testing_support::error_message_of([&] {
              read_source(dir / "src/empty.parquet");
            }).rfind(dir / "src/empty.parquet" + ": byte 0: no PAR1 magic", 0),
            0u);
  EXPECT_EQ(source_format(kParquetDir + "columns.parquet"), SourceFormat::parquet);
  EXPECT_EQ(source_format(dir / "a.jsonl"), SourceFormat::jsonl);
  EXPECT_EQ(source_format(dir / "a.txt"), SourceFormat::text);
}

}  // namespace
}  // namespace nanotrn::data
