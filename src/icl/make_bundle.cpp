// The Brown CORE bundle. See make_bundle.h.
#include "icl/make_bundle.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/file.h"
#include "base/format.h"
#include "base/rng.h"
#include "base/utf8.h"

namespace nanotrn::icl {

namespace {

using Json = nlohmann::ordered_json;

constexpr BundleTask kTasks[] = {
    {"brown_cloze", "language_understanding", "language_modeling", 0, " ", 0.0,
     "Brown corpus, held-back text: the last word of a sentence, given the rest (exact greedy match)"},
    {"brown_cloze_fewshot", "language_understanding", "language_modeling", 3, " ", 0.0,
     "Brown corpus, held-back text: the last word of a sentence, given the rest, with 3 solved examples"},
    {"brown_next_sentence", "commonsense_reasoning", "multiple_choice", 0, " ", 25.0,
     "Brown corpus, held-back text: which of 4 sentences follows the given one (3 from other documents)"},
    {"brown_next_sentence_qa", "reading_comprehension", "multiple_choice", 2, "\nAnswer: ", 25.0,
     "Brown corpus, held-back text: \"Which sentence comes next?\", 4 choices, 2 solved examples"},
    {"brown_context_fit", "language_understanding", "schema", 0, " ", 50.0,
     "Brown corpus, held-back text: which of 2 sentences (its true predecessor, or one from another document) "
     "precedes the given sentence"},
    {"brown_last_word_choice", "language_understanding", "multiple_choice", 1, " ", 20.0,
     "Brown corpus, held-back text: a sentence with its own last word or one of 4 other documents' last words, "
     "after the preceding sentence"},
};
constexpr int kMaxShots = 3;

// Streams of the Philox words (base/rng.h): one per example pool, one per task.
constexpr uint64_t kStreamClozePool = 1, kStreamPairPool = 2, kStreamTask0 = 16;

// ---- Sentences ----

bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
bool is_letter(char c) { return is_upper(c) || (c >= 'a' && c <= 'z'); }
bool is_terminator(char c) { return c == '.' || c == '?' || c == '!'; }
bool is_closing(char c) { return c == '"' || c == '\'' || c == ')'; }
bool is_opening(char c) { return c == '"' || c == '('; }

// A sentence may start at p[k]: an upper-case letter, or an opening mark directly before one.
bool starts_sentence(std::string_view p, size_t k) {
  if (k >= p.size()) return false;
  if (is_upper(p[k])) return true;
  return is_opening(p[k]) && k + 1 < p.size() && is_upper(p[k + 1]);
}

// The word ending at a '.' (at p[dot]) is an abbreviation, so the '.' ends no sentence.
bool is_abbreviation(std::string_view p, size_t from, size_t dot) {
  static const std::set<std::string_view> kTitles = {
      "Mr",   "Mrs", "Ms",   "Dr",  "St",    "Jr",     "Sr",   "Gen", "Gov",  "Sen", "Rep",
      "Col",  "Lt",  "Capt", "Maj", "Sgt",   "Prof",   "Rev",  "Mt",  "No",   "Co",  "Inc",
      "Ltd",  "Ave", "Adm",  "Ft",  "Pres",  "Messrs", "Mme",  "vs",  "Jan",  "Feb", "Aug",
      "Sept", "Oct", "Nov",  "Dec", "Calif", "Mass",   "Conn", "Ill", "Wash", "Va",  "Pa"};
  size_t start = p.rfind(' ', dot);
  start = (start == std::string_view::npos || start < from) ? from : start + 1;
  std::string_view stem = p.substr(start, dot - start);
  while (!stem.empty() && is_opening(stem.front())) stem.remove_prefix(1);
  if (stem.empty() || stem.back() == '.') return false;  // "Jr.." : the abbreviation ends the sentence
  if (stem.size() == 1 && is_letter(stem[0])) return true;
  if (stem.find('.') != std::string_view::npos) return true;
  return kTitles.count(stem) > 0;
}

std::string_view trim(std::string_view s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

void split_paragraph(std::string_view p, std::vector<std::string>* out) {
  size_t start = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    if (!is_terminator(p[i])) continue;
    size_t j = i + 1;
    while (j < p.size() && is_closing(p[j])) ++j;
    if (j >= p.size() || p[j] != ' ' || !starts_sentence(p, j + 1)) continue;
    if (p[i] == '.' && j == i + 1 && is_abbreviation(p, start, i)) continue;
    if (const std::string_view s = trim(p.substr(start, j - start)); !s.empty()) out->emplace_back(s);
    start = j + 1;
    i = j;
  }
  if (const std::string_view s = trim(p.substr(std::min(start, p.size()))); !s.empty()) out->emplace_back(s);
}

int64_t count_words(std::string_view s) {
  int64_t n = 0;
  bool in_word = false;
  for (char c : s) {
    const bool space = c == ' ';
    if (!space && !in_word) ++n;
    in_word = !space;
  }
  return n;
}

// A sentence as context + " " + word + tail: word its last word's letters, tail the punctuation after them.
struct LastWord {
  std::string_view context, word, tail;
};

std::optional<LastWord> last_word(std::string_view s) {
  const size_t space = s.rfind(' ');
  if (space == std::string_view::npos) return std::nullopt;
  const std::string_view token = s.substr(space + 1);
  size_t n = 0;
  while (n < token.size() && is_letter(token[n])) ++n;
  if (n == 0) return std::nullopt;
  for (char c : token.substr(n))
    if (!is_terminator(c) && !is_closing(c)) return std::nullopt;
  return LastWord{s.substr(0, space), token.substr(0, n), token.substr(n)};
}

std::string lower(std::string_view w) {
  std::string s(w);
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// ---- Random choices ----

class Draws {
 public:
  Draws(uint64_t seed, uint64_t stream) : seed_(seed), stream_(stream) {}
  // Uniform-ish in [0, n), n < 2^32 (the bias of the multiply-shift is below n / 2^32).
  size_t below(size_t n) { return static_cast<size_t>((uint64_t{random_u32(seed_, stream_, next_++)} * n) >> 32); }

 private:
  uint64_t seed_, stream_, next_ = 0;
};

// `count` distinct elements of `pool`, in the order a partial Fisher-Yates shuffle draws them.
template <class T>
std::vector<T> draw_distinct(std::vector<T> pool, size_t count, Draws& d) {
  count = std::min(count, pool.size());
  for (size_t i = 0; i < count; ++i) std::swap(pool[i], pool[i + d.below(pool.size() - i)]);
  pool.resize(count);
  return pool;
}

// The gold position of each of n examples with k choices: every position n / k times (the first n % k once more),
// in a random order, so that a model preferring one position scores exactly the random baseline.
std::vector<size_t> balanced_golds(size_t n, size_t k, Draws& d) {
  std::vector<size_t> golds(n);
  for (size_t i = 0; i < n; ++i) golds[i] = i % k;
  return draw_distinct(std::move(golds), n, d);
}

// ---- The corpus as sentences ----

struct Sentence {
  std::string text;
  size_t doc = 0;
  bool usable = false;
};

struct Text {
  std::vector<Sentence> sentences;                    // every document's, in document order
  std::vector<size_t> usable;                         // indices of the usable ones
  std::vector<size_t> cloze;                          // usable, with a last word of letters
  std::vector<size_t> pairs;                          // i such that sentences i and i + 1 are adjacent, both usable
  std::vector<std::set<std::string_view>> doc_texts;  // each document's sentences (views into `sentences`)
};

Text read_text(std::vector<data::Document> docs) {
  std::sort(docs.begin(), docs.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  Text t;
  for (size_t d = 0; d < docs.size(); ++d) {
    const size_t bad = find_invalid_utf8(docs[d].text);
    check(bad == std::string_view::npos,
          "icl: document " + docs[d].id + " is not valid UTF-8 (byte offset " + std::to_string(bad) + ")");
    const size_t first = t.sentences.size();
    for (std::string& s : split_sentences(docs[d].text)) {
      const size_t i = t.sentences.size();
      const bool usable = is_usable_sentence(s);
      t.sentences.push_back({std::move(s), d, usable});
      if (!usable) continue;
      t.usable.push_back(i);
      if (last_word(t.sentences[i].text)) t.cloze.push_back(i);
      if (i > first && t.sentences[i - 1].usable) t.pairs.push_back(i - 1);
    }
  }
  t.doc_texts.resize(docs.size());
  for (const Sentence& s : t.sentences) t.doc_texts[s.doc].insert(s.text);
  return t;
}

// ---- Tasks ----

struct Builder {
  const Text& text;
  const BundleOptions& options;

  size_t per_task() const { return static_cast<size_t>(options.per_task); }

  void need(const char* what, size_t have, size_t want) const {
    check(have >= want, std::string("icl: ") + what + " needs " + std::to_string(want) + " but the documents give " +
                            std::to_string(have) + "; pass a smaller --per-task or more documents");
  }

  // A usable sentence that document `doc` does not hold, distinct from every string in `taken` (which it joins).
  const std::string& other_document_sentence(size_t doc, std::set<std::string_view>& taken, Draws& d) const {
    for (int attempt = 0; attempt < 10000; ++attempt) {
      const Sentence& s = text.sentences[text.usable[d.below(text.usable.size())]];
      if (s.doc != doc && text.doc_texts[doc].count(s.text) == 0 && taken.insert(s.text).second) return s.text;
    }
    throw Error("icl: cannot find enough distinct sentences of other documents (too few usable sentences)");
  }

  // A letters-only last word of another document, distinct (ignoring case) from those in `taken`.
  std::string other_document_word(size_t doc, std::set<std::string>& taken, Draws& d) const {
    for (int attempt = 0; attempt < 10000; ++attempt) {
      const Sentence& s = text.sentences[text.cloze[d.below(text.cloze.size())]];
      if (s.doc == doc) continue;
      const std::string_view w = last_word(s.text)->word;
      if (taken.insert(lower(w)).second) return std::string(w);
    }
    throw Error("icl: cannot find enough distinct last words of other documents (too few usable sentences)");
  }

  std::vector<Json> cloze(const std::vector<size_t>& picks) const {
    std::vector<Json> out;
    for (size_t i : picks) {
      const LastWord w = *last_word(text.sentences[i].text);
      out.push_back(Json{{"context", w.context}, {"continuation", w.word}});
    }
    return out;
  }

  std::vector<Json> next_sentence(const std::vector<size_t>& picks, bool qa, Draws& d) const {
    std::vector<Json> out;
    const std::vector<size_t> golds = balanced_golds(picks.size(), 4, d);
    for (size_t i : picks) {
      const Sentence &query = text.sentences[i], &next = text.sentences[i + 1];
      std::set<std::string_view> taken = {query.text, next.text};
      std::vector<std::string> choices;
      for (int k = 0; k < 3; ++k) choices.push_back(other_document_sentence(query.doc, taken, d));
      const size_t gold = golds[out.size()];
      choices.insert(choices.begin() + static_cast<std::ptrdiff_t>(gold), next.text);
      out.push_back(Json{{"query", qa ? "Which sentence comes next?\n" + query.text : query.text},
                         {"choices", choices},
                         {"gold", gold}});
    }
    return out;
  }

  std::vector<Json> context_fit(const std::vector<size_t>& picks, Draws& d) const {
    std::vector<Json> out;
    const std::vector<size_t> golds = balanced_golds(picks.size(), 2, d);
    for (size_t i : picks) {
      const Sentence &before = text.sentences[i], &sentence = text.sentences[i + 1];
      std::set<std::string_view> taken = {before.text, sentence.text};
      std::vector<std::string> contexts = {other_document_sentence(sentence.doc, taken, d)};
      const size_t gold = golds[out.size()];
      contexts.insert(contexts.begin() + static_cast<std::ptrdiff_t>(gold), before.text);
      out.push_back(Json{{"context_options", contexts}, {"continuation", sentence.text}, {"gold", gold}});
    }
    return out;
  }

  std::vector<Json> last_word_choice(const std::vector<size_t>& picks, Draws& d) const {
    std::vector<Json> out;
    const std::vector<size_t> golds = balanced_golds(picks.size(), 5, d);
    for (size_t i : picks) {
      const Sentence &before = text.sentences[i], &sentence = text.sentences[i + 1];
      const LastWord w = *last_word(sentence.text);
      std::set<std::string> taken = {lower(w.word)};
      std::vector<std::string> choices;
      for (int k = 0; k < 4; ++k)
        choices.push_back(std::string(w.context) + " " + other_document_word(sentence.doc, taken, d) +
                          std::string(w.tail));
      const size_t gold = golds[out.size()];
      choices.insert(choices.begin() + static_cast<std::ptrdiff_t>(gold), sentence.text);
      out.push_back(Json{{"query", before.text}, {"choices", choices}, {"gold", gold}});
    }
    return out;
  }

  // Every task's examples, in kTasks order.
  std::vector<std::vector<Json>> build() const {
    const size_t n = per_task();
    Draws cloze_pool(options.seed, kStreamClozePool), pair_pool(options.seed, kStreamPairPool);
    const std::vector<size_t> cloze_picks = draw_distinct(text.cloze, 2 * n, cloze_pool);
    need("brown_cloze and brown_cloze_fewshot (sentences with a last word of letters)", cloze_picks.size(), 2 * n);
    const std::vector<size_t> pair_picks = draw_distinct(text.pairs, 2 * n, pair_pool);
    need("brown_next_sentence and brown_next_sentence_qa (adjacent sentence pairs)", pair_picks.size(), 2 * n);
    std::vector<size_t> last_word_pairs;
    for (size_t i : text.pairs)
      if (last_word(text.sentences[i + 1].text)) last_word_pairs.push_back(i);

    std::vector<Draws> d;
    for (size_t t = 0; t < std::size(kTasks); ++t) d.emplace_back(options.seed, kStreamTask0 + t);
    const auto first = [&](const std::vector<size_t>& v) { return std::vector<size_t>(v.begin(), v.begin() + n); };
    const auto second = [&](const std::vector<size_t>& v) { return std::vector<size_t>(v.begin() + n, v.end()); };
    std::vector<std::vector<Json>> tasks;
    tasks.push_back(cloze(first(cloze_picks)));
    tasks.push_back(cloze(second(cloze_picks)));
    tasks.push_back(next_sentence(first(pair_picks), false, d[2]));
    tasks.push_back(next_sentence(second(pair_picks), true, d[3]));
    const std::vector<size_t> fit_picks = draw_distinct(text.pairs, n, d[4]);
    tasks.push_back(context_fit(fit_picks, d[4]));
    const std::vector<size_t> word_picks = draw_distinct(last_word_pairs, n, d[5]);
    need("brown_last_word_choice (adjacent pairs whose second sentence ends in a word of letters)", word_picks.size(),
         n);
    tasks.push_back(last_word_choice(word_picks, d[5]));
    return tasks;
  }
};

// ---- Files ----

std::string yaml_string(const std::string& s) { return Json(s).dump(); }

std::string core_yaml(const BundleOptions& options) {
  std::string y =
      "# A small CORE-format bundle from held-back Brown corpus text: nanotrn eval make-bundle --per-task " +
      std::to_string(options.per_task) + " --seed " + std::to_string(options.seed) + "\nicl_tasks:\n";
  for (const BundleTask& t : kTasks) {
    const std::string uri = std::string(t.category) + "/" + t.label + ".jsonl";
    y += "- label: " + yaml_string(t.label) + "\n";
    y += "  dataset_uri: " + yaml_string(uri) + "\n";
    y += "  num_fewshot: [" + std::to_string(t.shots) + "]\n";
    y += "  icl_task_type: " + yaml_string(t.type) + "\n";
    y += "  continuation_delimiter: " + yaml_string(t.delimiter) + "\n";
  }
  return y;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string meta_csv(const BundleOptions& options) {
  std::string c = "Eval Task,Task Category,Task Type,#shots,#datapoints,Random baseline,Centered Metric?,Description\n";
  for (const BundleTask& t : kTasks) {
    std::string category = t.category;
    std::replace(category.begin(), category.end(), '_', ' ');
    const std::vector<std::string> fields = {t.label,
                                             category,
                                             t.type,
                                             std::to_string(t.shots),
                                             std::to_string(options.per_task),
                                             format_number("%g", t.random_baseline_percent),
                                             "",
                                             t.description};
    for (size_t i = 0; i < fields.size(); ++i) {
      if (i > 0) c += ',';
      c += csv_field(fields[i]);
    }
    c += "\n";
  }
  return c;
}

void write_text(const std::string& path, const std::string& s) { write_file_atomic(path, s.data(), s.size()); }

}  // namespace

std::span<const BundleTask> brown_bundle_tasks() { return kTasks; }

std::vector<data::Document> validation_documents(const std::vector<data::Document>& docs, double val_fraction) {
  std::vector<data::Document> val;
  for (const data::Document& d : docs)
    if (data::is_validation(d.id, val_fraction)) val.push_back(d);
  return val;
}

std::vector<std::string> split_sentences(std::string_view text) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    split_paragraph(text.substr(pos, end - pos), &out);
    pos = end + 1;
  }
  return out;
}

bool is_usable_sentence(std::string_view s) {
  const int64_t words = count_words(s);
  if (words < 5 || words > 40 || !starts_sentence(s, 0)) return false;
  size_t end = s.size();
  while (end > 0 && is_closing(s[end - 1])) --end;
  return end > 0 && is_terminator(s[end - 1]);
}

void make_brown_bundle(const std::vector<data::Document>& val_docs, const std::string& out_dir,
                       const BundleOptions& options) {
  check(options.per_task > kMaxShots,
        "icl: per_task must be at least " + std::to_string(kMaxShots + 1) + " (a " + std::to_string(kMaxShots) +
            "-shot task draws that many other examples), got " + std::to_string(options.per_task));
  std::set<std::string_view> ids;
  for (const data::Document& d : val_docs) ids.insert(d.id);
  check(ids.size() >= 2, "icl: the bundle needs at least 2 documents (distractors come from other documents), got " +
                             std::to_string(ids.size()));
  const Text text = read_text(val_docs);
  const std::vector<std::vector<Json>> examples = Builder{text, options}.build();

  make_directories(out_dir);
  for (size_t t = 0; t < std::size(kTasks); ++t) {
    const std::string dir = out_dir + "/eval_data/" + kTasks[t].category;
    make_directories(dir);
    std::string lines;
    for (const Json& e : examples[t]) lines += e.dump() + "\n";
    write_text(dir + "/" + kTasks[t].label + ".jsonl", lines);
  }
  write_text(out_dir + "/eval_meta_data.csv", meta_csv(options));
  write_text(out_dir + "/core.yaml", core_yaml(options));
}

}  // namespace nanotrn::icl
