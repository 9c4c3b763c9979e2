// Reading CORE bundles: core.yaml in the real layout, every task family's line format, and each error by name.
#include "icl/bundle.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "base/error.h"
#include "base/file.h"
#include "data/temp_dir.h"
#include "support/error_of.h"

namespace nanotrn::icl {
namespace {

using data::testing::TempDir;
using testing_support::error_message_of;

void write_text(const std::string& path, const std::string& s) { write_file_atomic(path, s.data(), s.size()); }

// The layout of DCLM's core.yaml: lists of shots, quoted delimiters with escapes, optional keys.
constexpr const char* kYaml = R"(icl_tasks:
- label: hellaswag_zeroshot
  dataset_uri: language_understanding/hellaswag.jsonl
  num_fewshot: [0]
  icl_task_type: multiple_choice
- label: jeopardy
  dataset_uri: world_knowledge/jeopardy_all.jsonl
  num_fewshot: [10]
  icl_task_type: language_modeling
  continuation_delimiter: "\nAnswer: "
  has_categories: true
- label: winograd
  dataset_uri: language_understanding/winograd_wsc.jsonl
  num_fewshot: [0]
  icl_task_type: schema
)";

TEST(CoreYaml, ReadsTheRealLayout) {
  const std::vector<TaskSpec> t = parse_core_yaml(kYaml, "core.yaml");
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].label, "hellaswag_zeroshot");
  EXPECT_EQ(t[0].dataset_uri, "language_understanding/hellaswag.jsonl");
  EXPECT_EQ(t[0].type, TaskType::multiple_choice);
  EXPECT_EQ(t[0].num_fewshot, 0);
  EXPECT_EQ(t[0].delimiter, " ");  // the default
  EXPECT_EQ(t[1].type, TaskType::language_modeling);
  EXPECT_EQ(t[1].num_fewshot, 10);
  EXPECT_EQ(t[1].delimiter, "\nAnswer: ");
  EXPECT_EQ(t[2].type, TaskType::schema);
}

// A label reaches the terminal: one holding ESC (a colour or retitle sequence) or another control character is
// refused at the line that gives it.
TEST(CoreYaml, ALabelWithAControlCharacterIsRefused) {
  const std::string yaml =
      "icl_tasks:\n- label: \"evil\\e[2J\"\n  dataset_uri: x.jsonl\n  num_fewshot: [0]\n"
      "  icl_task_type: multiple_choice\n";
  EXPECT_NE(error_message_of([&] {
              parse_core_yaml(yaml, "core.yaml");
            }).find("core.yaml:2:10: the label holds a control character at byte 4"),
            std::string::npos)
      << error_message_of([&] { parse_core_yaml(yaml, "core.yaml"); });
  const std::string c1 =
      "icl_tasks:\n- label: \"a\\x9b\"\n  dataset_uri: x.jsonl\n  num_fewshot: [0]\n"
      "  icl_task_type: multiple_choice\n";
  EXPECT_NE(error_message_of([&] { parse_core_yaml(c1, "core.yaml"); }).find("control character at byte 1"),
            std::string::npos);
}

TEST(CoreYaml, ErrorsNameTheLineAndTheKey) {
  EXPECT_EQ(error_message_of([] {
              parse_core_yaml(
                  "icl_tasks:\n- label: a\n  dataset_uri: x.jsonl\n  num_fewshot: [0]\n"
                  "  icl_task_type: generation_task_with_answers\n",
                  "core.yaml");
            }),
            "core.yaml:5:18: unknown icl_task_type 'generation_task_with_answers' (CORE scores multiple_choice, "
            "schema and language_modeling)");
  EXPECT_EQ(error_message_of([] {
              parse_core_yaml("icl_tasks:\n- label: a\n  num_fewshot: [0]\n  icl_task_type: schema\n", "core.yaml");
            }),
            "core.yaml:2:3: the task has no 'dataset_uri'");
  EXPECT_NE(error_message_of([] { parse_core_yaml("icl_tasks: [\n", "core.yaml"); }).find("core.yaml:"),
            std::string::npos);
  EXPECT_EQ(error_message_of([] {
              parse_core_yaml(
                  "icl_tasks:\n- label: a\n  dataset_uri: x\n  num_fewshot: [-1]\n"
                  "  icl_task_type: schema\n",
                  "core.yaml");
            }),
            "core.yaml:4:17: num_fewshot must be a whole number of shots >= 0, got '-1'");
  EXPECT_EQ(error_message_of([] {
              parse_core_yaml(
                  "icl_tasks:\n- label: a\n  dataset_uri: ../../etc/passwd\n  num_fewshot: [0]\n"
                  "  icl_task_type: schema\n",
                  "core.yaml");
            }),
            "core.yaml:3:16: dataset_uri must be a path inside eval_data/, got '../../etc/passwd'");
  EXPECT_EQ(error_message_of([] {
              parse_core_yaml(
                  "icl_tasks:\n- label: \"\"\n  dataset_uri: x\n  num_fewshot: [0]\n"
                  "  icl_task_type: schema\n",
                  "core.yaml");
            }),
            "core.yaml:2:10: the label is empty");
  EXPECT_NE(error_message_of([] {
              parse_core_yaml(
                  "icl_tasks:\n- label: a\n  dataset_uri: \"x\\0y\"\n  num_fewshot: [0]\n"
                  "  icl_task_type: schema\n",
                  "core.yaml");
            }).find("dataset_uri must be a path inside eval_data/"),
            std::string::npos);
  const std::string twice =
      "icl_tasks:\n- label: a\n  dataset_uri: x\n  num_fewshot: [0]\n  icl_task_type: schema\n"
      "- label: a\n  dataset_uri: y\n  num_fewshot: [0]\n  icl_task_type: schema\n";
  EXPECT_EQ(error_message_of([&] { parse_core_yaml(twice, "core.yaml"); }),
            "core.yaml:6:3: the label 'a' is also the task at line 2");
}

// One hand-written line in the layout of each of the 22 CORE tasks (field names as the DCLM bundle has them;
// extra fields such as jeopardy's have_categories are ignored).
struct Layout {
  const char* task;
  TaskType type;
  const char* line;
};
const Layout
    kLayouts
        [] =
            {
                {"hellaswag_zeroshot", TaskType::multiple_choice,
                 R"({"query": "Roof shingle removal: A man is sitting on a roof. He", "choices": ["is using wrap to wrap a pair of skis.", "is ripping level tiles off.", "is holding a rubik's cube.", "starts pulling up roofing on a roof."], "gold": 3})"},
                {"jeopardy", TaskType::language_modeling,
                 R"({"context": "WORLD HISTORY: This Navy hero was the first American to reach the North Pole", "continuation": "Robert Peary", "category": "WORLD HISTORY", "has_categories": true})"},
                {"bigbench_qa_wikidata", TaskType::language_modeling,
                 R"({"context": "The native language of Jean Racine is", "continuation": "French"})"},
                {"arc_easy", TaskType::multiple_choice,
                 R"({"query": "Question: Which factor will most likely cause a person to develop a fever?", "choices": ["a leg muscle relaxing after exercise", "a bacterial population in the bloodstream", "several viral particles on the skin", "carbohydrates being digested in the stomach"], "gold": 1})"},
                {"arc_challenge", TaskType::multiple_choice,
                 R"({"query": "Question: George wants to warm his hands quickly by rubbing them. Which skin surface will produce the most heat?", "choices": ["dry palms", "wet palms", "palms covered with oil", "palms covered with lotion"], "gold": 0})"},
                {"copa", TaskType::multiple_choice,
                 R"({"query": "The man turned on the faucet, therefore", "choices": ["the toilet filled with water.", "water flowed from the spout."], "gold": 1})"},
                {"commonsense_qa", TaskType::multiple_choice,
                 R"({"query": "Question: Where would you find magazines along side many other printed works?", "choices": ["doctor", "bookstore", "market", "train station", "mortuary"], "gold": 1})"},
                {"piqa", TaskType::multiple_choice,
                 R"({"query": "Question: To clean a cast iron pan,", "choices": ["scrub it with salt and oil.", "soak it in soapy water overnight."], "gold": 0})"},
                {"openbook_qa", TaskType::multiple_choice,
                 R"({"query": "The sun is responsible for", "choices": ["puppies learning new tricks", "children growing up and getting old", "flowers wilting in a vase", "plants sprouting, blooming and wilting"], "gold": 3})"},
                {"lambada_openai", TaskType::language_modeling,
                 R"({"context": "In my palm is a clear stone, and inside it is a small ivory statuette. A guardian angel. \"Figured if you're going to be out at night getting hit by cars, you might as well have some backup.\" I look at him, feeling stunned. Like this is some sort of sign. But as I stare at", "continuation": "Harlin"})"},
                {"hellaswag", TaskType::multiple_choice,
                 R"({"query": "A woman is outside with a bucket and a dog. The dog is running around trying to avoid a bath. She", "choices": ["rinses the bucket off with soap and blow dry the dog's head.", "uses a hose to keep it from getting soapy.", "gets the dog wet, then it runs away again.", "gets into a bath tub with the dog."], "gold": 2})"},
                {"winograd", TaskType::schema,
                 R"({"context_options": ["The city councilmen refused the demonstrators a permit because the city councilmen", "The city councilmen refused the demonstrators a permit because the demonstrators"], "continuation": "feared violence.", "gold": 0})"},
                {"winogrande", TaskType::schema, R"({"context_options": ["Sarah was a much better surgeon than Maria so Sarah", "Sarah was a much better surgeon than Maria so Maria"], "continuation": "always got the easier cases.", "gold": 1})"},
                {"bigbench_dyck_languages", TaskType::language_modeling,
                 R"({"context": "Complete the rest of the sequence, making sure that the parentheses are closed properly. Input: [ { [", "continuation": "] } ]"})"},
                {"agi_eval_lsat_ar", TaskType::multiple_choice,
                 R"({"query": "Of the following, which one could be the order?\nAnswer Choices: (A)... (E)...\nAnswer:", "choices": ["A", "B", "C", "D", "E"], "gold": 4})"},
                {"bigbench_cs_algorithms", TaskType::language_modeling,
                 R"({"context": "Given two strings, determine the length of the longest common subsequence.\nStrings: VIRVRHRSTQBLLSYPZDVYCFPSQRXNA TIAOSRNPSAHAUPBHUX\nLength of longest common subsequence:", "continuation": "7"})"},
                {"bigbench_operators", TaskType::language_modeling,
                 R"({"context": "op i means i + 6. What is op 3?", "continuation": "9"})"},
                {"bigbench_repeat_copy_logic", TaskType::language_modeling,
                 R"({"context": "Q: repeat cheese seven times, every third say whiz\nA:", "continuation": "cheese cheese whiz cheese cheese whiz cheese"})"},
                {"squad", TaskType::language_modeling,
                 R"({"context": "Context: Architecturally, the school has a Catholic character.\nQuestion: What character does the school have?\nAnswer:", "continuation": "Catholic"})"},
                {"coqa", TaskType::language_modeling,
                 R"({"context": "Below is a story followed by a question.\nStory: Once upon a time...\nQuestion: what color was Cotton?\nAnswer:", "continuation": "white"})"},
                {"boolq", TaskType::multiple_choice,
                 R"({"query": "Passage: Persian (/\u02c8p\u025c\u02d0r\u0292\u0259n/) is one of the Western Iranian languages.\nQuestion: do iran and afghanistan speak the same language?", "choices": ["no", "yes"], "gold": 1})"},
                {"bigbench_language_identification", TaskType::multiple_choice,
                 R"({"query": "Given a sentence, select the correct language among the choices.\nSentence: Er wordt ook in het Afrikaans gesproken.\nLanguage:", "choices": ["Dutch", "Afrikaans", "German", "Swedish", "Norwegian", "Danish", "Frisian", "English", "Luxembourgish", "Yiddish", "Flemish"], "gold": 0})"},
};

TEST(TaskLines, EveryCoreTaskLayoutParses) {
  ASSERT_EQ(std::size(kLayouts), 22u);
  for (const Layout& l : kLayouts) {
    const std::vector<Example> e = parse_task_examples(std::string(l.line) + "\n", l.type, l.task);
    ASSERT_EQ(e.size(), 1u) << l.task;
    EXPECT_EQ(e[0].line, 1);
    switch (l.type) {
      case TaskType::multiple_choice:
        EXPECT_FALSE(e[0].query.empty()) << l.task;
        EXPECT_GE(e[0].choices.size(), 2u) << l.task;
        EXPECT_LT(e[0].gold, static_cast<int64_t>(e[0].choices.size())) << l.task;
        break;
      case TaskType::schema:
        EXPECT_EQ(e[0].context_options.size(), 2u) << l.task;
        EXPECT_FALSE(e[0].continuation.empty()) << l.task;
        break;
      case TaskType::language_modeling:
        EXPECT_FALSE(e[0].context.empty()) << l.task;
        EXPECT_FALSE(e[0].continuation.empty()) << l.task;
        break;
    }
  }
  const std::vector<Example> boolq = parse_task_examples(kLayouts[20].line, TaskType::multiple_choice, "boolq.jsonl");
  EXPECT_NE(boolq[0].query.find("\xcb\x88p"), std::string::npos);  // \u02c8 decoded to UTF-8
  EXPECT_EQ(boolq[0].choices[1], "yes");
}

TEST(TaskLines, ErrorsNameFileAndLine) {
  const auto err = [](const std::string& text, TaskType t) {
    return error_message_of([&] { parse_task_examples(text, t, "t.jsonl"); });
  };
  const std::string ok = R"({"query": "q", "choices": ["a", "b"], "gold": 0})";
  EXPECT_EQ(err(ok + "\n\n{\"query\": \"q\", \"choices\": [\"a\"], \"gold\": 1}\n", TaskType::multiple_choice),
            "t.jsonl:3: gold 1 is out of range for 1 options");
  EXPECT_EQ(err(ok + "\n{\"query\": \"q\", \"gold\": 0}\n", TaskType::multiple_choice),
            "t.jsonl:2: no \"choices\" field");
  EXPECT_EQ(err(R"({"context_options": ["a", "b"], "gold": 0})", TaskType::schema),
            "t.jsonl:1: no \"continuation\" field");
  EXPECT_EQ(err(R"({"context": "a", "continuation": 3})", TaskType::language_modeling),
            "t.jsonl:1: \"continuation\" must be a string");
  EXPECT_EQ(err(R"({"query": "q", "choices": [], "gold": 0})", TaskType::multiple_choice),
            "t.jsonl:1: \"choices\" must be a non-empty list of strings");
  EXPECT_EQ(err(R"({"query": "q", "choices": ["a"], "gold": "0"})", TaskType::multiple_choice),
            "t.jsonl:1: \"gold\" must be an integer index");
  EXPECT_EQ(err("[1, 2]", TaskType::multiple_choice), "t.jsonl:1: expected a JSON object");
  EXPECT_NE(err("{\"query\": \n", TaskType::multiple_choice).find("t.jsonl:1: not valid JSON"), std::string::npos);
  EXPECT_EQ(err("\n \n", TaskType::multiple_choice), "t.jsonl: the task file holds no examples");
  EXPECT_EQ(err("{\"context\": \"\xff\"}", TaskType::language_modeling),
            "t.jsonl:1: not valid UTF-8 at byte 13 of the line");
}

TEST(Bundle, ReadsAFolderAndNamesWhatIsMissing) {
  TempDir dir;
  std::filesystem::create_directories(dir / "b/eval_data/language_understanding");
  write_text(dir / "b/core.yaml", kYaml);
  EXPECT_EQ(error_message_of([&] { read_bundle(dir / "b"); }),
            "eval core: " + dir / "b/eval_meta_data.csv" + " is missing (it gives each task's random baseline)");
  write_text(dir / "b/eval_meta_data.csv",
             "Eval Task,Task Category,Task Type,#shots,#datapoints,Random baseline,Centered Metric?,Description\n"
             "hellaswag_zeroshot,language understanding,multiple choice,0,10042,25,yes,\"Sentence completion, "
             "\"\"commonsense\"\"\"\n"
             "jeopardy,world knowledge,language modeling,10,2117,0,yes,Trivia\n");
  EXPECT_EQ(error_message_of([&] { read_bundle(dir / "b"); }),
            dir / "b/eval_meta_data.csv" + ": no row for the task 'winograd' (its Eval Task column)");
  write_text(dir / "b/eval_meta_data.csv",
             "Eval Task,Task Category,Task Type,#shots,#datapoints,Random baseline,Centered Metric?,Description\n"
             "hellaswag_zeroshot,language understanding,multiple choice,0,10042,25,yes,\"Sentence completion, "
             "\"\"commonsense\"\"\"\n"
             "jeopardy,world knowledge,language modeling,10,2117,0,yes,Trivia\n"
             "winograd,language understanding,schema,0,273,50,yes,Pronouns\n");
  const Bundle b = read_bundle(dir / "b");
  ASSERT_EQ(b.tasks.size(), 3u);
  EXPECT_EQ(b.tasks[0].random_baseline, 25.0);
  EXPECT_EQ(b.tasks[2].random_baseline, 50.0);
  EXPECT_EQ(error_message_of([&] { read_task_examples(b, b.tasks[0]); }),
            "eval core: the task 'hellaswag_zeroshot' reads " +
                dir / "b/eval_data/language_understanding/hellaswag.jsonl" + ", which is missing");
  write_text(dir / "b/eval_data/language_understanding/hellaswag.jsonl", std::string(kLayouts[0].line) + "\n");
  EXPECT_EQ(read_task_examples(b, b.tasks[0]).at(0).gold, 3);
  EXPECT_EQ(select_tasks(b, {"winograd", "jeopardy"}).at(0).label, "jeopardy");  // the bundle's order
  EXPECT_EQ(error_message_of([&] { select_tasks(b, {"copa"}); }),
            "eval core: no task 'copa' in " + dir / "b" + "/core.yaml (it has hellaswag_zeroshot, jeopardy, winograd)");
}

// A bundle's files are read only inside it: a link out (to a secret, say) is refused before it is read, so no message
// quotes it, as `../` in a dataset_uri is; a link that stays inside the bundle is followed.
TEST(Bundle, RefusesLinksOutOfTheBundle) {
  namespace fs = std::filesystem;
  TempDir dir;
  fs::create_directories(dir / "b/eval_data/language_understanding");
  write_text(dir / "b/core.yaml", kYaml);
  write_text(dir / "secret", "machine example.com login alice password SECRET\n");
  fs::create_symlink(dir / "secret", dir / "b/eval_meta_data.csv");
  const std::string e = error_message_of([&] { read_bundle(dir / "b"); });
  EXPECT_NE(e.find(dir / "b/eval_meta_data.csv" + " leads out of the bundle"), std::string::npos) << e;
  EXPECT_EQ(e.find("SECRET"), std::string::npos) << e;

  fs::remove(dir / "b/eval_meta_data.csv");
  write_text(dir / "b/meta.csv", "Eval Task,Random baseline\nhellaswag_zeroshot,25\njeopardy,0\nwinograd,50\n");
  fs::create_symlink(dir / "b/meta.csv", dir / "b/eval_meta_data.csv");  // inside: followed
  const Bundle b = read_bundle(dir / "b");
  EXPECT_EQ(b.tasks[2].random_baseline, 50.0);

  write_text(dir / "outside.jsonl", std::string(kLayouts[0].line) + "\n");
  fs::create_symlink(dir / "outside.jsonl", dir / "b/eval_data/language_understanding/hellaswag.jsonl");
  EXPECT_NE(error_message_of([&] {
              read_task_examples(b, b.tasks[0]);
            }).find("hellaswag.jsonl leads out of the bundle (a link to "),
            std::string::npos);
  fs::remove(dir / "b/eval_data/language_understanding/hellaswag.jsonl");
  fs::create_directories(dir / "b/linked");
  write_text(dir / "b/linked/h.jsonl", std::string(kLayouts[0].line) + "\n");
  fs::create_symlink("../../linked/h.jsonl", dir / "b/eval_data/language_understanding/hellaswag.jsonl");
  EXPECT_EQ(read_task_examples(b, b.tasks[0]).at(0).gold, 3);
}

}  // namespace
}  // namespace nanotrn::icl
