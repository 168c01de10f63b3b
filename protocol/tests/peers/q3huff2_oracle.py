"""Oracle for the differential Huffman tests: ioquake3's codecs through q3huff2.

Reads lines `OP HEX` on stdin and answers one hex line each:
  adaptive-compress / adaptive-decompress: q3huff2.compress / q3huff2.decompress
  fixed-compress: Writer().write_data(buffer), the bulk fixed-tree writer
  fixed-decompress LEN: Reader(data).read_data(LEN)
"""
import sys

import q3huff2


def answer(op, data, arg):
    if op == "adaptive-compress":
        return q3huff2.compress(data)
    if op == "adaptive-decompress":
        return q3huff2.decompress(data)
    if op == "fixed-compress":
        writer = q3huff2.Writer()
        writer.write_data(data)
        return bytes(writer.data)
    if op == "fixed-decompress":
        return bytes(q3huff2.Reader(data).read_data(int(arg)))
    raise ValueError(op)


for line in sys.stdin:
    parts = line.split()
    op, data = parts[0], bytes.fromhex(parts[1] if len(parts) > 1 else "")
    arg = parts[2] if len(parts) > 2 else None
    sys.stdout.write(answer(op, data, arg).hex() + "\n")
