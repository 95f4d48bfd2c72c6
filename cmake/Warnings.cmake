# Warnings are errors everywhere in our own code.
add_library(culprit_warnings INTERFACE)
target_compile_options(culprit_warnings INTERFACE -Wall -Wextra -Werror -Wshadow -Wnon-virtual-dtor
                                                  -Wold-style-cast -Wcast-align -Wunused -Wpedantic)
# GCC 12 reports false -Wrestrict positives inside libstdc++'s std::string operator+ at -O3
# (GCC bug 105329). With a precompiled header it also reports the memcpy inside std::string
# assignment (-Wstringop-overflow, -Wstringop-overread, -Warray-bounds): the same code included as
# text compiles clean, because GCC 12 forgets that the header's code is a system header's. These
# stay on for other compilers: the clang-19 fuzz build and clang-tidy still report them.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(culprit_warnings INTERFACE -Wno-restrict -Wno-stringop-overflow
                                                    -Wno-stringop-overread -Wno-array-bounds)
endif()
# The sanitizers' instrumentation defeats GCC's flow analysis, so -Wmaybe-uninitialized reports
# locals inside std::optional and <regex> that are set on every path (GCC documents that the
# sanitizers can cause false warnings). It stays an error in the Release build.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND (CULPRIT_SANITIZE OR CULPRIT_TSAN))
  target_compile_options(culprit_warnings INTERFACE -Wno-maybe-uninitialized)
endif()

add_library(culprit_sanitizers INTERFACE)
if(CULPRIT_SANITIZE)
  target_compile_options(culprit_sanitizers INTERFACE -fsanitize=address,undefined
                                                      -fno-sanitize-recover=all -fno-omit-frame-pointer)
  target_link_options(culprit_sanitizers INTERFACE -fsanitize=address,undefined)
endif()
if(CULPRIT_TSAN)
  target_compile_options(culprit_sanitizers INTERFACE -fsanitize=thread -fno-omit-frame-pointer)
  target_link_options(culprit_sanitizers INTERFACE -fsanitize=thread)
endif()

# Everything of ours that is C++23 links this.
add_library(culprit_options INTERFACE)
target_compile_features(culprit_options INTERFACE cxx_std_23)
target_link_libraries(culprit_options INTERFACE culprit_warnings culprit_sanitizers)
target_include_directories(culprit_options INTERFACE ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/generated)
