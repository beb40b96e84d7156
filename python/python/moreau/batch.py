"""Many simulations of one model, stepped on a thread pool: MuJoCo 4.0.0's `mujoco.batch`.

A MuJoCo script ports by changing its import::

    from moreau import batch            # was: from mujoco import batch

    b = batch.Batch(model, nsim=1024, nthread=8)
    qpos, ctrl, xpos = b.bind("qpos"), b.bind("ctrl"), b.bind("xpos")
    for _ in range(1000):
        ctrl[:] = policy(qpos)
        b.step()

Each simulation is its `mjSTATE_INTEGRATION` row of `Batch.state`. `bind(name)` returns a live
`(nsim, ...)` array: state fields (qpos, qvel, ctrl, mocap_pos, ...) are views of the rows, and
a write is that simulation's state at its next call; derived fields (xpos, sensordata, ...) are
copied out after every call (as after `mj_step`, they describe the state before the last
substep). `expand(name)` gives a model field per-simulation values (call `set_const()` after
writing fields the compiler derives constants from); `set_models(models)` runs each
simulation on a model of the caller's. Results are bit-identical to a loop over one `MjData`
per simulation at any thread count. A simulation that diverges is reset by the step, as with
`mj_step`, and its warning counters (`Batch.warning`, `(nsim, mjNWARNING, 2)` of (lastinfo,
number)) say so; the others are untouched. `Batch.status` is MuJoCo's per-simulation error
status: moreau's step raises no errors, so it stays 0 and `SimulationError` is not raised by
stepping. The GIL is released while the batch runs.

Not provided: named views (`batch.joint(...)`), `rollout`, `jac` and `ray` methods.
"""

from typing import Optional

import numpy as np

from moreau import _moreau
from moreau._enums import mjtStage, mjtState

__all__ = ["Batch", "SimulationError", "DATA_FIELDS", "MODEL_FIELDS"]

# MjData fields stored in the state rows, by state component
_STATE_FIELDS = {
    "time": mjtState.mjSTATE_TIME,
    "qpos": mjtState.mjSTATE_QPOS,
    "qvel": mjtState.mjSTATE_QVEL,
    "act": mjtState.mjSTATE_ACT,
    "qacc_warmstart": mjtState.mjSTATE_WARMSTART,
    "ctrl": mjtState.mjSTATE_CTRL,
    "qfrc_applied": mjtState.mjSTATE_QFRC_APPLIED,
    "xfrc_applied": mjtState.mjSTATE_XFRC_APPLIED,
    "eq_active": mjtState.mjSTATE_EQ_ACTIVE,
    "mocap_pos": mjtState.mjSTATE_MOCAP_POS,
    "mocap_quat": mjtState.mjSTATE_MOCAP_QUAT,
}

# row widths of the multi-column state fields
_WIDTH = {"xfrc_applied": 6, "mocap_pos": 3, "mocap_quat": 4}

# MjData fields bind() accepts, and MjModel fields expand() accepts
DATA_FIELDS = frozenset(_STATE_FIELDS) | frozenset(_moreau._Batch.output_fields())
MODEL_FIELDS = frozenset(_moreau._Batch.model_fields())


class SimulationError(RuntimeError):
    """Some simulations of a call failed; `ids` lists them (MuJoCo's class)."""

    def __init__(self, ids, message, ncall=None):
        self.ids = ids
        of = "" if ncall is None else f" of {ncall}"
        super().__init__(f"failed in {len(ids)}{of} simulations; simulation {ids[0]}: {message}")


def _ids(ids, nsim):
    """Sorted unique int32 ids from ids or a boolean mask; None for all."""
    if ids is None:
        return None
    ids = np.asarray(ids)
    if ids.dtype == bool:
        if ids.shape != (nsim,):
            raise ValueError(f"a boolean mask must have shape ({nsim},)")
        return None if ids.all() else np.flatnonzero(ids).astype(np.int32)
    if ids.ndim != 1:
        raise ValueError("ids must be one-dimensional")
    if ids.size == 0:
        return np.zeros(0, np.int32)
    if not np.issubdtype(ids.dtype, np.integer):
        raise ValueError(f"ids must be integers, got {ids.dtype}")
    if ids.size > 1 and not (ids[1:] > ids[:-1]).all():
        k = int(np.flatnonzero(ids[:-1] >= ids[1:])[0])
        raise ValueError(f"ids must be sorted and unique, got {ids[k]} before {ids[k + 1]}")
    if ids[0] < 0 or ids[-1] >= nsim:
        bad = ids[0] if ids[0] < 0 else ids[-1]
        raise ValueError(f"ids must be in [0, {nsim}), got {bad}")
    return np.ascontiguousarray(ids, dtype=np.int32)


class Batch:
    """nsim simulations of a copy of `model` on `nthread` threads (0: every CPU); with
    `persistent`, one `MjData` per simulation instead of one per thread."""

    def __init__(self, model, nsim: int, nthread: int = 0, persistent: bool = False):
        if nsim < 0 or nthread < 0:
            raise ValueError("nsim and nthread must be non-negative")
        object.__setattr__(self, "_b", _moreau._Batch(model, int(nsim), int(nthread), persistent))
        object.__setattr__(self, "model", model)
        object.__setattr__(self, "_models", None)
        object.__setattr__(self, "_bound", {})
        object.__setattr__(self, "state", self._b.state())
        object.__setattr__(self, "warning", self._b.warning())
        status = self._b.status()
        status.flags.writeable = False
        object.__setattr__(self, "status", status)

    def __getattr__(self, name):
        if name in DATA_FIELDS:
            return self.bind(name)
        raise AttributeError(f"'Batch' object has no attribute {name!r}")

    def __setattr__(self, name, value):
        if name in _STATE_FIELDS:
            self.bind(name)[...] = value
        elif name in DATA_FIELDS:
            raise ValueError(f"{name} is computed by every call and cannot be written")
        else:
            object.__setattr__(self, name, value)

    @property
    def nsim(self) -> int:
        return self._b.nsim

    @property
    def nthread(self) -> int:
        return self._b.nthread

    @property
    def nstate(self) -> int:
        return self._b.nstate

    @property
    def persistent(self) -> bool:
        return self._b.persistent

    def error(self, sim: int) -> str:
        """Message of the error simulation `sim` raised in its last call, or ''."""
        return self._b.error(int(sim))

    def bind(self, name: str) -> np.ndarray:
        """A live `(nsim, ...)` array over an MjData field (see the module documentation)."""
        if name in self._bound:
            return self._bound[name]
        if name in _STATE_FIELDS:
            off, size = self._b.state_component(int(_STATE_FIELDS[name]))
            view = self.state[:, off : off + size]
            if name == "time":
                view = view[:, 0]
            elif name in _WIDTH:
                view = view.reshape(self.nsim, size // _WIDTH[name], _WIDTH[name])
        else:
            raw = self._b.output(name)
            if raw is None:
                if name in MODEL_FIELDS:
                    raise ValueError(f"{name} is an MjModel field: use expand({name!r})")
                raise ValueError(f"{name} is not an MjData field bind() accepts")
            width = {"xpos": 3, "xipos": 3, "xanchor": 3, "xaxis": 3, "geom_xpos": 3,
                     "site_xpos": 3, "cam_xpos": 3, "subtree_com": 3, "subtree_linvel": 3,
                     "subtree_angmom": 3}.get(name)
            if name in ("cdof", "cvel", "cdof_dot", "cacc", "cfrc_int", "cfrc_ext"):
                width = 6
            view = raw if width is None else raw.reshape(self.nsim, -1, width)
            view.flags.writeable = False
        self._bound[name] = view
        return view

    def expand(self, name: str) -> np.ndarray:
        """Per-simulation values of a model field, `(nsim, ...)`, live (MjModel's names;
        MjOption fields as 'opt.<name>')."""
        raw = self._b.expand(name)
        if raw is None:
            if name in DATA_FIELDS:
                raise ValueError(f"{name} is an MjData field: use bind({name!r})")
            raise ValueError(f"{name} is not an expandable MjModel field")
        if self._models is not None:
            raise ValueError("caller models are set (set_models): edit them instead")
        return self._shape_model(name, raw)

    def expanded(self, name: str) -> Optional[np.ndarray]:
        """The read-only per-simulation values of an expanded field, or None."""
        if name not in MODEL_FIELDS:
            raise ValueError(f"{name} is not an expandable MjModel field")
        raw = self._b.expanded(name)
        if raw is None:
            return None
        out = self._shape_model(name, raw)
        out = out.view()
        out.flags.writeable = False
        return out

    def _shape_model(self, name, raw):
        if name.startswith("opt."):
            return raw if raw.shape[1] > 1 else raw[:, 0]
        template = np.asarray(getattr(self.model, name))
        return raw.reshape(self.nsim, *template.shape)

    def _check(self, ids, _):
        sel = np.arange(self.nsim) if ids is None else ids
        failed = sel[self.status[sel] != 0]
        if failed.size:
            raise SimulationError(failed, self.error(int(failed[0])), len(sel))

    def step(self, ids=None, nstep: int = 1, stage: int = int(mjtStage.mjSTAGE_NONE)):
        """`nstep` calls to mj_step per simulation, then the forward stages up to `stage`."""
        if nstep < 0:
            raise ValueError("nstep must be non-negative")
        ids = _ids(ids, self.nsim)
        self._check(ids, self._b.step(ids, int(nstep), int(stage)))

    def forward(self, ids=None, stage: int = int(mjtStage.mjSTAGE_ACC)):
        """The forward stages up to `stage` (by default mj_forward)."""
        ids = _ids(ids, self.nsim)
        self._check(ids, self._b.forward(ids, int(stage)))

    def reset(self, ids=None, keyframe=-1, stage: int = int(mjtStage.mjSTAGE_ACC)):
        """mj_resetData (or keyframes: one for all, or one per simulation), then stages."""
        ids = _ids(ids, self.nsim)
        n = self.nsim if ids is None else len(ids)
        key = np.asarray(keyframe)
        if not np.issubdtype(key.dtype, np.integer):
            raise ValueError(f"keyframe must be integers, got {key.dtype}")
        key = np.ascontiguousarray(np.broadcast_to(key, (n,)), np.int32)
        if ((key < -1) | (key >= self.model.nkey)).any():
            raise ValueError(f"keyframe must be in [-1, {self.model.nkey})")
        self._check(ids, self._b.reset(ids, None if (key == -1).all() else key, int(stage)))

    def set_models(self, models):
        """Runs simulation i on models[i] (one MjModel for all, or None: the batch's)."""
        if models is not None and not isinstance(models, _moreau.MjModel):
            models = list(models)
        self._b.set_models(models)
        object.__setattr__(self, "_models", models)

    @property
    def models(self):
        if self._models is None or isinstance(self._models, _moreau.MjModel):
            return self._models
        return tuple(self._models)

    def set_const(self, ids=None):
        """mj_setConst per simulation, so that derived constants follow expanded fields."""
        ids = _ids(ids, self.nsim)
        self._b.set_const(ids)

    def get_model(self, sim: int, model=None):
        """Simulation `sim`'s model, with its per-simulation fields."""
        return self._b.get_model(int(sim), model)

    def get_data(self, sim: int, data=None):
        """Simulation `sim`'s state (a persistent batch: its whole MjData)."""
        if data is None:
            data = _moreau.MjData(self.model)
        self._b.get_data(int(sim), data)
        return data
