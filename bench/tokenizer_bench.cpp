// nanotrn's byte-level BPE vs SentencePiece BPE (libsentencepiece) on the same corpus and vocabulary sizes:
// training time, encode throughput at 1 and 2 threads, and bytes per token on the validation split. Prints a
// Markdown table (docs/PERFORMANCE.md, "Tokenizer").
//
//   build/release/bench/tokenizer_bench [corpus_dir] [vocab sizes...]   # defaults: out/data/corpus 1024 8192 32768
//
// Same text for both: the corpus's train split, each document capped at 10,000 characters for training (the
// recipe's cap), all of it for encoding; the val split for compression. SentencePiece gets one paragraph per line
// (its sentences), identity normalisation without whitespace folding (lossless, like byte-level BPE), byte fallback
// and full character coverage, so neither side drops text. The program checks decode(encode(val)) == val for both.
// Throughput: the train split encoded document-parallel with OpenMP.
#include <omp.h>
#include <sentencepiece_trainer.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "base/file.h"
#include "data/corpus.h"
#include "tokenizer/bpe_train.h"
#include "tokenizer/tokenizer.h"

namespace {

using nanotrn::tokenizer::Tokenizer;

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

std::string cap_chars(const std::string& s, size_t cap) {
  size_t chars = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<uint8_t>(s[i]) & 0xC0) != 0x80 && chars++ == cap) return s.substr(0, i);
  }
  return s;
}

struct Result {
  double train_s = 0, mbps1 = 0, mbps2 = 0, bytes_per_token = 0;
};

// Best of three runs: MB/s of encoding all documents with `threads` threads.
double encode_mbps(const Tokenizer& tok, const std::vector<std::string_view>& docs, int64_t bytes, int threads) {
  double best = 1e30;
  for (int rep = 0; rep < 3; ++rep) {
    const double t0 = now();
    const auto ids = tok.encode_batch(docs, threads);
    best = std::min(best, now() - t0);
    if (ids.empty()) return 0;
  }
  return static_cast<double>(bytes) / best / 1e6;
}

Result measure(const Tokenizer& tok, double train_s, const std::vector<std::string_view>& train, int64_t train_bytes,
               const std::vector<std::string_view>& val, int64_t val_bytes) {
  Result r;
  r.train_s = train_s;
  r.mbps1 = encode_mbps(tok, train, train_bytes, 1);
  r.mbps2 = encode_mbps(tok, train, train_bytes, 2);
  int64_t tokens = 0, lossy = 0;
  const auto val_ids = tok.encode_batch(val, 2);
  for (size_t i = 0; i < val.size(); ++i) {
    tokens += static_cast<int64_t>(val_ids[i].size());
    lossy += tok.decode(val_ids[i]) != val[i];
  }
  if (lossy > 0) std::printf("(warning: %lld val documents do not round-trip)\n", static_cast<long long>(lossy));
  r.bytes_per_token = static_cast<double>(val_bytes) / static_cast<double>(tokens);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string corpus = argc > 1 ? argv[1] : nanotrn::data::kDefaultCorpusDir;
  std::vector<int32_t> vocabs;
  for (int i = 2; i < argc; ++i) vocabs.push_back(std::stoi(argv[i]));
  if (vocabs.empty()) vocabs = {1024, 8192, 32768};
  if (!std::filesystem::exists(corpus + "/corpus.json")) nanotrn::data::prepare_default_corpus(corpus);
  const auto train_docs = nanotrn::data::read_corpus_split(corpus, "train");
  const auto val_docs = nanotrn::data::read_corpus_split(corpus, "val");
  std::vector<std::string> capped;
  std::vector<std::string_view> train, val, train_capped;
  int64_t train_bytes = 0, val_bytes = 0;
  std::string sp_text;
  for (const auto& d : train_docs) {
    train.push_back(d.text);
    train_bytes += static_cast<int64_t>(d.text.size());
    capped.push_back(cap_chars(d.text, 10000));
  }
  for (const auto& c : capped) {
    train_capped.push_back(c);
    size_t pos = 0;
    while (pos < c.size()) {  // one paragraph per line for SentencePiece
      size_t end = c.find("\n\n", pos);
      if (end == std::string::npos) end = c.size();
      std::string para = c.substr(pos, end - pos);
      for (char& ch : para) ch = ch == '\n' ? ' ' : ch;
      if (!para.empty()) sp_text += para + "\n";
      pos = end + 2;
    }
  }
  for (const auto& d : val_docs) {
    val.push_back(d.text);
    val_bytes += static_cast<int64_t>(d.text.size());
  }
  const std::string tmp = (std::filesystem::temp_directory_path() / "nanotrn_tokenizer_bench").string();
  std::filesystem::create_directories(tmp);
  nanotrn::write_file_atomic(tmp + "/train.txt", sp_text.data(), sp_text.size());

  std::printf("corpus %s: train %zu docs / %.2f MB, val %zu docs / %.2f MB; OpenMP max threads %d\n\n", corpus.c_str(),
              train.size(), train_bytes / 1e6, val.size(), val_bytes / 1e6, omp_get_max_threads());
  std::printf(
      "| vocab | tokenizer | train (s) | encode 1 thread (MB/s) | encode 2 threads (MB/s) | val bytes/token |\n");
  std::printf("|---:|---|---:|---:|---:|---:|\n");
  for (int32_t v : vocabs) {
    nanotrn::tokenizer::BpeTrainOptions o;
    o.vocab_size = v;
    o.threads = 2;
    double t0 = now();
    const Tokenizer ours(nanotrn::tokenizer::train_bpe(train_capped, o));
    const Result a = measure(ours, now() - t0, train, train_bytes, val, val_bytes);
    std::printf("| %d | nanotrn BPE | %.2f | %.1f | %.1f | %.4f |\n", v, a.train_s, a.mbps1, a.mbps2,
                a.bytes_per_token);
    std::fflush(stdout);

    const std::string prefix = tmp + "/sp" + std::to_string(v);
    t0 = now();
    const auto status = sentencepiece::SentencePieceTrainer::Train(
        "--input=" + tmp + "/train.txt --model_prefix=" + prefix + " --vocab_size=" + std::to_string(v) +
        " --model_type=bpe --byte_fallback=true --character_coverage=1.0 --normalization_rule_name=identity"
        " --remove_extra_whitespaces=false"
        " --max_sentence_length=1000000 --num_threads=2 --minloglevel=2 --bos_id=1 --eos_id=2 --unk_id=0");
    const double sp_train = now() - t0;
    if (!status.ok()) {
      std::printf("| %d | SentencePiece BPE | failed: %s | | | |\n", v, status.ToString().c_str());
      continue;
    }
    const Tokenizer sp = Tokenizer::load(prefix + ".model");
    const Result b = measure(sp, sp_train, train, train_bytes, val, val_bytes);
    std::printf("| %d | SentencePiece BPE | %.2f | %.1f | %.1f | %.4f |\n", v, b.train_s, b.mbps1, b.mbps2,
                b.bytes_per_token);
    std::fflush(stdout);
  }
  std::filesystem::remove_all(tmp);
  return 0;
}
