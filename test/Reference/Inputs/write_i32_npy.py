"""Writes a 1-D little-endian i32 .npy file (no numpy needed).

usage: write_i32_npy.py OUT.npy V0,V1,...
"""
import struct
import sys

out, text = sys.argv[1], sys.argv[2]
values = [int(v) for v in text.split(",")] if text else []
header = "{'descr': '<i4', 'fortran_order': False, 'shape': (%d,), }" % len(values)
# Magic (6) + version (2) + header length (2) + header + '\n', padded to 64.
pad = (64 - (10 + len(header) + 1) % 64) % 64
header += " " * pad + "\n"
with open(out, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00")
    f.write(struct.pack("<H", len(header)))
    f.write(header.encode("latin1"))
    f.write(struct.pack("<%di" % len(values), *values))
