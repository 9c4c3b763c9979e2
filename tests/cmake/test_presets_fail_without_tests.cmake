# Every test preset in CMakePresets.json must treat "no test matched" as an error, so that a filter typo (or a
# test binary that registered nothing) fails CI instead of passing with zero tests.
# Usage: cmake -DPRESETS=<path to CMakePresets.json> -P test_presets_fail_without_tests.cmake
file(READ "${PRESETS}" presets_json)
string(JSON count LENGTH "${presets_json}" testPresets)
if(count EQUAL 0)
  message(FATAL_ERROR "${PRESETS}: no testPresets")
endif()
math(EXPR last "${count} - 1")
foreach(i RANGE ${last})
  string(JSON name GET "${presets_json}" testPresets ${i} name)
  string(JSON action ERROR_VARIABLE missing GET "${presets_json}" testPresets ${i} execution noTestsAction)
  if(missing OR NOT action STREQUAL "error")
    message(FATAL_ERROR "${PRESETS}: test preset '${name}' lacks \"execution\": {\"noTestsAction\": \"error\"}")
  endif()
endforeach()
message(STATUS "${count} test presets fail when no test runs")
