"""The arena's sizes against MuJoCo 4.0.0: `MjModel.narena`, `nconmax`, `njmax` on every model
of models/ that both engines load, and `MjData.narena`, `maxuse_con`, `maxuse_efc` after
stepping (and zero after `mj_resetData`), including a pile whose rows overflow its arena."""

import pytest
from conftest import model_path, models_both_load

import mujoco
import moreau


def test_model_arena_sizes_match_mujoco():
    """`narena` (MuJoCo's default arena or `<size memory>`), `nconmax` and `njmax` (-1 when not
    set) equal MuJoCo's on every model both engines load."""
    checked = 0
    for name, mj, mo in models_both_load():
        checked += 1
        assert (mo.narena, mo.nconmax, mo.njmax) == (mj.narena, mj.nconmax, mj.njmax), name
    assert checked >= 40, checked


def pile(memory):
    """60 spheres on a plane in a 4 x 4 x 4 lattice, touching (as tests/engine/arena_oracle.rs)."""
    bodies = "".join(
        f"<body pos='{(i % 4) * 0.15} {(i // 4 % 4) * 0.15} {0.1 + 0.15 * (i // 16)}'>"
        "<freejoint/><geom size='.1'/></body>" for i in range(60))
    size = f"<size memory='{memory}'/>" if memory else ""
    return (f"<mujoco>{size}<worldbody><geom type='plane' size='5 5 .1'/>{bodies}"
            "</worldbody></mujoco>")


CASES = [("sphere_drop", None), ("box_drop", None), ("humanoid", None),
         ("pile default", pile(None)), ("pile 1M", pile("1M"))]


@pytest.mark.parametrize("name,xml", CASES, ids=[c[0] for c in CASES])
def test_data_maxuse_matches_mujoco(name, xml):
    """`MjData.narena` is the model's; `maxuse_con` and `maxuse_efc` (the most contacts and
    rows since the last reset; rows a full arena dropped do not count) equal MuJoCo's after
    every step of 150, and are 0 after `mj_resetData`. The 1M pile overflows its rows."""
    if xml is None:
        mj = mujoco.MjModel.from_xml_path(model_path(name))
        mo = moreau.MjModel.from_xml_path(model_path(name))
    else:
        mj = mujoco.MjModel.from_xml_string(xml)
        mo = moreau.MjModel.from_xml_string(xml)
    dj, do = mujoco.MjData(mj), moreau.MjData(mo)
    assert do.narena == dj.narena == mj.narena
    assert (do.maxuse_con, do.maxuse_efc) == (0, 0) == (dj.maxuse_con, dj.maxuse_efc)
    for step in range(150):
        mujoco.mj_step(mj, dj)
        moreau.mj_step(mo, do)
        assert (do.maxuse_con, do.maxuse_efc) == (dj.maxuse_con, dj.maxuse_efc), (name, step)
    assert do.maxuse_con > 0 and do.maxuse_efc > 0, name
    if name == "pile 1M":
        assert dj.warning[mujoco.mjtWarning.mjWARN_CNSTRFULL].number > 0
    mujoco.mj_resetData(mj, dj)
    moreau.mj_resetData(mo, do)
    assert (do.maxuse_con, do.maxuse_efc) == (0, 0) == (dj.maxuse_con, dj.maxuse_efc)


def test_stack_overflow_in_a_step_raises_fatal_error_as_mujoco():
    """150 bodies in a row at `<size memory='45320'>`: the body-pair list `mj_collision` takes on
    the arena's stack (4 bytes a pair) does not fit; at 45384 the list fits and `mj_broadphase`'s
    arrays do not. Both engines raise `FatalError` with the same text (MuJoCo's words, site,
    line, max and bytes) and the state not advanced; with 1M both step."""
    def row(memory):
        bodies = "".join(f"<body pos='{i} 0 0'><geom size='.01'/></body>" for i in range(150))
        return f"<mujoco><size memory='{memory}'/><worldbody>{bodies}</worldbody></mujoco>"
    for memory, site in ((45320, "mj_collision"), (45384, "mj_broadphase")):
        texts = []
        for lib in (mujoco, moreau):
            m = lib.MjModel.from_xml_string(row(memory))
            d = lib.MjData(m)
            with pytest.raises(lib.FatalError) as e:
                lib.mj_step(m, d)
            assert d.time == 0.0
            texts.append(str(e.value))
        assert texts[0] == texts[1], texts
        assert texts[0].startswith(f"mj_stackAlloc: out of memory, stack overflow at {site}")
    for lib in (mujoco, moreau):
        m = lib.MjModel.from_xml_string(row("1M"))
        d = lib.MjData(m)
        lib.mj_step(m, d)
        assert d.time > 0
