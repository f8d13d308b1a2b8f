"""Prints the values of a little-endian f32 or i32 C-order .npy file, one
line, each as %.9g (no numpy needed).

usage: print_npy.py FILE.npy [FIRST [END]]
  prints the shape, then the elements [FIRST, END) of the flat data.
"""
import ast
import struct
import sys

path = sys.argv[1]
with open(path, "rb") as f:
    data = f.read()
assert data[:6] == b"\x93NUMPY", "not a .npy file: " + path
header_len = struct.unpack("<H", data[8:10])[0]
header = ast.literal_eval(data[10:10 + header_len].decode("latin1"))
code = {"<f4": "f", "<i4": "i"}[header["descr"]]
shape = header["shape"]
count = 1
for dim in shape:
    count *= dim
values = struct.unpack("<%d%s" % (count, code), data[10 + header_len:])
first = int(sys.argv[2]) if len(sys.argv) > 2 else 0
end = int(sys.argv[3]) if len(sys.argv) > 3 else count
print(list(shape), " ".join("%.9g" % v for v in values[first:end]))
