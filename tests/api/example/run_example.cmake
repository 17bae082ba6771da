# Installs the Quasi build at BUILD_DIR into a temporary prefix, then configures, builds and runs
# the example application against that installed package (find_package(quasi CONFIG)), and also
# compiles it with the flags pkg-config gives for quasi.pc. Run by ctest (tests/CMakeLists.txt).
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
run(${WORK_DIR}/build/rules_example ${SOURCE_DIR}/rules.scm)
message(STATUS "rules_example (CMake package):\n${last_output}")
if(NOT last_output MATCHES "stopped: .*limit exceeded" OR NOT last_output MATCHES "\nok\n")
  message(FATAL_ERROR "unexpected output")
endif()

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
  message(STATUS "rules_example (pkg-config): ok")
endif()

# 3. The Scheme libraries: installed to share/quasi/lib, where the installed `quasi` finds them
#    (a site library added there is importable).
if(NOT EXISTS ${prefix}/share/quasi/lib/scheme/base.sld)
  message(FATAL_ERROR "not installed: share/quasi/lib/scheme/base.sld")
endif()
if(EXISTS ${prefix}/bin/quasi)
  file(WRITE ${prefix}/share/quasi/lib/site/probe.sld
       "(define-library (site probe) (import (scheme base)) (export probe) (begin (define probe 42)))\n")
  file(WRITE ${WORK_DIR}/probe.scm "(import (scheme base) (scheme write) (site probe))\n(display probe)\n")
  run(${prefix}/bin/quasi ${WORK_DIR}/probe.scm)
  if(NOT last_output STREQUAL "42")
    message(FATAL_ERROR "the installed quasi did not find share/quasi/lib/site/probe.sld: ${last_output}")
  endif()
  message(STATUS "installed libraries: ok")
endif()
