// An example's prompts as token rows with the answer span to score in each (recipe-spec §5.2):
//
//   ScoredRows r = tokenize_prompts(task.type, prompts, tok, model_max_len);
//   // row i: r.rows[i]; its answer tokens are r.rows[i][r.start[i] .. r.end[i]), predicted at positions
//   // start - 1 .. end - 2.
//
// Every prompt is encoded as plain text with BOS prepended. multiple_choice: the span of each row starts after the
// tokens all rows share at the front (their common prefix) and runs to its end. schema: it is the tokens all rows
// share at the back (their common suffix). language_modeling: the rows are {without, with}; "without" must be a
// strict prefix of "with" in tokens (else an Error naming the task and example: the tokenizer merged across the
// boundary), and the one scored row is "with", its span the tokens after "without".
// A row longer than the model's length keeps its last max_len tokens and its span shifts with it; a span that would
// then start at position 0 (an answer as long as the model's context: nothing left to predict it from) is an
// AnswerBeyondContext, which the CORE evaluation scores as a wrong answer and counts, so one long example does not
// end the whole evaluation; a span empty without cropping is a malformed example, an Error. A multiple-choice option
// that is a token prefix of another (or equal to it) has an empty span: its mean loss is NaN, which the scorer treats
// as Python's min() does (scorer.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/error.h"
#include "icl/bundle.h"
#include "icl/prompts.h"
#include "tokenizer/tokenizer.h"

namespace nanotrn::icl {

// An example whose answer does not fit the model's length once its row is cropped (see above).
struct AnswerBeyondContext : Error {
  using Error::Error;
};

struct ScoredRows {
  std::vector<std::vector<int32_t>> rows;
  std::vector<int64_t> start, end;  // per row: the answer tokens are rows[i][start[i] .. end[i])
};

// The number of tokens all rows share at the front (from_back false) or at the back; rows must not be empty.
int64_t common_length(const std::vector<std::vector<int32_t>>& rows, bool from_back);

ScoredRows tokenize_prompts(TaskType type, const Prompts& prompts, const tokenizer::Tokenizer& tok, int64_t max_len,
                            const std::string& what);

}  // namespace nanotrn::icl
