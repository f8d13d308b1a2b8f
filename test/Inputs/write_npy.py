"""Writes a little-endian f32 or i32 C-order .npy file (no numpy needed).

usage: write_npy.py OUT.npy f32|i32 SHAPE V0,V1,...
  SHAPE: "" for a scalar, "3" for [3], "2,3" for [2, 3], "-" for 1-D of
  as many elements as there are values.
"""
import struct
import sys

out, dtype, shape_text, text = sys.argv[1:5]
code = {"f32": ("<f4", "f", float), "i32": ("<i4", "i", int)}[dtype]
values = [code[2](v) for v in text.split(",")] if text else []
if shape_text == "-":
    shape = [len(values)]
else:
    shape = [int(d) for d in shape_text.split(",")] if shape_text else []
dims = "%d," % shape[0] if len(shape) == 1 else ", ".join(map(str, shape))
header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (code[0], dims)
# Magic (6) + version (2) + header length (2) + header + '\n', padded to 64.
pad = (64 - (10 + len(header) + 1) % 64) % 64
header += " " * pad + "\n"
with open(out, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00")
    f.write(struct.pack("<H", len(header)))
    f.write(header.encode("latin1"))
    f.write(struct.pack("<%d%s" % (len(values), code[1]), *values))
