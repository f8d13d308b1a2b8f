//===- ToolSupport.h - Files and messages of capture-interp -----*- C++ -*-===//
//
// What every mode of capture-interp shares: error messages, .npy files of
// interpreter tensors, and printing.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_TOOLS_CAPTURE_INTERP_TOOLSUPPORT_H
#define CAPTURE_TOOLS_CAPTURE_INTERP_TOOLSUPPORT_H

#include "capture/Reference/Interpreter.h"
#include "capture/rt/npy.h"

#include "mlir/IR/Types.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/Twine.h"

#include <map>
#include <optional>
#include <string>

namespace capture::interp {

using reference::Tensor;

/// Prints `capture-interp: error: <message>` and returns the exit code.
int fail(const llvm::Twine &message);

/// Whether `name` can be used as `<dir>/<name>.npy` without leaving `dir`.
bool isSafeFileName(llvm::StringRef name);

/// `dir/<name>.npy`.
std::string npyPath(llvm::StringRef dir, llvm::StringRef name);

/// The dtype of a tensor of `type` in .npy files: i32 for labels and
/// indices, f32 for everything else.
rt::DType dtypeOf(mlir::Type type);

/// Reads a .npy file holding `dtype` data as a Tensor (i32 values are held
/// exactly); `what` names it in errors, which are printed.
std::optional<Tensor> readTensor(const std::string &path,
                                 const std::string &what, rt::DType dtype);

/// Writes `tensor` as a .npy file of `dtype` (f32 values rounded to float);
/// prints an error and returns false on failure.
bool writeTensor(const std::string &path, const Tensor &tensor,
                 rt::DType dtype);

/// Parses repeated `name=file.npy` arguments of option `--<option>` into
/// tensors by name; `kind` names what a name is in messages,
/// `expectedDType` gives the dtype each name's file must hold.
std::optional<std::map<std::string, Tensor>>
readNamedTensors(llvm::ArrayRef<std::string> args, llvm::StringRef option,
                 llvm::StringRef kind,
                 llvm::function_ref<rt::DType(llvm::StringRef)> expectedDType);

/// `value` as printf's `format` (a %g variant), except that every NaN
/// prints as `nan`: the sign of a NaN (x86 makes sqrt(-1) negative) is
/// noise that would differ between machines.
std::string formatValue(double value, const char *format = "%g");

/// Prints `<kind> <name> [d0, d1]: v0 v1 ...` with the first 8 values;
/// i32 values print as integers (%g would round large ones).
void printTensor(llvm::StringRef kind, llvm::StringRef name,
                 const Tensor &tensor, rt::DType dtype);

/// The dtype of every output of `entry`, by output name.
std::map<std::string, rt::DType> outputDTypes(reference::Entry entry);

/// Writes every output and probe of `result` to `dir/<name>.npy` (outputs
/// with `dtypes`, probes as f32), checking every name before writing any
/// file; prints an error and returns false on failure.
bool writeResult(llvm::StringRef dir, const reference::EvalResult &result,
                 const std::map<std::string, rt::DType> &dtypes);

/// Writes `--make-inputs` data for every input of `entry` the caller
/// supplies to `dir` (see the tool's help); returns the exit code.
int makeInputs(reference::Entry entry, llvm::StringRef dir, uint64_t seed);

} // namespace capture::interp

#endif // CAPTURE_TOOLS_CAPTURE_INTERP_TOOLSUPPORT_H
