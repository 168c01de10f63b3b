"""q3huff2's fixed-tree throughput on the buffers of `cargo xtask bench wire`: one bulk
Writer.write_data / Reader.read_data call per buffer, so the figure is its C code."""
import json
import struct
import sys
import time

import q3huff2

path = sys.argv[1]
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 20
data = open(path, "rb").read()
buffers = []
at = 0
while at + 4 <= len(data):
    (length,) = struct.unpack_from("<I", data, at)
    buffers.append(data[at + 4 : at + 4 + length])
    at += 4 + length
total = sum(len(b) for b in buffers) * rounds


def compress(buffer):
    writer = q3huff2.Writer()
    writer.write_data(buffer)
    return bytes(writer.data)


packed = [compress(b) for b in buffers]

start = time.perf_counter()
for _ in range(rounds):
    for buffer in buffers:
        compress(buffer)
encode = time.perf_counter() - start

start = time.perf_counter()
for _ in range(rounds):
    for buffer, data in zip(buffers, packed):
        q3huff2.Reader(data).read_data(len(buffer))
decode = time.perf_counter() - start

mb = total / 1e6
print(json.dumps({"impl": "q3huff2", "buffers": len(buffers), "rounds": rounds,
                  "encode_mb_s": round(mb / encode, 2), "decode_mb_s": round(mb / decode, 2)}))
