//===- CompileOptions.h - What a compile of an ag module chooses -*- C++
//-*-===//

#ifndef CAPTURE_PIPELINES_COMPILEOPTIONS_H
#define CAPTURE_PIPELINES_COMPILEOPTIONS_H

#include <cstdint>
#include <string>

namespace capture {

/// Every choice of a compile, with its default: what capture-aot's flags,
/// the tracer's and the Python package's compile() and the `ag-pipeline`
/// pass pipeline set. Fields, flags, defaults and help live in
/// CompileOptions.def alone (each field's help is its entry there).
struct CompileOptions {
#define CAPTURE_COMPILE_OPTION(TYPE, FIELD, FLAG, DEFAULT, HELP)               \
  TYPE FIELD = DEFAULT;
#include "capture/Pipelines/CompileOptions.def"
};

} // namespace capture

#endif // CAPTURE_PIPELINES_COMPILEOPTIONS_H
