"""`moreau.rollout`'s argument checks and errors side by side with `mujoco.rollout` (4.0.0):
the same calls raise the same exception types with the same messages (MuJoCo's words), whether
they reach the pool through the checked path or with `skip_checks`; a step's fatal error
(the arena's stack overflowing) is raised as `FatalError` with MuJoCo's text; a model list
longer than the batch runs its first nbatch models; the module's names are MuJoCo's."""

import copy

import numpy as np
import pytest
from conftest import load_pair, model_path

import mujoco
import mujoco.rollout
import moreau
from moreau import rollout as mo_rollout

LIBS = ((mujoco, mujoco.rollout), (moreau, mo_rollout))


def outcome(f):
    """(exception type name, message) of `f()`, or ("ok", shapes of what it returned)."""
    try:
        r = f()
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return type(e).__name__, str(e)
    return "ok", tuple(None if a is None else a.shape for a in r)


def cases(lib, ro, m, d):
    """Calls with bad (or borderline) arguments, by name; `m`, `d` of `lib`."""
    ns = lib.mj_stateSize(m, lib.mjtState.mjSTATE_FULLPHYSICS)
    x3, c3 = np.zeros((3, ns)), np.zeros((3, 2, m.nu))

    def out(nstep):
        return dict(state=np.empty((3, nstep, ns)), sensordata=np.empty((3, nstep, m.nsensordata)))

    def pool(nthread, ndata, **kw):
        with ro.Rollout(nthread=nthread) as r:
            return r.rollout(m, [copy.copy(d) for _ in range(ndata)], x3, c3, **kw)

    skip = dict(skip_checks=True, nstep=2, **out(2))
    return {
        "empty data list": lambda: ro.rollout(m, [], x3, c3),
        "empty data list, skip_checks": lambda: ro.rollout([m] * 3, [], x3, c3, **skip),
        **{f"pool of {n} with {k} data": (lambda n=n, k=k: pool(n, k))
           for n in (0, 1, 2) for k in (0, 1, 2, 3)},
        "pool of 2 with one MjData": lambda: ro.Rollout(nthread=2).rollout(m, d, x3, c3),
        "nstep -1, skip_checks": lambda: ro.rollout([m] * 3, [d], x3, None, skip_checks=True,
                                                    nstep=-1),
        "nstep 0, skip_checks": lambda: ro.rollout([m] * 3, [d], x3, None, skip_checks=True,
                                                   nstep=0, **out(0)),
        "nstep 0, two threads": lambda: ro.rollout(m, [d, copy.copy(d)], x3, nstep=0),
        "nstep True": lambda: ro.rollout(m, d, x3, nstep=True),
        "chunk_size 0, skip_checks": lambda: ro.rollout([m] * 3, [d, copy.copy(d)], x3, None,
                                                        chunk_size=0, **skip),
        "chunk_size -2, skip_checks": lambda: ro.rollout([m] * 3, [d], x3, None, chunk_size=-2,
                                                         **skip),
        "chunk_size 1.0": lambda: ro.rollout(m, [d, copy.copy(d)], x3, chunk_size=1.0),
        "five models for three rollouts, skip_checks": lambda: ro.rollout([m] * 5, [d], x3, c3,
                                                                          **skip),
        "state of the wrong size, skip_checks": lambda: ro.rollout(
            [m] * 3, [d], x3, None, skip_checks=True, nstep=2, state=np.empty((3, 1, ns)),
            sensordata=out(2)["sensordata"]),
        "nstep mismatch": lambda: ro.rollout(m, d, x3, c3, state=np.empty((3, 4, ns))),
        "nbatch mismatch": lambda: ro.rollout(m, d, x3, np.zeros((2, 2, m.nu))),
        "model list of the wrong length": lambda: ro.rollout([m] * 2, d, x3, c3),
        "incompatible models": lambda: ro.rollout(
            [m, lib.MjModel.from_xml_string("<mujoco/>")], d, x3[:2], c3[:2]),
        "control a list": lambda: ro.rollout(m, d, x3, [0.0] * m.nu),
        "control of four dimensions": lambda: ro.rollout(m, d, x3, np.zeros((1, 1, 1, m.nu))),
        "pool closed": lambda: (lambda r: (r.close(), r.rollout(m, d, x3, c3)))(
            ro.Rollout(nthread=0)),
    }


def test_rollout_errors_are_mujocos():
    """Every case raises (or returns) on moreau what it does on MuJoCo."""
    path = model_path("cartpole")
    got = {}
    for lib, ro in LIBS:
        m = lib.MjModel.from_xml_path(path)
        got[lib.__name__] = {k: outcome(f) for k, f in cases(lib, ro, m, lib.MjData(m)).items()}
    assert len(got["moreau"]) == len(got["mujoco"]) >= 25
    raised = 0
    for k, want in got["mujoco"].items():
        assert got["moreau"][k] == want, k
        raised += want[0] != "ok"
    assert raised >= 20


def test_a_long_model_list_runs_its_first_nbatch_models(rng):
    """Five models, three rollouts (`skip_checks`, as a caller slicing its batch does): rollout r
    runs model r, as on MuJoCo and as the same call with the first three models."""
    mj, mo = load_pair(model_path("cartpole"))
    ns = mujoco.mj_stateSize(mj, mujoco.mjtState.mjSTATE_FULLPHYSICS)
    x0 = 0.1 * rng.standard_normal((3, ns))
    x0[:, 0] = 0.0
    ctrl = rng.standard_normal((3, 10, mj.nu))
    res = {}
    for lib, ro, m in ((mujoco, mujoco.rollout, mj), (moreau, mo_rollout, mo)):
        models = [copy.copy(m) for _ in range(5)]
        for k, mk in enumerate(models):
            mk.opt.timestep = 0.002 * (k + 1)
        for n in (5, 3):
            state, sd = np.empty((3, 10, ns)), np.empty((3, 10, m.nsensordata))
            ro.rollout(models[:n], [lib.MjData(m)], x0, ctrl, skip_checks=True, nstep=10,
                       state=state, sensordata=sd)
            res[lib.__name__, n] = state
    assert np.array_equal(res["moreau", 5], res["moreau", 3])
    assert np.array_equal(res["mujoco", 5], res["mujoco", 3])
    assert np.abs(res["moreau", 5] - res["mujoco", 5]).max() < 1e-10
    # the timesteps differ per rollout: the time after the first step is model r's
    assert res["moreau", 5][:, 0, 0].tolist() == [0.002 * (k + 1) for k in range(3)]


def overflowing_row():
    """150 bodies in a row whose body-pair list overflows `<size memory='45320'>` in
    `mj_collision` (test_arena.py)."""
    bodies = "".join(f"<body pos='{i} 0 0'><geom size='.01'/></body>" for i in range(150))
    return f"<mujoco><size memory='45320'/><worldbody>{bodies}</worldbody></mujoco>"


def test_a_fatal_error_in_a_rollout_is_mujocos_fatal_error():
    """MuJoCo's rollout raises `FatalError` with `mj_stackAlloc`'s text out of the call (on one
    thread; on two, MuJoCo 4.0.0 aborts the process). moreau raises the same on 1 and 2 threads,
    and the Data it used steps on afterwards."""
    texts = []
    for lib, ro in LIBS:
        m = lib.MjModel.from_xml_string(overflowing_row())
        ns = lib.mj_stateSize(m, lib.mjtState.mjSTATE_FULLPHYSICS)
        with pytest.raises(lib.FatalError) as e:
            ro.rollout(m, lib.MjData(m), np.zeros((2, ns)), nstep=3)
        texts.append(str(e.value))
    assert texts[0] == texts[1]
    assert texts[0].startswith("mj_stackAlloc: out of memory, stack overflow at mj_collision")
    m = moreau.MjModel.from_xml_string(overflowing_row())
    ns = moreau.mj_stateSize(m, moreau.mjtState.mjSTATE_FULLPHYSICS)
    datas = [moreau.MjData(m) for _ in range(2)]
    with pytest.raises(moreau.FatalError) as e:
        mo_rollout.rollout(m, datas, np.zeros((4, ns)), nstep=3)
    assert str(e.value) == texts[0]
    big = moreau.MjModel.from_xml_string(overflowing_row().replace("45320", "1M"))
    state, _ = mo_rollout.rollout(big, datas, np.zeros((4, ns)), nstep=1)
    assert (state[:, 0, 0] == big.opt.timestep).all()


def test_module_names_are_mujocos():
    """`MJTNUM_DTYPE` and `rollout.persistent_rollout` (the pool a persistent call keeps, None
    after `shutdown_persistent_pool`), as in MuJoCo's package."""
    assert moreau.MJTNUM_DTYPE is mujoco.MJTNUM_DTYPE is np.float64
    m = moreau.MjModel.from_xml_path(model_path("cartpole"))
    ns = moreau.mj_stateSize(m, moreau.mjtState.mjSTATE_FULLPHYSICS)
    assert mo_rollout.persistent_rollout is None
    datas = [moreau.MjData(m) for _ in range(2)]
    mo_rollout.rollout(m, datas, np.zeros((2, ns)), nstep=2, persistent_pool=True)
    pool = mo_rollout.persistent_rollout
    assert isinstance(pool, mo_rollout.Rollout) and pool.nthread == 2
    mo_rollout.rollout(m, datas, np.zeros((2, ns)), nstep=2, persistent_pool=True)
    assert mo_rollout.persistent_rollout is pool
    mo_rollout.shutdown_persistent_pool()
    assert mo_rollout.persistent_rollout is None
    assert set(dir(mujoco.rollout)) >= {"persistent_rollout", "shutdown_persistent_pool"}


def test_outputs_are_written_in_place_or_copied_as_mujoco(rng):
    """A C-contiguous float64 output is written in place and returned; another dtype is
    converted to a new float64 array, which is what the call returns (the caller's is left
    alone), on both libraries."""
    for lib, ro in LIBS:
        m = lib.MjModel.from_xml_path(model_path("cartpole"))
        ns = lib.mj_stateSize(m, lib.mjtState.mjSTATE_FULLPHYSICS)
        x0 = np.zeros((2, ns))
        out = np.zeros((2, 3, ns))
        s, _ = ro.rollout(m, lib.MjData(m), x0, nstep=3, state=out)
        assert s is out and (out[:, -1, 0] > 0).all(), lib.__name__
        out32 = np.zeros((2, 3, ns), np.float32)
        s32, _ = ro.rollout(m, lib.MjData(m), x0, nstep=3, state=out32)
        assert s32 is not out32 and s32.dtype == np.float64, lib.__name__
        assert np.array_equal(s32, out) and not out32.any(), lib.__name__
