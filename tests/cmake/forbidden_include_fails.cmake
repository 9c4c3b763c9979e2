# The module map is enforced (cmake/check_module_includes.cmake): on a copy of src/ and the architecture doc, the
# tree as it is passes; one include across a boundary (recipe including the trainer) fails, naming the file, the line
# and the include; an isa -> sim include inside the NeuronCore's layers fails; a doc row that drifted from the map
# fails naming the row. Usage: cmake -DSOURCE_DIR=<checkout> -DWORK=<scratch folder> -P forbidden_include_fails.cmake
cmake_minimum_required(VERSION 3.25)
set(checker ${SOURCE_DIR}/cmake/check_module_includes.cmake)
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
file(COPY ${SOURCE_DIR}/src DESTINATION ${WORK})
file(COPY ${SOURCE_DIR}/docs/ARCHITECTURE.md DESTINATION ${WORK})

function(check expect_pass expect_text what)
  execute_process(COMMAND ${CMAKE_COMMAND} -DSRC=${WORK}/src -DMAP=${SOURCE_DIR}/cmake/module_map.cmake
                          -DDOC=${WORK}/ARCHITECTURE.md -P ${checker}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(REGEX REPLACE "[ \n]+" " " text "${out}${err}")
  if(expect_pass AND NOT rc EQUAL 0)
    message(FATAL_ERROR "FAIL: ${what}: the checker refused it: ${text}")
  endif()
  if(NOT expect_pass AND rc EQUAL 0)
    message(FATAL_ERROR "FAIL: ${what}: the checker passed it")
  endif()
  if(NOT expect_text STREQUAL "" AND NOT text MATCHES "${expect_text}")
    message(FATAL_ERROR "FAIL: ${what}: the message does not match '${expect_text}': ${text}")
  endif()
  message(STATUS "ok: ${what}")
endfunction()

check(TRUE "" "the tree as it is")

file(READ ${WORK}/src/recipe/budget.h budget)
file(WRITE ${WORK}/src/recipe/budget.h "${budget}\n#include \"train/trainer.h\"\n")
string(REGEX MATCHALL "\n" lines "${budget}\n")
list(LENGTH lines n)
math(EXPR line "${n} + 1")
check(FALSE "src/recipe/budget.h:${line}: recipe may not include \"train/trainer.h\" \\(module train\\). recipe uses only: base, dtype, data, model, optim"
      "recipe including the trainer")
file(WRITE ${WORK}/src/recipe/budget.h "${budget}")

file(READ ${WORK}/src/neuron/isa/program.h program)
file(WRITE ${WORK}/src/neuron/isa/program.h "#include \"neuron/sim/timing.h\"\n${program}")
check(FALSE "src/neuron/isa/program.h:1: neuron/isa may not include \"neuron/sim/timing.h\" \\(module neuron/sim\\)"
      "the ISA layer including the simulator")
file(WRITE ${WORK}/src/neuron/isa/program.h "${program}")

file(READ ${WORK}/ARCHITECTURE.md doc)
string(REGEX REPLACE "(\\| `src/recipe/` \\|[^\n]*\\|) base, dtype, model, data, optim \\|" "\\1 model, optim |" drifted "${doc}")
if(drifted STREQUAL doc)
  message(FATAL_ERROR "FAIL: the recipe row's dependency cell was not found to edit")
endif()
file(WRITE ${WORK}/ARCHITECTURE.md "${drifted}")
check(FALSE "the row of src/recipe/ says it depends on \\[model, optim\\], cmake/module_map.cmake says \\[base, data, dtype, model, optim\\]"
      "a doc row that drifted from the map")
message(STATUS "PASS module boundaries")
