#include "tests/support/source_tree.hpp"

#include <cstdlib>

namespace culprit::testing {

std::filesystem::path source_dir() {
  if (const char* copy = std::getenv("CULPRIT_TEST_SOURCE_DIR"); copy != nullptr && *copy != '\0')
    return copy;
  return CULPRIT_SOURCE_DIR;
}

} // namespace culprit::testing
