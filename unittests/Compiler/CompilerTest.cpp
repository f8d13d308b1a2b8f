//===- CompilerTest.cpp - The one compile API
//------------------------------===//
//
// capture::parseModule and capture::compileToCapmod, which capture-aot, the
// tracer (and the Python package through it) and the fuzzer all call: the
// options reach the pipeline, the hooks run where they say, errors come
// back as failures with their diagnostics, and the options' defaults and
// flags have one home (CompileOptions.def).
//
//===----------------------------------------------------------------------===//

#include "capture/Compiler/Compiler.h"
#include "capture/Conversion/Passes.h"
#include "capture/Dialect/Ag/IR/AgOps.h"
#include "capture/InitAll.h"
#include "capture/Pipelines/Pipelines.h"
#include "capture/rt/capmod.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include "gtest/gtest.h"

#include <string>

using namespace mlir;

namespace {

/// A forward entry with an elementwise chain (fused into one kernel unless
/// fuse is off).
constexpr const char *kModule = R"mlir(
ag.weight @b : tensor<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
ag.forward @f(%x: tensor<4xf32> {ag.name = "x"}) -> (tensor<4xf32> {ag.name = "y"}) {
  %b = ag.read_weight @b : tensor<4xf32>
  %s = ag.add %x, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %e = ag.exp %s : tensor<4xf32>
  %y = ag.mul %e, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  ag.return %y : tensor<4xf32>
}
)mlir";

/// A context with every dialect, collecting the error diagnostics.
struct Compiler : ::testing::Test {
  Compiler() : context(registry()) {
    handler.emplace(&context, [this](Diagnostic &diag) {
      if (diag.getSeverity() == DiagnosticSeverity::Error)
        errors += diag.str() + "\n";
      return success();
    });
  }

  static DialectRegistry registry() {
    DialectRegistry r;
    mlir::registerAllDialects(r);
    capture::registerAllDialects(r);
    return r;
  }

  /// Parses `text` through capture::parseModule.
  OwningOpRef<ModuleOp> parse(const std::string &text) {
    llvm::SourceMgr sources;
    sources.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text),
                               llvm::SMLoc());
    return capture::parseModule(sources, &context);
  }

  /// The module's kernels once written (-1 when it fails to compile).
  int kernelsOf(const capture::CompileOptions &options) {
    OwningOpRef<ModuleOp> module = parse(kModule);
    if (!module)
      return -1;
    FailureOr<std::vector<uint8_t>> bytes =
        capture::compileToCapmod(*module, options);
    if (failed(bytes))
      return -1;
    auto desc = capture::rt::readCapmod(bytes->data(), bytes->size());
    return desc.isOk() ? static_cast<int>(desc.value().kernels.size()) : -1;
  }

  MLIRContext context;
  std::string errors;
  std::optional<ScopedDiagnosticHandler> handler;
};

TEST_F(Compiler, WritesAModuleTheLoaderAccepts) {
  OwningOpRef<ModuleOp> module = parse(kModule);
  ASSERT_TRUE(module) << errors;
  FailureOr<std::vector<uint8_t>> bytes =
      capture::compileToCapmod(*module, capture::CompileOptions());
  ASSERT_TRUE(succeeded(bytes)) << errors;
  auto desc = capture::rt::readCapmod(bytes->data(), bytes->size());
  ASSERT_TRUE(desc.isOk()) << desc.message();
  ASSERT_EQ(desc.value().entries.size(), 1u);
  EXPECT_EQ(desc.value().entries[0].name, "f");
  EXPECT_EQ(errors, "");
}

TEST_F(Compiler, OptionsReachThePipeline) {
  capture::CompileOptions fused, unfused;
  unfused.fuse = false;
  int one = kernelsOf(fused), each = kernelsOf(unfused);
  ASSERT_GT(one, 0) << errors;
  EXPECT_EQ(one, 1);
  EXPECT_EQ(each, 3) << "fuse=false: one kernel per op";

  for (const char *target : {"lavapipe", "gpu"}) {
    OwningOpRef<ModuleOp> module = parse(kModule);
    ASSERT_TRUE(module);
    capture::CompileOptions options;
    options.target = target;
    std::string seen;
    capture::CompileHooks hooks;
    hooks.lowered = [&](ModuleOp lowered) {
      auto attr =
          lowered->getAttrOfType<capture::ag::TargetAttr>(capture::kTargetAttr);
      seen = attr ? stringifyReadPath(attr.getReadPath()).str() : "none";
      return success();
    };
    ASSERT_TRUE(succeeded(capture::compileToCapmod(*module, options, hooks)))
        << errors;
    EXPECT_EQ(seen, std::string(target) == "gpu" ? "ssbo" : "texel") << target;
  }
}

TEST_F(Compiler, ABadOptionIsAnErrorWithASuggestion) {
  capture::CompileOptions options;
  options.target = "lavapip";
  EXPECT_EQ(kernelsOf(options), -1);
  EXPECT_NE(errors.find("lavapip"), std::string::npos) << errors;
  EXPECT_NE(errors.find("did you mean 'lavapipe'"), std::string::npos)
      << errors;
}

TEST_F(Compiler, HooksRunWhereTheySay) {
  OwningOpRef<ModuleOp> module = parse(kModule);
  ASSERT_TRUE(module);
  // A failing configure stops before any pass: the module is untouched.
  capture::CompileHooks refuse;
  bool lowered = false;
  refuse.configure = [](PassManager &) { return failure(); };
  refuse.lowered = [&](ModuleOp) {
    lowered = true;
    return success();
  };
  EXPECT_TRUE(failed(
      capture::compileToCapmod(*module, capture::CompileOptions(), refuse)));
  EXPECT_FALSE(lowered);
  EXPECT_TRUE(module->lookupSymbol("f")) << "the entry is still an ag entry";

  // configure sees the pass manager before it runs; lowered sees the
  // module after the pipeline; a failing lowered hook writes nothing.
  capture::CompileHooks watch;
  size_t passes = 0;
  watch.configure = [&](PassManager &pm) {
    passes = pm.size();
    return success();
  };
  watch.lowered = [&](ModuleOp m) {
    lowered = static_cast<bool>(m->getAttr(capture::kTargetAttr));
    return failure();
  };
  EXPECT_TRUE(failed(
      capture::compileToCapmod(*module, capture::CompileOptions(), watch)));
  EXPECT_EQ(passes, 0u) << "configure runs before the pipeline is added";
  EXPECT_TRUE(lowered);
}

TEST_F(Compiler, ParseRefusesAModuleReturnedAfterALexerError) {
  // MLIR's parser returns a module after a lexer error inside an optional
  // parse (the fuzzer's stray '@'): any error refuses the input.
  OwningOpRef<ModuleOp> module = parse(
      "ag.weight @w : tensor<2xf32> = #ag.init<constant, value = 0.0>@\n");
  EXPECT_FALSE(module);
  EXPECT_NE(errors.find("@ identifier expected"), std::string::npos) << errors;
}

TEST_F(Compiler, TheOptionsHaveOneHome) {
  // The pass pipeline's textual options are CompileOptions' fields under
  // the same names and defaults.
  capture::CompileOptions defaults;
  capture::CompileOptions fromPipeline =
      capture::PipelineOptions().toCompileOptions();
  EXPECT_EQ(fromPipeline.target, defaults.target);
  EXPECT_EQ(fromPipeline.alignment, defaults.alignment);
  EXPECT_EQ(fromPipeline.workgroupSize, defaults.workgroupSize);
  EXPECT_EQ(fromPipeline.fuse, defaults.fuse);
  EXPECT_EQ(fromPipeline.tileShuffles, defaults.tileShuffles);
  EXPECT_EQ(fromPipeline.minMatmulWorkgroups, defaults.minMatmulWorkgroups);

  auto parsed = capture::PipelineOptions::createFromString(
      "target=gpu fuse=false alignment=512 workgroup-size=32 "
      "tile-shuffles=false min-matmul-workgroups=2");
  ASSERT_TRUE(parsed);
  capture::CompileOptions o = parsed->toCompileOptions();
  EXPECT_EQ(o.target, "gpu");
  EXPECT_FALSE(o.fuse);
  EXPECT_EQ(o.alignment, 512);
  EXPECT_EQ(o.workgroupSize, 32u);
  EXPECT_FALSE(o.tileShuffles);
  EXPECT_EQ(o.minMatmulWorkgroups, 2u);
}

} // namespace
