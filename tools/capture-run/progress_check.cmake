# Checks capture-run's progress line: drawn on stderr when stderr is a
# terminal and the run takes over a second, never when stderr is a pipe.
#
#   cmake -DSCRIPT=<script(1)> -P progress_check.cmake -- <capture-run> <args>
#
# The run must print a "<mode>: N calls, X us/call" line. It runs twice:
# with stdout/stderr as pipes (stderr must stay empty) and under a
# pseudo-terminal made by script(1) (the line must appear and be erased
# before stdout prints). How long the run takes depends on the machine:
# when a run took under 1.5 s the presence of the line cannot be required,
# and the test prints "progress check inconclusive" (ctest then reports it
# skipped).
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

# The run's duration in seconds, from its timing line.
function(run_seconds text out)
  if(NOT text MATCHES "[a-z]+: ([0-9]+) calls, ([0-9]+)\\.[0-9] us/call")
    message(FATAL_ERROR "no timing line in:\n${text}")
  endif()
  math(EXPR ms "${CMAKE_MATCH_1} * ${CMAKE_MATCH_2} / 1000")
  set(${out} ${ms} PARENT_SCOPE)
endfunction()

execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out
  ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "exit code ${rc}:\n${out}${err}")
endif()
run_seconds("${out}" pipe_ms)
if(NOT err STREQUAL "")
  message(FATAL_ERROR "stderr is a pipe but not empty after ${pipe_ms} ms:\n${err}")
endif()

# script(1) runs a shell command line: quote every argument.
set(line "")
foreach(arg IN LISTS cmd)
  string(REPLACE "'" "'\\''" arg "${arg}")
  string(APPEND line " '${arg}'")
endforeach()
execute_process(COMMAND ${SCRIPT} -qec "${line}" /dev/null
  RESULT_VARIABLE rc OUTPUT_VARIABLE tty ERROR_VARIABLE tty_err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "under script(1): exit code ${rc}:\n${tty}${tty_err}")
endif()
run_seconds("${tty}" tty_ms)
string(ASCII 27 esc)
if(tty MATCHES "capture-run: [a-z ]+ [0-9]+/[0-9]+ \\([0-9]+%\\), [0-9.]+ s")
  # Erased (carriage return, erase line) before the outputs are printed.
  if(NOT tty MATCHES "left\r${esc}\\[Koutput y")
    message(FATAL_ERROR "the progress line was not erased before stdout:\n${tty}")
  endif()
  message(STATUS "progress line drawn and erased (${tty_ms} ms run)")
elseif(tty_ms GREATER 1500)
  message(FATAL_ERROR "no progress line in a ${tty_ms} ms run on a terminal:\n${tty}")
else()
  message(STATUS "progress check inconclusive: the run took ${tty_ms} ms")
endif()
