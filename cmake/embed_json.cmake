# Embeds a folder of shipped JSON files (configs/stacks/*.json, configs/forecast/*.json) in the binary as C++
# initialisers of {name, text} pairs, read by the module that owns them (src/recipe/stack_profile.cpp,
# src/forecast/core_map.cpp). One script for both builds that need it: CMake (a custom command, rerun when a file
# changes) and scripts/fuzz.sh.
#   cmake -DJSON_DIR=configs/stacks -DOUT=build/x/stacks.json.inc -P cmake/embed_json.cmake
file(GLOB files "${JSON_DIR}/*.json")
list(SORT files)
set(content "// Generated from ${JSON_DIR}/*.json by cmake/embed_json.cmake; edit the JSON files, not this.\n")
foreach(f IN LISTS files)
  get_filename_component(name "${f}" NAME_WE)
  file(READ "${f}" text)
  string(APPEND content "{\"${name}\", R\"nanotrnjson(${text})nanotrnjson\"},\n")
endforeach()
file(WRITE "${OUT}.tmp" "${content}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUT}.tmp" "${OUT}")
file(REMOVE "${OUT}.tmp")
