#!/usr/bin/python3
"""Reference streams of CPython's own random.Random, for tests/icl/python_random_test.cpp (src/icl/python_random.h
must reproduce them bit for bit). Prints one JSON object to stdout:

  {"python": "3.11.2",
   "seeds": [{"seed": S,
              "u32":         first 1400 getrandbits(32) of Random(S) (more than two 624-word twists),
              "random_bits": first 100 random() of a fresh Random(S), each as the uint64 of its IEEE-754 bits,
              "getrandbits": [[k, [...]], ...]  a fresh Random(S), 12 rounds of getrandbits(k) for each k in turn,
              "randbelow":   [[n, [...]], ...]  a fresh Random(S), 10 _randbelow(n) per n, n in turn,
              "shuffle":     [[n, [...]], ...]  a fresh Random(S) per n: shuffle(list(range(n))),
              "sample":      [[n, k, [...]], ...]  a fresh Random(S), sample(range(n), k) per pair in turn,
              "mixed":       one Random(S) through shuffle, random, sample, getrandbits, randbelow (see below)}]}
Usage: python_random_reference.py
"""
import json
import random
import struct
import sys

SEEDS = [0, 1, 42, 1337, 1234, 1235, 1236, 1244, 1234 + 500, 2**32 - 1, 2**32, 2**32 + 5, 2**63 + 7, 2**64 - 1]
KS = [0, 1, 7, 31, 32, 33, 63, 64]
NS = [1, 2, 3, 4, 5, 7, 8, 10, 16, 100, 255, 256, 1000, 2**31, 2**31 + 1, 2**32 - 1, 2**32, 2**32 + 1, 2**53 + 3,
      2**63, 2**64 - 1]
SHUFFLE_NS = [0, 1, 2, 3, 10, 1000]
# Pool branch: (10, 3), (40, 40), (21, 5), (85, 10), (277, 40), (1000, 100), (6, 6), (0, 0), (10, 0), (1, 1).
# Set branch: (100, 10), (25, 5), (5000, 10), (22, 5), (86, 10), (278, 40), (9999, 10). (setsize = 21 + 4 ** ceil(...))
SAMPLE_PAIRS = [(10, 3), (100, 10), (25, 5), (5000, 10), (40, 40), (21, 5), (22, 5), (85, 10), (86, 10), (277, 40),
                (278, 40), (1000, 100), (6, 6), (0, 0), (10, 0), (1, 1), (9999, 10)]


def bits_of(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def streams(seed):
    r = random.Random(seed)
    u32 = [r.getrandbits(32) for _ in range(1400)]
    r = random.Random(seed)
    random_bits = [bits_of(r.random()) for _ in range(100)]
    r = random.Random(seed)
    rounds = [[r.getrandbits(k) for k in KS] for _ in range(12)]
    getrandbits = [[k, [row[i] for row in rounds]] for i, k in enumerate(KS)]
    r = random.Random(seed)
    randbelow = [[n, [r._randbelow(n) for _ in range(10)]] for n in NS]
    shuffle = []
    for n in SHUFFLE_NS:
        x = list(range(n))
        random.Random(seed).shuffle(x)
        shuffle.append([n, x])
    r = random.Random(seed)
    sample = [[n, k, r.sample(range(n), k)] for n, k in SAMPLE_PAIRS]
    # The calls CORE makes, interleaved with the others, on one generator: the state each leaves must be Python's.
    r = random.Random(seed)
    x = list(range(50))
    r.shuffle(x)
    mixed = {"shuffle50": x, "random": bits_of(r.random()), "sample100_10": r.sample(range(100), 10),
             "getrandbits33": r.getrandbits(33), "randbelow7": r._randbelow(7), "sample30_30": r.sample(range(30), 30),
             "u32": r.getrandbits(32)}
    return {"seed": seed, "u32": u32, "random_bits": random_bits, "getrandbits": getrandbits,
            "randbelow": randbelow, "shuffle": shuffle, "sample": sample, "mixed": mixed}


json.dump({"python": sys.version.split()[0], "seeds": [streams(s) for s in SEEDS]}, sys.stdout)
