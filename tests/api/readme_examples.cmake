# The C++ examples of README.md's "Embedding Quasi in C++" section, compiled and run as tests, so
# the README cannot show code that does not build or does not print what it says.
#
# Every ```cpp block of that section is a complete program. When a ```text block follows it
# (with at most one line of prose between), that is the program's exact standard output. The
# blocks are written to ${CMAKE_CURRENT_BINARY_DIR}/readme/example_N.cpp at configure time (README.md
# is a configure dependency), each compiled into its own executable (renaming main to link them
# together would lose main's implicit `return 0`), and run by the tests api.readme_example_N.

function(quasi_write_if_changed path content)
  if(EXISTS ${path})
    file(READ ${path} old)
    if(old STREQUAL content)
      return()
    endif()
  endif()
  file(WRITE ${path} "${content}")
endfunction()

function(quasi_add_readme_examples readme)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${readme})
  file(READ ${readme} text)
  string(FIND "${text}" "\n## Embedding Quasi in C++" start)
  if(start EQUAL -1)
    message(FATAL_ERROR "README.md has no '## Embedding Quasi in C++' section")
  endif()
  string(SUBSTRING "${text}" ${start} -1 text)
  string(SUBSTRING "${text}" 1 -1 rest)
  string(FIND "${rest}" "\n## " end)
  if(NOT end EQUAL -1)
    string(SUBSTRING "${rest}" 0 ${end} text)
  endif()

  # CMake lists split on ';' (but not inside [...]): protect both before splitting into lines.
  string(REPLACE ";" "<SEMI>" text "${text}")
  string(REPLACE "[" "<LB>" text "${text}")
  string(REPLACE "]" "<RB>" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")

  set(dir ${CMAKE_CURRENT_BINARY_DIR}/readme)
  file(MAKE_DIRECTORY ${dir})
  set(count 0)
  set(state none)  # none | cpp | after_cpp | text
  set(gap 0)
  foreach(line IN LISTS lines)
    string(REPLACE "<SEMI>" ";" line "${line}")
    string(REPLACE "<LB>" "[" line "${line}")
    string(REPLACE "<RB>" "]" line "${line}")
    if(state STREQUAL "cpp")
      if(line STREQUAL "```")
        quasi_write_if_changed(${dir}/example_${count}.cpp "${code}")
        set(state after_cpp)
        set(gap 0)
      else()
        string(APPEND code "${line}\n")
      endif()
    elseif(state STREQUAL "text")
      if(line STREQUAL "```")
        quasi_write_if_changed(${dir}/example_${count}.expected "${expected}")
        set(state none)
      else()
        string(APPEND expected "${line}\n")
      endif()
    elseif(line STREQUAL "```cpp")
      math(EXPR count "${count} + 1")
      file(REMOVE ${dir}/example_${count}.expected)
      set(code "")
      set(state cpp)
    elseif(state STREQUAL "after_cpp")
      if(line STREQUAL "```text")
        set(expected "")
        set(state text)
      elseif(NOT line STREQUAL "")
        math(EXPR gap "${gap} + 1")
        if(gap GREATER 1)
          set(state none)
        endif()
      endif()
    endif()
  endforeach()
  if(count EQUAL 0)
    message(FATAL_ERROR "README.md's embedding section has no ```cpp examples")
  endif()

  foreach(i RANGE 1 ${count})
    add_executable(quasi_readme_example_${i} ${dir}/example_${i}.cpp)
    target_link_libraries(quasi_readme_example_${i} PRIVATE quasi::quasi)
    add_test(NAME api.readme_example_${i}
             COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:quasi_readme_example_${i}> -DN=${i}
                     -DEXPECTED=${dir}/example_${i}.expected
                     -P ${CMAKE_CURRENT_SOURCE_DIR}/api/run_readme_example.cmake)
    set_tests_properties(api.readme_example_${i} PROPERTIES TIMEOUT 60)
  endforeach()
endfunction()
