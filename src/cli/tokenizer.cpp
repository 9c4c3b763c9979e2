// `nanotrn tokenizer train|encode|decode|eval`: the byte-level BPE tokenizer (src/tokenizer/) from the command line.
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "base/error.h"
#include "base/file.h"
#include "cli/commands.h"
#include "data/corpus.h"
#include "data/shard.h"
#include "data/split_text.h"
#include "pipeline/data_stages.h"
#include "tokenizer/bpe_train.h"
#include "tokenizer/tokenizer.h"

namespace nanotrn::cli {

namespace {

struct Input {
  std::vector<data::Document> docs;
  std::string note;  // how a plain text file was split, for the log ("" otherwise)
};

// A prepared corpus folder gives its given split; a plain text file its paragraphs (or lines: data/split_text.h);
// anything else is read as a source (folder, .jsonl, Parquet).
Input read_input(const std::string& path, const std::string& split) {
  if (std::filesystem::exists(path + "/corpus.json")) return {data::read_corpus_split(path, split), ""};
  if (std::filesystem::is_directory(path) || data::source_format(path) != data::SourceFormat::text)
    return {data::read_source(path), ""};
  data::SplitText pieces = data::read_text_source(path);
  const std::string note = path + " (" + std::to_string(std::filesystem::file_size(path)) +
                           " bytes): " + std::to_string(pieces.pieces) +
                           (pieces.by_paragraphs ? " paragraphs" : " lines (it has no blank line)") + " in " +
                           std::to_string(pieces.docs.size()) + " documents of up to " +
                           std::to_string(data::kTextDocumentChars) + " bytes, their breaks kept";
  return {std::move(pieces.docs), note};
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void add_tokenizer_train(CLI::App& parent, const Home& home) {
  auto* cmd = parent.add_subcommand("train",
                                    "Train a byte-level BPE tokenizer (GPT-4-style pre-split, 1-2 digit "
                                    "numbers, 4 reserved specials after the merges)");
  struct Args {
    std::string input, out;
    int32_t vocab = 8192;
    int64_t doc_cap = 10000;
    bool force = false;
  };
  auto a = std::make_shared<Args>();
  a->input = home.path(data::kDefaultCorpusDir);
  a->out = home.path(data::kDefaultTokenizerDir);
  cmd->add_option("--input", a->input,
                  "Corpus folder (its train split), a folder of text files or JSONL (a document per file or line), a "
                  "Parquet file (a document per value of its 'text' column), or one plain text file (a document per "
                  "paragraph; per line when it has no blank line)")
      ->capture_default_str();
  cmd->add_option("--vocab", a->vocab, "Vocabulary size, specials included")->capture_default_str();
  cmd->add_option("--out", a->out, "Output folder (tokenizer.tiktoken + tokenizer.json)")->capture_default_str();
  cmd->add_option("--doc-cap", a->doc_cap, "Characters used from each document (0: all)")->capture_default_str();
  cmd->add_flag("--force", a->force, "Retrain even when the output folder holds a tokenizer of this size");
  cmd->callback([a] {
    const pipeline::Say say = [](const std::string& line) { std::printf("%s\n", line.c_str()); };
    if (!a->force &&
        pipeline::reusable_tokenizer(a->out, a->vocab, "--out", "--out NEW, or --force to retrain over it")) {
      std::printf("kept %s (vocab %d; --force retrains)\n", a->out.c_str(), a->vocab);
      return;
    }
    const Input in = read_input(a->input, "train");
    if (!in.note.empty()) std::printf("input: %s\n", in.note.c_str());
    std::vector<std::string_view> texts;
    for (const auto& d : in.docs) texts.push_back(d.text);
    tokenizer::BpeTrainOptions o;
    o.vocab_size = a->vocab;
    o.doc_cap_chars = a->doc_cap;
    const auto t0 = std::chrono::steady_clock::now();
    const tokenizer::Bpe bpe = tokenizer::train_bpe(texts, o);
    const double s = seconds_since(t0);
    bpe.save(a->out);
    std::printf("wrote %s: vocab %d (BOS %d), trained on %s in %.2f s\n", a->out.c_str(), bpe.vocab_size(),
                bpe.bos_id(), tokenizer::train_text_usage(texts, a->doc_cap).describe(a->doc_cap).c_str(), s);
  });
}

void add_tokenizer_encode(CLI::App& parent, const Home& home) {
  auto* cmd = parent.add_subcommand("encode", "Encode a text file into a .bin shard (BOS first)");
  struct Args {
    std::string tokenizer, input, out;
    bool no_bos = false;
  };
  auto a = std::make_shared<Args>();
  a->tokenizer = home.path(data::kDefaultTokenizerDir);
  cmd->add_option("--tokenizer", a->tokenizer, "Tokenizer folder or file")->capture_default_str();
  cmd->add_option("--input", a->input, "Text file")->required();
  cmd->add_option("--out", a->out, "Output .bin shard")->required();
  cmd->add_flag("--no-bos", a->no_bos, "Do not put BOS before the text");
  cmd->callback([a] {
    const tokenizer::Tokenizer tok = tokenizer::Tokenizer::load(a->tokenizer);
    const std::vector<uint8_t> bytes = read_file(a->input);
    std::vector<int32_t> ids;
    if (!a->no_bos) ids.push_back(tok.bos_id());
    const std::vector<int32_t> text =
        tok.encode(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
    ids.insert(ids.end(), text.begin(), text.end());
    data::write_shard(a->out, ids, tok.vocab_size());
    std::printf("wrote %s: %zu tokens for %zu bytes\n", a->out.c_str(), ids.size(), bytes.size());
  });
}

void add_tokenizer_decode(CLI::App& parent, const Home& home) {
  auto* cmd = parent.add_subcommand("decode", "Decode a .bin shard back to text (BOS tokens dropped)");
  struct Args {
    std::string tokenizer, input, out;
    bool keep_bos = false;
  };
  auto a = std::make_shared<Args>();
  a->tokenizer = home.path(data::kDefaultTokenizerDir);
  cmd->add_option("--tokenizer", a->tokenizer, "Tokenizer folder or file")->capture_default_str();
  cmd->add_option("--input", a->input, "Input .bin shard")->required();
  cmd->add_option("--out", a->out, "Output text file")->required();
  cmd->add_flag("--keep-bos", a->keep_bos, "Keep BOS tokens (as their text)");
  cmd->callback([a] {
    const tokenizer::Tokenizer tok = tokenizer::Tokenizer::load(a->tokenizer);
    const data::MappedShard shard(a->input, tok.vocab_size());
    std::vector<int32_t> ids;
    for (int64_t i = 0; i < shard.view().count; ++i) {
      const int32_t id = shard.view().at(i);
      if (a->keep_bos || id != tok.bos_id()) ids.push_back(id);
    }
    const std::string text = tok.decode(ids);
    write_file_atomic(a->out, text.data(), text.size());
    std::printf("wrote %s: %zu bytes from %lld tokens\n", a->out.c_str(), text.size(),
                static_cast<long long>(shard.view().count));
  });
}

void add_tokenizer_eval(CLI::App& parent, const Home& home) {
  auto* cmd = parent.add_subcommand("eval",
                                    "Bytes per token (and encode speed) on a text: by default the corpus's "
                                    "validation split");
  struct Args {
    std::string tokenizer, input;
    int threads = 0;
  };
  auto a = std::make_shared<Args>();
  a->tokenizer = home.path(data::kDefaultTokenizerDir);
  a->input = home.path(data::kDefaultCorpusDir);
  cmd->add_option("--tokenizer", a->tokenizer, "Tokenizer folder or file")->capture_default_str();
  cmd->add_option("--input", a->input, "Corpus folder (its val split) or text files/folders/JSONL")
      ->capture_default_str();
  cmd->add_option("--threads", a->threads, "Encoder threads (0: all)");
  cmd->callback([a] {
    const tokenizer::Tokenizer tok = tokenizer::Tokenizer::load(a->tokenizer);
    const std::vector<data::Document> docs = read_input(a->input, "val").docs;
    std::vector<std::string_view> texts;
    int64_t bytes = 0;
    for (const auto& d : docs) {
      texts.push_back(d.text);
      bytes += static_cast<int64_t>(d.text.size());
    }
    const auto t0 = std::chrono::steady_clock::now();
    const auto ids = tok.encode_batch(texts, a->threads);
    const double s = seconds_since(t0);
    int64_t tokens = 0;
    for (const auto& v : ids) tokens += static_cast<int64_t>(v.size());
    check(tokens > 0, "tokenizer eval: the input has no text");
    std::printf("%lld bytes, %lld tokens: %.4f bytes/token (vocab %d); encoded at %.1f MB/s\n",
                static_cast<long long>(bytes), static_cast<long long>(tokens),
                static_cast<double>(bytes) / static_cast<double>(tokens), tok.vocab_size(), bytes / s / 1e6);
  });
}

}  // namespace

void add_tokenizer(CLI::App& app, const Home& home) {
  auto* tok = app.add_subcommand("tokenizer", "Train, apply and evaluate tokenizers");
  tok->require_subcommand(1);
  add_tokenizer_train(*tok, home);
  add_tokenizer_encode(*tok, home);
  add_tokenizer_decode(*tok, home);
  add_tokenizer_eval(*tok, home);
}

}  // namespace nanotrn::cli
