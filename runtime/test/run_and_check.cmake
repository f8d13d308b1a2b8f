# Runs a command and checks its exit code, output and files; used by the
# capture-run tests (ctest only checks one of these at a time).
#
#   cmake -DEXPECT_RC=<n>
#         [-DSTDOUT_MATCHES=<regex>@@<regex>...]
#         [-DSTDERR_MATCHES=<regex>@@<regex>...]
#         [-DSTDERR_EMPTY=ON]
#         [-DEXPECT_FILES=<path>@@<path>...]
#         [-DCLEAN_DIR=<dir>]            (removed before running)
#         -P run_and_check.cmake -- <command> <args>...
#
# Regexes are CMake regexes; "@@" separates several, each must match; <NL>
# stands for a newline (awkward to pass through ctest's command line).
set(cmd)
set(after_dashes OFF)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE 0 ${last})
  if(after_dashes)
    list(APPEND cmd "${CMAKE_ARGV${i}}")
  elseif("${CMAKE_ARGV${i}}" STREQUAL "--")
    set(after_dashes ON)
  endif()
endforeach()
if(NOT cmd)
  message(FATAL_ERROR "run_and_check: no command after --")
endif()
if(DEFINED CLEAN_DIR)
  file(REMOVE_RECURSE "${CLEAN_DIR}")
endif()

execute_process(COMMAND ${cmd}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(report "command: ${cmd}\nexit code: ${rc}\n--- stdout ---\n${out}--- stderr ---\n${err}")

set(failed OFF)
if(NOT "${rc}" STREQUAL "${EXPECT_RC}")
  string(APPEND problems "exit code ${rc}, expected ${EXPECT_RC}\n")
  set(failed ON)
endif()
foreach(stream STDOUT STDERR)
  if(stream STREQUAL "STDOUT")
    set(text "${out}")
  else()
    set(text "${err}")
  endif()
  if(DEFINED ${stream}_MATCHES)
    string(REPLACE "@@" ";" regexes "${${stream}_MATCHES}")
    foreach(re IN LISTS regexes)
      string(REPLACE "<NL>" "\n" re "${re}")
      if(NOT text MATCHES "${re}")
        string(APPEND problems "${stream} does not match: ${re}\n")
        set(failed ON)
      endif()
    endforeach()
  endif()
endforeach()
if(STDERR_EMPTY AND NOT err STREQUAL "")
  string(APPEND problems "stderr is not empty\n")
  set(failed ON)
endif()
if(DEFINED EXPECT_FILES)
  string(REPLACE "@@" ";" files "${EXPECT_FILES}")
  foreach(f IN LISTS files)
    if(NOT EXISTS "${f}")
      string(APPEND problems "missing file: ${f}\n")
      set(failed ON)
    endif()
  endforeach()
endif()

# STATUS output is not re-wrapped (FATAL_ERROR's is), so regexes such as
# ctest's SKIP_REGULAR_EXPRESSION see the command's lines intact.
message(STATUS "${report}")
if(failed)
  message(FATAL_ERROR "${problems}")
endif()
