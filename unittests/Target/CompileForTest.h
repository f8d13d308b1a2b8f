//===- CompileForTest.h - .mlir text to .capmod bytes, in-process -*- C++
//-*-===//

#ifndef CAPTURE_UNITTESTS_TARGET_COMPILEFORTEST_H
#define CAPTURE_UNITTESTS_TARGET_COMPILEFORTEST_H

#include "capture/InitAll.h"
#include "capture/Pipelines/Pipelines.h"
#include "capture/Target/Capmod.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <vector>

namespace capture::test {

/// Compiles `source` (ag dialect) with capture-aot's pipeline into module
/// file bytes; empty, with a failed expectation, on any error.
inline std::vector<uint8_t> compileForTest(const char *source) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  capture::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  EXPECT_TRUE(module);
  if (!module)
    return {};
  mlir::PassManager pm(&context);
  capture::buildCapturePipeline(pm, capture::PipelineOptions());
  std::vector<uint8_t> bytes;
  bool ok = succeeded(pm.run(*module)) &&
            succeeded(capture::writeCapmod(*module, bytes));
  EXPECT_TRUE(ok) << "compiling the test module failed";
  return ok ? bytes : std::vector<uint8_t>();
}

} // namespace capture::test

#endif // CAPTURE_UNITTESTS_TARGET_COMPILEFORTEST_H
