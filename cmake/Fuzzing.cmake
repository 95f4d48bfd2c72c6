# CULPRIT_FUZZ: everything of ours is built with libFuzzer's coverage instrumentation and with
# AddressSanitizer and UndefinedBehaviorSanitizer, so that tests/fuzz can link its targets with
# -fsanitize=fuzzer. Needs clang (the `fuzz` preset names clang++-19). Warnings stay warnings
# here: another compiler's warnings must not stop a fuzzing run.
if(NOT CULPRIT_FUZZ)
  return()
endif()
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "CULPRIT_FUZZ needs clang (configure with the fuzz preset)")
endif()
target_compile_options(culprit_sanitizers INTERFACE -fsanitize=fuzzer-no-link,address,undefined
                                                    -fno-sanitize-recover=all -fno-omit-frame-pointer
                                                    -Wno-error)
target_link_options(culprit_sanitizers INTERFACE -fsanitize=address,undefined)
