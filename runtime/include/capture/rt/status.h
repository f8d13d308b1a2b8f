//===- status.h - Error reporting without exceptions ------------*- C++ -*-===//
//
// Every public function of the runtime reports failure through a Status or a
// Result<T>, never through an exception: the runtime is linked into tools
// built with -fno-exceptions (LLVM's flags) and into C callers.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_RT_STATUS_H
#define CAPTURE_RT_STATUS_H

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace capture::rt {

/// What kind of error a Status is, for callers that act on it (the C API's
/// capture_code and the bindings map it one to one).
enum class StatusCode : unsigned char {
  /// Success.
  Ok = 0,
  /// Any other failure: loading, a Vulkan call, a device-side read.
  Error = 1,
  /// An argument the runtime refuses (a shape, a dtype, a value).
  InvalidArgument = 2,
  /// An unknown entry, input, output, weight or probe name.
  NotFound = 3,
  /// A training step whose gradient norm was not finite (a NaN or Inf in
  /// the batch, an index out of range): the update was not applied and
  /// nothing changed.
  UpdateRefused = 4,
  /// Device or host memory ran out, or DeviceOptions::memoryLimit would be
  /// passed.
  OutOfMemory = 5,
};

/// Success, or an error with a message meant for a human (it names what was
/// expected and what was found) and a code saying what kind of error it is.
class [[nodiscard]] Status {
public:
  /// A success.
  Status() = default;

  /// A success; reads better than `Status()` at return sites.
  static Status ok() { return Status(); }

  /// An error carrying `message`; an empty message is replaced so that an
  /// error can never be mistaken for a success.
  static Status error(std::string message,
                      StatusCode code = StatusCode::Error) {
    Status s;
    s.failed = true;
    s.kind = code == StatusCode::Ok ? StatusCode::Error : code;
    s.text =
        message.empty() ? std::string("unknown error") : std::move(message);
    return s;
  }

  /// True on success.
  bool isOk() const { return !failed; }

  /// True on error.
  bool isError() const { return failed; }

  /// The error message; empty on success.
  const std::string &message() const { return text; }

  /// What kind of error this is; StatusCode::Ok on success.
  StatusCode code() const { return failed ? kind : StatusCode::Ok; }

  /// Returns a copy of this error with `context + ": "` in front (and the
  /// same code); a success stays a success.
  Status withContext(const std::string &context) const {
    if (!failed)
      return *this;
    return error(context + ": " + text, kind);
  }

private:
  /// Whether this is an error.
  bool failed = false;
  /// The kind of an error.
  StatusCode kind = StatusCode::Error;
  /// The message of an error.
  std::string text;
};

/// A value of type T, or an error Status.
template <typename T> class [[nodiscard]] Result {
public:
  /// A success holding `value`.
  Result(T value) : value_(std::move(value)) {}

  /// An error; `status` must be an error.
  Result(Status status) : status_(std::move(status)) {
    assert(status_.isError() && "a Result needs a value or an error");
    if (status_.isOk())
      status_ = Status::error("internal error: Result built from a success "
                              "status without a value");
  }

  /// True when a value is held.
  bool isOk() const { return value_.has_value(); }

  /// True on error.
  bool isError() const { return !value_.has_value(); }

  /// The status: success when a value is held.
  const Status &status() const { return status_; }

  /// The error message; empty on success.
  const std::string &message() const { return status_.message(); }

  /// The value; only valid when isOk().
  T &value() & {
    assert(isOk());
    return *value_;
  }
  /// The value; only valid when isOk().
  const T &value() const & {
    assert(isOk());
    return *value_;
  }
  /// Moves the value out; only valid when isOk().
  T &&value() && {
    assert(isOk());
    return std::move(*value_);
  }

  /// Access to the held value; only valid when isOk().
  T *operator->() {
    assert(isOk());
    return &*value_;
  }
  /// Access to the held value; only valid when isOk().
  const T *operator->() const {
    assert(isOk());
    return &*value_;
  }

private:
  /// The value on success.
  std::optional<T> value_;
  /// Success, or the error when no value is held.
  Status status_;
};

} // namespace capture::rt

/// Returns the Status of `expr` from the enclosing function when it is an
/// error.
#define CAPTURE_RT_RETURN_IF_ERROR(expr)                                       \
  do {                                                                         \
    ::capture::rt::Status captureRtStatus_ = (expr);                           \
    if (captureRtStatus_.isError())                                            \
      return captureRtStatus_;                                                 \
  } while (false)

#endif // CAPTURE_RT_STATUS_H
