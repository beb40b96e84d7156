#!/usr/bin/env python3
"""MuJoCo 4.0.0 reference data for texture files it refuses.

Writes tests/reference/texture_files.json: PNG files made here (valid RGB, grey and RGBA
images of several sizes, and broken ones: not a PNG, truncated, a bad CRC, empty, a header
claiming 100,000 x 100,000 pixels) given to MuJoCo in its VFS as 2d, cube and skybox textures,
from one file (with `gridsize`) or six; per case the XML, the files (hex) and either "ok" with
MuJoCo's tex_height, tex_width and tex_nchannel, or the first line of its error.

Rerun:  python3 tools/textures/reference.py
"""
import json
import os
import struct
import zlib

import mujoco

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def chunk(kind, data):
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


def png(w, h, ctype=2):
    """A `w` x `h` 8-bit image of color type `ctype` (0 grey, 2 RGB, 6 RGBA)."""
    ch = {0: 1, 2: 3, 6: 4}[ctype]
    raw = b"".join(b"\x00" + bytes((x * 7 + y * 3 + c) % 256 for x in range(w) for c in range(ch))
                   for y in range(h))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, ctype, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


GOOD = png(4, 3)
FILES = {
    "rgb43.png": GOOD,
    "grey43.png": png(4, 3, 0),
    "rgba43.png": png(4, 3, 6),
    "sq8.png": png(8, 8),
    "grid.png": png(16, 12),
    "tall.png": png(4, 6),
    "garbage.png": b"hello world",
    "truncated.png": GOOD[:40],
    "badcrc.png": GOOD[:30] + bytes([GOOD[30] ^ 0xFF]) + GOOD[31:],
    "empty.png": b"",
    "huge.png": (b"\x89PNG\r\n\x1a\n"
                 + chunk(b"IHDR", struct.pack(">IIBBBBB", 100000, 100000, 8, 2, 0, 0, 0))
                 + chunk(b"IDAT", zlib.compress(b"\x00" * 100)) + chunk(b"IEND", b"")),
}
SIX = ["fileright", "fileleft", "fileup", "filedown", "filefront", "fileback"]


def cases():
    out = []
    for f in FILES:
        for t in ("2d", "cube", "skybox"):
            out.append((f'type="{t}" file="{f}"', [f]))
    out.append(('file="sq8.png"', ["sq8.png"]))  # the default type, cube
    out.append(('file="rgb43.png"', ["rgb43.png"]))
    out.append(('type="cube" file="grid.png" gridsize="3 4" gridlayout=".U..LFRB.D.."',
                ["grid.png"]))
    out.append(('type="skybox" file="rgb43.png" gridsize="3 4" gridlayout=".U..LFRB.D.."',
                ["rgb43.png"]))
    out.append(('type="cube" file="sq8.png" gridsize="3 4" gridlayout=".U..LFRB.D.."',
                ["sq8.png"]))
    six = " ".join(f'{k}="sq8.png"' for k in SIX)
    out.append((f'type="cube" {six}', ["sq8.png"]))
    out.append((f'type="skybox" {six}', ["sq8.png"]))
    out.append((f'type="cube" {six.replace("sq8.png", "rgb43.png", 1)}', ["sq8.png", "rgb43.png"]))
    last = " ".join(f'{k}="sq8.png"' for k in SIX[:5]) + ' fileback="garbage.png"'
    out.append((f'type="cube" {last}', ["sq8.png", "garbage.png"]))
    out.append(('type="2d" file="rgb43.png" nchannel="4"', ["rgb43.png"]))
    return out


def main():
    rows = []
    for attrs, files in cases():
        xml = (f'<mujoco><asset><texture name="t" {attrs}/></asset>'
               '<worldbody><geom size="1"/></worldbody></mujoco>')
        assets = {f: FILES[f] for f in files}
        row = {"xml": xml, "files": {f: FILES[f].hex() for f in files}}
        try:
            m = mujoco.MjModel.from_xml_string(xml, assets)
            row.update(ok=True, tex_height=int(m.tex_height[0]), tex_width=int(m.tex_width[0]),
                       tex_nchannel=int(m.tex_nchannel[0]))
        except ValueError as e:
            row.update(ok=False, error=str(e).split("\n")[0])
        rows.append(row)
    out = os.path.join(ROOT, "tests", "reference", "texture_files.json")
    with open(out, "w") as fh:
        json.dump({"mujoco": mujoco.__version__, "cases": rows}, fh, indent=1)
        fh.write("\n")
    print(out, len(rows), "cases,", sum(not r["ok"] for r in rows), "refused")


if __name__ == "__main__":
    main()
