# Fails unless file DOC contains file EXAMPLE verbatim (cmake -P).
file(READ ${DOC} doc)
file(READ ${EXAMPLE} example)
string(FIND "${doc}" "${example}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${DOC} does not contain ${EXAMPLE} verbatim; copy "
                      "the example into its ```c block")
endif()
