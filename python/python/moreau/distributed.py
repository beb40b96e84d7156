"""`moreau.rollout` and `moreau.batch` spread over a Ray cluster's workers.

Models travel as MJCF text plus assets (compiled once per worker process and cached there,
with the worker's `Rollout` pool). Work is cut into chunks of rollouts (or simulations), each a
Ray task; results come back in order. A task whose worker process dies is re-run by Ray on
another worker (`max_retries`), so nothing is lost. Every chunk is computed exactly as on one
machine, so results are bit-identical to `moreau.rollout.rollout` / `moreau.batch.Batch`.

    import ray
    from moreau import distributed

    ray.init(address="auto")
    model = distributed.Model(xml_text, assets)
    state, sensordata = distributed.rollout(model, initial_state, control, chunk=64)

The model is compiled on the driver first, so a bad model raises `MjcfLoadError` there before
any task is sent; an error inside a task is raised on the driver as `DistributedError` with
the worker's message.
"""

import hashlib
import os
from typing import Dict, Optional

import numpy as np

import moreau
from moreau import rollout as _rollout

__all__ = ["Model", "DistributedError", "rollout", "step"]


class DistributedError(RuntimeError):
    """A chunk failed on a worker (the message is the worker's error)."""


class Model:
    """A model as MJCF text plus assets (name -> bytes), the form it travels in."""

    def __init__(self, xml: str, assets: Optional[Dict[str, bytes]] = None):
        self.xml = xml
        self.assets = dict(assets or {})
        h = hashlib.sha256(xml.encode())
        for k in sorted(self.assets):
            h.update(k.encode())
            h.update(self.assets[k])
        self.key = h.hexdigest()

    @classmethod
    def from_xml_path(cls, path: str) -> "Model":
        """The file's text, with the files next to it that it names as assets."""
        with open(path) as f:
            xml = f.read()
        base = os.path.dirname(os.path.abspath(path))
        assets = {}
        for root, _, files in os.walk(base):
            for name in files:
                rel = os.path.relpath(os.path.join(root, name), base)
                if rel in xml and not rel.endswith(".xml"):
                    with open(os.path.join(root, name), "rb") as f:
                        assets[rel] = f.read()
        return cls(xml, assets)

    def compile(self) -> "moreau.MjModel":
        if self.assets:
            return moreau.MjModel.from_xml_string(self.xml, self.assets)
        return moreau.MjModel.from_xml_string(self.xml)


# per worker process: compiled models and pools, by model key
_CACHE: Dict[str, tuple] = {}


def _worker_model(model: Model, nthread: int):
    entry = _CACHE.get(model.key)
    if entry is None or len(entry[1]) != max(nthread, 1):
        m = model.compile()
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
    model: Model,
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
    m = model.compile()  # a bad model raises here, on the driver
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
    import ray

    ref = ray.put(model)
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
    model: Model,
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
    model.compile()  # a bad model raises here, on the driver
    rows = np.asarray(state, np.float64)
    nsim = rows.shape[0]
    expanded = {k: np.asarray(v) for k, v in (expanded or {}).items()}
    import ray

    ref = ray.put(model)
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
