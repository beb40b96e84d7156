"""`moreau.rollout` and `moreau.batch` spread over a Ray cluster's workers.

Models travel pickled (an `MjModel` pickles as its MJCF text, the bytes of every file read when
it was loaded, and its current values; see `MjModel.__reduce__`), compiled once per worker
process and cached there with the worker's `Rollout` pool. Work is cut into chunks of rollouts (or simulations), each a
Ray task; results come back in order. A task whose worker process dies is re-run by Ray on
another worker (`max_retries`), so nothing is lost. Every chunk is computed exactly as on one
machine, so results are bit-identical to `moreau.rollout.rollout` / `moreau.batch.Batch`.

    import ray
    from moreau import distributed

    ray.init(address="auto")
    model = moreau.MjModel.from_xml_path("humanoid.xml")  # or distributed.Model(xml, assets)
    state, sensordata = distributed.rollout(model, initial_state, control, chunk=64)

Without a cluster at hand, `local_cluster` starts one on this machine (a head without CPUs and
worker nodes of one CPU each, every node its own set of processes) for the block of a `with`:

    with distributed.local_cluster(workers=2):
        state, sensordata = distributed.rollout(model, initial_state, control)

The model is compiled on the driver first, so a bad model raises `MjcfLoadError` there before
any task is sent; an error inside a task is raised on the driver as `DistributedError` with
the worker's message.
"""

import contextlib
import hashlib
import pickle
from typing import Dict, Iterator, Optional, Union

import numpy as np

import moreau
from moreau import rollout as _rollout

__all__ = ["Model", "DistributedError", "cluster", "local_cluster", "rollout", "step"]


class DistributedError(RuntimeError):
    """A chunk failed on a worker (the message is the worker's error)."""


@contextlib.contextmanager
def local_cluster(
    workers: int = 2,
    *,
    cpus_per_worker: int = 1,
    object_store_memory: int = 80 * 1024**2,
) -> Iterator["ray.cluster_utils.Cluster"]:
    """A Ray cluster on this machine for the block of a `with`, connected to (`ray.init`) and
    shut down after: a head node without CPUs, so that every task runs on one of `workers`
    worker nodes of `cpus_per_worker` CPUs each (`ray.cluster_utils.Cluster` starts each node's
    processes as `ray start` would), each with an object store of `object_store_memory` bytes.
    Yields the `Cluster`; its `worker_nodes` are the worker nodes (`node.all_processes` holds
    their processes). Driver logs of the workers are not forwarded."""
    import ray
    from ray.cluster_utils import Cluster

    if workers < 1:
        raise ValueError(f"local_cluster: workers = {workers}, need at least 1")
    cluster = Cluster(
        initialize_head=True,
        head_node_args=dict(
            num_cpus=0, object_store_memory=object_store_memory, include_dashboard=False
        ),
    )
    try:
        for _ in range(workers):
            cluster.add_node(num_cpus=cpus_per_worker, object_store_memory=object_store_memory)
        cluster.wait_for_nodes()
        ray.init(address=cluster.address, log_to_driver=False, configure_logging=False)
        try:
            yield cluster
        finally:
            ray.shutdown()
    finally:
        cluster.shutdown()


@contextlib.contextmanager
def cluster(address: Optional[str] = None, workers: int = 2) -> Iterator[None]:
    """Ray for the block of a `with`, as a script wants it: the connection already made if
    Ray is initialized (left open); else the cluster at `address` (`ray.init(address)`, e.g.
    `"auto"` or `"ray://host:10001"`, disconnected after); else a `local_cluster(workers)`."""
    import ray

    if ray.is_initialized():
        yield
    elif address is not None:
        ray.init(address=address, log_to_driver=False)
        try:
            yield
        finally:
            ray.shutdown()
    else:
        with local_cluster(workers):
            yield


class Model:
    """A model as MJCF text plus assets (name -> bytes), compiled on first use (on the driver,
    so that a bad model raises there). `rollout` and `step` also take an `MjModel` directly."""

    def __init__(self, xml: str, assets: Optional[Dict[str, bytes]] = None):
        self.xml = xml
        self.assets = dict(assets or {})
        self._model = None

    @classmethod
    def from_xml_path(cls, path: str) -> "Model":
        """The compiled file, with every file it read (includes, meshes, height fields): what
        `MjModel`'s pickle carries."""
        return cls.from_model(moreau.MjModel.from_xml_path(path))

    @classmethod
    def from_model(cls, model: "moreau.MjModel") -> "Model":
        """A compiled model (sent pickled: its MJCF text, the files it read and its values)."""
        out = cls.__new__(cls)
        out.xml, out.assets, out._model = None, {}, model
        return out

    def compile(self) -> "moreau.MjModel":
        if self._model is None:
            if self.assets:
                self._model = moreau.MjModel.from_xml_string(self.xml, self.assets)
            else:
                self._model = moreau.MjModel.from_xml_string(self.xml)
        return self._model


class _Shipped:
    """A pickled `MjModel` and the hash of its bytes: a worker unpickles (compiles) each model
    once and keeps it by that key."""

    def __init__(self, model: "moreau.MjModel"):
        self.data = pickle.dumps(model)
        self.key = hashlib.sha256(self.data).hexdigest()


def _ship(model):
    """The model of a call (`Model` or `MjModel`) compiled on the driver, and put in Ray's
    object store once for all its tasks."""
    import ray

    m = model.compile() if isinstance(model, Model) else model
    if not isinstance(m, moreau.MjModel):
        raise TypeError(f"expected a moreau.MjModel or distributed.Model, got {type(model)}")
    return m, ray.put(_Shipped(m))


# per worker process: compiled models and pools, by model key
_CACHE: Dict[str, tuple] = {}


def _worker_model(model: _Shipped, nthread: int):
    entry = _CACHE.get(model.key)
    if entry is None or len(entry[1]) != max(nthread, 1):
        m = pickle.loads(model.data)
        datas = [moreau.MjData(m) for _ in range(max(nthread, 1))]
        pool = _rollout.Rollout(nthread=nthread if nthread > 1 else 0)
        entry = (m, datas, pool)
        _CACHE[model.key] = entry
    return entry


def _rollout_chunk(model, x0, ctrl, warm, nstep, control_spec, nthread):
    m, datas, pool = _worker_model(model, nthread)
    return pool.rollout(
        m,
        datas,
        x0,
        ctrl,
        nstep=nstep,
        control_spec=control_spec,
        initial_warmstart=warm,
    )


def _step_chunk(model, rows, nstep, nthread, expanded):
    from moreau import batch as _batch

    m = _worker_model(model, nthread)[0]
    b = _batch.Batch(m, rows.shape[0], nthread)
    for name, values in expanded.items():
        b.expand(name)[...] = values
    if expanded:
        b.set_const()
    b.state[...] = rows
    b.step(nstep=nstep)
    return b.state.copy(), b.warning.copy()


def _remote(fn, max_retries):
    import ray

    return ray.remote(max_retries=max_retries, retry_exceptions=False)(fn)


def _gather(refs):
    import ray

    try:
        return ray.get(refs)
    except ray.exceptions.RayTaskError as e:
        cause = getattr(e, "cause", None)
        raise DistributedError(str(cause) if cause is not None else str(e)) from None


def rollout(
    model: Union["moreau.MjModel", Model],
    initial_state,
    control=None,
    *,
    nstep: Optional[int] = None,
    control_spec: int = int(moreau.mjtState.mjSTATE_CTRL),
    initial_warmstart=None,
    chunk: int = 64,
    nthread: int = 1,
    max_retries: int = 3,
):
    """`moreau.rollout.rollout` over the cluster: chunks of `chunk` rollouts, each a task
    running on `nthread` threads of its worker. Returns `(state, sensordata)`."""
    m, ref = _ship(model)  # a bad model raises here, on the driver
    x0 = np.atleast_2d(np.asarray(initial_state, np.float64))
    nbatch = x0.shape[0]
    ctrl = None if control is None else np.asarray(control, np.float64)
    if ctrl is not None:
        while ctrl.ndim < 3:
            ctrl = ctrl[None]
        nbatch = max(nbatch, ctrl.shape[0])
        nstep = ctrl.shape[1] if nstep is None else nstep
    if nstep is None:
        raise ValueError("nstep is required without controls")
    x0 = np.broadcast_to(x0, (nbatch, x0.shape[1]))
    if ctrl is not None:
        ctrl = np.broadcast_to(ctrl, (nbatch, nstep, ctrl.shape[2]))
    warm = None
    if initial_warmstart is not None:
        warm = np.broadcast_to(np.atleast_2d(initial_warmstart), (nbatch, m.nv))
    task = _remote(_rollout_chunk, max_retries)
    refs = []
    for lo in range(0, nbatch, max(chunk, 1)):
        hi = min(lo + chunk, nbatch)
        refs.append(
            task.remote(
                ref,
                np.ascontiguousarray(x0[lo:hi]),
                None if ctrl is None else np.ascontiguousarray(ctrl[lo:hi]),
                None if warm is None else np.ascontiguousarray(warm[lo:hi]),
                int(nstep),
                int(control_spec),
                int(nthread),
            )
        )
    parts = _gather(refs)
    if not parts:
        nstate = moreau.mj_stateSize(m, int(moreau.mjtState.mjSTATE_FULLPHYSICS))
        return np.zeros((0, nstep, nstate)), np.zeros((0, nstep, m.nsensordata))
    return (
        np.concatenate([p[0] for p in parts]),
        np.concatenate([p[1] for p in parts]),
    )


def step(
    model: Union["moreau.MjModel", Model],
    state,
    nstep: int = 1,
    *,
    expanded: Optional[Dict[str, np.ndarray]] = None,
    chunk: int = 64,
    nthread: int = 1,
    max_retries: int = 3,
):
    """`moreau.batch.Batch.step` over the cluster: `state` is `(nsim, nstate)`
    (mjSTATE_INTEGRATION rows, as `Batch.state`), `expanded` per-simulation model fields
    (name -> `(nsim, ...)`, as `Batch.expand`). Returns the new rows and the warning counters
    `(nsim, mjNWARNING, 2)` of this call."""
    _, ref = _ship(model)  # a bad model raises here, on the driver
    rows = np.asarray(state, np.float64)
    nsim = rows.shape[0]
    expanded = {k: np.asarray(v) for k, v in (expanded or {}).items()}
    task = _remote(_step_chunk, max_retries)
    refs = []
    for lo in range(0, nsim, max(chunk, 1)):
        hi = min(lo + chunk, nsim)
        exp = {k: np.ascontiguousarray(v[lo:hi]) for k, v in expanded.items()}
        refs.append(
            task.remote(ref, np.ascontiguousarray(rows[lo:hi]), int(nstep), int(nthread), exp)
        )
    parts = _gather(refs)
    return (
        np.concatenate([p[0] for p in parts]),
        np.concatenate([p[1] for p in parts]),
    )
