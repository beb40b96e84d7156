"""`MjSpec` (the subset moreau has: `from_string`, `from_file`, `compile`) and the MJCF `user`
data (`nuser_X`, `X_user`), side by side with MuJoCo 4.0.0."""

import pickle
import warnings

import numpy as np
import pytest
from conftest import models_both_load

import mujoco
import moreau

# two free boxes welded together, one marked sleep="init": it cannot sleep alone, and the reset
# MuJoCo's compiler runs warns (docs/mujoco-behaviour.md "Sleeping")
SLEEP_WARN = """<mujoco><option><flag sleep='enable'/></option><worldbody>
<geom type='plane' size='5 5 .1'/>
<body name='a' pos='0 0 .1' sleep='init'><freejoint/><geom type='box' size='.1 .1 .1'/></body>
<body name='b' pos='0 0 .3'><freejoint/><geom type='box' size='.1 .1 .1'/></body>
<body name='c' pos='1 0 .1' sleep='init'><freejoint/><geom type='box' size='.1 .1 .1'/></body>
</worldbody><equality><weld body1='a' body2='b'/></equality></mujoco>"""


def caught(f):
    """`f()`'s result and the (category, text, file) of every warning it raised."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = f()
    return r, [(x.category, str(x.message), x.filename) for x in w]


def test_compile_raises_the_compilers_warning_as_mujoco():
    """`MjSpec.compile` raises the compiler's warning as a `UserWarning` with MuJoCo's text,
    attributed to the caller's line, as `mujoco.MjSpec.compile`; `MjModel.from_xml_string`
    raises none in either; a model without warnings gives none."""
    for lib in (mujoco, moreau):
        assert lib.MjSpec.from_string(SLEEP_WARN) is not None
    (mj, wj), (mo, wo) = (caught(lib.MjSpec.from_string(SLEEP_WARN).compile)
                          for lib in (mujoco, moreau))
    assert len(wj) == 1 and wj[0][0] is UserWarning
    assert wo == wj
    assert "2 trees were marked as sleep='init' but only 1 could be slept." in wo[0][1]
    assert (mo.nbody, mo.nv) == (mj.nbody, mj.nv)
    for lib in (mujoco, moreau):
        _, w = caught(lambda: lib.MjModel.from_xml_string(SLEEP_WARN))
        assert w == [], lib
        _, w = caught(lib.MjSpec.from_string(SLEEP_WARN.replace("sleep='init'", "")).compile)
        assert w == [], lib


def test_from_file_and_errors_as_mujoco(tmp_path):
    """`MjSpec.from_file` compiles the file (with its warning) as MuJoCo's; a document MuJoCo
    refuses raises `ValueError` in both (moreau's when compiling); `include` (second
    argument) gives the included files."""
    p = tmp_path / "warn.xml"
    p.write_text(SLEEP_WARN)
    (_, wj), (_, wo) = (caught(lib.MjSpec.from_file(str(p)).compile) for lib in (mujoco, moreau))
    assert [w[:2] for w in wo] == [w[:2] for w in wj] and len(wo) == 1
    bad = "<mujoco><worldbody><body><geom type='box' size='1'/></body></worldbody></mujoco>"
    for lib in (mujoco, moreau):
        with pytest.raises(ValueError):
            lib.MjSpec.from_string(bad).compile()
    inc = "<mujoco><include file='part.xml'/></mujoco>"
    part = b"<mujoco><worldbody><body><freejoint/><geom size='.1'/></body></worldbody></mujoco>"
    for lib in (mujoco, moreau):
        m = lib.MjSpec.from_string(inc, {"part.xml": part}).compile()
        assert m.nbody == 2 and m.nv == 6
        m = lib.MjSpec.from_string(inc, include={"part.xml": part}).compile()
        assert m.nbody == 2 and m.nv == 6


USER = """<mujoco><size nuser_geom='4'/>
<default><geom user='9'/><default class='c'><joint user='7 8'/><motor user='1 1'/></default></default>
<worldbody><body name='a' user='1 2 3'><joint name='j0' class='c'/><geom size='.1' user='5'/><site user='1'/>
<body name='a2' childclass='c' pos='0 0 -.3'><joint name='j1'/><geom size='.1'/></body></body>
<body name='b' pos='1 0 0'><freejoint/><geom size='.1'/><camera user='2 2'/></body></worldbody>
<tendon><fixed user='3'><joint joint='j0' coef='1'/></fixed></tendon>
<actuator><motor joint='j0' user='4 4 4'/><motor class='c' joint='j1'/></actuator>
<sensor><jointpos joint='j0' user='6'/></sensor></mujoco>"""
KINDS = ["body", "jnt", "geom", "site", "cam", "tendon", "actuator", "sensor"]


def test_user_data_is_mujocos():
    """`nuser_X` and `X_user` (float64, `n × nuser_X`) equal MuJoCo's on a model with defaults,
    classes and `<size nuser_geom>`, and on every model of models/; `X_user` is a writeable
    view as MuJoCo's."""
    pairs = [("user", mujoco.MjModel.from_xml_string(USER), moreau.MjModel.from_xml_string(USER))]
    pairs += list(models_both_load())
    for name, mj, mo in pairs:
        for k in KINDS:
            assert getattr(mo, f"nuser_{k}") == getattr(mj, f"nuser_{k}"), (name, k)
            a, b = getattr(mo, f"{k}_user"), getattr(mj, f"{k}_user")
            assert a.dtype == b.dtype == np.float64 and a.shape == b.shape, (name, k)
            assert np.array_equal(a, b), (name, k)
    mo = pairs[0][2]
    assert mo.nuser_actuator == 3 and mo.actuator_user[1].tolist() == [1.0, 1.0, 0.0]
    mo.body_user[1, 0] = 42.0
    assert mo.body_user[1, 0] == 42.0
    copy = pickle.loads(pickle.dumps(mo))
    assert np.array_equal(copy.body_user, mo.body_user) and copy.body_user[1, 0] == 42.0


def test_names_map_is_mujocos():
    """`names_map` and `nnames_map` (MuJoCo's hash tables of the names) equal MuJoCo's on every
    model of models/ and on a model with non-ASCII and colliding names."""
    names = ["wörld_é", "ü", "abc", "日本", "x€y", "ñ1", "ñ2", "ñ3"]
    xml = ("<mujoco><worldbody>" + "".join(
        f"<body name='{n}'><joint/><geom size='.1'/></body>" for n in names)
        + "</worldbody></mujoco>")
    pairs = [("names", mujoco.MjModel.from_xml_string(xml), moreau.MjModel.from_xml_string(xml))]
    checked = 0
    for name, mj, mo in pairs + list(models_both_load()):
        assert mo.nnames_map == mj.nnames_map, name
        assert mo.names_map.dtype == mj.names_map.dtype, name
        assert np.array_equal(mo.names_map, mj.names_map), name
        checked += 1
    assert checked >= 40, checked
