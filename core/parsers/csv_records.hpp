#pragma once
// Records of CSV text through libcsv (RFC 4180 quoting: fields in double quotes may hold the
// delimiter, newlines and doubled quotes), for the parsers of CSV outputs (csv_table.hpp,
// ncu_csv.hpp). Not part of the parsers' interface.

#include <csv.h>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace culprit::parsers {

// libcsv's parser, fed a line at a time so that the caller knows the line each record ended on.
class CsvRecords {
public:
  CsvRecords(unsigned char options, char delimiter) {
    csv_init(&m_parser, options);
    csv_set_delim(&m_parser, static_cast<unsigned char>(delimiter));
  }
  ~CsvRecords() { csv_free(&m_parser); }
  CsvRecords(const CsvRecords&) = delete;
  CsvRecords& operator=(const CsvRecords&) = delete;
  CsvRecords(CsvRecords&&) = delete;
  CsvRecords& operator=(CsvRecords&&) = delete;

  // Parses `text`; the number of bytes taken before malformed quoting, or nullopt when all of
  // it was fine.
  std::optional<std::size_t> feed(std::string_view text) {
    for (std::size_t done = 0; done < text.size();) {
      // libcsv grows a field's buffer by a fixed block; growing the block with the buffer
      // between pieces keeps a huge field linear rather than quadratic in its length.
      csv_set_blk_size(&m_parser,
                       std::max<std::size_t>(k_min_block, csv_get_buffer_size(&m_parser)));
      const auto piece = text.substr(done, k_piece);
      const auto taken =
          csv_parse(&m_parser, piece.data(), piece.size(), on_field, on_record, this);
      if (taken != piece.size())
        return done + taken;
      done += piece.size();
    }
    return std::nullopt;
  }
  // Ends the input; false when a quoted field was left open.
  bool finish() { return csv_fini(&m_parser, on_field, on_record, this) == 0; }
  // The records completed so far, leaving none.
  std::vector<std::vector<std::string>> take() { return std::exchange(m_records, {}); }

private:
  static constexpr std::size_t k_piece = std::size_t{64} << 10;
  static constexpr std::size_t k_min_block = 1024;

  static void on_field(void* data, std::size_t size, void* self) {
    auto& records = *static_cast<CsvRecords*>(self);
    records.m_fields.emplace_back(data == nullptr ? "" : static_cast<const char*>(data), size);
  }
  static void on_record(int /*terminator*/, void* self) {
    auto& records = *static_cast<CsvRecords*>(self);
    records.m_records.push_back(std::exchange(records.m_fields, {}));
  }

  csv_parser m_parser{};
  std::vector<std::string> m_fields;
  std::vector<std::vector<std::string>> m_records;
};

} // namespace culprit::parsers
