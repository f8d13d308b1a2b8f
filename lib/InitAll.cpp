//===- InitAll.cpp - Register Capture's dialects and passes ---------------===//

#include "capture/InitAll.h"

#include "capture/Conversion/Passes.h"
#include "capture/Dialect/Ag/IR/AgDialect.h"
#include "capture/Pipelines/Pipelines.h"
#include "capture/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"

void capture::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<capture::ag::AgDialect>();
}

void capture::registerAllPasses() {
  capture::registerCapturePasses();
  capture::registerCaptureConversionPasses();
  capture::registerPipelines();
}
