//===- TracerTest.cpp - The C++ tracing frontend --------------------------===//

#include "capture/Tracer/Layers.h"

#include "capture/Compiler/Compiler.h"
#include "capture/InitAll.h"
#include "capture/Pipelines/Pipelines.h"
#include "capture/Reference/Interpreter.h"
#include "capture/Target/Capmod.h"
#include "capture/Transforms/Passes.h"
#include "capture/rt/device.h"
#include "capture/rt/module.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <stdexcept>

using namespace capture;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

/// "TracerTest.cpp:<line>": how an error names a line of this file.
std::string here(int line) { return "TracerTest.cpp:" + std::to_string(line); }

/// Parses traced text back, as capture-aot would.
struct Parsed {
  explicit Parsed(const std::string &text) {
    mlir::DialectRegistry registry;
    mlir::registerAllDialects(registry);
    capture::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    module = mlir::parseSourceString<mlir::ModuleOp>(text, &context);
  }
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

/// y = fc2(relu(fc1(x))) on x [2, 4].
rt::Status traceMlp(Tracer &t, const Linear &fc1, const Linear &fc2) {
  return t.forward("predict", {{"x", {2, 4}}}, [&](Tracer::Inputs &in) {
    return Tracer::Outputs{{"y", fc2(relu(fc1(in.at("x"))))}};
  });
}

TEST(Tracer, ForwardMatchesTheSameMathByHand) {
  Tracer t;
  Linear fc1(t, "fc1", 4, 3, /*seed=*/1);
  Linear fc2(t, "fc2", 3, 2, /*seed=*/3);
  rt::Status s = traceMlp(t, fc1, fc2);
  ASSERT_TRUE(s.isOk()) << s.message();
  rt::Result<std::string> text = t.toMlir();
  ASSERT_TRUE(text.isOk()) << text.message();
  EXPECT_THAT(text.value(), HasSubstr("ag.weight @fc1.weight trainable : "
                                      "tensor<3x4xf32> = #ag.init<linear"));

  Parsed parsed(text.value());
  ASSERT_TRUE(parsed.module);
  using reference::Tensor;
  reference::EvalOptions options;
  std::vector<double> w1 = {1, 0, -1, 2, 0.5, 1, 0, -2, -1, 1, 1, 1};
  std::vector<double> b1 = {0.5, -10, 0};
  std::vector<double> w2 = {1, 2, 3, -1, 0, 0.5};
  std::vector<double> b2 = {0.25, -0.5};
  options.weights["fc1.weight"] = Tensor::of({3, 4}, w1);
  options.weights["fc1.bias"] = Tensor::of({3}, b1);
  options.weights["fc2.weight"] = Tensor::of({2, 3}, w2);
  options.weights["fc2.bias"] = Tensor::of({2}, b2);
  std::vector<double> x = {1, 2, 3, 4, -1, 0.5, 2, -3};
  auto result = reference::evaluate(*parsed.module, "predict",
                                    {{"x", Tensor::of({2, 4}, x)}}, options);
  ASSERT_TRUE(succeeded(result));
  const Tensor &y = result->outputs.at("y");
  ASSERT_EQ(y.shape, (std::vector<int64_t>{2, 2}));
  for (int r = 0; r < 2; ++r) {
    double h[3];
    for (int j = 0; j < 3; ++j) {
      double z = b1[j];
      for (int k = 0; k < 4; ++k)
        z += x[r * 4 + k] * w1[j * 4 + k];
      h[j] = z > 0 ? z : 0;
    }
    for (int o = 0; o < 2; ++o) {
      double z = b2[o];
      for (int j = 0; j < 3; ++j)
        z += h[j] * w2[o * 3 + j];
      EXPECT_NEAR(y.data[r * 2 + o], z, 1e-5) << "row " << r << " out " << o;
    }
  }
}

TEST(Tracer, EveryOpIsLocatedAtTheUsersLine) {
  Tracer t;
  Weight w = t.weight("w", {4}, Init::constant(2.0));
  int line = 0;
  rt::Status s = t.forward("f", {{"x", {4}}}, [&](Tracer::Inputs &in) {
    line = __LINE__ + 1;
    Tensor y = tanh(in.at("x") * w) + 1.0f;
    return Tracer::Outputs{{"y", y}};
  });
  ASSERT_TRUE(s.isOk()) << s.message();
  std::string text = t.toMlir().value();
  for (const char *op : {"ag.read_weight", "ag.mul", "ag.tanh", "ag.add"}) {
    size_t at = text.find(op);
    ASSERT_NE(at, std::string::npos) << op;
    // The op's line ends in `loc(#locN)`; `#locN = loc("...":L:C)` at the
    // end of the module says where.
    std::string rest = text.substr(at, text.find('\n', at) - at);
    size_t ref = rest.rfind("loc(#");
    ASSERT_NE(ref, std::string::npos) << rest;
    std::string alias = rest.substr(ref + 4, rest.size() - ref - 5);
    size_t def = text.find("\n" + alias + " = loc(");
    ASSERT_NE(def, std::string::npos) << alias;
    std::string where = text.substr(def + 1, text.find('\n', def + 1) - def);
    EXPECT_THAT(where,
                HasSubstr("TracerTest.cpp\":" + std::to_string(line) + ":"))
        << op;
  }
}

TEST(Tracer, ShapeErrorNamesTheUsersLineAndLeavesNoEntry) {
  Tracer t;
  int line = 0;
  rt::Status s =
      t.forward("bad", {{"x", {2, 3}}, {"b", {4}}}, [&](Tracer::Inputs &in) {
        line = __LINE__ + 1;
        Tensor y = in.at("x") + in.at("b");
        return Tracer::Outputs{{"y", exp(y)}};
      });
  ASSERT_TRUE(s.isError());
  EXPECT_THAT(s.message(), HasSubstr(here(line)));
  EXPECT_THAT(s.message(), HasSubstr("shapes [2, 3] and [4] do not broadcast"));
  EXPECT_TRUE(t.entries().empty());
  // The next trace works, and the module holds it alone.
  EXPECT_TRUE(t.forward("good", {{"x", {2}}}, [](Tracer::Inputs &in) {
                 return Tracer::Outputs{{"y", exp(in.at("x"))}};
               }).isOk());
  EXPECT_EQ(t.entries(), std::vector<std::string>{"good"});
}

TEST(Tracer, VerifierErrorsNameTheUsersLine) {
  Tracer t;
  int line = 0;
  rt::Status s = t.forward("f", {{"x", {2, 3}}}, [&](Tracer::Inputs &in) {
    line = __LINE__ + 1;
    return Tracer::Outputs{{"y", matmul(in.at("x"), in.at("x"))}};
  });
  ASSERT_TRUE(s.isError());
  EXPECT_THAT(s.message(), HasSubstr(here(line)));
  EXPECT_THAT(s.message(), HasSubstr("'ag.matmul' op"));
}

TEST(Tracer, HostReadBackIsRefusedByTheGuardAtItsLine) {
  Tracer t;
  int first = 0, second = 0;
  rt::Status s = t.forward("f", {{"x", {4}}}, [&](Tracer::Inputs &in) {
    first = __LINE__ + 1;
    float scale = sum(in.at("x")).item();
    second = __LINE__ + 1;
    Tensor host = t.fromHost({4}, {1, 2, 3, 4});
    return Tracer::Outputs{{"y", in.at("x") * scale + host}};
  });
  ASSERT_TRUE(s.isError());
  EXPECT_THAT(s.message(), HasSubstr("capture guard"));
  EXPECT_THAT(s.message(), HasSubstr(here(first) + ":"));
  EXPECT_THAT(s.message(), HasSubstr("download (read-back)"));
  EXPECT_THAT(s.message(), HasSubstr(here(second) + ":"));
  EXPECT_THAT(s.message(), HasSubstr("upload of host data"));
  EXPECT_TRUE(t.entries().empty());
}

TEST(Tracer, ThrowingTraceLeavesNoStateAndRunsOnce) {
  Tracer t;
  Weight w = t.weight("w", {2}, Init::zeros());
  int calls = 0;
  rt::Status s = t.forward("f", {{"x", {2}}}, [&](Tracer::Inputs &in) {
    ++calls;
    Tensor y = in.at("x") * w;
    if (calls == 1)
      throw std::runtime_error("boom");
    return Tracer::Outputs{{"y", y}};
  });
  ASSERT_TRUE(s.isError());
  EXPECT_THAT(s.message(), HasSubstr("the traced function threw: boom"));
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(t.entries().empty());
  s = t.forward("f", {{"x", {2}}}, [&](Tracer::Inputs &in) {
    ++calls;
    return Tracer::Outputs{{"y", in.at("x") * w}};
  });
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(calls, 2); // exactly once per recording
  Parsed parsed(t.toMlir().value());
  EXPECT_TRUE(parsed.module);
}

TEST(Tracer, TensorsOfAnEarlierEntryAreRefused) {
  Tracer t;
  Tensor kept;
  ASSERT_TRUE(t.forward("a", {{"x", {2}}}, [&](Tracer::Inputs &in) {
                 kept = exp(in.at("x"));
                 return Tracer::Outputs{{"y", kept}};
               }).isOk());
  rt::Status s = t.forward("b", {{"x", {2}}}, [&](Tracer::Inputs &in) {
    return Tracer::Outputs{{"y", in.at("x") + kept}};
  });
  ASSERT_TRUE(s.isError());
  EXPECT_THAT(s.message(), HasSubstr("a tensor of an entry traced before"));
}

TEST(Tracer, TensorsOfAFinishedTraceAreNeverRead) {
  Tensor kept;
  {
    Tracer gone;
    ASSERT_TRUE(gone.forward("a", {{"x", {2, 3}}},
                             [&](Tracer::Inputs &in) {
                               kept = in.at("x");
                               return Tracer::Outputs{{"y", kept}};
                             })
                    .isOk());
    EXPECT_EQ(kept.shape(), (std::vector<int64_t>{2, 3}));
  }
  // Its Tracer is gone (under ASan a read would be a use after free), and
  // a new trace, wherever it is allocated, does not take it for its own.
  EXPECT_TRUE(kept.expired());
  EXPECT_FALSE(kept.valid());
  EXPECT_TRUE(kept.shape().empty());
  Tracer t;
  rt::Status s = t.forward("b", {{"x", {2, 3}}}, [&](Tracer::Inputs &in) {
    return Tracer::Outputs{{"y", in.at("x") + kept}};
  });
  ASSERT_TRUE(s.isError());
  EXPECT_THAT(s.message(), HasSubstr("a tensor of a trace that has finished"));
}

TEST(Tracer, WeightErrorsNameTheLine) {
  Tracer t;
  int line = __LINE__ + 1;
  t.weight("w", {4}, Init::linear(0, 1));
  rt::Result<std::string> text = t.toMlir();
  ASSERT_TRUE(text.isError());
  EXPECT_THAT(text.message(), HasSubstr(here(line)));
  EXPECT_THAT(text.message(), HasSubstr("fan_in"));

  Tracer u;
  u.weight("w", {4}, Init::zeros());
  line = __LINE__ + 1;
  u.weight("w", {4}, Init::zeros());
  EXPECT_THAT(u.toMlir().message(), HasSubstr(here(line)));
  EXPECT_THAT(u.toMlir().message(), HasSubstr("'w' is declared twice"));
}

TEST(Tracer, CompiledInProcessReplaysLikeTheInterpreter) {
  Tracer t;
  Linear fc1(t, "fc1", 4, 3, /*seed=*/1);
  Linear fc2(t, "fc2", 3, 2, /*seed=*/3);
  ASSERT_TRUE(traceMlp(t, fc1, fc2).isOk());
  rt::Result<std::vector<uint8_t>> bytes = t.compile();
  ASSERT_TRUE(bytes.isOk()) << bytes.message();
  // The module itself is unchanged: it still prints as a trace.
  EXPECT_THAT(t.toMlir().value(), HasSubstr("ag.forward @predict"));

  rt::DeviceOptions options;
  options.selector = "vulkan";
  rt::Result<std::shared_ptr<rt::Device>> device = rt::Device::create(options);
  ASSERT_TRUE(device.isOk()) << device.message();
  auto loaded = rt::Module::loadBytes(device.value(), bytes.value().data(),
                                      bytes.value().size());
  ASSERT_TRUE(loaded.isOk()) << loaded.message();
  std::vector<float> x = {1, 2, 3, 4, -1, 0.5f, 2, -3};
  auto y =
      loaded.value()->run("predict", {{"x", rt::HostTensor::f32({2, 4}, x)}});
  ASSERT_TRUE(y.isOk()) << y.message();
  std::vector<float> device_y = y.value()[0].tensor.asF32();

  // The interpreter, from the same initializers.
  Parsed parsed(t.toMlir().value());
  ASSERT_TRUE(parsed.module);
  std::vector<double> xd(x.begin(), x.end());
  auto expected = reference::evaluate(
      *parsed.module, "predict", {{"x", reference::Tensor::of({2, 4}, xd)}});
  ASSERT_TRUE(succeeded(expected));
  const std::vector<double> &want = expected->outputs.at("y").data;
  ASSERT_EQ(device_y.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(device_y[i], want[i], 1e-5) << i;
}

TEST(Tracer, CompileErrorsAreStatuses) {
  Tracer t;
  ASSERT_TRUE(t.forward("f", {{"x", {2}}}, [](Tracer::Inputs &in) {
                 return Tracer::Outputs{{"y", exp(in.at("x"))}};
               }).isOk());
  rt::Result<std::vector<uint8_t>> bytes = t.compile({.target = "GPU"});
  ASSERT_TRUE(bytes.isError());
  EXPECT_THAT(bytes.message(), HasSubstr("did you mean 'gpu'"));
}

TEST(Tracer, TrainStepCompilesToAModule) {
  Tracer t;
  Linear fc(t, "fc", 4, 1, /*seed=*/7);
  rt::Status s = t.trainStep(
      "train", {{"x", {8, 4}}, {"target", {8, 1}}},
      [&](Tracer::Inputs &in) {
        Tensor loss = mse(fc(in.at("x")), in.at("target"));
        return Tracer::Outputs{{"loss", loss}};
      },
      AdamW{.lr = 0.01}, StepOptions{.maxGradNorm = 1.0});
  ASSERT_TRUE(s.isOk()) << s.message();
  s = t.forward("predict", {{"x", {1, 4}}}, [&](Tracer::Inputs &in) {
    return Tracer::Outputs{{"y", fc(in.at("x"))}};
  });
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(t.entries(), (std::vector<std::string>{"train", "predict"}));

  Parsed parsed(t.toMlir().value());
  ASSERT_TRUE(parsed.module);
  mlir::FailureOr<std::vector<uint8_t>> bytes =
      capture::compileToCapmod(*parsed.module, capture::CompileOptions());
  ASSERT_TRUE(succeeded(bytes));
  EXPECT_GT(bytes->size(), 0u);
}

TEST(Tracer, StopGradientIsRecordedAndDetaches) {
  // loss = sum(w * x + stopGradient(w) * x): the value counts w twice, the
  // gradient once (dloss/dw = the column sums of x), as PyTorch's detach().
  Tracer t;
  Weight w = t.weight("w", {3}, Init::constant(0.5));
  int line = 0;
  rt::Status s = t.trainStep(
      "train", {{"x", {2, 3}}},
      [&](Tracer::Inputs &in) {
        Tensor direct = w * in.at("x");
        line = __LINE__ + 1;
        Tensor detached = stopGradient(w) * in.at("x");
        return Tracer::Outputs{{"loss", sum(direct + detached)}};
      },
      AdamW{.lr = 0.01});
  ASSERT_TRUE(s.isOk()) << s.message();
  s = t.forward("predict", {{"x", {1, 3}}}, [&](Tracer::Inputs &in) {
    return Tracer::Outputs{{"y", stopGradient(in.at("x")) * w}};
  });
  ASSERT_TRUE(s.isOk()) << s.message();
  std::string text = t.toMlir().value();
  size_t at = text.find("ag.stop_gradient");
  ASSERT_NE(at, std::string::npos) << text;
  EXPECT_THAT(text,
              HasSubstr("TracerTest.cpp\":" + std::to_string(line) + ":"));

  Parsed parsed(text);
  ASSERT_TRUE(parsed.module);
  mlir::PassManager pm(&parsed.context);
  pm.addPass(capture::createAutodiff());
  ASSERT_TRUE(succeeded(pm.run(*parsed.module)));
  using reference::Tensor;
  reference::EvalOptions options;
  options.precision = reference::Precision::F64;
  std::vector<double> x = {1, 2, 3, -4, 0.5, 6};
  auto result = reference::evaluate(*parsed.module, "train",
                                    {{"x", Tensor::of({2, 3}, x)}}, options);
  ASSERT_TRUE(succeeded(result));
  EXPECT_DOUBLE_EQ(result->outputs.at("loss").data[0], 2 * 0.5 * 8.5);
  const Tensor &grad = result->outputs.at("grad/w");
  ASSERT_EQ(grad.shape, std::vector<int64_t>{3});
  for (int j = 0; j < 3; ++j)
    EXPECT_DOUBLE_EQ(grad.data[j], x[j] + x[3 + j]) << "element " << j;

  // Both entries compile with it (ag-autodiff erased it).
  Parsed again(text);
  mlir::PassManager full(&again.context);
  capture::buildCapturePipeline(full, capture::CompileOptions());
  ASSERT_TRUE(succeeded(full.run(*again.module)));
}

TEST(Tracer, ReadBacksAfterAFailedOpAreZerosNotACrash) {
  // The trace failed at the add: the result is an empty Tensor (a scalar's
  // shape), and read-backs of it and of a valid tensor return zeros of
  // their element counts, as toVector() promises, instead of an empty
  // vector that `[0]` would read past.
  Tracer t;
  int line = 0;
  std::vector<float> ofFailed, ofValid;
  float item = -1;
  rt::Status s = t.forward("f", {{"x", {2, 3}}}, [&](Tracer::Inputs &in) {
    line = __LINE__ + 1;
    Tensor y = in.at("x") + reshape(in.at("x"), {3, 2});
    EXPECT_FALSE(y.valid());
    ofFailed = y.toVector();
    ofValid = in.at("x").toVector();
    item = y.toVector()[0] + y.item();
    return Tracer::Outputs{{"y", in.at("x")}};
  });
  ASSERT_TRUE(s.isError());
  EXPECT_THAT(s.message(), HasSubstr(here(line) + ":"));
  EXPECT_THAT(s.message(), HasSubstr("do not broadcast"));
  EXPECT_EQ(ofFailed, std::vector<float>(1, 0.0f));
  EXPECT_EQ(ofValid, std::vector<float>(6, 0.0f));
  EXPECT_EQ(item, 0.0f);
  EXPECT_TRUE(t.entries().empty());
}

TEST(Tracer, GuardErrorsNameTheUsersLinesNotTheIR) {
  // Two read-backs on one line are one site counted twice, a third on
  // another line a second site; the message is the user's lines, without
  // the entry printed as IR ("see current operation").
  Tracer t;
  int both = 0, third = 0;
  rt::Status s = t.forward("f", {{"x", {4}}}, [&](Tracer::Inputs &in) {
    both = __LINE__ + 1;
    float a = sum(in.at("x")).item() + max(in.at("x")).item();
    third = __LINE__ + 1;
    float b = mean(in.at("x")).item();
    return Tracer::Outputs{{"y", in.at("x") * (a + b)}};
  });
  ASSERT_TRUE(s.isError());
  EXPECT_THAT(s.message(),
              HasSubstr("capture guard: entry @f did work outside "
                        "the graph while tracing, which a replay "
                        "would not repeat: 3 downloads at 2 sites"));
  // The two reads of one line are at two columns: the note names the line.
  EXPECT_THAT(s.message(),
              HasSubstr(here(both) + ": note: download (read-back) of a device "
                                     "value here, 2 times"));
  EXPECT_THAT(s.message(), HasSubstr(here(third) + ":"));
  EXPECT_THAT(s.message(), HasSubstr("value here, 1 time"));
  EXPECT_THAT(s.message(), Not(HasSubstr("see current operation")));
  EXPECT_THAT(s.message(), Not(HasSubstr("ag.download")));
  EXPECT_THAT(s.message(), Not(HasSubstr("ag.forward")));
}

} // namespace
