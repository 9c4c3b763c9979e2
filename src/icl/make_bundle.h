// A small CORE evaluation bundle in the exact layout of DCLM's eval_bundle (recipe-spec §5.2 and §12), made from
// held-back Brown corpus text: the documents the default corpus puts in validation, which a model trained by the
// speedrun never saw (training on evaluation data is forbidden). `nanotrn eval make-bundle` runs it; the shipped
// copy is eval_bundles/brown-core/ (and the test cli.make_bundle_reproduces rebuilds it byte for byte).
//
//   std::vector<data::Document> val = validation_documents(data::read_brown(data::find_brown_dir()));
//   make_brown_bundle(val, "out/eval_bundles/brown-core", {.per_task = 40, .seed = 0});
//
// Layout written under out_dir (folders created, every file through write_file_atomic):
//   core.yaml           `icl_tasks:`, one entry per task: label, dataset_uri (relative to eval_data/), num_fewshot
//                       ([k]), icl_task_type, continuation_delimiter. Every string is double-quoted with JSON
//                       escapes (valid YAML), and num_fewshot is a flow list, so each value is also JSON.
//   eval_meta_data.csv  header `Eval Task,Task Category,Task Type,#shots,#datapoints,Random baseline,Centered
//                       Metric?,Description`, one row per task in core.yaml's order; a field holding a comma, a quote
//                       or a line break is quoted, its quotes doubled (RFC 4180); lines end in '\n'.
//   eval_data/<category>/<label>.jsonl, one compact JSON object per line, keys in this order:
//       multiple_choice    {"query", "choices", "gold"}      gold: index of the true choice
//       schema             {"context_options", "continuation", "gold"}
//       language_modeling  {"context", "continuation"}      context has no trailing space, continuation no leading
//                                                           one: the prompt is context + delimiter + continuation
//
// The tasks (brown_bundle_tasks() lists them with their metadata):
//   brown_cloze             LM, 0-shot: a sentence without its last word -> that word (letters only: the final
//                           punctuation and closing quotes are dropped, so an exact greedy match is possible)
//   brown_cloze_fewshot     the same on other sentences, 3-shot
//   brown_next_sentence     MC 4-way, 0-shot: query = a sentence; choices = the sentence that follows it in its
//                           document + 3 sentences of other documents, in a random order
//   brown_next_sentence_qa  the same on other pairs, 2-shot, query "Which sentence comes next?\n<sentence>",
//                           delimiter "\nAnswer: "
//   brown_context_fit       schema 2-way, 0-shot: context_options = {the sentence's true predecessor, a sentence of
//                           another document} in a random order; continuation = the sentence
//   brown_last_word_choice  MC 5-way, 1-shot: query = the preceding sentence; choices = the sentence with its last
//                           word as written and with 4 other documents' last words in its place (the choices share
//                           all but their last word: CORE scores MC from the common token prefix on)
// Sentences (split_sentences): a paragraph break ends one; inside a paragraph a sentence ends after '.', '?' or '!'
// plus any closing marks (" ' )) when a space and then an upper-case ASCII letter (optionally after an opening " or
// () follow, except after an abbreviation: a '.' ending a single letter ("J."), a word holding another '.' ("U.S.")
// or a title from a short list (Mr Mrs Dr St Jr Gen Gov Sen Rep ...); Brown writes an abbreviation that ends a
// sentence with two dots ("Jr.."), which does end it. A usable sentence (is_usable_sentence) has 5 to 40 words
// (space-separated), starts with an upper-case letter (optionally after an opening quote or parenthesis) and ends
// with '.', '?' or '!' before any closing marks. A pair of sentences is adjacent when they are consecutive in
// their document's split; both must be usable.
// Determinism: the output is a pure function of the documents' ids and texts (sorted by id first), per_task and
// seed. Each random choice is a Philox word (base/rng.h) of (seed, stream, index) with one stream per pool and per
// task; an integer below n is (word * n) >> 32. Examples of one pool are drawn without replacement (a partial
// Fisher-Yates shuffle), and the tasks that share a pool (the two cloze tasks; the two next-sentence tasks) never
// share an example. Gold positions are balanced: with k choices each position is gold in n / k of the n examples
// (the first n % k positions once more), in a random order, so a model that prefers a position scores the baseline.
// Errors: fewer than 2 documents, invalid UTF-8 (naming the document and byte offset), per_task below 4 (the
// 3-shot task needs 3 other examples) or more than the text offers (naming the task and how many it has).
// Not here: scoring a model on a bundle.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "data/corpus.h"
#include "data/document.h"

namespace nanotrn::icl {

struct BundleOptions {
  int64_t per_task = 40;  // examples in each task's file
  uint64_t seed = 0;
};

// One task of the bundle: its core.yaml entry and eval_meta_data.csv row.
struct BundleTask {
  const char* label;               // also the file name: eval_data/<category>/<label>.jsonl
  const char* category;            // folder under eval_data/; the CSV writes it with spaces for '_'
  const char* type;                // icl_task_type: multiple_choice, schema or language_modeling
  int shots;                       // num_fewshot
  const char* delimiter;           // continuation_delimiter
  double random_baseline_percent;  // the CSV's Random baseline
  const char* description;
};

std::span<const BundleTask> brown_bundle_tasks();

// The documents of `docs` on the validation side of the split (data/corpus.h is_validation), in their order; the
// default fraction is the one prepare_default_corpus (and so the speedrun) uses.
std::vector<data::Document> validation_documents(const std::vector<data::Document>& docs,
                                                 double val_fraction = data::PrepareOptions{}.val_fraction);

// The sentences of one detagged text in order (rule above), each trimmed, before any length filter.
std::vector<std::string> split_sentences(std::string_view text);
bool is_usable_sentence(std::string_view sentence);

void make_brown_bundle(const std::vector<data::Document>& val_docs, const std::string& out_dir,
                       const BundleOptions& options);

}  // namespace nanotrn::icl
