"""moreau.distributed on a real local Ray cluster (a head and two worker processes, started
here): results bit-identical to the single-machine rollout and batch, a worker process killed
mid-run loses nothing, a bad model raises a clear error on the driver."""

import os
import signal
import threading
import time

import numpy as np
import pytest
from conftest import model_path

import moreau
from moreau import batch as mo_batch
from moreau import distributed
from moreau import rollout as mo_rollout

try:
    import ray
except ImportError as e:  # a missing dependency is a failure, not a skip
    raise ImportError("the distributed tests need Ray: pip install ray") from e


@pytest.fixture(scope="module")
def cluster():
    ray.init(
        num_cpus=2,
        object_store_memory=100 * 1024**2,
        include_dashboard=False,
        log_to_driver=False,
        configure_logging=False,
    )
    yield
    ray.shutdown()


def bits(a):
    return np.ascontiguousarray(a).view(np.uint64)


def humanoid_inputs(nbatch, nstep, seed=0):
    rng = np.random.default_rng(seed)
    mo = moreau.MjModel.from_xml_path(model_path("humanoid"))
    d = moreau.MjData(mo)
    spec = int(moreau.mjtState.mjSTATE_FULLPHYSICS)
    x0 = np.zeros((nbatch, moreau.mj_stateSize(mo, spec)))
    for r in range(nbatch):
        d.qvel[:] = 0.2 * rng.standard_normal(mo.nv)
        moreau.mj_getState(mo, d, x0[r], spec)
    ctrl = 0.3 * rng.standard_normal((nbatch, nstep, mo.nu))
    return mo, x0, ctrl


def test_rollout_and_step_are_bit_identical_to_one_machine(cluster):
    model = distributed.Model.from_xml_path(model_path("humanoid"))
    mo, x0, ctrl = humanoid_inputs(10, 15)
    s, sd = distributed.rollout(model, x0, ctrl, chunk=3)
    s1, sd1 = mo_rollout.rollout(mo, moreau.MjData(mo), x0, ctrl)
    assert np.array_equal(bits(s), bits(s1)) and np.array_equal(bits(sd), bits(sd1))
    # batch steps with per-simulation masses, in chunks of 2 simulations
    b = mo_batch.Batch(mo, 5, 1)
    b.qvel = 0.1 * np.arange(5)[:, None]
    mass = b.expand("body_mass")
    mass[:, 1] *= 1.0 + 0.1 * np.arange(5)
    b.set_const()
    rows = b.state.copy()
    b.step(nstep=8)
    got, warning = distributed.step(model, rows, 8, expanded={"body_mass": mass}, chunk=2)
    assert np.array_equal(bits(got), bits(b.state))
    assert np.array_equal(warning, b.warning)


def test_a_killed_worker_loses_nothing(cluster):
    model = distributed.Model.from_xml_path(model_path("humanoid"))
    mo, x0, ctrl = humanoid_inputs(48, 300, seed=1)
    t0 = time.perf_counter()
    want = mo_rollout.rollout(mo, moreau.MjData(mo), x0, ctrl)
    # the kill comes when about a sixth of the work is done on one thread (a third on two)
    delay = (time.perf_counter() - t0) / 6

    @ray.remote
    def pid():
        time.sleep(0.3)
        return os.getpid()

    pids = set(ray.get([pid.remote() for _ in range(2)]))
    out = {}

    def run():
        out["result"] = distributed.rollout(model, x0, ctrl, chunk=2)

    t = threading.Thread(target=run)
    t.start()
    time.sleep(delay)
    assert t.is_alive(), "the run ended before a worker could be killed: give it more work"
    victim = sorted(pids)[0]
    os.kill(victim, signal.SIGKILL)
    t.join(timeout=120)
    assert not t.is_alive()
    s, sd = out["result"]
    assert np.array_equal(bits(s), bits(want[0])) and np.array_equal(bits(sd), bits(want[1]))
    # the killed process is gone: its chunks ran elsewhere
    with pytest.raises(ProcessLookupError):
        os.kill(victim, 0)


def test_a_bad_model_errors_on_the_driver(cluster):
    bad = distributed.Model("<mujoco><worldbody><body><joint type='hinge'/><geom size='0.1'/></body></worldbody>"
                            "<actuator><motor joint='nope'/></actuator></mujoco>")
    with pytest.raises(moreau.MjcfLoadError, match="nope"):
        distributed.rollout(bad, np.zeros((1, 3)), None, nstep=1)
    # an error inside a task comes back with the worker's message
    model = distributed.Model.from_xml_path(model_path("cartpole"))
    with pytest.raises(distributed.DistributedError, match="trailing dimension"):
        distributed.rollout(model, np.zeros((2, 3)), np.zeros((2, 4, 1)))
