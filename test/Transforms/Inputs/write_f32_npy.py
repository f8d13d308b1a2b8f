"""Writes a little-endian f32 .npy file (no numpy needed).

usage: write_f32_npy.py OUT.npy SHAPE V0,V1,...   (SHAPE: "" for a scalar,
"2,3" for [2, 3])
"""
import struct
import sys

out, shape_text, text = sys.argv[1], sys.argv[2], sys.argv[3]
shape = [int(d) for d in shape_text.split(",")] if shape_text else []
values = [float(v) for v in text.split(",")] if text else []
dims = "".join("%d," % d for d in shape) if len(shape) == 1 else ", ".join(map(str, shape))
header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % dims
pad = (64 - (10 + len(header) + 1) % 64) % 64
header += " " * pad + "\n"
with open(out, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00")
    f.write(struct.pack("<H", len(header)))
    f.write(header.encode("latin1"))
    f.write(struct.pack("<%df" % len(values), *values))
