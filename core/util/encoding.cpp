// Text in a named character set, as UTF-8 (util/escape.hpp): glibc's iconv does the conversion.
#include <cerrno>
#include <string>
#include <string_view>

#include <iconv.h>

#include "core/util/escape.hpp"

namespace culprit {
namespace {

bool names_utf8(std::string_view encoding) {
  std::string lower;
  for (const char c : encoding)
    if (c != '-' && c != '_')
      lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return lower.empty() || lower == "utf8";
}

// An iconv descriptor that is closed when it goes out of scope.
class Converter {
public:
  explicit Converter(const std::string& from) : m_cd(iconv_open("UTF-8", from.c_str())) {}
  ~Converter() {
    if (valid())
      iconv_close(m_cd);
  }
  Converter(const Converter&) = delete;
  Converter& operator=(const Converter&) = delete;
  Converter(Converter&&) = delete;
  Converter& operator=(Converter&&) = delete;
  // iconv_open says it failed with (iconv_t) -1.
  // NOLINTNEXTLINE(performance-no-int-to-ptr)
  [[nodiscard]] bool valid() const { return m_cd != reinterpret_cast<iconv_t>(-1); }
  [[nodiscard]] iconv_t get() const { return m_cd; }

private:
  iconv_t m_cd;
};

} // namespace

std::string to_utf8(std::string_view text, std::string_view encoding) {
  if (names_utf8(encoding))
    return valid_utf8(text);
  const Converter converter{std::string(encoding)};
  if (!converter.valid())
    return valid_utf8(text);
  std::string in(text);
  std::string out;
  char* in_at = in.data();
  std::size_t in_left = in.size();
  char buffer[1024];
  while (in_left > 0) {
    char* out_at = buffer;
    std::size_t out_left = sizeof buffer;
    const std::size_t done = iconv(converter.get(), &in_at, &in_left, &out_at, &out_left);
    out.append(buffer, static_cast<std::size_t>(out_at - buffer));
    if (done != static_cast<std::size_t>(-1) || errno == E2BIG)
      continue;
    // A byte the character set does not define (EILSEQ), or a sequence cut short (EINVAL):
    // the replacement character in its place, and on with the next byte.
    out += "\xEF\xBF\xBD";
    ++in_at;
    --in_left;
  }
  // A stateful character set (ISO-2022-JP) may owe a shift back to its initial state.
  char* out_at = buffer;
  std::size_t out_left = sizeof buffer;
  iconv(converter.get(), nullptr, nullptr, &out_at, &out_left);
  out.append(buffer, static_cast<std::size_t>(out_at - buffer));
  return valid_utf8(out);
}

} // namespace culprit
