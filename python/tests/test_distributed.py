"""moreau.distributed on a real local Ray cluster (a head and two worker processes, started
here): results bit-identical to the single-machine rollout and batch, a worker process killed
mid-run loses nothing, a bad model raises a clear error on the driver."""

import os
import pathlib
import signal
import sys
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
    """`distributed.local_cluster`: a head node without CPUs and two worker nodes of one CPU
    each, three raylet processes on this machine, so every task runs in a worker process of a
    worker node. Shut down after."""
    with distributed.local_cluster(workers=2) as c:
        yield c, list(c.worker_nodes)


def test_the_cluster_is_a_head_and_two_worker_nodes(cluster):
    alive = [n for n in ray.nodes() if n["Alive"]]
    assert len(alive) == 3
    assert sorted(n["Resources"].get("CPU", 0) for n in alive) == [0, 1, 1]

    @ray.remote
    def where():
        time.sleep(0.5)
        return ray.get_runtime_context().get_node_id(), os.getpid()

    placed = ray.get([where.remote() for _ in range(2)])
    # two concurrent one-CPU tasks run on the two worker nodes, in two processes
    assert len({n for n, _ in placed}) == 2 and len({p for _, p in placed}) == 2


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


def running_chunk(raylets):
    """The pid of a worker process of `raylets` (its parent) inside a rollout chunk (Ray titles
    a worker process `ray::<task name>` while it runs the task), or None."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                title = f.read()
            with open(f"/proc/{entry}/stat") as f:
                parent = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if title.startswith(b"ray::_rollout_chunk") and parent in raylets:
            return int(entry)
    return None


def test_a_killed_worker_loses_nothing(cluster):
    _, workers = cluster
    raylets = {n.all_processes["raylet"][0].process.pid for n in workers}
    model = distributed.Model.from_xml_path(model_path("humanoid"))
    mo, x0, ctrl = humanoid_inputs(48, 300, seed=1)
    want = mo_rollout.rollout(mo, moreau.MjData(mo), x0, ctrl)

    out = {}

    def run():
        out["result"] = distributed.rollout(model, x0, ctrl, chunk=2)

    t = threading.Thread(target=run)
    t.start()
    # kill a worker process while it is inside a chunk, whatever the machine's load
    victim = None
    deadline = time.monotonic() + 120
    while victim is None and t.is_alive() and time.monotonic() < deadline:
        victim = running_chunk(raylets)
        time.sleep(0.005)
    assert victim is not None, "no worker process was seen running a chunk"
    assert t.is_alive(), "the run ended before a worker could be killed: give it more work"
    os.kill(victim, signal.SIGKILL)
    t.join(timeout=300)
    assert not t.is_alive()
    s, sd = out["result"]
    assert np.array_equal(bits(s), bits(want[0])) and np.array_equal(bits(sd), bits(want[1]))
    # the killed process is gone: its chunks ran elsewhere
    with pytest.raises(ProcessLookupError):
        os.kill(victim, 0)


def test_the_distributed_examples(cluster):
    """python/examples: the sysid over 16 logged trajectories recovers the true masses from
    noise-free logs; predictive sampling across the workers turns the pole towards upright,
    and its candidates' costs from the cluster equal one machine's, bit for bit."""
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "examples"))
    import distributed_sampling
    import distributed_sysid

    theta, history = distributed_sysid.main()
    assert np.allclose(theta, distributed_sysid.TRUTH, rtol=1e-8, atol=0)
    assert history[-1] < 1e-20 * history[0]
    m, angles, (x0, cand, c) = distributed_sampling.main()
    assert abs(angles[-1]) < 0.25 * abs(angles[0])
    state, _ = mo_rollout.rollout(m, moreau.MjData(m), x0, cand)
    assert np.array_equal(bits(distributed_sampling.costs(state, cand)), bits(c))


def test_a_bad_model_errors_on_the_driver(cluster):
    bad = distributed.Model("<mujoco><worldbody><body><joint type='hinge'/><geom size='0.1'/></body></worldbody>"
                            "<actuator><motor joint='nope'/></actuator></mujoco>")
    with pytest.raises(moreau.MjcfLoadError, match="nope"):
        distributed.rollout(bad, np.zeros((1, 3)), None, nstep=1)
    # an error inside a task comes back with the worker's message
    model = distributed.Model.from_xml_path(model_path("cartpole"))
    with pytest.raises(distributed.DistributedError, match="trailing dimension"):
        distributed.rollout(model, np.zeros((2, 3)), np.zeros((2, 4, 1)))
