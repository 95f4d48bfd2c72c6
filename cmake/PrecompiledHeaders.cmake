# Precompiled headers: the standard library and the large header-only dependencies (fmt,
# nlohmann-json, CLI11, GoogleTest) are parsed once per target instead of once per file. Parsing
# them was about half of each file's compile time, and compile time was most of CI's.
#
# scripts/lint.sh configures its own directory with CMAKE_DISABLE_PRECOMPILE_HEADERS=ON, so that
# clang-tidy compiles every file on its own and a file that forgets an #include still fails there.
set(CULPRIT_PCH_STD
    <algorithm> <array> <chrono> <cmath> <cstddef> <cstdint> <expected> <filesystem> <functional>
    <map> <memory> <optional> <set> <span> <string> <string_view> <utility> <vector>)
set(CULPRIT_PCH_CORE ${CULPRIT_PCH_STD} <fmt/format.h> <nlohmann/json.hpp>)
