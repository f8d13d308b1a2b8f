//===- InterpreterErrorsTest.cpp - The reference interpreter's errors -----===//
//
// Every error the interpreter reports, each with the message a user sees:
// entry selection, inputs, weight overrides, and the ops it refuses.
//
//===----------------------------------------------------------------------===//

#include "InterpreterTestUtils.h"

using namespace mlir;
using namespace capture::reference;
using namespace capture::reference::test;

namespace {

const char *kIdentityModule = R"mlir(
  ag.weight @w : tensor<2x4xf32>
  ag.weight @b : tensor<4xf32>
  ag.forward @predict(%x: tensor<2x4xf32> {ag.name = "x"}) -> (tensor<2x4xf32> {ag.name = "y"}) {
    ag.return %x : tensor<2x4xf32>
  }
  ag.forward @other() -> () {
    ag.return
  })mlir";

Inputs identityInputs() { return {{"x", Tensor::filled({2, 4}, 1.0)}}; }

TEST_F(InterpreterTest, ErrorUnknownEntryListsEntries) {
  expectError(kIdentityModule,
              "unknown entry @nope; the module's entries are @predict "
              "(ag.forward), @other (ag.forward)",
              identityInputs(), {}, "nope");
}

TEST_F(InterpreterTest, ErrorAmbiguousEntry) {
  expectError(kIdentityModule,
              "the module has 2 entries (@predict (ag.forward), @other "
              "(ag.forward)); name the one to evaluate",
              identityInputs());
}

TEST_F(InterpreterTest, ErrorNoEntry) {
  expectError("ag.weight @w : tensor<2xf32>",
              "the module has no entry to evaluate (an ag.forward or an "
              "ag.train_step)");
}

TEST_F(InterpreterTest, ErrorMissingInput) {
  expectError(kIdentityModule,
              "missing input 'x' (shape [2, 4]) of entry @predict", {}, {},
              "predict");
}

TEST_F(InterpreterTest, ErrorUnknownInput) {
  Inputs inputs = identityInputs();
  inputs["z"] = Tensor::filled({1}, 0.0);
  expectError(kIdentityModule,
              "unknown input 'z' for entry @predict; its inputs are 'x'",
              inputs, {}, "predict");
}

TEST_F(InterpreterTest, ErrorInputShapeMismatch) {
  expectError(kIdentityModule, "input 'x' expects shape [2, 4], got [4, 2]",
              {{"x", Tensor::filled({4, 2}, 0.0)}}, {}, "predict");
}

TEST_F(InterpreterTest, ErrorInputDataSizeMismatch) {
  Tensor bad = Tensor::filled({2, 4}, 0.0);
  bad.data.pop_back();
  expectError(kIdentityModule,
              "input 'x' has 7 values, but its shape [2, 4] holds 8",
              {{"x", bad}}, {}, "predict");
}

TEST_F(InterpreterTest, ErrorUnknownWeightOverride) {
  EvalOptions options;
  options.weights["q"] = Tensor::filled({2}, 0.0);
  expectError(kIdentityModule,
              "unknown weight override 'q'; the module's weights are @w, @b",
              identityInputs(), options, "predict");
}

TEST_F(InterpreterTest, ErrorWeightOverrideShape) {
  EvalOptions options;
  options.weights["w"] = Tensor::filled({4, 2}, 0.0);
  expectError(kIdentityModule,
              "weight override 'w' expects shape [2, 4], got [4, 2]",
              identityInputs(), options, "predict");
}

TEST_F(InterpreterTest, ErrorUnsupportedOp) {
  expectError(R"mlir(
    ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}) -> () {
      %p = ag.pack_outputs %x[0] : tensor<2xf32> -> tensor<8xi8>
      ag.return
    })mlir",
              "the reference interpreter does not support 'ag.pack_outputs'",
              {{"x", Tensor::filled({2}, 0.0)}});
}

TEST_F(InterpreterTest, ErrorUnsupportedForeignOp) {
  context.allowUnregisteredDialects();
  expectError(R"mlir(
    ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}) -> () {
      %y = "other.op"(%x) : (tensor<2xf32>) -> tensor<2xf32>
      ag.return
    })mlir",
              "the reference interpreter does not support 'other.op'",
              {{"x", Tensor::filled({2}, 0.0)}});
}

TEST_F(InterpreterTest, ErrorPackedEntry) {
  expectError(R"mlir(
    ag.forward @f(%in: tensor<256xi8>) -> tensor<256xi8>
        attributes {ag.input_layout = [#ag.segment<"x", [2], f32, offset = 0>],
                    ag.output_layout = [#ag.segment<"y", [2], f32, offset = 0>]} {
      %x = ag.input_view %in[0] : tensor<256xi8> -> tensor<2xf32>
      %out = ag.pack_outputs %x[0] : tensor<2xf32> -> tensor<256xi8>
      ag.return %out : tensor<256xi8>
    })mlir",
              "entry @f is packed (ag-pack-io has run); the reference "
              "interpreter evaluates entries before ag-pack-io");
}

TEST_F(InterpreterTest, ErrorHostUpload) {
  expectError(R"mlir(
    ag.forward @f() -> (tensor<2xf32> {ag.name = "y"}) {
      %u = ag.upload : tensor<2xf32>
      ag.return %u : tensor<2xf32>
    })mlir",
              "run ag-verify-capture: the trace contains an upload of host "
              "data ('ag.upload' not marked constant)");
}

TEST_F(InterpreterTest, ErrorHostUploadWithDataButNotConstant) {
  expectError(R"mlir(
    ag.forward @f() -> (tensor<2xf32> {ag.name = "y"}) {
      %u = ag.upload : tensor<2xf32> = dense<1.0>
      ag.return %u : tensor<2xf32>
    })mlir",
              "run ag-verify-capture: the trace contains an upload of host "
              "data ('ag.upload' not marked constant)");
}

TEST_F(InterpreterTest, ErrorDownload) {
  expectError(R"mlir(
    ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}) -> () {
      ag.download %x : tensor<2xf32>
      ag.return
    })mlir",
              "run ag-verify-capture: the trace contains a read-back of a "
              "device value ('ag.download')",
              {{"x", Tensor::filled({2}, 0.0)}});
}

TEST_F(InterpreterTest, ErrorEager) {
  expectError(R"mlir(
    ag.forward @f(%x: tensor<2xf32> {ag.name = "x"}) -> (tensor<2xf32> {ag.name = "y"}) {
      %y = ag.eager "relu"(%x) : (tensor<2xf32>) -> tensor<2xf32>
      ag.return %y : tensor<2xf32>
    })mlir",
              "run ag-verify-capture: the trace contains an eagerly launched "
              "op ('ag.eager' of kernel \"relu\")",
              {{"x", Tensor::filled({2}, 0.0)}});
}

TEST_F(InterpreterTest, ErrorMissingResourceData) {
  expectError(R"mlir(
    ag.forward @f() -> (tensor<2xf32> {ag.name = "y"}) {
      %c = ag.constant dense_resource<absent> : tensor<2xf32>
      ag.return %c : tensor<2xf32>
    })mlir",
              "the data of dense_resource<absent> : tensor<2xf32> is missing "
              "or has the wrong size (expected 2 f32 values)");
}

TEST_F(InterpreterTest, ErrorTensorTooLarge) {
  // 2 GiB: within what a tensor may be (one storage-buffer binding), over
  // what the interpreter evaluates.
  expectError(R"mlir(
    ag.weight @big : tensor<32768x16384xf32>
    ag.forward @f() -> (tensor<32768x16384xf32> {ag.name = "y"}) {
      %w = ag.read_weight @big : tensor<32768x16384xf32>
      ag.return %w : tensor<32768x16384xf32>
    })mlir",
              "result #0 of shape [32768, 16384] exceeds the reference "
              "interpreter's limit of 268435456 elements");
}

} // namespace
