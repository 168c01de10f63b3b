"""Oracle for the differential Huffman tests: ioquake3's codecs through q3huff2.

Reads lines `OP HEX` on stdin and answers one hex line each:
  adaptive-compress / adaptive-decompress: q3huff2.compress / q3huff2.decompress
  fixed-compress: Writer().write_data(buffer), the bulk fixed-tree writer
  fixed-decompress LEN: Reader(data).read_data(LEN)
  demo-outline: a `.dm_3` walked as ioquake3's CL_ReadDemoMessage and CL_ParseServerMessage
    walk one: each record's sequence, then its commands, gamestate (command sequence and
    configstrings up to the first baseline) and snapshot header (server time, delta), as text
"""
import sys

import q3huff2


def outline(demo):
    lines, at = [], 0
    while at + 8 <= len(demo):
        seq = int.from_bytes(demo[at:at + 4], "little", signed=True)
        size = int.from_bytes(demo[at + 4:at + 8], "little", signed=True)
        if size == -1:
            lines.append("end")
            break
        payload = demo[at + 8:at + 8 + size]
        at += 8 + size
        reader = q3huff2.Reader(payload[4:])
        parts = [f"r{seq}"]
        while True:
            op = reader.read_byte()
            if op == 5:
                number = reader.read_long()
                parts.append(f"c{number}:{reader.read_string()}")
            elif op == 2:
                parts.append(f"g{reader.read_long()}")
                while reader.read_byte() == 3:
                    index = reader.read_short()
                    parts.append(f"cs{index}={reader.read_bigstring()}")
                break
            elif op == 7:
                time = reader.read_long()
                parts.append(f"s{time}/{reader.read_byte()}")
                break
            else:
                break
        lines.append(" ".join(parts))
    return "\n".join(lines).encode()


def answer(op, data, arg):
    if op == "demo-outline":
        return outline(data)
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
