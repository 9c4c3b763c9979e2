// PCRE2-backed pre-split. See pretokenize.h.
#define PCRE2_CODE_UNIT_WIDTH 8
#include "tokenizer/pretokenize.h"

#include <pcre2.h>

#include <string>

#include "base/error.h"

namespace nanotrn::tokenizer {

namespace {

std::string pcre2_message(int code) {
  PCRE2_UCHAR buf[256];
  pcre2_get_error_message(code, buf, sizeof(buf));
  return reinterpret_cast<const char*>(buf);
}

struct MatchData {
  explicit MatchData(const pcre2_code* code) : md(pcre2_match_data_create_from_pattern(code, nullptr)) {
    check(md != nullptr, "pretokenize: out of memory for PCRE2 match data");
  }
  ~MatchData() { pcre2_match_data_free(md); }
  MatchData(const MatchData&) = delete;
  MatchData& operator=(const MatchData&) = delete;
  pcre2_match_data* md;
};

// True when s is valid UTF-8 (then the faster code without invalid-UTF handling can run on it).
bool valid_utf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    if (p[i] < 0x80) {
      ++i;
      continue;
    }
    int need;
    unsigned char lo = 0x80, hi = 0xBF;
    if (p[i] >= 0xC2 && p[i] <= 0xDF) {
      need = 1;
    } else if (p[i] >= 0xE0 && p[i] <= 0xEF) {
      need = 2;
      if (p[i] == 0xE0) lo = 0xA0;
      if (p[i] == 0xED) hi = 0x9F;
    } else if (p[i] >= 0xF0 && p[i] <= 0xF4) {
      need = 3;
      if (p[i] == 0xF0) lo = 0x90;
      if (p[i] == 0xF4) hi = 0x8F;
    } else {
      return false;
    }
    if (i + static_cast<size_t>(need) >= n) return false;
    if (p[i + 1] < lo || p[i + 1] > hi) return false;
    for (int k = 2; k <= need; ++k) {
      if (p[i + k] < 0x80 || p[i + k] > 0xBF) return false;
    }
    i += need + 1;
  }
  return true;
}

// ---- The ASCII fast path of kSplitPattern.
// PCRE2 spends most of its time per match, not per byte. For kSplitPattern, a match whose decision reads only ASCII
// bytes is computed here directly, alternative by alternative, exactly as the regex engine would (possessive and
// backtracking quantifiers included). Whenever a byte >= 0x80 would have to be classified (it might be a Unicode
// letter, number or space), the fast path gives up on that match and PCRE2 decides it. tests/tokenizer compare the
// two paths on random text.

enum Cls : uint8_t { kEnd, kHigh, kLetter, kDigit, kNewline, kSpace, kOther };

struct AsciiClasses {
  Cls c[128];
  constexpr AsciiClasses() : c() {
    for (int i = 0; i < 128; ++i) {
      c[i] = kOther;
      if ((i >= 'a' && i <= 'z') || (i >= 'A' && i <= 'Z')) c[i] = kLetter;
      if (i >= '0' && i <= '9') c[i] = kDigit;
      if (i == ' ' || i == '\t' || i == '\v' || i == '\f') c[i] = kSpace;
      if (i == '\r' || i == '\n') c[i] = kNewline;
    }
  }
};
constexpr AsciiClasses kAscii;

inline Cls cls(const unsigned char* p, size_t n, size_t j) {
  if (j >= n) return kEnd;
  return p[j] >= 0x80 ? kHigh : kAscii.c[p[j]];
}

inline char lower(unsigned char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c); }

constexpr size_t kGiveUp = 0;

// The end of kSplitPattern's match at i, or kGiveUp when deciding it needs a non-ASCII byte. p[i] is ASCII.
size_t ascii_match(const unsigned char* p, size_t n, size_t i) {
  const Cls c0 = cls(p, n, i);
  // 1. '(?i:[sdmt]|ll|ve|re)
  if (p[i] == '\'') {
    const Cls c1 = cls(p, n, i + 1);
    if (c1 == kHigh) return kGiveUp;
    if (c1 == kLetter) {
      const char a = lower(p[i + 1]);
      if (a == 's' || a == 'd' || a == 'm' || a == 't') return i + 2;
      if (a == 'l' || a == 'v' || a == 'r') {
        const Cls c2 = cls(p, n, i + 2);
        if (c2 == kHigh) return kGiveUp;
        const char b = c2 == kLetter ? lower(p[i + 2]) : 0;
        if ((a == 'l' && b == 'l') || (a != 'l' && b == 'e')) return i + 3;
      }
    }
  }
  // 2. [^\r\n\p{L}\p{N}]?+\p{L}+
  size_t j = i;
  if (c0 == kOther || c0 == kSpace) ++j;  // the possessive optional prefix takes any such character
  const Cls c = j == i ? c0 : cls(p, n, j);
  if (c == kHigh) return kGiveUp;
  if (c == kLetter) {
    Cls t;
    while ((t = cls(p, n, ++j)) == kLetter) {
    }
    return t == kHigh ? kGiveUp : j;
  }
  // 3. \p{N}{1,2}
  if (c0 == kDigit) {
    const Cls c1 = cls(p, n, i + 1);
    if (c1 == kHigh) return kGiveUp;
    return c1 == kDigit ? i + 2 : i + 1;
  }
  // 4. " ?[^\s\p{L}\p{N}]++[\r\n]*"
  j = i;
  if (p[i] == ' ') {
    const Cls c1 = cls(p, n, i + 1);
    if (c1 == kHigh) return kGiveUp;
    if (c1 == kOther) j = i + 1;  // otherwise backtrack: without the space, ' ' itself is not in the class
  }
  if (cls(p, n, j) == kOther) {
    Cls t;
    while ((t = cls(p, n, ++j)) == kOther) {
    }
    if (t == kHigh) return kGiveUp;
    while (t == kNewline) t = cls(p, n, ++j);
    return j;  // a non-ASCII byte is never \r or \n, so it ends the run either way
  }
  // 5.-7. whitespace: \s*[\r\n] | \s+(?!\S) | \s+
  if (c0 == kSpace || c0 == kNewline) {
    size_t last_newline = n;  // none yet
    j = i;
    Cls t = c0;
    while (t == kSpace || t == kNewline) {
      if (t == kNewline) last_newline = j;
      t = cls(p, n, ++j);
    }
    if (t == kHigh) return kGiveUp;  // the run might go on with a Unicode space
    if (last_newline != n) return last_newline + 1;
    if (t == kEnd) return j;
    return j - i >= 2 ? j - 1 : j;
  }
  return kGiveUp;  // not reached for ASCII input: every ASCII character starts some alternative
}

pcre2_code* compile(std::string_view pattern, uint32_t options) {
  int err = 0;
  PCRE2_SIZE err_offset = 0;
  pcre2_code* code =
      pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), options, &err, &err_offset, nullptr);
  check(code != nullptr, "pretokenize: cannot compile the split pattern at offset " + std::to_string(err_offset) +
                             ": " + pcre2_message(err));
  return code;
}

}  // namespace

struct Pretokenizer::Impl {
  std::string pattern;
  pcre2_code* code = nullptr;   // PCRE2_MATCH_INVALID_UTF: any bytes
  pcre2_code* valid = nullptr;  // plain UTF mode, run with PCRE2_NO_UTF_CHECK on text known to be valid
  bool jit = false;
  bool fast = false;  // the pattern is kSplitPattern: use ascii_match where it decides
  ~Impl() {
    pcre2_code_free(code);
    pcre2_code_free(valid);
  }
};

Pretokenizer::Pretokenizer(std::string_view pattern) : impl_(std::make_unique<Impl>()) {
  impl_->pattern = std::string(pattern);
  impl_->code = compile(pattern, PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF);
  impl_->valid = compile(pattern, PCRE2_UTF | PCRE2_UCP);
  impl_->fast = pattern == kSplitPattern;
  impl_->jit = pcre2_jit_compile(impl_->code, PCRE2_JIT_COMPLETE) == 0 &&
               pcre2_jit_compile(impl_->valid, PCRE2_JIT_COMPLETE) == 0;
}

Pretokenizer::~Pretokenizer() = default;
Pretokenizer::Pretokenizer(Pretokenizer&&) noexcept = default;
Pretokenizer& Pretokenizer::operator=(Pretokenizer&&) noexcept = default;

const std::string& Pretokenizer::pattern() const { return impl_->pattern; }

void Pretokenizer::split(std::string_view text, std::vector<std::string_view>* out) const {
  split_impl(text, out, impl_->fast);
}

void Pretokenizer::split_pcre2(std::string_view text, std::vector<std::string_view>* out) const {
  split_impl(text, out, false);
}

void Pretokenizer::split_impl(std::string_view text, std::vector<std::string_view>* out, bool fast) const {
  const bool valid = valid_utf8(text);
  const pcre2_code* code = valid ? impl_->valid : impl_->code;
  const uint32_t options = valid ? PCRE2_NO_UTF_CHECK : 0;
  MatchData m(code);
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  const size_t n = text.size();
  size_t pos = 0;   // where the next search starts
  size_t done = 0;  // bytes already emitted as chunks
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  while (pos < n) {
    if (fast && bytes[pos] < 0x80) {
      const size_t end = ascii_match(bytes, n, pos);
      if (end != kGiveUp) {
        out->push_back(text.substr(pos, end - pos));
        done = pos = end;
        continue;
      }
    }
    const int rc = impl_->jit ? pcre2_jit_match(code, subject, n, pos, options, m.md, nullptr)
                              : pcre2_match(code, subject, n, pos, options, m.md, nullptr);
    if (rc == PCRE2_ERROR_NOMATCH) break;
    check(rc > 0, "pretokenize: PCRE2 match failed at byte " + std::to_string(pos) + ": " + pcre2_message(rc));
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(m.md);
    const size_t start = ov[0], end = ov[1];
    if (start > done) out->push_back(text.substr(done, start - done));  // unmatched (invalid UTF-8) bytes
    if (end == start) {
      // An empty match cannot happen with kSplitPattern; for any other pattern, step over one byte.
      pos = end + 1;
      continue;
    }
    out->push_back(text.substr(start, end - start));
    done = pos = end;
  }
  if (done < n) out->push_back(text.substr(done));
}

std::vector<std::string_view> Pretokenizer::split(std::string_view text) const {
  std::vector<std::string_view> out;
  split(text, &out);
  return out;
}

}  // namespace nanotrn::tokenizer
