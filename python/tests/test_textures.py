"""Compiled textures (`ntex`, `ntexdata`, `tex_type`, `tex_colorspace`, `tex_height`,
`tex_width`, `tex_nchannel`, `tex_adr`, `tex_data`, `mat_texid`) and `mjOBJ_TEXTURE` names
against MuJoCo 4.0.0, with MuJoCo's names, dtypes and shapes."""

import struct
import zlib

import numpy as np
from conftest import models_both_load

import mujoco
import moreau

FIELDS = ("tex_type", "tex_colorspace", "tex_height", "tex_width", "tex_nchannel", "tex_adr",
          "mat_texid")


def png(w, h, ctype=2):
    """A `w` x `h` 8-bit image of color type `ctype` (0 grey, 2 RGB, 6 RGBA)."""
    ch = {0: 1, 2: 3, 6: 4}[ctype]
    raw = b"".join(b"\x00" + bytes((x * 7 + y * 3 + c * 11) % 256
                                   for x in range(w) for c in range(ch)) for y in range(h))

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, ctype, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def same_textures(mj, mo, random=()):
    """Every texture field equal, dtypes and shapes included; the samples of the textures in
    `random` (random marks, whose generator moreau does not reproduce) are compared where
    neither engine marked a pixel (MuJoCo's `markrgb` samples are 255 there)."""
    assert mo.ntex == mj.ntex and mo.ntexdata == mj.ntexdata
    for f in FIELDS:
        got, want = np.asarray(getattr(mo, f)), getattr(mj, f)
        assert got.dtype == want.dtype and got.shape == want.shape, f
        assert np.array_equal(got, want), f
    got, want = np.asarray(mo.tex_data), mj.tex_data
    assert got.dtype == want.dtype == np.uint8 and got.shape == want.shape
    keep = np.ones(len(want), bool)
    for i in random:
        a, n = mj.tex_adr[i], mj.tex_height[i] * mj.tex_width[i] * mj.tex_nchannel[i]
        px = np.s_[a:a + n]
        marked = ((got[px].reshape(-1, 3) == 255).all(1) | (want[px].reshape(-1, 3) == 255).all(1))
        keep[px] = ~np.repeat(marked, 3)
    assert np.array_equal(got[keep], want[keep])
    return int(keep.sum())


def test_texture_arrays_match_mujoco():
    """A model with builtin 2d, cube and skybox textures (gradient, checker, flat, edge and
    cross marks), PNG files (2d with nchannel 1/3/4 and flips, a cube cut from one image by
    gridsize/gridlayout, six face files) and materials (`texture` and `<layer>` roles): every
    sample equal to MuJoCo's."""
    files = {"rgb.png": png(4, 3), "grey.png": png(4, 3, 0), "rgba.png": png(4, 3, 6),
             "cells.png": png(8, 6), "f.png": png(2, 2)}
    xml = """<mujoco><asset>
      <texture name="sky" type="skybox" builtin="gradient" rgb1=".4 .6 .8" rgb2="0 0 0"
               width="64" height="64"/>
      <texture name="grid" type="2d" builtin="checker" rgb1=".1 .2 .3" rgb2=".2 .3 .4"
               width="30" height="30" mark="edge" markrgb=".2 .3 .4"/>
      <texture name="g2" type="2d" builtin="gradient" width="17" height="9" mark="cross"/>
      <texture name="box" type="cube" builtin="flat" width="5" rgb1="2 -1 .5"/>
      <texture type="2d" file="rgb.png" hflip="true"/>
      <texture type="2d" file="grey.png" nchannel="4"/>
      <texture type="2d" file="rgba.png" nchannel="1" vflip="true"/>
      <texture type="cube" file="cells.png" gridsize="3 4" gridlayout=".U..LFRB.D.."/>
      <texture name="six" type="skybox" fileup="f.png" filefront="f.png" rgb1="0 .5 1"/>
      <material name="plain"/>
      <material name="m" texture="grid"/>
      <material name="layers"><layer texture="g2" role="normal"/><layer texture="rgb" role="orm"/>
      </material>
    </asset><worldbody/></mujoco>"""
    mj = mujoco.MjModel.from_xml_string(xml, files)
    mo = moreau.MjModel.from_xml_string(xml, files)
    assert same_textures(mj, mo) == mj.ntexdata > 20000
    for i in range(mj.ntex):
        name = mujoco.mj_id2name(mj, mujoco.mjtObj.mjOBJ_TEXTURE, i)
        assert moreau.mj_id2name(mo, moreau.mjtObj.mjOBJ_TEXTURE, i) == name
        if name:
            assert moreau.mj_name2id(mo, moreau.mjtObj.mjOBJ_TEXTURE, name) == i
    assert moreau.mj_name2id(mo, moreau.mjtObj.mjOBJ_MATERIAL, "layers") == 2


def test_textures_of_the_models_match_mujoco():
    """Every model of models/ both engines load (dm_control's 800 x 800 skybox with random
    marks among them): the texture arrays equal MuJoCo's, the samples of random-marked
    textures where neither engine marked the pixel."""
    checked = 0
    for name, mj, mo in models_both_load():
        random = []
        for i in range(mj.ntex):
            # dm_control's skybox is the only random-marked texture of models/ (markrgb white,
            # a color its gradient never reaches)
            if mj.tex_type[i] == mujoco.mjtTexture.mjTEXTURE_SKYBOX:
                random.append(i)
        checked += same_textures(mj, mo, random)
    assert checked > 10_000_000
