# ctest smoke of every fuzz target (docs/fuzzing.md, "CI"): in the sanitizer
# build only, so CI runs it once.  fuzz.build makes the fuzz tree under this
# build (tools/build-fuzz.sh: clang + libFuzzer; SKIPPED with the reason when
# they are missing), then each target fuzzes for a bounded time through
# `datcts fuzz` and fails on any finding.  Budget: ~3 min of fuzzing in all.
find_program(FUZZ_SMOKE_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
set(FUZZ_SMOKE_BUILD ${CMAKE_BINARY_DIR}/fuzz-tree)
set(FUZZ_SMOKE_OUT ${CMAKE_BINARY_DIR}/fuzz-smoke)

add_test(NAME fuzz.build
  COMMAND env BUILD_DIR=${FUZZ_SMOKE_BUILD} bash ${PROJECT_SOURCE_DIR}/tools/build-fuzz.sh)
set_tests_properties(fuzz.build PROPERTIES FIXTURES_SETUP fuzz_tree SKIP_RETURN_CODE 77
  TIMEOUT 1800 PROCESSORS 2 LABELS fuzz)

# fuzz_smoke(<test> <seconds> <datcts fuzz arguments...>)
function(fuzz_smoke test seconds)
  add_test(NAME fuzz.${test}
    COMMAND bash ${FUZZ_DIR}/smoke.sh ${FUZZ_SMOKE_BUILD} ${FUZZ_SMOKE_OUT}/${test}
            ${PROJECT_SOURCE_DIR}/bin/datcts --max-time ${seconds} ${ARGN})
  set_tests_properties(fuzz.${test} PROPERTIES FIXTURES_REQUIRED fuzz_tree
    SKIP_RETURN_CODE 77 TIMEOUT 900 LABELS fuzz
    ENVIRONMENT "PYTHONDONTWRITEBYTECODE=1;DATCTS_PYTHON=${FUZZ_SMOKE_PYTHON}")
endfunction()
fuzz_smoke(api12 60 --target api --ia ref-sock --dat-conf ${FUZZ_SMOKE_BUILD}/dat.conf)
if(DATCTS_WITH_DAT2)
  fuzz_smoke(api20 60 --target api --ia ref-sock --dat-conf ${FUZZ_SMOKE_BUILD}/dat2.conf)
endif()
fuzz_smoke(dat_conf 20 --target dat-conf)
fuzz_smoke(sock_frames 40 --target sock)
