#!/usr/bin/python3
"""Checks that a file is a valid 8-bit RGB PNG of the given size: the
signature, every chunk's CRC, the IHDR fields, and that the IDAT stream
inflates to one filter byte plus the pixels of every row, with more than
one colour in it (a curve was drawn). usage: check_png.py FILE WIDTH HEIGHT
"""
import struct
import sys
import zlib

path, width, height = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
data = open(path, "rb").read()
if data[:8] != b"\x89PNG\r\n\x1a\n":
    sys.exit("%s: not a PNG (signature %r)" % (path, data[:8]))
at, chunks, idat = 8, [], b""
while at < len(data):
    (n,) = struct.unpack(">I", data[at:at + 4])
    kind, body = data[at + 4:at + 8], data[at + 8:at + 8 + n]
    (crc,) = struct.unpack(">I", data[at + 8 + n:at + 12 + n])
    if zlib.crc32(kind + body) != crc:
        sys.exit("%s: bad CRC in chunk %r" % (path, kind))
    chunks.append(kind)
    if kind == b"IHDR":
        w, h, depth, colour = struct.unpack(">IIBB", body[:10])
        if (w, h, depth, colour) != (width, height, 8, 2):
            sys.exit("%s: IHDR %r, expected %dx%d 8-bit RGB"
                     % (path, (w, h, depth, colour), width, height))
    if kind == b"IDAT":
        idat += body
    at += 12 + n
if chunks[0] != b"IHDR" or chunks[-1] != b"IEND":
    sys.exit("%s: chunks %r" % (path, chunks))
raw = zlib.decompress(idat)
if len(raw) != height * (1 + 3 * width):
    sys.exit("%s: %d bytes of pixels, expected %d"
             % (path, len(raw), height * (1 + 3 * width)))
rows = [raw[r * (1 + 3 * width) + 1:(r + 1) * (1 + 3 * width)]
        for r in range(height)]
colours = {bytes(row[i:i + 3]) for row in rows for i in range(0, len(row), 3)}
if b"\x1f\x77\xb4" not in colours:
    sys.exit("%s: no curve colour in the image" % path)
print("%s: valid %dx%d PNG with %d colours" % (path, width, height, len(colours)))
