//===- capi_test.cpp - The C API: statuses, devices, modules, replays -----===//
//
// The forward test module of runtime/test/test_util.h (entries predict, bias,
// side) driven through capture.h only: descriptions, replays, weights,
// probes, and every error path with its status code and message.
//
//===----------------------------------------------------------------------===//

#include "capi_fixture.h"
#include "test_util.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>

using namespace capture::capi::test;
namespace rt = capture::rt;
using ::testing::ElementsAreArray;
namespace rtt = capture::rt::test;

namespace {

const std::vector<int64_t> kShape24 = {2, 4};

TEST(CapiStatus, NullIsSuccess) {
  EXPECT_EQ(capture_status_code(nullptr), CAPTURE_STATUS_OK);
  EXPECT_STREQ(capture_status_message(nullptr), "");
  capture_status_free(nullptr);
}

TEST(CapiDevice, ListsDevices) {
  capture_device_list *list = nullptr;
  CAPI_ASSERT_OK(capture_device_list_create(&list));
  size_t count = 0;
  CAPI_EXPECT_OK(capture_device_list_count(list, &count));
  ASSERT_GE(count, 1u);
  capture_device_info info{};
  CAPI_EXPECT_OK(capture_device_list_info(list, 0, &info));
  EXPECT_EQ(info.index, 0u);
  ASSERT_NE(info.name, nullptr);
  EXPECT_STRNE(info.name, "");
  EXPECT_THAT(std::string(info.type_name),
              ::testing::AnyOf("cpu", "discrete-gpu", "integrated-gpu",
                               "virtual-gpu", "other"));
  EXPECT_THAT(error(capture_device_list_info(list, count, &info)),
              isError(CAPTURE_STATUS_INVALID_ARGUMENT,
                      {"capture_device_list_info: device index " +
                       std::to_string(count) + " is out of range"}));
  EXPECT_THAT(error(capture_device_list_info(list, 0, nullptr)),
              isError(CAPTURE_STATUS_INVALID_ARGUMENT, {"out is NULL"}));
  EXPECT_THAT(error(capture_device_list_count(nullptr, &count)),
              isError(CAPTURE_STATUS_INVALID_ARGUMENT,
                      {"capture_device_list_count: list is NULL"}));
  EXPECT_THAT(error(capture_device_list_create(nullptr)),
              isError(CAPTURE_STATUS_INVALID_ARGUMENT, {"out_list is NULL"}));
  capture_device_list_destroy(list);
  capture_device_list_destroy(nullptr);
}

TEST(CapiDevice, UnknownSelectorIsAnError) {
  capture_device *device = nullptr;
  EXPECT_THAT(error(capture_device_create("no-such-device-x7", &device)),
              isError(CAPTURE_STATUS_ERROR,
                      {"capture_device_create: ", "'no-such-device-x7'"}));
  EXPECT_EQ(device, nullptr);
  EXPECT_THAT(error(capture_device_create(nullptr, nullptr)),
              isError(CAPTURE_STATUS_INVALID_ARGUMENT, {"out_device is NULL"}));
  capture_device_info info;
  EXPECT_THAT(error(capture_device_get_info(nullptr, &info)),
              isError(CAPTURE_STATUS_INVALID_ARGUMENT, {"device is NULL"}));
  const char *choice = nullptr;
  EXPECT_THAT(error(capture_device_choice(nullptr, &choice)),
              isError(CAPTURE_STATUS_INVALID_ARGUMENT, {"device is NULL"}));
  capture_device_destroy(nullptr);
}

TEST_F(CapiTest, DeviceInfoMatchesTheList) {
  capture_device_info info{};
  CAPI_ASSERT_OK(capture_device_get_info(device, &info));
  capture_device_list *list = nullptr;
  CAPI_ASSERT_OK(capture_device_list_create(&list));
  capture_device_info listed{};
  CAPI_EXPECT_OK(capture_device_list_info(list, info.index, &listed));
  EXPECT_STREQ(listed.name, info.name);
  EXPECT_EQ(listed.type, info.type);
  EXPECT_EQ(info.has_compute, 1);
  capture_device_list_destroy(list);
}

TEST_F(CapiTest, LoadsFromFileAndBytes) {
  std::string path = ::testing::TempDir() + "capi_test_module.capmod";
  ASSERT_TRUE(rt::writeCapmodFile(path, rtt::makeTestModule()).isOk());
  capture_module *m = nullptr;
  CAPI_ASSERT_OK(capture_module_load_file(device, path.c_str(), &m));
  size_t entries = 0;
  CAPI_EXPECT_OK(capture_module_entry_count(m, &entries));
  EXPECT_EQ(entries, 3u);
  capture_module_destroy(m);
  std::remove(path.c_str());

  capture_module *untouched = nullptr;
  EXPECT_THAT(
      error(capture_module_load_file(device, path.c_str(), &untouched)),
      isError(CAPTURE_STATUS_ERROR, {"capture_module_load_file: ", path}));
  const char garbage[] = "not a module";
  EXPECT_THAT(error(capture_module_load_bytes(device, garbage, sizeof garbage,
                                              &untouched)),
              isError(CAPTURE_STATUS_ERROR, {"capture_module_load_bytes: "}));
  EXPECT_EQ(untouched, nullptr);
  EXPECT_THAT(error(capture_module_load_file(nullptr, "x", &m)),
              isError(CAPTURE_STATUS_INVALID_ARGUMENT, {"device is NULL"}));
  EXPECT_THAT(error(capture_module_load_file(device, nullptr, &m)),
              isError(CAPTURE_STATUS_INVALID_ARGUMENT, {"path is NULL"}));
  EXPECT_THAT(error(capture_module_load_file(device, "x", nullptr)),
              isError(CAPTURE_STATUS_INVALID_ARGUMENT, {"out_module is NULL"}));
  EXPECT_THAT(error(capture_module_load_bytes(device, nullptr, 4, &m)),
              isError(CAPTURE_STATUS_INVALID_ARGUMENT, {"data is NULL"}));
}

TEST_F(CapiTest, DescribesEntriesAndWeights) {
  OwnedModule m = load(rtt::makeTestModule());
  ASSERT_TRUE(m);
  const char *name = nullptr;
  CAPI_EXPECT_OK(capture_module_entry_name(m.get(), 1, &name));
  EXPECT_STREQ(name, "bias");
  EXPECT_THAT(error(capture_module_entry_name(m.get(), 3, &name)),
              isError(CAPTURE_STATUS_INVALID_ARGUMENT,
                      {"entry index 3 is out of range (3 exist)"}));
  int32_t kind = -1;
  CAPI_EXPECT_OK(capture_module_entry_kind(m.get(), "predict", &kind));
  EXPECT_EQ(kind, CAPTURE_ENTRY_FORWARD);

  size_t n = 0;
  CAPI_EXPECT_OK(capture_module_input_count(m.get(), "predict", &n));
  EXPECT_EQ(n, 2u);
  capture_tensor_info info{};
  CAPI_EXPECT_OK(capture_module_input_info(m.get(), "predict", 1, &info));
  EXPECT_STREQ(info.name, "b");
  EXPECT_EQ(info.dtype, CAPTURE_DTYPE_F32);
  ASSERT_EQ(info.rank, 2);
  EXPECT_THAT(std::vector<int64_t>(info.shape, info.shape + 2),
              ElementsAreArray(kShape24));
  EXPECT_EQ(info.byte_size, 32u);
  EXPECT_EQ(info.flags, 0u);
  EXPECT_THAT(error(capture_module_input_info(m.get(), "predict", 2, &info)),
              isError(CAPTURE_STATUS_INVALID_ARGUMENT,
                      {"entry 'predict': input index 2 is out of range"}));

  CAPI_EXPECT_OK(capture_module_output_count(m.get(), "side", &n));
  EXPECT_EQ(n, 0u);
  CAPI_EXPECT_OK(capture_module_output_info(m.get(), "predict", 1, &info));
  EXPECT_STREQ(info.name, "z");
  CAPI_EXPECT_OK(capture_module_probe_count(m.get(), "predict", &n));
  EXPECT_EQ(n, 1u);
  CAPI_EXPECT_OK(capture_module_probe_info(m.get(), "predict", 0, &info));
  EXPECT_STREQ(info.name, "h");
  CAPI_EXPECT_OK(capture_module_weight_count(m.get(), &n));
  EXPECT_EQ(n, 1u);
  CAPI_EXPECT_OK(capture_module_weight_info(m.get(), 0, &info));
  EXPECT_STREQ(info.name, "w");
  EXPECT_EQ(info.byte_size, 32u);
  EXPECT_EQ(info.flags, unsigned(CAPTURE_TENSOR_TRAINABLE));
  EXPECT_THAT(error(capture_module_weight_info(m.get(), 1, &info)),
              isError(CAPTURE_STATUS_INVALID_ARGUMENT,
                      {"weight index 1 is out of range (1 exists)"}));

  // Every function that takes an entry name refuses an unknown one alike.
  Error unknown = error(capture_module_output_count(m.get(), "nope", &n));
  EXPECT_THAT(unknown, isError(CAPTURE_STATUS_NOT_FOUND,
                               {"capture_module_output_count: unknown entry "
                                "'nope'",
                                "predict", "bias", "side"}));
  EXPECT_THAT(error(capture_module_entry_kind(m.get(), "nope", &kind)),
              isError(CAPTURE_STATUS_NOT_FOUND, {"unknown entry 'nope'"}));
  EXPECT_THAT(error(capture_module_probe_info(m.get(), "nope", 0, &info)),
              isError(CAPTURE_STATUS_NOT_FOUND, {"unknown entry 'nope'"}));
}

/// Runs predict on the default inputs into `y` and `z`.
capture_status runPredict(capture_module *m, std::vector<float> &y,
                          std::vector<float> &z) {
  std::vector<float> x = rtt::inputX(), b = rtt::inputB();
  capture_tensor_view in[] = {f32View("x", kShape24, x),
                              f32View("b", kShape24, b)};
  capture_tensor_view out[] = {f32View("y", kShape24, y),
                               f32View("z", kShape24, z)};
  return capture_module_run(m, "predict", in, 2, out, 2);
}

TEST_F(CapiTest, ReplaysIntoCallerBuffers) {
  OwnedModule m = load(rtt::makeTestModule());
  ASSERT_TRUE(m);
  std::vector<float> y(8), z(8);
  for (int i = 0; i < 3; ++i)
    CAPI_ASSERT_OK(runPredict(m.get(), y, z));
  std::vector<float> w = rtt::initialWeights();
  EXPECT_THAT(y,
              ElementsAreArray(rtt::expectY(rtt::inputX(), rtt::inputB(), w)));
  EXPECT_THAT(z, ElementsAreArray(rtt::expectZ(rtt::inputX(), w)));
  uint64_t records = 0;
  CAPI_EXPECT_OK(capture_module_record_count(m.get(), &records));
  EXPECT_EQ(records, 3u); // one per entry, none per replay

  // Any subset of the outputs, in any order; none at all.
  std::vector<float> x = rtt::inputX(), b = rtt::inputB(), zOnly(8);
  capture_tensor_view in[] = {f32View("b", kShape24, b),
                              f32View("x", kShape24, x)};
  capture_tensor_view out = f32View("z", kShape24, zOnly);
  CAPI_EXPECT_OK(capture_module_run(m.get(), "predict", in, 2, &out, 1));
  EXPECT_EQ(zOnly, z);
  CAPI_EXPECT_OK(capture_module_run(m.get(), "predict", in, 2, nullptr, 0));
  // An entry without inputs.
  std::vector<float> o(8);
  capture_tensor_view oView = f32View("o", kShape24, o);
  CAPI_EXPECT_OK(capture_module_run(m.get(), "bias", nullptr, 0, &oView, 1));
  EXPECT_EQ(o[1], 0.25f + 101.0f);
}

/// The test module whose output "z" is the status of an index check of
/// input "x" by an ag.cross_entropy (bound 10): z's kernel writes h + c, so
/// the status reads [first bad position, its value] = the bits of z[0] and
/// z[1], negative (every index in range) when x[0] + w[0] + c[0] < 0.
static rt::ModuleDesc indexCheckedModule() {
  rt::ModuleDesc desc = rtt::makeTestModule();
  rt::TensorSlotDesc &z = desc.entries[0].outputs[1];
  z.shape = {2};
  z.dtype = rt::DType::I32;
  z.size = 8;
  desc.entries[0].indexChecks.push_back(
      {"z", "ag.cross_entropy", "x", 10, "m.mlir:3:8"});
  return desc;
}

TEST_F(CapiTest, IndexCheckStatusesAreTheRuntimes) {
  OwnedModule m = load(indexCheckedModule());
  ASSERT_TRUE(m);
  // Listed: only what a run can return.
  size_t n = 0;
  CAPI_EXPECT_OK(capture_module_output_count(m.get(), "predict", &n));
  EXPECT_EQ(n, 1u);
  capture_tensor_info info{};
  CAPI_EXPECT_OK(capture_module_output_info(m.get(), "predict", 0, &info));
  EXPECT_STREQ(info.name, "y");
  EXPECT_THAT(error(capture_module_output_info(m.get(), "predict", 1, &info)),
              isError(CAPTURE_STATUS_INVALID_ARGUMENT,
                      {"output index 1 is out of range (1 exists)"}));
  CAPI_EXPECT_OK(capture_module_output_count(m.get(), "bias", &n));
  EXPECT_EQ(n, 1u);

  std::vector<float> x = rtt::inputX(), b = rtt::inputB(), y(8);
  capture_tensor_view in[] = {f32View("x", kShape24, x),
                              f32View("b", kShape24, b)};
  capture_tensor_view out = f32View("y", kShape24, y);
  // Asking for the status is asking for an output that is not there.
  std::vector<int32_t> status(2);
  capture_tensor_view statusView{"z",     CAPTURE_DTYPE_I32, 1,
                                 nullptr, status.data(),     8};
  int64_t two = 2;
  statusView.shape = &two;
  Error unknown =
      error(capture_module_run(m.get(), "predict", in, 2, &statusView, 1));
  EXPECT_THAT(unknown,
              isError(CAPTURE_STATUS_NOT_FOUND,
                      {"unknown output 'z'; expected outputs: 'y' [2, 4]"}));
  EXPECT_THAT(unknown.message, ::testing::EndsWith("'y' [2, 4] (f32)"));

  // Every index in range: the run returns y.
  x[0] = -200.0f;
  CAPI_EXPECT_OK(capture_module_run(m.get(), "predict", in, 2, &out, 1));
  EXPECT_EQ(y[1], (x[1] + 0.25f) * b[1]);

  // z[0] = 100 as i32 is a bad position: the run's error names the op, its
  // location, the input and the bound, and writes no output.
  x[0] = 0.0f;
  std::fill(y.begin(), y.end(), -1.0f);
  float z0 = 100.0f;
  int32_t position = 0;
  std::memcpy(&position, &z0, sizeof(position));
  EXPECT_THAT(error(capture_module_run(m.get(), "predict", in, 2, &out, 1)),
              isError(CAPTURE_STATUS_ERROR,
                      {"entry 'predict': ag.cross_entropy at m.mlir:3:8: "
                       "input 'x' has ",
                       "at position " + std::to_string(position) +
                           ", expected an index in [0, 10); no outputs are "
                           "returned"}));
  EXPECT_EQ(y, std::vector<float>(8, -1.0f));
}

TEST_F(CapiTest, RunChecksEveryViewBeforeRunning) {
  OwnedModule m = load(rtt::makeTestModule());
  ASSERT_TRUE(m);
  const std::vector<int64_t> shape42 = {4, 2}, shape8 = {8};
  using Views = std::vector<capture_tensor_view>;
  struct Case {
    const char *what;
    std::function<void(Views &in, Views &out)> edit;
    capture_code code;
    std::vector<std::string> parts;
  };
  const capture_code bad = CAPTURE_STATUS_INVALID_ARGUMENT;
  const std::vector<Case> cases = {
      {"short input",
       [](Views &in, Views &) { in[0].byte_size = 28; },
       bad,
       {"entry 'predict': input 'x' of shape [2, 4] (f32) needs 32 bytes, "
        "got a buffer of 28"}},
      {"long output",
       [](Views &, Views &out) { out[0].byte_size = 64; },
       bad,
       {"output 'y' of shape [2, 4] (f32) needs 32 bytes, got a buffer of "
        "64"}},
      {"input dtype",
       [](Views &in, Views &) { in[1].dtype = 1; },
       bad,
       {"input 'b' has shape [2, 4] (f32), got [2, 4] (i32)"}},
      {"unknown dtype",
       [](Views &in, Views &) { in[1].dtype = 7; },
       bad,
       {"got [2, 4] (dtype 7)"}},
      {"input shape",
       [&](Views &in, Views &) { in[0].shape = shape42.data(); },
       bad,
       {"input 'x' has shape [2, 4] (f32), got [4, 2] (f32)"}},
      {"output rank",
       [&](Views &, Views &out) {
         out[1].rank = 1;
         out[1].shape = shape8.data();
       },
       bad,
       {"output 'z' has shape [2, 4] (f32), got [8] (f32)"}},
      {"NULL shape",
       [](Views &in, Views &) { in[0].shape = nullptr; },
       bad,
       {"input 'x' has rank 2 but its shape is NULL"}},
      {"negative rank",
       [](Views &in, Views &) { in[0].rank = -1; },
       bad,
       {"input 'x' has rank -1"}},
      {"NULL input data",
       [](Views &in, Views &) { in[0].data = nullptr; },
       bad,
       {"input 'x' has NULL data"}},
      {"NULL output data",
       [](Views &, Views &out) { out[1].data = nullptr; },
       bad,
       {"output 'z' has NULL data"}},
      {"NULL name",
       [](Views &in, Views &) { in[1].name = nullptr; },
       bad,
       {"entry 'predict': inputs[1].name is NULL"}},
      {"unknown input",
       [](Views &in, Views &) { in[1].name = "q"; },
       CAPTURE_STATUS_NOT_FOUND,
       {"unknown input 'q'; expected inputs: 'x' [2, 4] (f32), 'b' [2, 4] "
        "(f32)"}},
      {"unknown output",
       [](Views &, Views &out) { out[0].name = "q"; },
       CAPTURE_STATUS_NOT_FOUND,
       {"unknown output 'q'; expected outputs: 'y' [2, 4] (f32), 'z'"}},
      {"input twice",
       [](Views &in, Views &) { in[1].name = "x"; },
       bad,
       {"input 'x' given twice"}},
      {"output twice",
       [](Views &, Views &out) { out[1].name = "y"; },
       bad,
       {"output 'y' given twice"}},
      {"missing input",
       [](Views &in, Views &) { in.pop_back(); },
       bad,
       {"capture_module_run: entry 'predict': missing input 'b' [2, 4] "
        "(f32)"}},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.what);
    std::vector<float> x = rtt::inputX(), b = rtt::inputB();
    std::vector<float> y(8, -7.0f), z(8, -7.0f);
    Views in = {f32View("x", kShape24, x), f32View("b", kShape24, b)};
    Views out = {f32View("y", kShape24, y), f32View("z", kShape24, z)};
    c.edit(in, out);
    EXPECT_THAT(error(capture_module_run(m.get(), "predict", in.data(),
                                         in.size(), out.data(), out.size())),
                isError(c.code, c.parts));
    // Nothing ran: the caller's output buffers are untouched.
    EXPECT_EQ(y, std::vector<float>(8, -7.0f));
    EXPECT_EQ(z, std::vector<float>(8, -7.0f));
  }
}

TEST_F(CapiTest, RunRefusesNullArgumentsAndUnknownEntries) {
  OwnedModule m = load(rtt::makeTestModule());
  ASSERT_TRUE(m);
  std::vector<float> x = rtt::inputX(), b = rtt::inputB();
  capture_tensor_view in[] = {f32View("x", kShape24, x),
                              f32View("b", kShape24, b)};
  const capture_code bad = CAPTURE_STATUS_INVALID_ARGUMENT;
  EXPECT_THAT(error(capture_module_run(nullptr, "predict", in, 2, nullptr, 0)),
              isError(bad, {"capture_module_run: module is NULL"}));
  EXPECT_THAT(error(capture_module_run(m.get(), nullptr, in, 2, nullptr, 0)),
              isError(bad, {"capture_module_run: entry is NULL"}));
  EXPECT_THAT(
      error(capture_module_run(m.get(), "predict", nullptr, 2, nullptr, 0)),
      isError(bad, {"capture_module_run: inputs is NULL"}));
  EXPECT_THAT(error(capture_module_run(m.get(), "predict", in, 2, nullptr, 1)),
              isError(bad, {"capture_module_run: outputs is NULL"}));
  EXPECT_THAT(error(capture_module_run(m.get(), "nope", in, 2, nullptr, 0)),
              isError(CAPTURE_STATUS_NOT_FOUND,
                      {"capture_module_run: unknown entry 'nope'; the module "
                       "has entries: ",
                       "predict"}));
}

TEST_F(CapiTest, SetsAndGetsWeights) {
  OwnedModule m = load(rtt::makeTestModule());
  ASSERT_TRUE(m);
  std::vector<float> w(8);
  CAPI_ASSERT_OK(capture_module_get_param(m.get(), "w", w.data(), 32));
  EXPECT_EQ(w, rtt::initialWeights());

  std::vector<float> ones(8, 1.0f);
  capture_tensor_view value = f32View("w", kShape24, ones);
  CAPI_ASSERT_OK(capture_module_set_param(m.get(), &value));
  CAPI_ASSERT_OK(capture_module_get_param(m.get(), "w", w.data(), 32));
  EXPECT_EQ(w, ones);
  std::vector<float> y(8), z(8);
  CAPI_ASSERT_OK(runPredict(m.get(), y, z));
  EXPECT_THAT(
      y, ElementsAreArray(rtt::expectY(rtt::inputX(), rtt::inputB(), ones)));
}

TEST_F(CapiTest, WeightErrorsChangeNothing) {
  OwnedModule m = load(rtt::makeTestModule());
  ASSERT_TRUE(m);
  const capture_code bad = CAPTURE_STATUS_INVALID_ARGUMENT;
  std::vector<float> ones(8, 1.0f), w(8);
  const std::vector<int64_t> shape8 = {8};
  capture_tensor_view value = f32View("w", shape8, ones);
  EXPECT_THAT(error(capture_module_set_param(m.get(), &value)),
              isError(bad, {"capture_module_set_param: weight 'w' has shape "
                            "[2, 4] (f32), got [8] (f32)"}));
  value = f32View("w", kShape24, ones);
  value.byte_size = 16;
  EXPECT_THAT(error(capture_module_set_param(m.get(), &value)),
              isError(bad, {"weight 'w' of shape [2, 4] (f32) needs 32 "
                            "bytes, got a buffer of 16"}));
  value = f32View("v", kShape24, ones);
  EXPECT_THAT(error(capture_module_set_param(m.get(), &value)),
              isError(CAPTURE_STATUS_NOT_FOUND,
                      {"unknown weight 'v'; the module's weights: 'w'"}));
  value.name = nullptr;
  EXPECT_THAT(error(capture_module_set_param(m.get(), &value)),
              isError(bad, {"value->name is NULL"}));
  EXPECT_THAT(error(capture_module_set_param(m.get(), nullptr)),
              isError(bad, {"value is NULL"}));

  EXPECT_THAT(error(capture_module_get_param(m.get(), "w", w.data(), 16)),
              isError(bad, {"capture_module_get_param: weight 'w' needs a "
                            "buffer of 32 bytes, got 16"}));
  EXPECT_THAT(error(capture_module_get_param(m.get(), "w", nullptr, 32)),
              isError(bad, {"weight 'w' has NULL data"}));
  EXPECT_THAT(error(capture_module_get_param(m.get(), "v", w.data(), 32)),
              isError(CAPTURE_STATUS_NOT_FOUND, {"unknown weight 'v'"}));
  EXPECT_THAT(error(capture_module_get_param(m.get(), nullptr, w.data(), 32)),
              isError(bad, {"name is NULL"}));
  CAPI_ASSERT_OK(capture_module_get_param(m.get(), "w", w.data(), 32));
  EXPECT_EQ(w, rtt::initialWeights());
}

TEST_F(CapiTest, ReadsProbesOfTheLastReplay) {
  OwnedModule m = load(rtt::makeTestModule());
  ASSERT_TRUE(m);
  std::vector<float> h(8, -7.0f);
  EXPECT_THAT(
      error(capture_module_read_probe(m.get(), "predict", "h", h.data(), 32)),
      isError(CAPTURE_STATUS_ERROR,
              {"capture_module_read_probe: ", "no replay has run yet"}));
  std::vector<float> y(8), z(8);
  CAPI_ASSERT_OK(runPredict(m.get(), y, z));
  CAPI_ASSERT_OK(
      capture_module_read_probe(m.get(), "predict", "h", h.data(), 32));
  std::vector<float> x = rtt::inputX(), w = rtt::initialWeights();
  for (size_t i = 0; i < 8; ++i)
    EXPECT_EQ(h[i], x[i] + w[i]) << i;

  const capture_code bad = CAPTURE_STATUS_INVALID_ARGUMENT;
  EXPECT_THAT(
      error(capture_module_read_probe(m.get(), "predict", "h", h.data(), 8)),
      isError(bad, {"probe 'h' needs a buffer of 32 bytes, got 8"}));
  EXPECT_THAT(
      error(capture_module_read_probe(m.get(), "predict", "q", h.data(), 32)),
      isError(CAPTURE_STATUS_NOT_FOUND,
              {"entry 'predict' has no probe 'q'; its probes: 'h'"}));
  EXPECT_THAT(
      error(capture_module_read_probe(m.get(), "nope", "h", h.data(), 32)),
      isError(CAPTURE_STATUS_NOT_FOUND, {"unknown entry 'nope'"}));
  EXPECT_THAT(error(capture_module_read_probe(m.get(), "predict", nullptr,
                                              h.data(), 32)),
              isError(bad, {"probe is NULL"}));
  CAPI_ASSERT_OK(capture_module_run(m.get(), "bias", nullptr, 0, nullptr, 0));
  EXPECT_THAT(
      error(capture_module_read_probe(m.get(), "predict", "h", h.data(), 32)),
      isError(CAPTURE_STATUS_ERROR, {"the last replay was of entry 'bias'"}));
}

TEST_F(CapiTest, EveryFunctionRefusesANullModule) {
  size_t n;
  int32_t kind;
  uint64_t u64;
  const char *name;
  capture_tensor_info info;
  capture_train_state state;
  capture_adamw adamw{};
  float f;
  const std::vector<std::pair<const char *, std::function<capture_status()>>>
      calls = {
          {"capture_module_entry_count",
           [&] { return capture_module_entry_count(nullptr, &n); }},
          {"capture_module_entry_name",
           [&] { return capture_module_entry_name(nullptr, 0, &name); }},
          {"capture_module_entry_kind",
           [&] { return capture_module_entry_kind(nullptr, "e", &kind); }},
          {"capture_module_input_count",
           [&] { return capture_module_input_count(nullptr, "e", &n); }},
          {"capture_module_input_info",
           [&] { return capture_module_input_info(nullptr, "e", 0, &info); }},
          {"capture_module_output_count",
           [&] { return capture_module_output_count(nullptr, "e", &n); }},
          {"capture_module_output_info",
           [&] { return capture_module_output_info(nullptr, "e", 0, &info); }},
          {"capture_module_probe_count",
           [&] { return capture_module_probe_count(nullptr, "e", &n); }},
          {"capture_module_probe_info",
           [&] { return capture_module_probe_info(nullptr, "e", 0, &info); }},
          {"capture_module_weight_count",
           [&] { return capture_module_weight_count(nullptr, &n); }},
          {"capture_module_weight_info",
           [&] { return capture_module_weight_info(nullptr, 0, &info); }},
          {"capture_module_set_param",
           [&] { return capture_module_set_param(nullptr, nullptr); }},
          {"capture_module_get_param",
           [&] { return capture_module_get_param(nullptr, "w", &f, 4); }},
          {"capture_module_read_probe",
           [&] { return capture_module_read_probe(nullptr, "e", "p", &f, 4); }},
          {"capture_module_record_count",
           [&] { return capture_module_record_count(nullptr, &u64); }},
          {"capture_module_set_learning_rate",
           [&] { return capture_module_set_learning_rate(nullptr, "e", 1); }},
          {"capture_module_set_group_learning_rate",
           [&] {
             return capture_module_set_group_learning_rate(nullptr, "e", 1, 1);
           }},
          {"capture_module_set_max_grad_norm",
           [&] { return capture_module_set_max_grad_norm(nullptr, "e", 1); }},
          {"capture_module_set_adamw",
           [&] { return capture_module_set_adamw(nullptr, "e", &adamw); }},
          {"capture_module_set_train_step",
           [&] { return capture_module_set_train_step(nullptr, "e", 1); }},
          {"capture_module_train_state",
           [&] { return capture_module_train_state(nullptr, "e", &state); }},
          {"capture_module_read_moments",
           [&] {
             return capture_module_read_moments(nullptr, "e", &f, &f, 4);
           }},
          {"capture_module_write_moments",
           [&] {
             return capture_module_write_moments(nullptr, "e", &f, &f, 4);
           }},
      };
  for (const auto &[fn, call] : calls)
    EXPECT_THAT(error(call()), isError(CAPTURE_STATUS_INVALID_ARGUMENT,
                                       {std::string(fn) + ": module is NULL"}));
  capture_module_destroy(nullptr);

  // And a NULL out-pointer on a real module.
  OwnedModule m = load(rtt::makeTestModule());
  ASSERT_TRUE(m);
  EXPECT_THAT(error(capture_module_entry_count(m.get(), nullptr)),
              isError(CAPTURE_STATUS_INVALID_ARGUMENT, {"out_count is NULL"}));
  EXPECT_THAT(error(capture_module_output_info(m.get(), "predict", 0, nullptr)),
              isError(CAPTURE_STATUS_INVALID_ARGUMENT, {"out is NULL"}));
  EXPECT_THAT(error(capture_module_input_count(m.get(), nullptr, &n)),
              isError(CAPTURE_STATUS_INVALID_ARGUMENT, {"entry is NULL"}));
}

TEST_F(CapiTest, ModuleKeepsItsDeviceAlive) {
  capture_device *own = nullptr;
  CAPI_ASSERT_OK(capture_device_create("vulkan", &own));
  std::vector<uint8_t> bytes = rt::writeCapmod(rtt::makeTestModule());
  capture_module *m = nullptr;
  CAPI_ASSERT_OK(
      capture_module_load_bytes(own, bytes.data(), bytes.size(), &m));
  capture_device_destroy(own);
  std::vector<float> y(8), z(8);
  CAPI_EXPECT_OK(runPredict(m, y, z));
  EXPECT_THAT(y, ElementsAreArray(rtt::expectY(rtt::inputX(), rtt::inputB(),
                                               rtt::initialWeights())));
  capture_module_destroy(m);
}

} // namespace
