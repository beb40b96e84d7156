"""What `mj_resetData` and `mj_resetDataKeyframe` leave in every field, side by side with
MuJoCo 4.0.0: both engines are driven away from their defaults (steps with controls, applied
forces, moved mocap bodies, userdata), reset, and every public attribute of MuJoCo's `MjData`
that moreau's has (arrays and numbers) must be equal: exactly where MuJoCo's field is all zero
or an integer (−0 equals 0), else within TOL_SOLVE relative to max(1, the field's largest
magnitude) (the fields a reset with the `sleep` flag computes: its kinematics or its forward
pass). Over every model of models/ both engines load, and the two sleep models of
tools/reference/gen_reset_fields.py (the script that writes the Rust test's reference,
tests/engine/reset_oracle.rs). The same after a step whose divergence check resets the data
(`mj_checkPos`), and for a batch's `reset`."""

import importlib.util

import numpy as np
import pytest

import mujoco
import moreau
from conftest import ROOT, TOL_SOLVE, models_both_load

_spec = importlib.util.spec_from_file_location(
    "gen_reset_fields", ROOT / "tools" / "reference" / "gen_reset_fields.py")
GEN = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(GEN)

# MuJoCo's sizes of its arena and the thread pool's handle: not what a reset sets
SKIP = GEN.SKIP | {"pstack", "pbase", "parena", "maxuse_stack", "maxuse_arena", "threadpool"}
# the sparse row structure of efc_J, which MuJoCo leaves unwritten (arena memory from earlier
# steps, e.g. 1072693248, the high word of 1.0) under a dense Jacobian once rows were made
DENSE_J = {"efc_J_colind", "efc_J_rownnz", "efc_J_rowadr", "efc_J_rowsuper"}


def cases():
    for name, mj, mo in models_both_load():
        yield name, mj, mo, 60, True
    for xml, nstep, push in ((GEN.SLEEP_INIT, 60, True), (GEN.SLEEP_PLAIN, 300, False)):
        yield ("sleep_init" if "init" in xml else "sleep_plain",
               mujoco.MjModel.from_xml_string(xml), moreau.MjModel.from_xml_string(xml),
               nstep, push)


CASES = list(cases())


def drive(lib, m, d, nstep, push):
    """GEN.drive for either engine."""
    GEN.drive(m, d, nstep, push, lib=lib)


def compare(dj, do, where, skip=()):
    """Every shared field but `skip`; returns the names compared."""
    names = []
    for name in sorted(dir(dj)):
        if name.startswith("_") or name in SKIP or name in skip or not hasattr(do, name):
            continue
        try:
            want = getattr(dj, name)
        except Exception:  # noqa: BLE001 (a property that needs something unbound)
            continue
        if callable(want) or not isinstance(
                want, (np.ndarray, bool, int, float, np.integer, np.floating)):
            continue
        got = np.asarray(getattr(do, name))
        want = np.asarray(want)
        assert got.shape == want.shape, (where, name, got.shape, want.shape)
        names.append(name)
        if want.size == 0:
            continue
        if want.dtype.kind != "f" or not want.any():
            assert np.array_equal(got, want), (where, name, got, want)
            continue
        scale = max(1.0, float(np.abs(want).max()))
        err = float(np.abs(got - want).max()) / scale
        assert err < TOL_SOLVE, (where, name, err)
    assert do.ncon == dj.ncon, where
    for k in range(len(dj.warning)):
        assert do.warning[k].number == dj.warning[k].number, (where, k)
    return names


@pytest.mark.parametrize("name,mj,mo,nstep,push", CASES, ids=[c[0] for c in CASES])
def test_every_field_after_a_reset_is_mujocos(name, mj, mo, nstep, push):
    dj, do = mujoco.MjData(mj), moreau.MjData(mo)
    drive(mujoco, mj, dj, nstep, push)
    drive(moreau, mo, do, nstep, push)
    mujoco.mj_resetData(mj, dj)
    moreau.mj_resetData(mo, do)
    names = compare(dj, do, (name, "reset"))
    # the derived fields of a step are among them
    assert {"qacc_smooth", "xmat", "cinert", "qfrc_constraint", "efc_force"} <= set(names)
    if mj.nkey:
        drive(mujoco, mj, dj, nstep, push)
        drive(moreau, mo, do, nstep, push)
        mujoco.mj_resetDataKeyframe(mj, dj, mj.nkey - 1)
        moreau.mj_resetDataKeyframe(mo, do, mo.nkey - 1)
        compare(dj, do, (name, "keyframe"))


@pytest.mark.parametrize("name", ["humanoid", "box_stack", "constraints"])
def test_a_diverged_step_resets_as_mujoco(name):
    """A NaN in qpos: the step's `mj_checkPos` resets the data (`mj_resetData`) and the step
    goes on from there; every field after it is MuJoCo's (converged contact solves within
    TOL_SOLVE)."""
    mj, mo = [lib.MjModel.from_xml_path(str(ROOT / "models" / f"{name}.xml"))
              for lib in (mujoco, moreau)]
    dj, do = mujoco.MjData(mj), moreau.MjData(mo)
    drive(mujoco, mj, dj, 30, True)
    drive(moreau, mo, do, 30, True)
    dj.qpos[0] = np.nan
    do.qpos[0] = np.nan
    mujoco.mj_step(mj, dj)
    # moreau's Python bindings raise after the step (MuJoCo only prints; docs/python.md)
    with pytest.raises(moreau.UnstableSimulationError):
        moreau.mj_step(mo, do)
    assert dj.warning[mujoco.mjtWarning.mjWARN_BADQPOS].number == 1
    # MuJoCo's efc_state is stale with islands (its solver writes iefc_state; README of
    # tools/reference, gen_island_cases.py)
    compare(dj, do, (name, "diverged"), skip=DENSE_J | {"efc_state"})


def test_a_batch_reset_is_mj_resetData():
    """`Batch.reset` gives each simulation's data what `mj_resetData` gives (a persistent
    batch keeps one `MjData` per simulation, whose every field is compared)."""
    import mujoco.batch
    import moreau.batch
    xml = GEN.SLEEP_PLAIN
    mj, mo = mujoco.MjModel.from_xml_string(xml), moreau.MjModel.from_xml_string(xml)
    bj = mujoco.batch.Batch(mj, 2, 1, persistent=True)
    bo = moreau.batch.Batch(mo, 2, 1, persistent=True)
    bj.step(nstep=300)
    bo.step(nstep=300)
    bj.reset()
    bo.reset()
    for sim in range(2):
        compare(bj.get_data(sim), bo.get_data(sim), ("batch", sim), skip=DENSE_J)


def test_a_reset_whose_pass_overflows_raises_fatal_error_as_mujoco():
    """The forward pass a reset runs over `sleep="init"` trees overflows the arena's stack
    (tests/reference/reset_overflow.json, tools/reference/gen_reset_overflow.py: 150 free
    spheres and an init sphere): below MuJoCo's fewest bytes both compilers refuse the model
    (`ValueError`, MuJoCo's message); at that memory both compile; once the init sphere is
    enlarged on the compiled model, `mj_resetData` and `MjData` raise `FatalError` with the same
    text in both, and the reset leaves every tree awake and `time` 0."""
    import json

    r = json.loads((ROOT / "tests" / "reference" / "reset_overflow.json").read_text())
    mem, xml = r["min_memory"], r["xml_min_memory"]
    for lib in (mujoco, moreau):
        below = xml.replace(f"memory='{mem}'", f"memory='{mem - 1}'")
        with pytest.raises(ValueError) as e:
            lib.MjModel.from_xml_string(below)
        assert "stack overflow at mj_SAP, line 1624" in str(e.value), lib
    texts = []
    for lib in (mujoco, moreau):
        m = lib.MjModel.from_xml_string(xml)
        d = lib.MjData(m)
        assert d.tree_asleep[-1] >= 0, lib
        g = m.ngeom - 1
        m.geom_size[g, 0] = r["grow"]
        m.geom_rbound[g] = r["grow"]
        m.geom_aabb[g, 3:] = r["grow"]
        with pytest.raises(lib.FatalError) as e:
            lib.mj_resetData(m, d)
        assert d.tree_asleep.tolist() == r["tree_asleep_after"] and d.time == 0.0, lib
        with pytest.raises(lib.FatalError) as e2:
            lib.MjData(m)
        texts.append((str(e.value), str(e2.value)))
    assert texts[0] == texts[1] == (r["reset_error"], r["makedata_error"])


def test_a_persistent_batch_reports_a_reset_overflow_in_its_status():
    """A persistent batch's `reset` whose pass over `sleep="init"` trees overflows the arena's
    stack (the model of test_a_reset_whose_pass_overflows_raises_fatal_error_as_mujoco, the
    init sphere enlarged in simulation 1 only) fails that simulation as `mujoco.batch` reports
    a simulation in which MuJoCo raised: `SimulationError` naming it, `status` 1, `error(1)`
    MuJoCo's `mj_resetData` text (tests/reference/reset_overflow.json), its row as before the
    call; the other simulations reset to `MjData`'s state. (MuJoCo 4.0.0's own batch raises
    `FatalError` out of the call on one thread and aborts the process on two.) A later reset
    with the sphere restored clears the status."""
    import json

    from moreau import batch

    r = json.loads((ROOT / "tests" / "reference" / "reset_overflow.json").read_text())
    m = moreau.MjModel.from_xml_string(r["xml_min_memory"])
    fresh = moreau.MjData(m)
    b = batch.Batch(m, 3, nthread=2, persistent=True)
    b.step(nstep=3)
    before = b.state.copy()
    g = m.ngeom - 1
    size, rbound, aabb = b.expand("geom_size"), b.expand("geom_rbound"), b.expand("geom_aabb")
    size[1, g, 0] = rbound[1, g] = r["grow"]
    aabb[1, g, 3:] = r["grow"]
    with pytest.raises(batch.SimulationError) as e:
        b.reset()
    assert e.value.ids.tolist() == [1]
    assert b.status.tolist() == [0, 1, 0]
    assert b.error(1) == r["reset_error"] and b.error(0) == b.error(2) == ""
    assert r["reset_error"] in str(e.value)
    np.testing.assert_array_equal(b.state[1], before[1])
    time, qpos, qvel = b.bind("time"), b.bind("qpos"), b.bind("qvel")
    for sim in (0, 2):
        assert time[sim] == 0.0
        np.testing.assert_array_equal(qpos[sim], fresh.qpos)
        np.testing.assert_array_equal(qvel[sim], fresh.qvel)
        assert b.get_data(sim).tree_asleep.tolist() == fresh.tree_asleep.tolist()
    size[1, g, 0], rbound[1, g] = m.geom_size[g, 0], m.geom_rbound[g]
    aabb[1, g, 3:] = m.geom_aabb[g, 3:]
    b.reset([1])
    assert b.status.tolist() == [0, 0, 0] and b.error(1) == ""
    np.testing.assert_array_equal(qpos[1], fresh.qpos)
    assert b.get_data(1).tree_asleep.tolist() == fresh.tree_asleep.tolist()
