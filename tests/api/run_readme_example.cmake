# Runs README example N (see readme_examples.cmake): it must exit 0 and, when README.md shows
# its output, print exactly that.
#   cmake -DEXE=... -DN=... -DEXPECTED=... -P run_readme_example.cmake
execute_process(COMMAND ${EXE} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "README example ${N} exited with ${rc}\nstdout:\n${out}\nstderr:\n${err}")
endif()
if(EXISTS ${EXPECTED})
  file(READ ${EXPECTED} expected)
  if(NOT out STREQUAL expected)
    message(FATAL_ERROR "README example ${N} printed:\n${out}\nREADME.md says:\n${expected}")
  endif()
endif()
