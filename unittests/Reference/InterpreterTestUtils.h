//===- InterpreterTestUtils.h - Fixture of the interpreter tests -*- C++
//-*-===//
//
// Parses modules from MLIR text, evaluates them and collects diagnostics,
// so that every test reads like the traces the interpreter sees.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_UNITTESTS_REFERENCE_INTERPRETERTESTUTILS_H
#define CAPTURE_UNITTESTS_REFERENCE_INTERPRETERTESTUTILS_H

#include "capture/Reference/Interpreter.h"

#include "capture/Dialect/Ag/IR/AgOps.h"
#include "capture/InitAll.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace capture::reference::test {

using namespace mlir;

/// Inputs by name.
using Inputs = std::map<std::string, Tensor>;

/// Parses and evaluates modules, collecting their diagnostics in `errors`.
class InterpreterTest : public ::testing::Test {
protected:
  InterpreterTest() {
    DialectRegistry registry;
    capture::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    context.printOpOnDiagnostic(false);
  }

  /// Parses `source`, failing the test when it does not parse.
  OwningOpRef<ModuleOp> parse(StringRef source) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(source, ParserConfig(&context));
    EXPECT_TRUE(module) << "cannot parse:\n" << source.str();
    return module;
  }

  /// Parses and evaluates `source`; diagnostics are collected in `errors`.
  FailureOr<EvalResult> run(StringRef source, const Inputs &inputs = {},
                            const EvalOptions &options = {},
                            StringRef entry = "") {
    module = parse(source);
    if (!module)
      return failure();
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      errors += diag.str() + "\n";
      return success();
    });
    return evaluate(*module, entry, inputs, options);
  }

  /// Evaluates `source` and returns its output `name`, failing the test on
  /// an error.
  Tensor output(StringRef source, const Inputs &inputs = {},
                Precision precision = Precision::F64, StringRef name = "y") {
    EvalOptions options;
    options.precision = precision;
    FailureOr<EvalResult> result = run(source, inputs, options);
    EXPECT_TRUE(succeeded(result)) << errors;
    if (failed(result) || !result->outputs.count(name.str())) {
      ADD_FAILURE() << "no output '" << name.str() << "'";
      return {};
    }
    return result->outputs.at(name.str());
  }

  /// Expects `source` to fail with a diagnostic containing `message`.
  void expectError(StringRef source, StringRef message,
                   const Inputs &inputs = {}, const EvalOptions &options = {},
                   StringRef entry = "") {
    FailureOr<EvalResult> result = run(source, inputs, options, entry);
    EXPECT_TRUE(failed(result));
    EXPECT_NE(errors.find(message.str()), std::string::npos)
        << "expected an error containing\n  " << message.str()
        << "\nbut got\n  " << errors;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  std::string errors;
};

/// Expects `actual` to have `shape` and exactly `values` (NaN matches NaN).
inline void expectTensor(const Tensor &actual, std::vector<int64_t> shape,
                         std::vector<double> values) {
  EXPECT_EQ(actual.shape, shape);
  ASSERT_EQ(actual.data.size(), values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    if (std::isnan(values[i]))
      EXPECT_TRUE(std::isnan(actual.data[i])) << "at index " << i;
    else
      EXPECT_DOUBLE_EQ(actual.data[i], values[i]) << "at index " << i;
  }
}

/// `value` rounded to float, as F32 precision stores it.
inline double f32(double value) { return static_cast<float>(value); }

inline const double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Expects `actual` to have `shape` and `values` within `tolerance`
/// (absolute); NaN matches NaN.
inline void expectNear(const Tensor &actual, std::vector<int64_t> shape,
                       std::vector<double> values, double tolerance) {
  EXPECT_EQ(actual.shape, shape);
  ASSERT_EQ(actual.data.size(), values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    if (std::isnan(values[i]))
      EXPECT_TRUE(std::isnan(actual.data[i])) << "at index " << i;
    else
      EXPECT_NEAR(actual.data[i], values[i], tolerance) << "at index " << i;
  }
}

} // namespace capture::reference::test

#endif // CAPTURE_UNITTESTS_REFERENCE_INTERPRETERTESTUTILS_H
