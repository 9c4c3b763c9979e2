// The Brown CORE bundle: the sentence rule, every file's layout (each line JSON with exactly its type's fields, gold
// in range, distinct choices), true answers that are the real neighbouring sentences, one CSV row per core.yaml
// task, determinism, the refusals; the same layout and truth checks on the shipped eval_bundles/brown-core.
#include "icl/make_bundle.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <span>

#include <nlohmann/json.hpp>

#include "base/file.h"
#include "data/brown.h"
#include "data/temp_dir.h"
#include "support/error_of.h"
#include "support/source_path.h"

namespace nanotrn::icl {
namespace {

using data::testing::TempDir;
using nlohmann::json;
using testing_support::error_message_of;

std::string read_text(const std::string& path) {
  const std::vector<uint8_t> b = read_file(path);
  return std::string(b.begin(), b.end());
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t end = text.find('\n', pos);
    EXPECT_NE(end, std::string::npos) << "the last line has no '\\n'";
    if (end == std::string::npos) break;
    lines.push_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  return lines;
}

// Letters of a synthetic word, distinct for each n.
std::string word_for(int n) {
  std::string w;
  for (int i = 0; i < 3; ++i, n /= 26) w += static_cast<char>('a' + n % 26);
  return w;
}

// Six documents of three paragraphs: numbered usable sentences, with an unusable heading and a short sentence in
// each paragraph, so that not every neighbour is a pair.
std::vector<data::Document> synthetic_docs() {
  std::vector<data::Document> docs;
  int n = 0;
  for (int d = 0; d < 6; ++d) {
    std::string text;
    for (int p = 0; p < 3; ++p) {
      if (p > 0) text += "\n\n";
      text += "Heading " + std::to_string(d) + " " + std::to_string(p) + " without a stop\n\n";
      for (int s = 0; s < 10; ++s, ++n) {
        if (s > 0) text += " ";
        if (s == 4) text += "Too short here. ";
        if (s % 3 == 1)
          text += "\"Story " + std::to_string(d) + "." + std::to_string(p) + "." + std::to_string(s) +
                  " is quoted,\" said Mr. Jones of the " + word_for(n) + ".";
        else
          text += "Story " + std::to_string(d) + "." + std::to_string(p) + "." + std::to_string(s) +
                  " of this document tells of the " + word_for(n) + ".";
      }
    }
    docs.push_back({"doc/" + std::to_string(d), text});
  }
  return docs;
}

// core.yaml as written by make_bundle.h: each value is JSON. Returns one object per task.
std::vector<json> read_core_yaml(const std::string& path) {
  std::vector<json> tasks;
  bool header = false;
  for (const std::string& line : lines_of(read_text(path))) {
    if (line.empty() || line[0] == '#') continue;
    if (line == "icl_tasks:") {
      header = true;
      continue;
    }
    EXPECT_TRUE(header) << line;
    std::string entry = line;
    if (entry.rfind("- ", 0) == 0) {
      tasks.emplace_back(json::object());
    } else {
      EXPECT_EQ(entry.rfind("  ", 0), 0u) << line;
    }
    entry = entry.substr(2);
    const size_t colon = entry.find(": ");
    EXPECT_NE(colon, std::string::npos) << line;
    if (colon == std::string::npos || tasks.empty()) continue;
    tasks.back()[entry.substr(0, colon)] = json::parse(entry.substr(colon + 2));
  }
  return tasks;
}

// RFC 4180 records (fields quoted with doubled quotes, or plain), lines ending in '\n'.
std::vector<std::vector<std::string>> read_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1, std::vector<std::string>(1));
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    std::string& field = rows.back().back();
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      EXPECT_TRUE(field.empty()) << "a quote inside an unquoted field";
      quoted = true;
    } else if (c == ',') {
      rows.back().emplace_back();
    } else if (c == '\n') {
      rows.emplace_back(1);
    } else {
      field += c;
    }
  }
  EXPECT_FALSE(quoted);
  EXPECT_EQ(rows.back(), std::vector<std::string>(1)) << "the CSV does not end with a line break";
  rows.pop_back();
  return rows;
}

std::set<std::string> keys_of(const json& j) {
  std::set<std::string> k;
  for (const auto& [key, value] : j.items()) k.insert(key);
  return k;
}

// Where each sentence of the documents is (document index) and which sentence follows which.
struct Neighbours {
  std::map<std::string, std::set<size_t>> docs_of;
  std::set<std::pair<std::string, std::string>> next;
  explicit Neighbours(const std::vector<data::Document>& docs) {
    for (size_t d = 0; d < docs.size(); ++d) {
      const std::vector<std::string> s = split_sentences(docs[d].text);
      for (size_t i = 0; i < s.size(); ++i) {
        docs_of[s[i]].insert(d);
        if (i + 1 < s.size()) next.insert({s[i], s[i + 1]});
      }
    }
  }
  bool follows(const std::string& a, const std::string& b) const { return next.count({a, b}) > 0; }
  // A sentence found in the documents, never in the document(s) of `other`.
  bool from_another_document(const std::string& s, const std::string& other) const {
    const auto a = docs_of.find(s), b = docs_of.find(other);
    if (a == docs_of.end() || b == docs_of.end()) return false;
    for (size_t d : a->second)
      if (b->second.count(d)) return false;
    return true;
  }
};

bool all_letters(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isalpha(static_cast<unsigned char>(c))) return false;
  return true;
}

// Every check a bundle folder must pass; with docs, also that each true answer is the real neighbour in them.
void check_bundle(const std::string& dir, int64_t per_task, const std::vector<data::Document>* docs) {
  const std::vector<json> yaml = read_core_yaml(dir + "/core.yaml");
  const std::span<const BundleTask> tasks = brown_bundle_tasks();
  ASSERT_EQ(yaml.size(), tasks.size());
  const std::vector<std::vector<std::string>> csv = read_csv(read_text(dir + "/eval_meta_data.csv"));
  ASSERT_EQ(csv.size(), yaml.size() + 1) << "one CSV row per core.yaml task";
  EXPECT_EQ(csv[0], (std::vector<std::string>{"Eval Task", "Task Category", "Task Type", "#shots", "#datapoints",
                                              "Random baseline", "Centered Metric?", "Description"}));
  std::optional<Neighbours> truth;
  if (docs) truth.emplace(*docs);
  std::set<std::string> labels;
  for (size_t t = 0; t < yaml.size(); ++t) {
    const json& y = yaml[t];
    const BundleTask& task = tasks[t];
    SCOPED_TRACE(task.label);
    EXPECT_EQ(keys_of(y), (std::set<std::string>{"label", "dataset_uri", "num_fewshot", "icl_task_type",
                                                 "continuation_delimiter"}));
    EXPECT_EQ(y.at("label"), task.label);
    EXPECT_TRUE(labels.insert(task.label).second);
    EXPECT_EQ(y.at("dataset_uri"), std::string(task.category) + "/" + task.label + ".jsonl");
    EXPECT_EQ(y.at("num_fewshot"), json::array({task.shots}));
    EXPECT_EQ(y.at("icl_task_type"), task.type);
    EXPECT_EQ(y.at("continuation_delimiter"), task.delimiter);
    const std::vector<std::string>& row = csv[t + 1];
    ASSERT_EQ(row.size(), 8u);
    EXPECT_EQ(row[0], task.label);
    EXPECT_EQ(row[2], task.type);
    EXPECT_EQ(row[3], std::to_string(task.shots));
    EXPECT_EQ(row[4], std::to_string(per_task));
    EXPECT_EQ(std::stod(row[5]), task.random_baseline_percent);
    EXPECT_EQ(row[7], task.description);

    const std::string type = y.at("icl_task_type");
    const std::vector<std::string> lines =
        lines_of(read_text(dir + "/eval_data/" + y.at("dataset_uri").get<std::string>()));
    EXPECT_EQ(static_cast<int64_t>(lines.size()), per_task);
    std::set<std::string> distinct;
    std::map<int64_t, int64_t> gold_count;
    for (const std::string& line : lines) {
      SCOPED_TRACE(line);
      EXPECT_TRUE(distinct.insert(line).second) << "a repeated example";
      const json e = json::parse(line);
      ASSERT_TRUE(e.is_object());
      if (type == "multiple_choice") {
        ASSERT_EQ(keys_of(e), (std::set<std::string>{"query", "choices", "gold"}));
        const std::vector<std::string> choices = e.at("choices");
        const int64_t gold = e.at("gold");
        const size_t want = task.random_baseline_percent == 20.0 ? 5 : 4;
        ASSERT_EQ(choices.size(), want);
        ASSERT_GE(gold, 0);
        ASSERT_LT(gold, static_cast<int64_t>(choices.size()));
        gold_count[gold]++;
        EXPECT_EQ(std::set<std::string>(choices.begin(), choices.end()).size(), choices.size());
        std::string query = e.at("query");
        if (std::string(task.label) == "brown_next_sentence_qa") {
          const std::string prefix = "Which sentence comes next?\n";
          ASSERT_EQ(query.rfind(prefix, 0), 0u);
          query = query.substr(prefix.size());
        }
        if (std::string(task.label) == "brown_last_word_choice") {
          // All choices but their last word are one sentence.
          const std::string& true_one = choices[static_cast<size_t>(gold)];
          const std::string stem = true_one.substr(0, true_one.rfind(' ') + 1);
          for (const std::string& c : choices) EXPECT_EQ(c.rfind(stem, 0), 0u) << c;
        }
        if (truth) {
          EXPECT_TRUE(truth->follows(query, choices[static_cast<size_t>(gold)])) << "gold is not the next sentence";
          if (std::string(task.label) != "brown_last_word_choice") {
            for (size_t i = 0; i < choices.size(); ++i)
              if (static_cast<int64_t>(i) != gold) {
                EXPECT_TRUE(truth->from_another_document(choices[i], query));
              }
          }
        }
      } else if (type == "schema") {
        ASSERT_EQ(keys_of(e), (std::set<std::string>{"context_options", "continuation", "gold"}));
        const std::vector<std::string> options = e.at("context_options");
        const int64_t gold = e.at("gold");
        ASSERT_EQ(options.size(), 2u);
        ASSERT_TRUE(gold == 0 || gold == 1);
        gold_count[gold]++;
        EXPECT_NE(options[0], options[1]);
        const std::string continuation = e.at("continuation");
        if (truth) {
          EXPECT_TRUE(truth->follows(options[static_cast<size_t>(gold)], continuation))
              << "gold is not the preceding sentence";
          EXPECT_TRUE(truth->from_another_document(options[static_cast<size_t>(1 - gold)], continuation));
        }
      } else {
        ASSERT_EQ(type, "language_modeling");
        ASSERT_EQ(keys_of(e), (std::set<std::string>{"context", "continuation"}));
        const std::string context = e.at("context"), continuation = e.at("continuation");
        EXPECT_TRUE(all_letters(continuation)) << continuation;
        ASSERT_FALSE(context.empty());
        EXPECT_NE(context.back(), ' ');
        if (truth) {
          // context + " " + continuation is a whole sentence but its closing punctuation.
          const std::string joined = context + " " + continuation;
          bool found = false;
          for (const auto& [s, where] : truth->docs_of)
            if (s.rfind(joined, 0) == 0 && s.find_first_not_of(".?!\"')", joined.size()) == std::string::npos)
              found = true;
          EXPECT_TRUE(found) << "not a sentence of the documents";
        }
      }
    }
    // Balanced gold positions: each of the k positions n / k times, the first n % k once more.
    if (type != "language_modeling") {
      const int64_t k = task.random_baseline_percent == 20.0 ? 5 : type == "schema" ? 2 : 4;
      for (int64_t g = 0; g < k; ++g)
        EXPECT_EQ(gold_count[g], per_task / k + (g < per_task % k ? 1 : 0)) << "gold position " << g;
    }
  }
}

std::map<std::string, std::string> files_of(const std::string& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_regular_file()) files[std::filesystem::relative(e.path(), dir).string()] = read_text(e.path().string());
  return files;
}

TEST(MakeBundle, SplitsSentencesByTheDocumentedRule) {
  EXPECT_EQ(split_sentences("The jury met Mr. Smith at noon. It rained! Did it? \"Yes,\" he said.\n\nA new one"),
            (std::vector<std::string>{"The jury met Mr. Smith at noon.", "It rained!", "Did it?", "\"Yes,\" he said.",
                                      "A new one"}));
  // Brown's two dots after an abbreviation end the sentence; a closing quote stays with its sentence.
  EXPECT_EQ(split_sentences("Won by Ivan Allen Jr.. \"Only a few\", the jury said \"no.\" (Then) it ended."),
            (std::vector<std::string>{"Won by Ivan Allen Jr..", "\"Only a few\", the jury said \"no.\"",
                                      "(Then) it ended."}));
  // Initials, dotted abbreviations, numbers and a lower-case next word end nothing.
  EXPECT_EQ(split_sentences("J. B. Smith came. The U.S. Army paid $3.5 million. and so on"),
            (std::vector<std::string>{"J. B. Smith came.", "The U.S. Army paid $3.5 million. and so on"}));
  EXPECT_EQ(split_sentences("\n\n  One line only  \n"), (std::vector<std::string>{"One line only"}));
  EXPECT_TRUE(split_sentences("").empty());
}

TEST(MakeBundle, UsableSentencesHaveFiveToFortyWordsAndEndWithAStop) {
  EXPECT_TRUE(is_usable_sentence("The cat sat on the mat."));
  EXPECT_TRUE(is_usable_sentence("\"Is the cat on the mat?\""));
  EXPECT_TRUE(is_usable_sentence("(The cat sat on it!)"));
  EXPECT_FALSE(is_usable_sentence("The cat sat down."));  // 4 words
  EXPECT_FALSE(is_usable_sentence("the cat sat on the mat."));
  EXPECT_FALSE(is_usable_sentence("The cat sat on the mat"));
  std::string forty = "Word";
  for (int i = 1; i < 40; ++i) forty += " word";
  EXPECT_TRUE(is_usable_sentence(forty + "."));
  EXPECT_FALSE(is_usable_sentence(forty + " word."));
}

TEST(MakeBundle, ValidationDocumentsAreTheDefaultSplitsValidationSide) {
  std::vector<data::Document> docs;
  for (int i = 0; i < 200; ++i) docs.push_back({"brown/x" + std::to_string(i), "text"});
  const std::vector<data::Document> val = validation_documents(docs);
  EXPECT_GT(val.size(), 0u);
  EXPECT_LT(val.size(), docs.size());
  size_t k = 0;
  for (const data::Document& d : docs)
    if (data::is_validation(d.id, data::PrepareOptions{}.val_fraction)) {
      EXPECT_EQ(val.at(k++).id, d.id);
    }
  EXPECT_EQ(k, val.size());
}

TEST(MakeBundle, EveryFileHasItsTypesFieldsAndTrueAnswersAreTheRealNeighbours) {
  TempDir tmp;
  const std::vector<data::Document> docs = synthetic_docs();
  make_brown_bundle(docs, tmp / "b", {.per_task = 8, .seed = 3});
  check_bundle(tmp / "b", 8, &docs);
  // Exactly the files of the layout.
  std::set<std::string> names;
  for (const auto& [name, text] : files_of(tmp / "b")) names.insert(name);
  std::set<std::string> want = {"core.yaml", "eval_meta_data.csv"};
  for (const BundleTask& t : brown_bundle_tasks())
    want.insert(std::string("eval_data/") + t.category + "/" + t.label + ".jsonl");
  EXPECT_EQ(names, want);
}

TEST(MakeBundle, TheSameSeedGivesTheSameBytesAnotherSeedOtherExamples) {
  TempDir tmp;
  std::vector<data::Document> docs = synthetic_docs();
  make_brown_bundle(docs, tmp / "a", {.per_task = 8, .seed = 7});
  std::reverse(docs.begin(), docs.end());  // the order of the documents does not matter
  make_brown_bundle(docs, tmp / "b", {.per_task = 8, .seed = 7});
  make_brown_bundle(docs, tmp / "c", {.per_task = 8, .seed = 8});
  const auto a = files_of(tmp / "a"), b = files_of(tmp / "b"), c = files_of(tmp / "c");
  EXPECT_EQ(a, b);
  ASSERT_EQ(a.size(), c.size());
  for (const auto& [name, text] : a)
    if (name.find(".jsonl") != std::string::npos) {
      EXPECT_NE(text, c.at(name)) << name;
    }
}

TEST(MakeBundle, RefusesWhatItCannotMake) {
  TempDir tmp;
  const std::vector<data::Document> docs = synthetic_docs();
  EXPECT_NE(error_message_of([&] { make_brown_bundle(docs, tmp / "x", {.per_task = 3}); }).find("at least 4"),
            std::string::npos);
  const std::string too_many = error_message_of([&] { make_brown_bundle(docs, tmp / "x", {.per_task = 1000}); });
  EXPECT_NE(too_many.find("brown_cloze"), std::string::npos) << too_many;
  EXPECT_NE(too_many.find("--per-task"), std::string::npos) << too_many;
  EXPECT_NE(error_message_of([&] { make_brown_bundle({docs[0]}, tmp / "x", {}); }).find("at least 2 documents"),
            std::string::npos);
  EXPECT_NE(error_message_of([&] {
              make_brown_bundle({docs[0], {"bad", "A \xff sentence is here now."}}, tmp / "x", {});
            }).find("document bad is not valid UTF-8 (byte offset 2)"),
            std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(tmp / "x"));
}

// The shipped bundle has the layout; with the Brown corpus installed (scripts/setup.sh), its answers are true of
// the held-back documents (cli.make_bundle_reproduces rebuilds it byte for byte).
TEST(MakeBundle, ShippedBundleHasTheLayoutAndTrueAnswers) {
  const std::string dir = testing_support::source_path("eval_bundles/brown-core");
  std::vector<data::Document> val;
  try {
    val = validation_documents(data::read_brown(data::find_brown_dir()));
  } catch (const Error&) {
    // No corpus here: the layout alone.
  }
  check_bundle(dir, BundleOptions{}.per_task, val.empty() ? nullptr : &val);
}

}  // namespace
}  // namespace nanotrn::icl
