# Embeds the shipped software-stack profiles (configs/stacks/*.json) in the binary as C++ initialisers of
# {name, text} pairs, read by src/recipe/stack_profile.cpp. One script for both builds that need it: CMake (a custom
# command, rerun when a profile changes) and scripts/fuzz.sh.
#   cmake -DSTACKS_DIR=configs/stacks -DOUT=build/x/stacks.json.inc -P cmake/embed_stacks.cmake
file(GLOB files "${STACKS_DIR}/*.json")
list(SORT files)
set(content "// Generated from configs/stacks/*.json by cmake/embed_stacks.cmake; edit the JSON files, not this.\n")
foreach(f IN LISTS files)
  get_filename_component(name "${f}" NAME_WE)
  file(READ "${f}" text)
  string(APPEND content "{\"${name}\", R\"nanotrnstack(${text})nanotrnstack\"},\n")
endforeach()
file(WRITE "${OUT}.tmp" "${content}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUT}.tmp" "${OUT}")
file(REMOVE "${OUT}.tmp")
