"""Open-loop rollouts of many initial states on a thread pool: MuJoCo 4.0.0's `mujoco.rollout`.

A MuJoCo script ports by changing its import::

    from moreau import rollout          # was: from mujoco import rollout

    state, sensordata = rollout.rollout(model, [data] * nthread, initial_state, control)

`initial_state` is `([nbatch or 1], nstate)` with `nstate = mj_stateSize(model,
mjSTATE_FULLPHYSICS)`, `control` `([nbatch or 1], [nstep or 1], ncontrol)` with the components
of `control_spec` (within `mjSTATE_USER`); singleton dimensions are tiled. The outputs are
`state` `(nbatch, nstep, nstate)` and `sensordata` `(nbatch, nstep, nsensordata)`, the values
after each step. A rollout whose warning counters rise stops stepping and repeats its last
values. `data` is one `MjData` (one thread: the caller's) or a list of them, one per thread.
Results do not depend on the number of threads. The GIL is released while rolling out.

Arguments are checked as MuJoCo's (`ValueError`s with its messages), with `skip_checks` too for
the `MjData` list, `nstep` and `chunk_size`; `model` may be a list longer than the batch (its
first nbatch models run). A step's fatal error (the arena's stack overflowing) raises
`FatalError` with MuJoCo's text after the other rollouts ran.
"""

import atexit
from typing import Optional

import numpy as np

from moreau import _moreau
from moreau._enums import mjtState

__all__ = ["Rollout", "persistent_rollout", "rollout", "shutdown_persistent_pool"]

_FULLPHYSICS = int(mjtState.mjSTATE_FULLPHYSICS)
_USER = int(mjtState.mjSTATE_USER)


def _array(name, value, ndim):
    """`value` (a numpy array or a float) with at most `ndim` dimensions, leading ones added."""
    if value is None:
        return None
    if not isinstance(value, (np.ndarray, float)):
        raise ValueError(f"{name} must be a numpy array or float")
    a = np.asarray(value)
    if not np.issubdtype(a.dtype, np.number):
        raise ValueError(f"{name} must be numeric, got {a.dtype}")
    if a.ndim > ndim:
        raise ValueError(f"{name} can have at most {ndim} dimensions")
    # the caller's array itself when it has the dimensions (an output is then written in place)
    return a if a.ndim == ndim else a.reshape((1,) * (ndim - a.ndim) + a.shape)


def _infer(axis, start, arrays):
    """The size of `axis` common to `arrays`, from the guess `start` (1: not known yet); an
    array whose size there is 1 is tiled. MuJoCo's wording for a mismatch."""
    n = start
    for name, a in arrays.items():
        if a is None or a.shape[axis] == n:
            continue
        if n == 1:
            n = a.shape[axis]
        elif a.shape[axis] != 1:
            raise ValueError(f"dimension {axis} inferred as {n} but {name} has {a.shape[axis]}")
    return n


def _integer(name, value):
    """Refuses a `value` that is not an integer (`bool` included), as MuJoCo does."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, (int, np.integer))):
        raise ValueError(f"{name} must be an integer")


def _input(a, shape):
    if a is None:
        return None
    return np.ascontiguousarray(np.broadcast_to(a, shape), dtype=np.float64)


def _output(name, a, shape):
    """An output array: a new one, or the given one as C-contiguous float64 (a copy if it is
    not, as MuJoCo's; the copy is what the call returns)."""
    if a is None:
        return np.empty(shape, np.float64)
    a = np.ascontiguousarray(a, dtype=np.float64)
    if not a.flags.writeable:
        raise ValueError(f"{name} must be writeable")
    return a


class Rollout:
    """A thread pool for rollouts (`mujoco.rollout.Rollout`); 0 threads: the caller's."""

    def __init__(self, *, nthread: Optional[int] = None):
        self.nthread = 0 if nthread is None else int(nthread)
        self.rollout_ = _moreau._Rollout(self.nthread)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.close()

    def close(self):
        self.rollout_ = None

    def rollout(
        self,
        model,
        data,
        initial_state,
        control=None,
        *,
        control_spec: int = int(mjtState.mjSTATE_CTRL),
        skip_checks: bool = False,
        nstep: Optional[int] = None,
        initial_warmstart=None,
        state=None,
        sensordata=None,
        chunk_size: Optional[int] = None,
    ):
        """Rolls out; see the module documentation. Returns `(state, sensordata)`."""
        if self.rollout_ is None:
            raise RuntimeError("rollout requested after thread pool shutdown")
        if skip_checks:
            # arrays of the final shapes; the pool checks the data list, nstep and chunk_size
            self.rollout_.rollout(
                model, data, nstep, int(control_spec), initial_state, initial_warmstart,
                control, state, sensordata, chunk_size,
            )
            return state, sensordata
        models = [model] if isinstance(model, _moreau.MjModel) else list(model)
        if not models:
            raise ValueError("model must be an MjModel or a non-empty sequence of them")
        datas = [data] if isinstance(data, _moreau.MjData) else list(data)
        if int(control_spec) & ~_USER:
            raise ValueError("control_spec can only contain bits in mjSTATE_USER")
        _integer("nstep", nstep)
        if nstep is not None and nstep < 0:
            raise ValueError("nstep must be non-negative")
        _integer("chunk_size", chunk_size)
        if chunk_size is not None and chunk_size <= 0:
            raise ValueError("chunk_size must be a positive integer")
        x0 = _array("initial_state", initial_state, 2)
        if x0 is None:
            raise ValueError("initial_state is required")
        warm = _array("initial_warmstart", initial_warmstart, 2)
        ctrl = _array("control", control, 3)
        s_out = _array("state", state, 3)
        d_out = _array("sensordata", sensordata, 3)
        arrays = dict(initial_state=x0, initial_warmstart=warm, control=ctrl, state=s_out,
                      sensordata=d_out)
        nbatch = _infer(0, 1, arrays)
        if nbatch == 1 and not isinstance(model, _moreau.MjModel):
            nbatch = len(models)
        if len(models) not in (1, nbatch):
            raise ValueError(f"nbatch inferred as {nbatch} but model is length {len(models)}")
        steps = dict(control=ctrl, state=s_out, sensordata=d_out)
        nstep = _infer(1, 1 if nstep is None else int(nstep), steps)
        m0 = models[0]
        nstate = _moreau.mj_stateSize(m0, _FULLPHYSICS)
        ncontrol = _moreau.mj_stateSize(m0, int(control_spec))
        for m in models[1:]:
            if (
                _moreau.mj_stateSize(m, _FULLPHYSICS) != nstate
                or _moreau.mj_stateSize(m, int(control_spec)) != ncontrol
                or m.nv != m0.nv
                or m.nsensordata != m0.nsensordata
            ):
                raise ValueError("models are not compatible")
        for name, a, n in (
            ("initial_state", x0, nstate),
            ("state", s_out, nstate),
            ("control", ctrl, ncontrol),
            ("initial_warmstart", warm, m0.nv),
            ("sensordata", d_out, m0.nsensordata),
        ):
            if a is not None and a.shape[-1] != n:
                raise ValueError(f"trailing dimension of {name} must be {n}, got {a.shape[-1]}")
        x0 = _input(x0, (nbatch, nstate))
        warm = _input(warm, (nbatch, m0.nv))
        ctrl = _input(ctrl, (nbatch, nstep, ncontrol))
        state = _output("state", s_out, (nbatch, nstep, nstate))
        sensordata = _output("sensordata", d_out, (nbatch, nstep, m0.nsensordata))
        self.rollout_.rollout(
            models if len(models) > 1 else m0,
            datas,
            nstep,
            int(control_spec),
            x0,
            warm,
            ctrl,
            state,
            sensordata,
            None if chunk_size is None else int(chunk_size),
        )
        return state, sensordata


# The pool kept by `rollout(..., persistent_pool=True)` between calls (MuJoCo's name), or None.
persistent_rollout: Optional[Rollout] = None


def shutdown_persistent_pool():
    """Closes the pool kept by `rollout(..., persistent_pool=True)` (also at exit)."""
    global persistent_rollout
    if persistent_rollout is not None:
        persistent_rollout.close()
    persistent_rollout = None


atexit.register(shutdown_persistent_pool)


def rollout(
    model,
    data,
    initial_state,
    control=None,
    *,
    control_spec: int = int(mjtState.mjSTATE_CTRL),
    skip_checks: bool = False,
    nstep: Optional[int] = None,
    initial_warmstart=None,
    state=None,
    sensordata=None,
    chunk_size: Optional[int] = None,
    persistent_pool: bool = False,
):
    """Rolls out on `len(data)` threads (one `MjData`: the calling thread); see the module
    documentation. With `persistent_pool`, the pool is kept for the next call."""
    global persistent_rollout
    datas = data if isinstance(data, (list, tuple)) else [data]
    nthread = len(datas) if len(datas) > 1 else 0
    if persistent_pool:
        if persistent_rollout is None or persistent_rollout.nthread != nthread:
            shutdown_persistent_pool()
            persistent_rollout = Rollout(nthread=nthread)
        pool = persistent_rollout
    else:
        pool = Rollout(nthread=nthread)
    try:
        return pool.rollout(
            model,
            list(datas),
            initial_state,
            control,
            control_spec=control_spec,
            skip_checks=skip_checks,
            nstep=nstep,
            initial_warmstart=initial_warmstart,
            state=state,
            sensordata=sensordata,
            chunk_size=chunk_size,
        )
    finally:
        if not persistent_pool:
            pool.close()

