//===- CapmodWriterTest.cpp - The module writer refuses what it cannot map
//-===//
//
// The writer reads the lowered module that the Capture pipeline leaves: a
// module that lacks part of it (a pass skipped, an attribute edited by
// hand, a pass with a bug) must fail with an error naming what is missing,
// never crash and never write a file the runtime would run wrongly. Each
// test lowers a small module with a weight, a probe, a forward entry and a
// training step, breaks one thing, and checks the writer's error.
//
//===----------------------------------------------------------------------===//

#include "capture/Conversion/Passes.h"
#include "capture/Dialect/Ag/IR/AgDialect.h"
#include "capture/Dialect/Ag/IR/AgOps.h"
#include "capture/InitAll.h"
#include "capture/Pipelines/Pipelines.h"
#include "capture/Target/Capmod.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "gtest/gtest.h"

#include <string>
#include <vector>

using namespace mlir;
using namespace capture;

namespace {

/// A forward entry with a probe and a training step over one weight.
constexpr const char *kModule = R"mlir(
ag.weight @w trainable : tensor<3x2xf32> = dense<[[0.5, -0.25], [0.125, 1.0], [-0.75, 0.5]]>
ag.forward @predict(%x: tensor<2x3xf32> {ag.name = "x"}) -> (tensor<2x2xf32> {ag.name = "y"}) {
  %w = ag.read_weight @w : tensor<3x2xf32>
  %xw = ag.matmul %x, %w : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %p = ag.probe "xw" %xw : tensor<2x2xf32>
  %y = ag.tanh %p : tensor<2x2xf32>
  ag.return %y : tensor<2x2xf32>
}
ag.train_step @train(%x: tensor<2x3xf32> {ag.name = "x"}, %t: tensor<2x2xf32> {ag.name = "target"})
    -> (tensor<f32> {ag.name = "loss"})
    attributes {optimizer = #ag.adamw<lr = 0.1, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>} {
  %w = ag.read_weight @w : tensor<3x2xf32>
  %xw = ag.matmul %x, %w : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %l = ag.mse %xw, %t : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<f32>
  ag.return %l : tensor<f32>
})mlir";

class CapmodWriterTest : public ::testing::Test {
protected:
  CapmodWriterTest() : context(registry()) {
    context.printOpOnDiagnostic(false);
  }

  static DialectRegistry registry() {
    DialectRegistry r;
    mlir::registerAllDialects(r);
    capture::registerAllDialects(r);
    return r;
  }

  /// Parses kModule and runs the Capture pipeline on it, up to the writer.
  void SetUp() override {
    module = parseSourceString<ModuleOp>(kModule, &context);
    ASSERT_TRUE(module);
    PassManager pm(&context);
    buildCapturePipeline(pm, CompileOptions());
    ASSERT_TRUE(succeeded(pm.run(*module)));
  }

  /// Writes the module; returns its error messages ("" when it wrote).
  std::string writeErrors() {
    std::string errors;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      errors += diag.str() + "\n";
      return success();
    });
    std::vector<uint8_t> bytes;
    bool wrote = succeeded(writeCapmod(*module, bytes));
    EXPECT_EQ(wrote, errors.empty()) << errors;
    EXPECT_EQ(wrote, !bytes.empty());
    return errors;
  }

  /// The lowered entry function `name`.
  func::FuncOp entry(StringRef name) {
    auto func = module->lookupSymbol<func::FuncOp>(name);
    EXPECT_TRUE(func) << name.str();
    return func;
  }

  /// The first kernel launch of entry `name`.
  gpu::LaunchFuncOp firstLaunch(StringRef name) {
    gpu::LaunchFuncOp first;
    entry(name).walk([&](gpu::LaunchFuncOp launch) {
      if (!first)
        first = launch;
    });
    EXPECT_TRUE(first);
    return first;
  }

  /// The binding that the first launch of @predict binds first.
  ag::BindingOp firstBinding() {
    auto binding = firstLaunch("predict")
                       .getKernelOperands()[0]
                       .getDefiningOp<ag::BindingOp>();
    EXPECT_TRUE(binding);
    return binding;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

/// Expects `text` to contain `part`.
#define EXPECT_HAS(text, part)                                                 \
  EXPECT_NE((text).find(part), std::string::npos) << (text)

TEST_F(CapmodWriterTest, TheLoweredModuleWrites) {
  EXPECT_EQ(writeErrors(), "");
}

TEST_F(CapmodWriterTest, ErrorNotLowered) {
  (*module)->removeAttr(ag::kBufferPlanAttr);
  EXPECT_HAS(writeErrors(), "module is not lowered: run the Capture pipeline "
                            "(ag-plan-buffers, ag-lower-to-gpu) before "
                            "writing");
}

TEST_F(CapmodWriterTest, ErrorKernelWithoutSpirv) {
  std::string name =
      firstLaunch("predict").getKernelModuleName().getValue().str();
  for (auto spv : llvm::make_early_inc_range(module->getOps<spirv::ModuleOp>()))
    if (spv.getName() == "__spv__" + name)
      spv.erase();
  EXPECT_HAS(writeErrors(), "kernel '" + name +
                                "' has no spirv.module: run "
                                "ag-kernels-to-spirv before writing");
}

TEST_F(CapmodWriterTest, ErrorLaunchOfAMissingKernel) {
  gpu::LaunchFuncOp launch = firstLaunch("predict");
  launch->setAttr(
      launch.getKernelAttrName(),
      SymbolRefAttr::get(&context, "nope",
                         {FlatSymbolRefAttr::get(&context, "nope")}));
  EXPECT_HAS(writeErrors(), "refers to a kernel that does not exist");
}

TEST_F(CapmodWriterTest, ErrorKernelArgumentNotABinding) {
  gpu::LaunchFuncOp launch = firstLaunch("predict");
  ag::BindingOp binding = firstBinding();
  ASSERT_TRUE(binding);
  OpBuilder b(launch);
  Value alloc = memref::AllocOp::create(b, launch.getLoc(), binding.getType());
  launch->setOperand(
      launch.getNumOperands() - launch.getKernelOperands().size(), alloc);
  EXPECT_HAS(writeErrors(), "kernel argument #0 is not an ag.binding");
}

TEST_F(CapmodWriterTest, ErrorBindingOfABufferTheModuleLacks) {
  ag::BindingOp binding = firstBinding();
  ASSERT_TRUE(binding);
  Operation *weights = module->lookupSymbol(kWeightsGlobal);
  ASSERT_TRUE(weights);
  weights->erase();
  binding.setPlaceAttr(
      ag::PlaceAttr::get(&context, ag::BufferKind::weights, 0));
  EXPECT_HAS(writeErrors(), "'ag.binding' op uses the weights buffer, but "
                            "the module has no @__ag_weights global");
}

TEST_F(CapmodWriterTest, ErrorEntryWithoutScratch) {
  entry("predict")->removeAttr(kScratchAttr);
  EXPECT_HAS(writeErrors(), "'func.func' op has no scratch global");
}

TEST_F(CapmodWriterTest, ErrorEntryOfTheWrongSignature) {
  func::FuncOp func = entry("predict");
  ASSERT_TRUE(succeeded(
      func.insertArgument(2, func.getArgumentTypes()[0], {}, func.getLoc())));
  EXPECT_HAS(writeErrors(), "'func.func' op must take its packed input and "
                            "output buffers (two static memref<Nxi8>), but "
                            "takes 'memref<32xi8>', 'memref<16xi8>', "
                            "'memref<32xi8>'");
}

TEST_F(CapmodWriterTest, ErrorEntryWithoutLayouts) {
  entry("predict")->removeAttr(ag::ForwardOp::getOutputLayoutAttrName());
  EXPECT_HAS(writeErrors(), "'func.func' op needs 'ag.input_layout' and "
                            "'ag.output_layout' as arrays of #ag.segment: run "
                            "ag-pack-io before writing");
}

TEST_F(CapmodWriterTest, ErrorProbeNotARecord) {
  func::FuncOp func = entry("predict");
  auto probes = func->getAttrOfType<ArrayAttr>(ag::kProbesAttr);
  ASSERT_TRUE(probes && probes.size() == 1 && isa<ag::ProbeAttr>(probes[0]));
  func->setAttr(ag::kProbesAttr,
                ArrayAttr::get(&context, {StringAttr::get(&context, "xw")}));
  EXPECT_HAS(writeErrors(),
             "'func.func' op has a probe that is not an #ag.probe: \"xw\"");
}

TEST_F(CapmodWriterTest, ErrorMalformedIndexCheck) {
  // ag-insert-index-checks writes #ag.index_check records.
  func::FuncOp func = entry("predict");
  NamedAttribute op(StringAttr::get(&context, "op"),
                    StringAttr::get(&context, "ag.gather"));
  func->setAttr(ag::kIndexChecksAttr,
                ArrayAttr::get(&context, {DictionaryAttr::get(&context, {op})}));
  EXPECT_HAS(writeErrors(), "'func.func' op has an index check that is not "
                            "an #ag.index_check: {op = \"ag.gather\"}");
}

TEST_F(CapmodWriterTest, ErrorMalformedTrainingInfo) {
  func::FuncOp func = entry("train");
  auto info = func->getAttrOfType<ag::TrainAttr>(ag::kTrainAttr);
  ASSERT_TRUE(info);
  func->setAttr(ag::kTrainAttr, UnitAttr::get(&context));
  EXPECT_HAS(writeErrors(), "'func.func' op has 'ag.train' = unit, expected "
                            "an #ag.train");
  // A pack that is not there, and one the buffer plan did not place.
  func->setAttr(
      ag::kTrainAttr,
      ag::TrainAttr::get(&context, FlatSymbolRefAttr::get(&context, "nope"),
                         info.getAdamw(), info.getGroups(),
                         info.getMaxGradNorm(), info.getMaxGradNormInput(),
                         info.getHyperInput(), info.getGradNormOutput()));
  EXPECT_HAS(writeErrors(), "'func.func' op trains param pack @nope, which "
                            "is not an ag.param_pack");
  func->setAttr(ag::kTrainAttr, info);
  module->walk(
      [](ag::ParamPackOp pack) { pack->removeAttr(ag::kGradsPlaceAttr); });
  EXPECT_HAS(writeErrors(), "'ag.param_pack' op has no 'ag.grads_place' "
                            "place: run ag-plan-buffers before writing");
}

TEST_F(CapmodWriterTest, ErrorWeightWithoutPlace) {
  module->walk([](ag::WeightOp weight) { weight->removeAttr(ag::kPlaceAttr); });
  EXPECT_HAS(writeErrors(), "'ag.weight' op has no buffer place: run "
                            "ag-plan-buffers before writing");
}

} // namespace
