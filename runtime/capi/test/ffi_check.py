"""The shared capture-rt-c from Python through ctypes: a replay of entry
predict and a wrong buffer size, as a foreign caller sees them.

Usage: python3 ffi_check.py LIBCAPTURE-RT-C.so TEST.capmod
"""
import ctypes as C
import sys


class TensorView(C.Structure):
    """capture_tensor_view."""
    _fields_ = [("name", C.c_char_p), ("dtype", C.c_int32),
                ("rank", C.c_int32), ("shape", C.POINTER(C.c_int64)),
                ("data", C.c_void_p), ("byte_size", C.c_size_t)]


lib = C.CDLL(sys.argv[1])
lib.capture_status_message.restype = C.c_char_p
for name in ("capture_device_create", "capture_module_load_file",
             "capture_module_run"):
    getattr(lib, name).restype = C.c_void_p  # capture_status


class CaptureError(Exception):
    def __init__(self, status):
        self.code = lib.capture_status_code(C.c_void_p(status))
        message = lib.capture_status_message(C.c_void_p(status)).decode()
        lib.capture_status_free(C.c_void_p(status))
        super().__init__(message)


def check(status):
    if status:
        raise CaptureError(status)


device, module = C.c_void_p(), C.c_void_p()
check(lib.capture_device_create(None, C.byref(device)))
check(lib.capture_module_load_file(device, sys.argv[2].encode(),
                                   C.byref(module)))
shape = (C.c_int64 * 2)(2, 4)
x = (C.c_float * 8)(*range(1, 9))
b = (C.c_float * 8)(*[2.0] * 8)
y = (C.c_float * 8)()
inputs = (TensorView * 2)(
    TensorView(b"x", 0, 2, shape, C.cast(x, C.c_void_p), 32),
    TensorView(b"b", 0, 2, shape, C.cast(b, C.c_void_p), 32))
output = TensorView(b"y", 0, 2, shape, C.cast(y, C.c_void_p), 32)
check(lib.capture_module_run(module, b"predict", inputs, 2,
                             C.byref(output), 1))
print("y:", list(y))
assert list(y) == [2.0, 4.5, 7.0, 9.5, 12.0, 14.5, 17.0, 19.5]

output.byte_size = 16
try:
    check(lib.capture_module_run(module, b"predict", inputs, 2,
                                 C.byref(output), 1))
    sys.exit("expected an error for a 16-byte output buffer")
except CaptureError as e:
    print("error:", e)
    assert e.code == 2  # CAPTURE_STATUS_INVALID_ARGUMENT
    assert "output 'y'" in str(e) and "needs 32 bytes" in str(e)

lib.capture_module_destroy(module)
lib.capture_device_destroy(device)
print("ok")
