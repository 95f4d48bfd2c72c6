# Precompiled headers: the standard library and the large header-only dependencies (fmt,
# nlohmann-json, CLI11, GoogleTest) are parsed once per target instead of once per file. Parsing
# them was about half of each file's compile time, and compile time was most of CI's.
#
# The presets that build (release, sanitize, tsan, fuzz) also set CMAKE_UNITY_BUILD: CMake compiles
# each target's files eight at a time, as one file that includes them, so that the templates of
# those dependencies are instantiated and optimized once per eight files instead of once per file.
# That took the Release build from about 1,800 to about 1,000 CPU seconds. The price: two files of
# one target may not give a helper of internal linkage (an anonymous namespace, a static function)
# the same name, or they fail to compile when they fall into one batch; name it after its file, or
# mark the file SKIP_UNITY_BUILD_INCLUSION (the report renderers do, core/CMakeLists.txt).
#
# scripts/lint.sh configures its own directory with CMAKE_DISABLE_PRECOMPILE_HEADERS=ON and without
# the unity build, so that clang-tidy compiles every file on its own and a file that forgets an
# #include still fails there.
set(CULPRIT_PCH_STD
    <algorithm> <array> <chrono> <cmath> <cstddef> <cstdint> <expected> <filesystem> <functional>
    <map> <memory> <optional> <set> <span> <string> <string_view> <utility> <vector>)
set(CULPRIT_PCH_CORE ${CULPRIT_PCH_STD} <fmt/format.h> <nlohmann/json.hpp>)
