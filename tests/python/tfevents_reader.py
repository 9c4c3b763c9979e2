#!/usr/bin/python3
"""An independent reader of TensorBoard event files, written from the public format (TFRecord framing,
tensorflow/core/lib/io/record_reader.cc; Event/Summary protos, tensorflow/core/util/event.proto and
tensorflow/core/framework/summary.proto), not from nanotrn's writer. CRC-32C is computed bit by bit here.

Usage: tfevents_reader.py EVENTS_FILE METRICS_JSONL
Checks every record's two masked CRCs, that the first event is file_version "brain.Event:2", and that every numeric
field of every metrics.jsonl record with an "event" and a "step" is the scalar "<event>/<field>" at that step (as a
float32). Prints a summary line; exits 1 on any mismatch.
"""
import json
import struct
import sys


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def masked(data):
    c = crc32c(data)
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def records(blob):
    pos = 0
    while pos < len(blob):
        head = blob[pos:pos + 8]
        (n,) = struct.unpack("<Q", head)
        (crc_len,) = struct.unpack("<I", blob[pos + 8:pos + 12])
        assert crc_len == masked(head), f"byte {pos}: length CRC"
        data = blob[pos + 12:pos + 12 + n]
        (crc_data,) = struct.unpack("<I", blob[pos + 12 + n:pos + 16 + n])
        assert crc_data == masked(data), f"byte {pos}: data CRC"
        yield data
        pos += 16 + n


def varint(b, i):
    v, shift = 0, 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return v, i


def fields(b):
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        num, wire = key >> 3, key & 7
        if wire == 0:
            v, i = varint(b, i)
        elif wire == 1:
            v, i = b[i:i + 8], i + 8
        elif wire == 5:
            v, i = b[i:i + 4], i + 4
        elif wire == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        else:
            raise ValueError(f"wire type {wire}")
        yield num, wire, v


def event(b):
    e = {"scalars": {}}
    for num, wire, v in fields(b):
        if num == 1 and wire == 1:
            e["wall_time"] = struct.unpack("<d", v)[0]
        elif num == 2 and wire == 0:
            e["step"] = v
        elif num == 3 and wire == 2:
            e["file_version"] = v.decode()
        elif num == 5 and wire == 2:
            for n2, w2, value in fields(v):
                assert n2 == 1 and w2 == 2
                tag, simple = None, None
                for n3, w3, x in fields(value):
                    if n3 == 1 and w3 == 2:
                        tag = x.decode()
                    elif n3 == 2 and w3 == 5:
                        simple = struct.unpack("<f", x)[0]
                e["scalars"][tag] = simple
    e.setdefault("step", 0)
    return e


def main():
    with open(sys.argv[1], "rb") as f:
        events = [event(r) for r in records(f.read())]
    assert events and events[0].get("file_version") == "brain.Event:2", "first event: file_version"
    got = {}
    for e in events[1:]:
        for tag, v in e["scalars"].items():
            got[(e["step"], tag)] = v
    checked = 0
    with open(sys.argv[2]) as f:
        for line in f:
            j = json.loads(line)
            if not isinstance(j.get("event"), str) or not isinstance(j.get("step"), int):
                continue
            for k, v in j.items():
                if k == "step" or isinstance(v, bool) or not isinstance(v, (int, float)):
                    continue
                tag = j["event"] + "/" + k
                want = struct.unpack("<f", struct.pack("<f", float(v)))[0]
                assert (j["step"], tag) in got, f"no scalar {tag} at step {j['step']}"
                assert got[(j["step"], tag)] == want, f"{tag} at step {j['step']}: {got[(j['step'], tag)]} != {want}"
                checked += 1
    assert checked > 0, "nothing to compare"
    print(f"tfevents: {len(events)} events, CRCs valid, {checked} scalars equal to metrics.jsonl's fields")


if __name__ == "__main__":
    main()
