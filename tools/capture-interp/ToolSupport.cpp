//===- ToolSupport.cpp - Files and messages of capture-interp -------------===//

#include "ToolSupport.h"

#include "capture/Dialect/Ag/IR/AgOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace capture;
using namespace capture::interp;
using reference::Entry;
using reference::EvalResult;

int interp::fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "capture-interp") << message << "\n";
  return 1;
}

bool interp::isSafeFileName(llvm::StringRef name) {
  return !name.empty() && name != "." && name != ".." &&
         name.find_first_of(llvm::StringRef("/\\\0", 3)) ==
             llvm::StringRef::npos;
}

std::string interp::npyPath(llvm::StringRef dir, llvm::StringRef name) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, name + ".npy");
  return std::string(path);
}

rt::DType interp::dtypeOf(Type type) {
  auto tensor = llvm::dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getElementType().isInteger(32) ? rt::DType::I32
                                                         : rt::DType::F32;
}

std::optional<Tensor> interp::readTensor(const std::string &path,
                                         const std::string &what,
                                         rt::DType dtype) {
  rt::Result<rt::HostTensor> file = rt::readNpyFile(path);
  if (file.isError()) {
    fail(what + ": " + file.message());
    return std::nullopt;
  }
  if (file->dtype != dtype) {
    fail(what + ": " + path + " holds " + rt::dtypeName(file->dtype) +
         " data, expected " + rt::dtypeName(dtype));
    return std::nullopt;
  }
  Tensor tensor;
  tensor.shape = file->shape;
  if (dtype == rt::DType::I32) {
    for (int32_t value : file->asI32())
      tensor.data.push_back(value);
  } else {
    for (float value : file->asF32())
      tensor.data.push_back(value);
  }
  return tensor;
}

bool interp::writeTensor(const std::string &path, const Tensor &tensor,
                         rt::DType dtype) {
  rt::HostTensor host;
  if (dtype == rt::DType::I32) {
    // The interpreter checked that i32 values are 32-bit integers.
    std::vector<int32_t> values(tensor.data.begin(), tensor.data.end());
    host = rt::HostTensor::i32(tensor.shape, values);
  } else {
    std::vector<float> values(tensor.data.begin(), tensor.data.end());
    host = rt::HostTensor::f32(tensor.shape, values);
  }
  rt::Status status = rt::writeNpyFile(path, host);
  if (status.isError()) {
    fail("cannot write " + path + ": " + status.message());
    return false;
  }
  return true;
}

std::optional<std::map<std::string, Tensor>> interp::readNamedTensors(
    ArrayRef<std::string> args, llvm::StringRef option, llvm::StringRef kind,
    llvm::function_ref<rt::DType(llvm::StringRef)> expectedDType) {
  std::map<std::string, Tensor> tensors;
  for (const std::string &arg : args) {
    auto [name, path] = llvm::StringRef(arg).split('=');
    if (name.empty() || path.empty() || name.size() == arg.size()) {
      fail("--" + option + " expects name=file.npy, got '" + arg + "'");
      return std::nullopt;
    }
    if (tensors.count(name.str())) {
      fail("--" + option + " gives " + kind + " '" + name + "' twice");
      return std::nullopt;
    }
    std::optional<Tensor> tensor = readTensor(
        path.str(), (kind + " '" + name + "'").str(), expectedDType(name));
    if (!tensor)
      return std::nullopt;
    tensors[name.str()] = std::move(*tensor);
  }
  return tensors;
}

std::string interp::formatValue(double value, const char *format) {
  if (std::isnan(value))
    return "nan";
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format(format, value);
  return text;
}

void interp::printTensor(llvm::StringRef kind, llvm::StringRef name,
                         const Tensor &tensor, rt::DType dtype) {
  llvm::outs() << kind << ' ' << name << ' '
               << capture::ag::formatShape(tensor.shape) << ':';
  constexpr size_t kShown = 8;
  for (size_t i = 0; i < std::min(kShown, tensor.data.size()); ++i) {
    if (dtype == rt::DType::I32)
      llvm::outs() << ' ' << static_cast<int64_t>(tensor.data[i]);
    else
      llvm::outs() << ' ' << formatValue(tensor.data[i]);
  }
  if (tensor.data.size() > kShown)
    llvm::outs() << " ...";
  llvm::outs() << '\n';
}

std::map<std::string, rt::DType> interp::outputDTypes(Entry entry) {
  std::map<std::string, rt::DType> dtypes;
  for (unsigned i = 0, e = entry.getNumResults(); i < e; ++i)
    dtypes[entry.getOutputName(i).str()] = dtypeOf(entry.getResultTypes()[i]);
  return dtypes;
}

bool interp::writeResult(StringRef dir, const EvalResult &result,
                         const std::map<std::string, rt::DType> &dtypes) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
    fail("cannot create directory " + dir + ": " + ec.message());
    return false;
  }
  // Check every name before writing anything, so that a failed run
  // leaves no partial set of files behind.
  for (const auto &[name, tensor] : result.probes)
    if (result.outputs.count(name)) {
      fail("probe '" + name + "' and output '" + name +
           "' would both be written to " + npyPath(dir, name));
      return false;
    }
  for (const auto *tensors : {&result.outputs, &result.probes})
    for (const auto &[name, tensor] : *tensors)
      if (!isSafeFileName(name)) {
        fail("'" + name + "' cannot be used as a file name in " + dir);
        return false;
      }
  for (const auto &[name, tensor] : result.outputs)
    if (!writeTensor(npyPath(dir, name), tensor, dtypes.at(name)))
      return false;
  for (const auto &[name, tensor] : result.probes)
    if (!writeTensor(npyPath(dir, name), tensor, rt::DType::F32))
      return false;
  return true;
}
