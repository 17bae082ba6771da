# Installs the Quasi build at BUILD_DIR into a temporary prefix, then configures, builds and runs
# the example applications against that installed package (find_package(quasi CONFIG)), and also
# compiles them with the flags pkg-config gives for quasi.pc. Run by ctest (tests/CMakeLists.txt).
#   cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... -DGENERATOR=... -DCXX=... [-DSANITIZE_FLAGS=...] -P run_example.cmake
foreach(v BUILD_DIR SOURCE_DIR WORK_DIR GENERATOR CXX)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "run_example.cmake: ${v} is not set")
  endif()
endforeach()

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
file(GLOB public_headers RELATIVE ${SOURCE_DIR}/../../../lib ${SOURCE_DIR}/../../../lib/include/quasi/*.hpp)
foreach(f ${public_headers})
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
file(GLOB_RECURSE private_headers ${prefix}/include/*.h ${prefix}/include/quasi/*/*.hpp)
if(private_headers)
  message(FATAL_ERROR "private headers were installed: ${private_headers}")
endif()

# 1. find_package(quasi CONFIG REQUIRED) + quasi::quasi
run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/build -G ${GENERATOR}
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_BUILD_TYPE=Debug
    "-DCMAKE_CXX_FLAGS=${SANITIZE_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${SANITIZE_FLAGS}")
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
set(plugins ${SOURCE_DIR}/plugins/greeter.scm ${SOURCE_DIR}/plugins/wordcount.scm ${SOURCE_DIR}/plugins/spinner.scm)

# What each application must print (beside exiting 0).
function(check_rules output how)
  if(NOT output MATCHES "stopped: .*limit exceeded" OR NOT output MATCHES "\nok\n")
    message(FATAL_ERROR "rules_example (${how}): unexpected output\n${output}")
  endif()
endfunction()
function(check_plugins output how)
  foreach(expected "loaded greeter\nloaded wordcount\nloaded spinner\n" "greeter -> ann: welcome, ann!"
                   "spinner failed on \"spin\": time limit exceeded" "wordcount -> ann: 7 words so far"
                   "summary: \\(\"greeter\" greeted 2\\)" "\nok\n")
    if(NOT output MATCHES "${expected}")
      message(FATAL_ERROR "plugin_host (${how}): no match for ${expected} in\n${output}")
    endif()
  endforeach()
endfunction()

run(${WORK_DIR}/build/rules_example ${SOURCE_DIR}/rules.scm)
message(STATUS "rules_example (CMake package):\n${last_output}")
check_rules("${last_output}" "CMake package")
run(${WORK_DIR}/build/plugin_host ${plugins})
message(STATUS "plugin_host (CMake package):\n${last_output}")
check_plugins("${last_output}" "CMake package")

# 2. pkg-config --cflags --libs quasi
find_program(PKG_CONFIG pkg-config)
if(PKG_CONFIG)
  set(ENV{PKG_CONFIG_PATH} "${prefix}/lib/pkgconfig:${prefix}/lib64/pkgconfig:${prefix}/lib/x86_64-linux-gnu/pkgconfig")
  run(${PKG_CONFIG} --cflags --libs quasi)
  string(STRIP "${last_output}" flags)
  separate_arguments(flags UNIX_COMMAND "${flags}")
  separate_arguments(san UNIX_COMMAND "${SANITIZE_FLAGS}")
  run(${CXX} ${san} ${SOURCE_DIR}/main.cpp -o ${WORK_DIR}/rules_example_pc ${flags})
  run(${WORK_DIR}/rules_example_pc ${SOURCE_DIR}/rules.scm)
  check_rules("${last_output}" "pkg-config")
  run(${CXX} ${san} ${SOURCE_DIR}/plugin_host.cpp -o ${WORK_DIR}/plugin_host_pc ${flags})
  run(${WORK_DIR}/plugin_host_pc ${plugins})
  check_plugins("${last_output}" "pkg-config")
  message(STATUS "rules_example and plugin_host (pkg-config): ok")
endif()
