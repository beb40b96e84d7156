#!/usr/bin/env python3
"""Builds fuzz seed inputs from MJCF models: the document followed by every file it references
(includes, meshes, height fields), each after a line `@@file NAME` (fuzz/src/harness.rs).

  python3 tools/fuzz/seed.py OUT_DIR MODEL.xml...      # files above 2 MB are left out

The committed corpus fuzz/corpus/mjcf is this script's output for models/*.xml, minimized by
libFuzzer (-merge=1); the zoo seeds (dm_control, gymnasium, menagerie) are generated the same
way into a directory that is not committed.
"""
import hashlib
import os
import re
import sys

LIMIT = 2 << 20


def seed(path):
    text = open(path, "rb").read()
    base = os.path.dirname(path)
    dirs = [base]
    for key in (b"meshdir", b"assetdir", b"texturedir"):
        m = re.search(key + rb'="([^"]*)"', text)
        if m:
            dirs.append(os.path.join(base, m.group(1).decode()))
    out = bytearray(text)
    seen = set()
    for m in re.finditer(rb'file="([^"]+)"', text):
        name = m.group(1).decode()
        if name in seen:
            continue
        seen.add(name)
        for d in dirs:
            p = os.path.join(d, name)
            if os.path.isfile(p) and os.path.getsize(p) <= LIMIT:
                out += b"\n@@file " + name.encode() + b"\n" + open(p, "rb").read()
                break
    return bytes(out)


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    for path in sys.argv[2:]:
        data = seed(path)
        name = os.path.splitext(os.path.basename(path))[0]
        h = hashlib.sha1(data).hexdigest()[:8]
        open(os.path.join(out_dir, f"{name}-{h}"), "wb").write(data)


if __name__ == "__main__":
    main()
