//===- CompileForTest.h - .mlir text to .capmod bytes, in-process -*- C++
//-*-===//

#ifndef CAPTURE_UNITTESTS_TARGET_COMPILEFORTEST_H
#define CAPTURE_UNITTESTS_TARGET_COMPILEFORTEST_H

#include "capture/Compiler/Compiler.h"
#include "capture/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <vector>

namespace capture::test {

/// Compiles `source` (ag dialect) with capture-aot's pipeline and `options`
/// into module file bytes; empty, with a failed expectation, on any error.
inline std::vector<uint8_t>
compileForTest(const char *source,
               const capture::CompileOptions &options = {}) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  capture::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  EXPECT_TRUE(module);
  if (!module)
    return {};
  mlir::FailureOr<std::vector<uint8_t>> bytes =
      capture::compileToCapmod(*module, options);
  EXPECT_TRUE(succeeded(bytes)) << "compiling the test module failed";
  return succeeded(bytes) ? *bytes : std::vector<uint8_t>();
}

} // namespace capture::test

#endif // CAPTURE_UNITTESTS_TARGET_COMPILEFORTEST_H
