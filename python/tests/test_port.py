"""A MuJoCo `rollout` or `Batch` script runs on moreau by changing its import.

Each test below is one of the call forms MuJoCo 4.0.0's Python chapter documents for
`mujoco.rollout` and `mujoco.batch` (doc/python.rst, sections "rollout" and "batch"), written
once as a script over the names `mujoco`, `rollout` and `batch`. The script runs twice: with
`import mujoco; from mujoco import rollout, batch`, and with `import moreau as mujoco; from
moreau import rollout, batch`. Both runs must return the same keys, shapes and dtypes; values
agree to `TOL_SOLVE` (conftest.py: the rollout tolerance of the side-by-side tests, contacts
included) and integer results exactly.
"""

import os
import re
import threading
import types

import numpy as np
import pytest
from conftest import TOL_SOLVE, model_path, rel_err

import moreau
import moreau.batch
import moreau.rollout
import mujoco
import mujoco.batch
import mujoco.rollout

MUJOCO = types.SimpleNamespace(mujoco=mujoco, rollout=mujoco.rollout, batch=mujoco.batch)
MOREAU = types.SimpleNamespace(mujoco=moreau, rollout=moreau.rollout, batch=moreau.batch)

# sensors, two keyframes, contacts, three actuators
MODEL = model_path("zoo")


def port(script, *args):
    """Runs `script(engine, *args)` on both engines; compares what it returns (a dict)."""
    want = script(MUJOCO, *args)
    got = script(MOREAU, *args)
    assert sorted(got) == sorted(want)
    for key in want:
        a, b = np.asarray(got[key]), np.asarray(want[key])
        assert a.shape == b.shape, (key, a.shape, b.shape)
        if b.dtype.kind in "iub":
            assert a.dtype.kind == b.dtype.kind, (key, a.dtype, b.dtype)
            assert np.array_equal(a, b), (key, a, b)
        else:
            assert a.dtype == b.dtype, (key, a.dtype, b.dtype)
            assert np.array_equal(np.isfinite(a), np.isfinite(b)), key
            ok = np.isfinite(b)
            assert rel_err(a[ok], b[ok]) < TOL_SOLVE, (key, rel_err(a[ok], b[ok]))
    return got


def start(e, nbatch, seed=3):
    """The model, and nbatch FULLPHYSICS states: the reset state with perturbed velocities."""
    model = e.mujoco.MjModel.from_xml_path(MODEL)
    data = e.mujoco.MjData(model)
    spec = e.mujoco.mjtState.mjSTATE_FULLPHYSICS
    x = np.zeros((nbatch, e.mujoco.mj_stateSize(model, spec)))
    rng = np.random.default_rng(seed)
    for r in range(nbatch):
        data.qvel[:] = 0.2 * rng.standard_normal(model.nv)
        e.mujoco.mj_getState(model, data, x[r], spec)
    return model, data, x


def controls(model, nbatch, nstep, seed=4):
    return 0.3 * np.random.default_rng(seed).standard_normal((nbatch, nstep, model.nu))


# ---------------------------------------------------------------------------------- rollout


def rollout_basic(e):
    """`state, sensordata = rollout.rollout(model, data, initial_state, control)`."""
    model, data, x0 = start(e, 4)
    state, sensordata = e.rollout.rollout(model, data, x0, controls(model, 4, 30))
    return dict(state=state, sensordata=sensordata)


def rollout_threads(e):
    """`data` a sequence of nthread MjData: the rollouts run on a thread pool."""
    model, _, x0 = start(e, 5)
    datas = [e.mujoco.MjData(model) for _ in range(2)]
    state, sensordata = e.rollout.rollout(model, datas, x0, controls(model, 5, 20))
    return dict(state=state, sensordata=sensordata)


def rollout_models(e):
    """`model` a sequence of homogeneous models (same sizes, other floating-point values)."""
    models = []
    for k in range(3):
        m = e.mujoco.MjModel.from_xml_path(MODEL)
        m.dof_damping[:] += 0.5 * k
        m.opt.timestep *= 1 + 0.1 * k
        models.append(m)
    _, data, x0 = start(e, 3)
    state, sensordata = e.rollout.rollout(models, data, x0, controls(models[0], 3, 20))
    return dict(state=state, sensordata=sensordata)


def rollout_control_spec(e):
    """Any combination of the user inputs as the control, through `control_spec`."""
    model, data, x0 = start(e, 2)
    spec = e.mujoco.mjtState.mjSTATE_CTRL | e.mujoco.mjtState.mjSTATE_QFRC_APPLIED
    n = e.mujoco.mj_stateSize(model, spec)
    u = 0.2 * np.random.default_rng(5).standard_normal((2, 15, n))
    state, sensordata = e.rollout.rollout(model, data, x0, u, control_spec=spec)
    return dict(state=state, sensordata=sensordata, ncontrol=np.array([n]))


def rollout_persistent_pool(e):
    """`persistent_pool=True` without controls (`nstep` given), twice, then the shutdown."""
    model, _, x0 = start(e, 4)
    datas = [e.mujoco.MjData(model) for _ in range(2)]
    a = e.rollout.rollout(model, datas, x0, nstep=10, persistent_pool=True)
    b = e.rollout.rollout(model, datas, x0[:2], nstep=5, persistent_pool=True)
    e.rollout.shutdown_persistent_pool()
    return dict(a_state=a[0], a_sensordata=a[1], b_state=b[0], b_sensordata=b[1])


def rollout_object(e):
    """`with rollout.Rollout(nthread=nthread) as rollout_`, and `Rollout(...)` then `close()`."""
    model, _, x0 = start(e, 4)
    datas = [e.mujoco.MjData(model) for _ in range(2)]
    u = controls(model, 4, 12)
    with e.rollout.Rollout(nthread=2) as rollout_:
        a = rollout_.rollout(model, datas, x0, u)
    # without controls the rollouts take `ctrl` from the MjData: fresh ones (which rollout
    # a thread's MjData ran last is up to the pool)
    rollout_ = e.rollout.Rollout(nthread=2)
    b = rollout_.rollout(model, [e.mujoco.MjData(model) for _ in range(2)], x0, nstep=6)
    rollout_.close()
    return dict(a_state=a[0], a_sensordata=a[1], b_state=b[0], b_sensordata=b[1])


def rollout_arguments(e):
    """`initial_warmstart`, `nstep`, caller's outputs, `skip_checks` and `chunk_size`; one
    initial state and one control vector tiled over the batch and the steps."""
    model, data, x0 = start(e, 3)
    nstate = x0.shape[1]
    warm = 0.1 * np.random.default_rng(6).standard_normal((3, model.nv))
    u = np.full(model.nu, 0.2)
    a = e.rollout.rollout(model, data, x0[0], u, nstep=8, initial_warmstart=warm)
    state = np.empty((3, 8, nstate))
    sensordata = np.empty((3, 8, model.nsensordata))
    ctrl = np.ascontiguousarray(np.broadcast_to(u, (3, 8, model.nu)))
    # skip_checks: everything as the extension takes it, models and datas as lists
    b = e.rollout.rollout([model] * 3, [e.mujoco.MjData(model) for _ in range(2)], x0, ctrl,
                          skip_checks=True, nstep=8, initial_warmstart=warm, state=state,
                          sensordata=sensordata, chunk_size=1)
    assert b[0] is state and b[1] is sensordata
    return dict(a_state=a[0], a_sensordata=a[1], b_state=state, b_sensordata=sensordata)


def rollout_diverged(e):
    """A rollout that diverges fills the rest of its trajectory with its current state, so
    non-increasing time values detect it."""
    model, data, x0 = start(e, 3)
    u = controls(model, 3, 20)
    u[1, 5:] = np.nan  # a bad control: mj_step warns and the rollout stops
    state, _ = e.rollout.rollout(model, data, x0, u)
    time = state[:, :, 0]
    diverged = (np.diff(time, axis=1) <= 0).any(axis=1)
    return dict(diverged=diverged, time=time, ok=state[[0, 2]])


def rollout_python_threads(e):
    """The GIL is released: one `Rollout` per Python thread, run at once."""
    model, _, x0 = start(e, 4)
    u = controls(model, 4, 15)
    out = {}

    def run(k):
        with e.rollout.Rollout(nthread=2) as rollout_:
            datas = [e.mujoco.MjData(model) for _ in range(2)]
            out[k] = rollout_.rollout(model, datas, x0[2 * k:2 * k + 2], u[2 * k:2 * k + 2])

    threads = [threading.Thread(target=run, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return dict(state=np.concatenate([out[0][0], out[1][0]]),
                sensordata=np.concatenate([out[0][1], out[1][1]]))


ROLLOUT = [rollout_basic, rollout_threads, rollout_models, rollout_control_spec,
           rollout_persistent_pool, rollout_object, rollout_arguments, rollout_diverged,
           rollout_python_threads]


@pytest.mark.parametrize("script", ROLLOUT, ids=lambda s: s.__name__)
def test_rollout_script_ports_by_import(script):
    port(script)


def test_rollout_diverged_is_detected_by_time():
    got = port(rollout_diverged)
    assert got["diverged"].tolist() == [False, True, False]


def test_rollout_module_names_are_mujocos():
    """Every public name of `mujoco.rollout` exists in `moreau.rollout`, with the same
    keyword arguments."""
    import inspect

    for name in ("rollout", "Rollout", "shutdown_persistent_pool"):
        assert hasattr(moreau.rollout, name), name
    for f, g in ((mujoco.rollout.rollout, moreau.rollout.rollout),
                 (mujoco.rollout.Rollout.rollout, moreau.rollout.Rollout.rollout),
                 (mujoco.rollout.Rollout.__init__, moreau.rollout.Rollout.__init__)):
        want = inspect.signature(f).parameters
        got = inspect.signature(g).parameters
        assert list(got) == list(want), f.__qualname__
        for p in want:
            assert got[p].kind == want[p].kind and got[p].default == want[p].default, p


# ------------------------------------------------------------------------------------ batch


def policy(qpos, xpos):
    return 0.1 * np.tanh(qpos[:, :3] + xpos[:, 2, :])


def batch_doc_example(e, nthread):
    """The chapter's example: bound views, a policy writing `ctrl`, `step()`."""
    model = e.mujoco.MjModel.from_xml_path(MODEL)
    b = e.batch.Batch(model, nsim=6, nthread=nthread)
    qpos, ctrl, xpos = b.bind("qpos"), b.bind("ctrl"), b.bind("xpos")
    b.qvel = 0.2 * np.random.default_rng(7).standard_normal((6, model.nv))
    for _ in range(25):
        ctrl[:] = policy(qpos, xpos)
        b.step()
    return dict(state=b.state.copy(), xpos=xpos.copy(), sensordata=b.sensordata.copy(),
                warning=b.warning.copy(), status=b.status.copy())


def batch_counts(e):
    """The counts bind as `nsim` int arrays."""
    model = e.mujoco.MjModel.from_xml_path(MODEL)
    model.opt.solver = e.mujoco.mjtSolver.mjSOL_PGS
    b = e.batch.Batch(model, nsim=3)
    names = ("ncon", "ne", "nf", "nl", "nefc", "nJ", "nA", "nisland", "nidof")
    bound = [b.bind(n) for n in names]
    b.qvel = 0.2 * np.random.default_rng(8).standard_normal((3, model.nv))
    b.step(nstep=5)
    return {n: v.copy() for n, v in zip(names, bound)}


def batch_named(e):
    """Named views: one object's columns of bound and expanded fields; per-simulation masses
    written through them, then `set_const`."""
    model = e.mujoco.MjModel.from_xml_path(MODEL)
    b = e.batch.Batch(model, nsim=4, nthread=2)
    body, joint = model.body(3).name, model.joint(0).name
    b.body(body).mass = model.body(body).mass * np.array([1.0, 1.5, 2.0, 0.5])[:, None]
    b.set_const()
    b.qvel = 0.2 * np.random.default_rng(9).standard_normal((4, model.nv))
    b.step(nstep=10)
    return dict(qpos=b.joint(joint).qpos.copy(), xpos=b.body(body).xpos.copy(),
                mass=b.body(body).mass.copy(), subtreemass=b.expanded("body_subtreemass"),
                state=b.state.copy())


def batch_models(e):
    """`get_model(sim)` and `get_data(sim)`; `set_models(models)` and `models`."""
    model = e.mujoco.MjModel.from_xml_path(MODEL)
    b = e.batch.Batch(model, nsim=3)
    b.expand("dof_damping")[:] += np.array([0.0, 0.5, 1.0])[:, None]
    b.qvel = 0.2 * np.random.default_rng(10).standard_normal((3, model.nv))
    b.step(nstep=8)
    m1, d1 = b.get_model(1), b.get_data(1)
    out = dict(damping=m1.dof_damping.copy(), qpos=d1.qpos.copy(), qvel=d1.qvel.copy(),
               time=np.array([d1.time]))
    models = []
    for k in range(3):
        m = e.mujoco.MjModel.from_xml_path(MODEL)
        m.opt.timestep *= 1 + 0.2 * k
        models.append(m)
    c = e.batch.Batch(model, nsim=3, nthread=2)
    c.set_models(models)
    c.step(nstep=8)
    out.update(state=c.state.copy(), nmodels=np.array([len(c.models)]))
    return out


def batch_expand_option(e):
    """`expand('opt.<name>')`, `expanded(name)` (None while shared) and `set_const`."""
    model = e.mujoco.MjModel.from_xml_path(MODEL)
    b = e.batch.Batch(model, nsim=3)
    shared = b.expanded("opt.timestep") is None
    b.expand("opt.timestep")[:] = model.opt.timestep * np.array([1.0, 0.5, 2.0])
    b.expand("opt.gravity")[:, 2] = [-9.81, -3.0, -12.0]
    b.set_const()
    b.step(nstep=10)
    return dict(shared=np.array([shared]), timestep=b.expanded("opt.timestep"),
                state=b.state.copy())


def batch_ids_and_reset(e):
    """`step(ids, nstep)`, `forward(ids)`, `reset(ids, keyframe)` on sorted ids or a mask;
    a keyframe for all or one each; `reset(stage=mjSTAGE_NONE)` then `forward`."""
    model = e.mujoco.MjModel.from_xml_path(MODEL)
    b = e.batch.Batch(model, nsim=5, nthread=2)
    xpos = b.bind("xpos")
    b.reset(keyframe=1)
    b.step([0, 2, 3], nstep=4)
    b.step(np.array([True, False, False, False, True]), nstep=2)
    b.reset([1, 4], keyframe=[0, 1])
    b.forward([1, 4])
    mid = b.state.copy()
    b.reset([0], stage=e.mujoco.mjtStage.mjSTAGE_NONE)
    b.qpos[0, :3] += 0.01
    b.forward([0])
    return dict(mid=mid, state=b.state.copy(), xpos=xpos.copy())


def batch_stage(e):
    """`step(nstep, stage=mjSTAGE_VEL)`: position and velocity fields describe the new state."""
    model = e.mujoco.MjModel.from_xml_path(MODEL)
    model.opt.enableflags |= int(e.mujoco.mjtEnableBit.mjENBL_ENERGY)
    b = e.batch.Batch(model, nsim=3, persistent=True)
    xpos, sensordata, energy = b.bind("xpos"), b.bind("sensordata"), b.bind("energy")
    b.qvel = 0.2 * np.random.default_rng(11).standard_normal((3, model.nv))
    b.step(nstep=6, stage=e.mujoco.mjtStage.mjSTAGE_VEL)
    out = dict(state=b.state.copy(), xpos=xpos.copy(), sensordata=sensordata.copy(),
               energy=energy.copy())
    # forward to the position stage only after moving the joints: position sensors follow
    b.qpos[:, 0] += 0.05
    b.forward(stage=e.mujoco.mjtStage.mjSTAGE_POS)
    out.update(xpos_pos=xpos.copy(), sensordata_pos=sensordata.copy(), energy_pos=energy.copy())
    return out


def batch_rollout(e):
    """`rollout(nstep, control, control_spec, record, ids)`."""
    model = e.mujoco.MjModel.from_xml_path(MODEL)
    b = e.batch.Batch(model, nsim=4, nthread=2)
    full = e.mujoco.mjtState.mjSTATE_FULLPHYSICS
    spec = e.mujoco.mjtState.mjSTATE_CTRL | e.mujoco.mjtState.mjSTATE_QFRC_APPLIED
    n = e.mujoco.mj_stateSize(model, spec)
    u = 0.2 * np.random.default_rng(12).standard_normal((3, 12, n))
    out = b.rollout(12, u, spec, record=("qpos", full, "sensordata"), ids=[0, 1, 3])
    return dict(qpos=out["qpos"], full=out[full], sensordata=out["sensordata"],
                state=b.state.copy())


def batch_jac_ray(e):
    """`jac(body, point, ids)` and `ray(pnt, vec, ..., normal=True)`; the state untouched."""
    model = e.mujoco.MjModel.from_xml_path(MODEL)
    b = e.batch.Batch(model, nsim=3)
    b.qvel = 0.2 * np.random.default_rng(13).standard_normal((3, model.nv))
    b.step(nstep=5)
    state = b.state.copy()
    jacp, jacr = b.jac([2, 3], [0.1, 0.0, 0.5], ids=[0, 2])
    pnt = np.array([[0.0, 0.0, 2.0], [0.3, 0.1, 2.0]])
    vec = np.array([[0.0, 0.0, -1.0], [0.0, 0.0, -1.0]])
    dist, geomid, normal = b.ray(pnt, vec, normal=True)
    assert np.array_equal(b.state, state)
    return dict(jacp=jacp, jacr=jacr, dist=dist, geomid=geomid, normal=normal)


def batch_warning(e):
    """A diverging simulation is reset by its step and counted in `warning`; the others run
    on, and no `SimulationError` is raised."""
    model = e.mujoco.MjModel.from_xml_path(MODEL)
    b = e.batch.Batch(model, nsim=3)
    b.qvel = 0.2 * np.random.default_rng(14).standard_normal((3, model.nv))
    b.qvel[1, 0] = 1e200
    b.step(nstep=4)
    return dict(warning=b.warning.copy(), status=b.status.copy(), state=b.state[[0, 2]].copy(),
                error=np.array([len(b.error(1))]))


# ------------------------------------------------------------------------- printed warnings

WARN_XML = """<mujoco><option timestep="0.005"/><worldbody><body><joint name="j" type="hinge"/>
<geom size=".1"/></body></worldbody><actuator><motor joint="j"/></actuator></mujoco>"""

DIVERGENCE = ("mjWARN_BADQPOS", "mjWARN_BADQVEL", "mjWARN_BADQACC")


def mj_step_warnings(e):
    """`mj_step` through divergences of each kind, a bad control, a second divergence of the
    same kind on the same data (counted, not printed) and steps without autoreset. MuJoCo
    prints; moreau prints the same and also raises `UnstableSimulationError`, whose messages
    are returned under `raised`. On MuJoCo the same list is made from the data: each step's
    first divergence (qpos, qvel, qacc order), seen by setting `lastinfo` to -1 before the step
    (the divergence sets it, even when the reset leaves the counter at 1), with
    `mju_warningText` and the time before the step."""
    model = e.mujoco.MjModel.from_xml_string(WARN_XML)
    data = e.mujoco.MjData(model)
    kinds = [int(getattr(e.mujoco.mjtWarning, k)) for k in DIVERGENCE]
    raised = []

    def step():
        if e is MOREAU:
            try:
                e.mujoco.mj_step(model, data)
            except e.mujoco.UnstableSimulationError as err:
                raised.append(str(err))
            return
        time = data.time
        saved = [data.warning[k].lastinfo for k in kinds]
        for k in kinds:
            data.warning[k].lastinfo = -1
        e.mujoco.mj_step(model, data)
        first = None
        for k, old in zip(kinds, saved):
            if data.warning[k].lastinfo == -1:
                data.warning[k].lastinfo = old
            elif data.warning[k].number > 0 and first is None:
                first = k
        if first is not None:
            text = e.mujoco.mju_warningText(first, data.warning[first].lastinfo)
            raised.append(f"{text} Time = {time:.4f}.")

    for _ in range(10):
        step()
    data.qvel[0] = np.inf
    step()  # printed with the time before the reset
    for _ in range(4):
        step()
    data.qvel[0] = np.nan
    step()  # the same kind again: counted (1 after the reset), not printed
    data.qpos[0] = np.nan
    step()  # another kind: printed
    data.ctrl[0] = np.nan
    step()
    step()  # a bad control: printed once, no reset
    data.ctrl[0] = 0
    data.qfrc_applied[0] = 1e300
    step()
    data.qfrc_applied[0] = 0
    model.opt.disableflags |= int(e.mujoco.mjtDisableBit.mjDSBL_AUTORESET)
    e.mujoco.mj_resetData(model, data)
    for _ in range(3):
        step()
    data.qvel[0] = np.inf
    step()
    step()
    return dict(raised=raised, time=data.time,
                warning=[(w.lastinfo, w.number) for w in data.warning])


LOG_DATE = re.compile(r"^WARNING [A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}: ", re.M)


def printed(script, e, capfd, where):
    """`script(e)`'s result, what it printed on stderr, and the `MUJOCO_LOG.TXT` it appended to
    in the working directory `where` (dates replaced, and their count)."""
    where.mkdir()
    cwd = os.getcwd()
    os.chdir(where)
    try:
        capfd.readouterr()
        out = script(e)
        err = capfd.readouterr().err
    finally:
        os.chdir(cwd)
    log = where / "MUJOCO_LOG.TXT"
    log = log.read_text() if log.exists() else ""
    return out, err, LOG_DATE.subn("WARNING <date>: ", log)


@pytest.mark.parametrize("script", [mj_step_warnings, rollout_diverged, batch_warning],
                         ids=lambda s: s.__name__)
def test_warnings_print_as_mujoco(script, capfd, tmp_path):
    """What MuJoCo's default warning handler prints for a diverging simulation (stderr:
    `WARNING: <text> Time = <t>.` and an empty line; MUJOCO_LOG.TXT: the same with the date),
    once per kind until the data is reset, moreau prints word for word."""
    want, err_want, (log_want, nlog_want) = printed(script, MUJOCO, capfd, tmp_path / "mujoco")
    got, err, (log, nlog) = printed(script, MOREAU, capfd, tmp_path / "moreau")
    assert err_want.count("WARNING: ") > 0 and nlog_want == err_want.count("WARNING: ")
    assert err == err_want
    assert (log, nlog) == (log_want, nlog_want)
    if script is mj_step_warnings:
        assert len(want["raised"]) == 6
        assert got == want



# one diverging step in a fresh process, then the date of its MUJOCO_LOG.TXT line and the
# process's UTC time before and after the step (seconds since the epoch)
LOG_DATE_SCRIPT = """
import sys, time
lib = __import__(sys.argv[1])
m = lib.MjModel.from_xml_string('<mujoco><worldbody><body><freejoint/><geom size=".1"/>'
                                '</body></worldbody></mujoco>')
d = lib.MjData(m)
d.qvel[0] = float("nan")
t0 = time.time()
try:
    lib.mj_step(m, d)
except lib.UnstableSimulationError:  # raised after the warning is printed
    pass
t1 = time.time()
line = open("MUJOCO_LOG.TXT").read().splitlines()[0]
print(line[len("WARNING "):line.index(": ")], t0, t1, sep="|")
"""


@pytest.mark.parametrize("tz", ["Asia/Kolkata", "America/St_Johns", "XYZ+11:15"])
def test_log_date_is_local_time_as_mujoco(tz, tmp_path):
    """MuJoCo's default handler dates its `MUJOCO_LOG.TXT` lines with `ctime`: local time
    after `TZ` (measured on 4.0.0). Both engines, each in a process with `TZ` set to a zone
    with a half-hour offset, write a date whose offset from the UTC time of the step is the
    zone's (`time.localtime` in the same process, computed by the C library), to the second;
    a UTC date is 5:30, 2:30 (3:30 in winter) or 11:15 hours away."""
    import calendar
    import subprocess
    import sys
    import time

    offsets = {}
    for lib in ("mujoco", "moreau"):
        where = tmp_path / lib
        where.mkdir()
        env = dict(os.environ, TZ=tz)
        out = subprocess.run([sys.executable, "-c", LOG_DATE_SCRIPT, lib], cwd=where, env=env,
                             capture_output=True, text=True, check=True).stdout
        date, t0, t1 = out.strip().split("|")
        # the logged wall-clock date, read as if it were UTC, minus the true UTC time
        logged = calendar.timegm(time.strptime(date, "%a %b %d %H:%M:%S %Y"))
        offsets[lib] = (logged - float(t0), logged - float(t1))
    # the zone's offset, from this process's C library with the same TZ
    probe = subprocess.run(
        [sys.executable, "-c", "import time; print(time.localtime().tm_gmtoff)"],
        env=dict(os.environ, TZ=tz), capture_output=True, text=True, check=True)
    zone = int(probe.stdout)
    assert zone % 3600 != 0
    for lib, (lo, hi) in offsets.items():
        # the date has whole seconds: it lies in [t0 + zone - 1, t1 + zone]
        assert zone - 1 <= lo + 1e-6 and hi <= zone + 1e-6, (lib, lo, hi, zone)

BATCH = [batch_counts, batch_named, batch_models, batch_expand_option, batch_ids_and_reset,
         batch_stage, batch_rollout, batch_jac_ray, batch_warning]


@pytest.mark.parametrize("nthread", [1, 2])
def test_batch_doc_example_ports_by_import(nthread):
    port(batch_doc_example, nthread)


@pytest.mark.parametrize("script", BATCH, ids=lambda s: s.__name__)
def test_batch_script_ports_by_import(script):
    port(script)


def batch_invalid(e):
    """Invalid arguments raise ValueError in both."""
    model = e.mujoco.MjModel.from_xml_path(MODEL)
    b = e.batch.Batch(model, nsim=3)
    raised = []
    for call in (lambda: b.step([2, 1]), lambda: b.step([0, 3]), lambda: b.bind("no_such"),
                 lambda: b.expand("qpos"), lambda: b.bind("body_mass"),
                 lambda: b.reset(keyframe=7), lambda: setattr(b, "xpos", 0.0)):
        try:
            call()
            raised.append(False)
        except ValueError:
            raised.append(True)
    return dict(raised=np.array(raised))


def test_batch_invalid_arguments_raise_value_error_in_both():
    got = port(batch_invalid)
    assert got["raised"].all()


def test_batch_names_are_mujocos():
    """`mujoco.batch`'s public names exist in `moreau.batch`, and `Batch`'s methods take the
    same arguments."""
    import inspect

    for name in ("Batch", "SimulationError", "DATA_FIELDS", "MODEL_FIELDS"):
        assert hasattr(moreau.batch, name), name
    for name, f in vars(mujoco.batch.Batch).items():
        if name.startswith("_") or not callable(f):
            continue
        g = getattr(moreau.batch.Batch, name)
        want = inspect.signature(f).parameters
        got = inspect.signature(g).parameters
        assert list(got) == list(want), name
        for p in want:
            assert got[p].kind == want[p].kind, (name, p)
    assert issubclass(moreau.batch.SimulationError, RuntimeError)
