"""Pickling `MjModel` and `MjData` (what Ray and multiprocessing send): the model carries its
MJCF text and the bytes of every file read at load time (an `<include>` and meshes here), so
the copy compiles with the original files gone; the model's values at pickling time (edited
arrays, constants recomputed by `mj_setConst`, options) come along; the copies step bit for bit
as the originals."""

import copy
import pathlib
import pickle
import shutil

import numpy as np
import pytest

import moreau

MODELS = pathlib.Path(__file__).resolve().parents[2] / "models"


def bits(a):
    return np.ascontiguousarray(a).view(np.uint64)


def run(m, d, nstep=200):
    """qpos, qvel, act after `nstep` steps with a fixed control, as bits."""
    d.ctrl[:] = 0.3
    moreau.mj_step(m, d, nstep)
    return np.concatenate([bits(d.qpos), bits(d.qvel), bits(d.act)])


def kicked(m):
    d = moreau.MjData(m)
    d.qvel[:] = 0.2 * np.sin(np.arange(m.nv))
    return d


def test_a_model_pickles_with_its_files_gone(tmp_path):
    # the model and its include and meshes, in a directory removed before unpickling
    shutil.copy(MODELS / "zoo.xml", tmp_path)
    shutil.copy(MODELS / "zoo_part.xml", tmp_path)
    shutil.copytree(MODELS / "assets", tmp_path / "assets")
    m = moreau.MjModel.from_xml_path(str(tmp_path / "zoo.xml"))
    blob = pickle.dumps(m)
    shutil.rmtree(tmp_path)
    m2 = pickle.loads(blob)
    assert (m2.nq, m2.nv, m2.ngeom, m2.nmesh) == (m.nq, m.nv, m.ngeom, m.nmesh)
    assert np.array_equal(run(m2, kicked(m2)), run(m, kicked(m)))
    # a copy of the copy pickles too
    assert np.array_equal(run(pickle.loads(pickle.dumps(m2)), kicked(m)), run(m, kicked(m)))


def test_a_model_from_a_string_and_assets_pickles():
    xml = (MODELS / "mesh_drop.xml").read_text()
    assets = {f"assets/{f}": (MODELS / "assets" / f).read_bytes() for f in ("tetra.obj", "hexprism.obj")}
    m = moreau.MjModel.from_xml_string(xml, assets)
    m2 = pickle.loads(pickle.dumps(m))
    assert np.array_equal(run(m2, kicked(m2), 400), run(m, kicked(m), 400))


def test_edited_values_and_options_travel():
    m = moreau.MjModel.from_xml_path(str(MODELS / "humanoid.xml"))
    m.body_mass[2] *= 1.7
    m.dof_damping[:] += 0.05
    m.geom_friction[:, 0] = 0.6
    m.actuator_gainprm[:, 0] *= 1.3
    moreau.mj_setConst(m, moreau.MjData(m))
    m.opt.timestep = 0.004
    m.opt.gravity[2] = -7.0
    m.opt.iterations = 17
    m.opt.integrator = int(moreau.mjtIntegrator.mjINT_IMPLICITFAST)
    m2 = pickle.loads(pickle.dumps(m))
    for name in ("body_mass", "body_subtreemass", "dof_damping", "dof_invweight0", "geom_friction",
                 "actuator_gainprm", "actuator_acc0", "body_invweight0"):
        assert np.array_equal(bits(getattr(m2, name)), bits(getattr(m, name))), name
    assert (m2.opt.timestep, m2.opt.iterations, m2.opt.integrator) == (0.004, 17, m.opt.integrator)
    assert np.array_equal(m2.opt.gravity, m.opt.gravity)
    assert np.array_equal(run(m2, kicked(m2)), run(m, kicked(m)))
    # the copy differs from a fresh load: the edits are what make it match
    fresh = moreau.MjModel.from_xml_path(str(MODELS / "humanoid.xml"))
    assert not np.array_equal(run(fresh, kicked(fresh)), run(m, kicked(m)))
    # copy.deepcopy and models taken out of a batch keep the source, so they pickle too
    assert np.array_equal(run(pickle.loads(pickle.dumps(copy.deepcopy(m))), kicked(m)), run(m, kicked(m)))
    b = moreau.batch.Batch(m, 2)
    b.expand("body_mass")[1, 2] *= 2.0
    mb = b.get_model(1)
    assert mb.body_mass[2] == 2.0 * m.body_mass[2]
    mb2 = pickle.loads(pickle.dumps(mb))
    assert np.array_equal(run(mb2, kicked(mb2)), run(mb, kicked(mb)))


def test_a_data_pickles_and_steps_on_bit_for_bit():
    m = moreau.MjModel.from_xml_path(str(MODELS / "humanoid.xml"))
    d = kicked(m)
    run(m, d, 150)  # mid-run, with contacts and a warm start
    m2, d2 = pickle.loads(pickle.dumps((m, d)))
    assert d2.model is m2  # one model, pickled once
    assert d2.time == d.time
    assert np.array_equal(run(m2, d2), run(m, d))


CONTACT_FIELDS = ("dist", "pos", "frame", "includemargin", "friction", "solref",
                  "solreffriction", "solimp", "mu", "dim", "geom1", "geom2", "efc_address")


def test_an_unpickled_data_has_the_derived_fields_as_mujoco_s():
    """MuJoCo's unpickled MjData has every field of the original without mj_forward (checked
    here on MuJoCo itself): moreau's has every field it shows equal bit for bit too."""
    import mujoco

    path = str(MODELS / "humanoid.xml")
    mj = mujoco.MjModel.from_xml_path(path)
    m = moreau.MjModel.from_xml_path(path)
    dj, d = mujoco.MjData(mj), kicked(m)
    dj.qvel[:] = d.qvel
    dj.ctrl[:], d.ctrl[:] = 0.3, 0.3
    mujoco.mj_step(mj, dj, 150)
    moreau.mj_step(m, d, 150)  # mid-run: contacts, constraint rows, a warm start
    assert d.ncon > 0 and d.nefc > 0
    dj2, d2 = pickle.loads(pickle.dumps(dj)), pickle.loads(pickle.dumps(d))
    names = [n for n in dir(d) if not n.startswith("_") and hasattr(dj, n)
             and isinstance(getattr(d, n), np.ndarray)]
    assert {"xpos", "xquat", "xmat", "qacc", "sensordata", "efc_force", "cinert"} <= set(names)
    for name in names:
        # MuJoCo 4.0.0's copy has solver_niter and solver_nnz zero (its pickle leaves them out);
        # moreau's keeps them
        solver = name in ("solver_niter", "solver_nnz")
        pairs = ((d, d2),) if solver else ((dj, dj2), (d, d2))
        for orig, copy_ in pairs:
            a, b = np.asarray(getattr(orig, name)), np.asarray(getattr(copy_, name))
            assert a.shape == b.shape and np.array_equal(a, b, equal_nan=True), name
    for orig, copy_ in ((dj, dj2), (d, d2)):
        assert (copy_.ncon, copy_.nefc, copy_.time) == (orig.ncon, orig.nefc, orig.time)
        for f in CONTACT_FIELDS:
            assert np.array_equal(getattr(copy_.contact, f), getattr(orig.contact, f)), f
        assert [(w.lastinfo, w.number) for w in copy_.warning] == [
            (w.lastinfo, w.number) for w in orig.warning]
    # the copy reads as the original and then steps as it, bit for bit
    assert np.array_equal(run(m, d2), run(m, d))
    f, (m3, state, derived) = moreau._reduce_data(d)
    with pytest.raises(ValueError, match="corrupt MjData pickle"):
        f(m3, state, (derived[0][:-1], derived[1]))


def test_a_bad_pickle_is_a_clear_error():
    m = moreau.MjModel.from_xml_path(str(MODELS / "cartpole.xml"))
    f, (xml, files, arrays, options) = m.__reduce__()
    arrays["body_mass"] = arrays["body_mass"][:-8]
    with pytest.raises(ValueError, match="body_mass"):
        f(xml, files, arrays, options)
