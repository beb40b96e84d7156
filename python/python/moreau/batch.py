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
status: moreau's step raises no errors, so stepping leaves it 0; a persistent batch's reset
whose pass over `sleep="init"` trees overflows the arena's stack (MuJoCo's fatal error) sets
that simulation's status to 1 with MuJoCo's text in `error(sim)`, keeps its row, and raises
`SimulationError`, the others reset; `set_const` on a model `mj_setConst` refuses (a slider
body of zero mass) likewise fails that simulation alone. The GIL is released while the batch
runs. Errors name what was meant, in MuJoCo's words: a model field given to `bind` ("use
expand('body_mass')"), an option field ("use expand('opt.timestep')"), a misspelling ("did
you mean 'qpos'"), arena fields (`efc_*`), asset data.

Named views as MuJoCo's: `b.joint("hinge").qpos` is the `(nsim, ...)` part of `b.bind("qpos")`
that `d.joint("hinge").qpos` is of `d.qpos`; `b.body("pole").mass` the part of the model field
`body_mass` (read: the expanded per-simulation values, or the model's for every simulation;
assignment expands the field). `rollout(nstep, control, control_spec, record)` steps and
records after every substep, one call on the batch's threads; `jac(body, point)` and `ray(pnt, vec, ...)` evaluate each simulation's kinematics
on the batch's threads, with the GIL released, bit-identical at any thread count.
"""

import difflib
import functools
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
    """Some simulations of a call failed; `ids` lists them, `Batch.error(i)` has each message
    (MuJoCo's class). Those simulations kept the state they had before the call; the others
    ran to completion. The message names the first five ids, as MuJoCo's."""

    def __init__(self, ids, message, ncall=None):
        self.ids = ids
        shown = ", ".join(str(i) for i in ids[:5]) + (", ..." if len(ids) > 5 else "")
        of = "" if ncall is None else f" of {ncall}"
        super().__init__(f"moreau raised in {len(ids)}{of} simulations ({shown}); simulation "
                         f"{ids[0]}: {message}")


def _int32(x, shape, lo, hi, name):
    """Integers `x` in [lo, hi), broadcast to `shape`, checked before narrowing to int32."""
    x = np.asarray(x)
    if not np.issubdtype(x.dtype, np.integer):
        raise ValueError(f"{name} must be integers, got {x.dtype}")
    bad = x[(x < lo) | (x >= hi)]
    if bad.size:
        raise ValueError(f"{name} must be in [{lo}, {hi}), got {bad.flat[0]}")
    return np.ascontiguousarray(np.broadcast_to(x, shape), np.int32)


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


# prefix of MjData's per-object fields, by named view (xquat, geom_xmat, cam_xmat, ...)
_DATA_PREFIX = {"geom": "geom_", "site": "site_", "camera": "cam_"}


def _containing(obj, names, part):
    """The field of `obj` among `names` whose memory holds the array `part`, or None."""
    if not isinstance(part, np.ndarray) or not part.size:
        return None
    for name in names:
        if "." in name:
            continue
        full = getattr(obj, name, None)
        if not isinstance(full, np.ndarray) or full.dtype != part.dtype:
            continue
        off = part.ctypes.data - full.ctypes.data
        if 0 <= off and off + part.nbytes <= full.nbytes:
            return name
    return None


def _structural(field, part):
    """Whether a model field holds addresses, counts, ids or types (the same everywhere)."""
    return (part.dtype.kind in "iu" and field.endswith(("adr", "num", "id", "type"))
            and not field.endswith("contype"))


# MjModel's prefix of each named view's fields (joints also read their dofs' fields)
_MODEL_PREFIX = {
    "actuator": ("actuator_",), "body": ("body_",), "camera": ("cam_",), "equality": ("eq_",),
    "geom": ("geom_",), "joint": ("jnt_", "dof_"), "keyframe": ("key_",), "light": ("light_",),
    "material": ("mat_",), "numeric": ("numeric_",), "pair": ("pair_",), "sensor": ("sensor_",),
    "site": ("site_",), "tendon": ("tendon_",),
}

# named-view attributes computed from several fields, not slices of one (MuJoCo's)
_COMPUTED_VIEWS = frozenset({("actuator", "moment")})


def _did_you_mean(name, names):
    """' (did you mean ...?)' listing close matches of name among names, or ''."""
    close = difflib.get_close_matches(name, list(names), n=3)
    return f" (did you mean {', '.join(map(repr, close))}?)" if close else ""


def _empty(nsim, part):
    """The read-only `(nsim, ...)` slice of an empty attribute (MuJoCo's views are empty too)."""
    out = np.empty((nsim, *part.shape), part.dtype)
    out.flags.writeable = False
    return out

# MjData arrays in the arena, whose sizes change from step to step (contacts, constraint rows,
# islands)
_ARENA_PREFIXES = ("efc_", "iefc_", "island_", "map_", "ifrc_", "iacc", "iM", "iLD")
_ARENA_FIELDS = frozenset({"contact", "dof_island", "tree_island"})

# MjModel arrays that are asset data (meshes, height fields, textures, skins, hierarchies of
# static geometry, names), shared by every simulation
_ASSET_PREFIXES = ("mesh_", "hfield_", "tex_", "skin_", "bvh_", "oct_", "name_")
_ASSET_FIELDS = frozenset({"names", "paths", "text_data", "plugin_attr"})


def _hint(name, names, model_hint=False):
    """Where `name` belongs when it is a model or an option field, else close matches among
    `names` (MuJoCo's hints)."""
    if model_hint and name in MODEL_FIELDS:
        return f"; {name} is an MjModel field: use expand({name!r})"
    if f"opt.{name}" in MODEL_FIELDS:
        return f"; {name} is an MjOption field: use expand('opt.{name}')"
    return _did_you_mean(name, names)


def _template(data, name):
    """The MjData field `name` as an array (an integer scalar as a 0-d int32), or None."""
    value = getattr(data, name, None)
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return np.zeros((), np.int32)
    return None


def _not_bindable(data, name):
    """The error for a name that `bind()` (or a rollout record) does not accept."""
    if name in MODEL_FIELDS:
        return ValueError(f"{name} is an MjModel field: use expand({name!r})")
    value = getattr(data, name, None)
    if isinstance(value, int) and not isinstance(value, bool):
        scalars = sorted(n for n in DATA_FIELDS if isinstance(getattr(data, n, None), int))
        return ValueError(f"{name} is not one of the MjData scalars bind() accepts: "
                          + ", ".join(scalars))
    if name in _ARENA_FIELDS or (name.startswith(_ARENA_PREFIXES)
                                 and isinstance(value, (np.ndarray, list, tuple))):
        return ValueError(f"{name} is in the arena, whose size changes from step to step, and "
                          "cannot be bound")
    if isinstance(value, np.ndarray):
        return ValueError(f"{name} is not one of the MjData fields moreau's batch binds")
    return ValueError(f"{name} is not an MjData array field" + _hint(name, DATA_FIELDS))


def _not_expandable(model, name):
    """The error for a name that `expand()` (or `expanded()`) does not accept."""
    if name in DATA_FIELDS:
        return ValueError(f"{name} is an MjData field: use bind({name!r})")
    if isinstance(getattr(model, name, None), np.ndarray):
        if name in _ASSET_FIELDS or name.startswith(_ASSET_PREFIXES):
            return ValueError(f"{name} is asset data, shared by all simulations, and cannot be "
                              "expanded")
        return ValueError(f"{name} is not one of the MjModel fields moreau's batch expands")
    return ValueError(f"{name} is not an expandable MjModel field" + _hint(name, MODEL_FIELDS))


def _output_error(name):
    """The error for a write to an output, which every call overwrites."""
    return ValueError(f"{name} is computed by every call and cannot be written; write state "
                      "fields (qpos, ctrl, ...) or expand model fields")


class _Named:
    """One object's `(nsim, ...)` slices of the batch's fields (`Batch.joint(...)` etc.).

    Data attributes bind their field. Model attributes read without expanding: the
    per-simulation values of a field that expand() or set_const() expanded, or else the model's
    value for every simulation, read-only unless expanded by expand(). Assignment expands the
    field and writes every simulation's value. Structural fields (addresses, counts, ids and
    types) are the same in every simulation and cannot be assigned unless expanded. Equalities,
    pairs, materials, numerics and keyframes have only MjModel attributes."""

    def __init__(self, batch, kind, key, data=True):
        mv = getattr(batch.model, kind)(key)
        dv = getattr(batch._data, kind)(key) if data else None
        for k, v in (("_batch", batch), ("_kind", kind), ("_mv", mv), ("_dv", dv),
                     ("id", mv.id), ("name", mv.name)):
            object.__setattr__(self, k, v)

    def __getattr__(self, attr):
        if attr.startswith("_"):
            raise AttributeError(attr)
        return self._slice(attr, write=False)

    def __setattr__(self, attr, value):
        if attr in ("id", "name") or attr.startswith("_"):
            raise AttributeError(f"{attr} is read-only")
        self._slice(attr, write=True)[...] = value

    def _data_slice(self, attr, part, write):
        """The slice of a data attribute, or None if no bound field holds it."""
        b = self._batch
        nsim = b.nsim
        field = _containing(b._data, DATA_FIELDS, part)
        if field is None:
            # moreau's read-only copies (xquat, xmat, ...): the object's row of the field
            field = _DATA_PREFIX.get(self._kind, "") + attr
            template = getattr(b._data, field, None)
            if (field in DATA_FIELDS and isinstance(template, np.ndarray)
                    and template.shape[1:] == part.shape):
                if write:
                    raise _output_error(f"{self._kind} {attr}")
                return b.bind(field)[:, self.id]
            return None
        if write and field not in _STATE_FIELDS:
            raise _output_error(f"{self._kind} {attr}")
        return self._cut(b.bind(field).reshape(nsim, -1), getattr(b._data, field), part)

    def _model_field(self, attr, part):
        """The model field holding `part` and a function cutting this object's slice out of
        `(nsim, ...)` rows of it, or (None, None)."""
        model = self._batch.model
        field = _containing(model, MODEL_FIELDS, part)
        if field is not None:
            full = getattr(model, field)
            return field, lambda rows: self._cut(rows.reshape(rows.shape[0], -1), full, part)
        # moreau's read-only copies (ids, types, keyframes, ...): the object's rows of the field
        # of its name (a joint's dof fields start at its first dof)
        for prefix in _MODEL_PREFIX.get(self._kind, ()):
            field = prefix + attr
            full = getattr(model, field, None) if field in MODEL_FIELDS else None
            if not isinstance(full, np.ndarray) or full.dtype != part.dtype or not full.size:
                continue
            count = full.shape[0]
            row = full.size // count
            start = int(model.jnt_dofadr[self.id]) if prefix == "dof_" else self.id
            n = part.size // row
            if n * row != part.size or start + n > count:
                continue
            if not np.array_equal(full.reshape(count, -1)[start:start + n].reshape(-1),
                                  part.reshape(-1)):
                continue

            def cut(rows, count=count, start=start, n=n):
                return rows.reshape(rows.shape[0], count, -1)[:, start:start + n].reshape(
                    rows.shape[0], *part.shape)

            return field, cut
        return None, None

    def _slice(self, attr, write):
        b = self._batch
        nsim = b.nsim
        computed = (self._kind, attr) in _COMPUTED_VIEWS
        unheld = computed  # an attribute of a view, but in no field of the batch
        part = None if computed or self._dv is None else getattr(self._dv, attr, None)
        if isinstance(part, np.ndarray):
            if not part.size:
                return _empty(nsim, part)
            out = self._data_slice(attr, part, write)
            if out is not None:
                return out
            unheld = True
        part = getattr(self._mv, attr, None)
        if isinstance(part, np.ndarray):
            if not part.size:
                return _empty(nsim, part)
            field, cut = self._model_field(attr, part)
            if field is not None:
                return self._model_slice(attr, field, cut, part, write)
            unheld = True
        if unheld:
            raise AttributeError(f"{self._kind} {attr} is not a slice of a field that the "
                                 "batch binds or expands")
        names = dir(self._mv) + (dir(self._dv) if self._dv is not None else [])
        raise AttributeError(f"{attr} is not a field of a {self._kind}"
                             + _did_you_mean(attr, [n for n in names if not n.startswith("_")]))

    def _model_slice(self, attr, field, cut, part, write):
        b = self._batch
        nsim = b.nsim
        if b._models is not None:
            if write:
                raise ValueError(f"{field} comes from the caller models (set_models): edit "
                                 "them and call set_models again")
            out = np.stack([getattr(getattr(b._model_of(i), self._kind)(self.id), attr)
                            for i in range(nsim)])
            out.flags.writeable = False
            return out
        if field in b._expanded:
            rows = b.expand(field)
        elif _structural(field, part):
            if write:
                raise ValueError(f"{field} is structural: it cannot differ between simulations")
            return np.broadcast_to(part, (nsim, *part.shape))
        elif write:
            rows = b.expand(field)
        else:
            # unexpanded read: set_const's per-simulation values, or the model's
            rows = b.expanded(field)
            if rows is None:
                return np.broadcast_to(part, (nsim, *part.shape))
        return cut(rows)

    def _cut(self, flat, full, part):
        start = (part.ctypes.data - full.ctypes.data) // full.itemsize
        return flat[:, start:start + part.size].reshape(flat.shape[0], *part.shape)


def _named(kind, data=True):
    """The `Batch` method giving one object's named view of kind `kind`."""

    def method(self, key):
        return _Named(self, kind, key, data)

    method.__name__ = kind
    method.__doc__ = (f"The `(nsim, ...)` slices of {kind} `key`'s fields (an id or a name), "
                      f"as `MjData.{kind}(key)` / `MjModel.{kind}(key)` of each simulation.")
    return method


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
        # the arrays expand() returned, by field name
        object.__setattr__(self, "_expanded", {})
        object.__setattr__(self, "state", self._b.state())
        object.__setattr__(self, "warning", self._b.warning())
        status = self._b.status()
        status.flags.writeable = False
        object.__setattr__(self, "status", status)

    @functools.cached_property
    def _data(self):
        """An MjData of the model: the shapes, dtypes and named views of its fields."""
        return _moreau.MjData(self.model)

    def _model_of(self, sim):
        """The model simulation `sim` runs on, but for its per-simulation fields."""
        if self._models is None:
            return self.model
        return self._models if isinstance(self._models, _moreau.MjModel) else self._models[sim]

    actuator = _named("actuator")
    body = _named("body")
    camera = _named("camera")
    equality = _named("equality", data=False)
    geom = _named("geom")
    joint = _named("joint")
    keyframe = _named("keyframe", data=False)
    light = _named("light")
    material = _named("material", data=False)
    numeric = _named("numeric", data=False)
    pair = _named("pair", data=False)
    sensor = _named("sensor")
    site = _named("site")
    tendon = _named("tendon")

    def __getattr__(self, name):
        # consulted only for names Batch does not have: MjData fields, as bind()
        if name in DATA_FIELDS:
            return self.bind(name)
        hint = "" if name.startswith("__") else _hint(name, DATA_FIELDS, model_hint=True)
        raise AttributeError(f"'Batch' object has no attribute {name!r}{hint}")

    def __setattr__(self, name, value):
        if name in _STATE_FIELDS:
            self.bind(name)[...] = value
        elif name in DATA_FIELDS:
            raise _output_error(name)
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
            template = _template(self._data, name)
            raw = self._b.output(name)
            if raw is None or template is None:
                raise _not_bindable(self._data, name)
            view = raw.reshape(self.nsim, *template.shape)
            view.flags.writeable = False
        self._bound[name] = view
        return view

    def expand(self, name: str) -> np.ndarray:
        """Per-simulation values of a model field, `(nsim, ...)`, live (MjModel's names;
        MjOption fields as 'opt.<name>')."""
        if name in self._expanded:
            return self._expanded[name]
        # FatalError while caller models are set (set_models), as MuJoCo's
        raw = self._b.expand(name)
        if raw is None:
            raise _not_expandable(self.model, name)
        object.__setattr__(self, "_any_expanded", True)
        out = self._shape_model(name, raw)
        self._expanded[name] = out
        return out

    def expanded(self, name: str) -> Optional[np.ndarray]:
        """The read-only per-simulation values of a field that expand() or set_const()
        expanded, without expanding it if it is still shared; None if it is."""
        if name not in MODEL_FIELDS:
            raise _not_expandable(self.model, name)
        raw = self._b.expanded(name)
        if raw is None:
            return None
        out = self._shape_model(name, raw)
        out = out.view()
        out.flags.writeable = False
        return out

    def _shape_model(self, name, raw):
        """`(nsim, n)` values of a field as `(nsim, *shape)`, with the model field's dtype
        (moreau's bool flags view MuJoCo's uint8 values)."""
        if name.startswith("opt."):
            return raw if raw.shape[1] > 1 else raw[:, 0]
        template = np.asarray(getattr(self.model, name))
        if template.dtype != raw.dtype and template.dtype.itemsize == raw.dtype.itemsize:
            raw = raw.view(template.dtype)
        return raw.reshape(self.nsim, *template.shape)

    def _check(self, ids, nfail):
        """Raises SimulationError naming the simulations of the call that failed."""
        if not nfail:
            return
        sel = np.arange(self.nsim) if ids is None else ids
        failed = sel[self.status[sel] != 0]
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
        # checked before narrowing to int32, so that no keyframe wraps into a valid one; with
        # caller models, the extension checks each simulation's keyframes exactly
        key = _int32(keyframe, (n,), -1, self._nkey(), "keyframe")
        self._check(ids, self._b.reset(ids, None if (key == -1).all() else key, int(stage)))

    def _nkey(self):
        """The keyframes reset accepts: the most of any simulation's model."""
        if self._models is None:
            return self.model.nkey
        if isinstance(self._models, _moreau.MjModel):
            return self._models.nkey
        return max(m.nkey for m in self._models)

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
        self._check(ids, self._b.set_const(ids))

    def get_model(self, sim: int, model=None):
        """Simulation `sim`'s model, with its per-simulation fields."""
        return self._b.get_model(int(sim), model)

    def get_data(self, sim: int, data=None):
        """Simulation `sim`'s state (a persistent batch: its whole MjData)."""
        if data is None:
            data = _moreau.MjData(self.model)
        self._b.get_data(int(sim), data)
        return data

    def rollout(self, nstep: int, control=None, control_spec: int = int(mjtState.mjSTATE_CTRL),
                record=("qpos",), ids=None, out=None):
        """`nstep` substeps per simulation, recording after each (`mujoco.batch`'s): before
        substep k the components `control_spec` (mjtState bits within mjSTATE_USER) of the
        state are set from `control[:, k]` (`(n, nstep, mj_stateSize(model, control_spec))`
        for the n simulations of the call, or None to leave the inputs as they are). A
        simulation whose warning counters rise stops stepping and its remaining records repeat
        its last ones. `record`: MjData field names (recorded with MjData's dtypes: counts such
        as `ncon` int32, `eq_active` as MjData's though bind() gives it as float64) or mjtState
        specs (state vectors). Returns a dict from each record item to its `(n, nstep, ...)`
        array (written into `out[item]` where given). The substeps run on the batch's threads
        with the GIL released."""
        if nstep < 0:
            raise ValueError("nstep must be non-negative")
        ids = _ids(ids, self.nsim)
        n = self.nsim if ids is None else len(ids)
        if control is not None:
            ncontrol = _moreau.mj_stateSize(self.model, int(control_spec))
            control = np.ascontiguousarray(np.broadcast_to(control, (n, nstep, ncontrol)),
                                           dtype=np.float64)
        given, result, records = out or {}, {}, []
        for item in record:
            if isinstance(item, str):
                template = _template(self._data, item)
                if template is None:
                    raise _not_bindable(self._data, item)
                shape, dtype = (n, nstep, *template.shape), template.dtype
            else:
                shape = (n, nstep, _moreau.mj_stateSize(self.model, int(item)))
                dtype = np.dtype(np.float64)
            buf = given.get(item)
            if buf is None:
                buf = np.empty(shape, dtype)
            elif (not isinstance(buf, np.ndarray) or buf.shape != shape or buf.dtype != dtype
                  or not buf.flags.c_contiguous or not buf.flags.writeable):
                raise ValueError(f"out[{item!r}] must be a writable C-contiguous {dtype} "
                                 f"array of shape {shape}")
            records.append((item, 0, buf) if isinstance(item, str) else (None, int(item), buf))
            result[item] = buf
        self._check(ids, self._b.rollout(ids, int(nstep), control, int(control_spec), records))
        return result

    def jac(self, body, point, ids=None):
        """Translational and rotational Jacobians `(n, 3, nv)` each of world points `point`
        (`(3,)` or `(n, 3)`) on bodies `body` (an id, or one per simulation of the call), from
        each simulation's state (mj_kinematics, mj_comPos, mj_jac), on the batch's threads;
        the state and bound fields are untouched (a persistent batch's MjData keeps these
        kinematics, as `get_data` shows)."""
        ids = _ids(ids, self.nsim)
        n, nv = (self.nsim if ids is None else len(ids)), self.model.nv
        body = _int32(body, (n,), 0, self.model.nbody, "body")
        point = np.ascontiguousarray(np.broadcast_to(np.asarray(point, np.float64), (n, 3)))
        jacp, jacr = np.zeros((n, 3, nv)), np.zeros((n, 3, nv))
        self._check(ids, self._b.jac(ids, body, point, jacp, jacr))
        return jacp, jacr

    def ray(self, pnt, vec, geomgroup=None, flg_static: bool = True, bodyexclude=-1, ids=None,
            normal: bool = False):
        """`mj_ray` in each simulation from its state (mj_kinematics first), on the batch's
        threads; the state and bound fields are untouched: `pnt` and `vec` broadcast to
        `(n, nray, 3)`, `bodyexclude` to `(n, nray)`. Returns `dist, geomid` `(n, nray)`
        (-1 for a miss) and with `normal` the normals `(n, nray, 3)` (zero for a miss)."""
        ids = _ids(ids, self.nsim)
        n = self.nsim if ids is None else len(ids)
        pnt = np.atleast_2d(np.asarray(pnt, np.float64))
        vec = np.atleast_2d(np.asarray(vec, np.float64))
        nray = np.broadcast_shapes(pnt.shape[:-1], vec.shape[:-1])[-1]
        pnt = np.ascontiguousarray(np.broadcast_to(pnt, (n, nray, 3)))
        vec = np.ascontiguousarray(np.broadcast_to(vec, (n, nray, 3)))
        excl = _int32(bodyexclude, (n, nray), -1, self.model.nbody, "bodyexclude")
        if geomgroup is not None:
            geomgroup = np.ascontiguousarray(geomgroup, dtype=np.uint8)
        dist = np.zeros((n, nray))
        geomid = np.zeros((n, nray), np.int32)
        normals = np.zeros((n, nray, 3)) if normal else None
        self._check(ids, self._b.ray(ids, pnt, vec, geomgroup, bool(flg_static), excl, dist,
                                     geomid, normals))
        return (dist, geomid, normals) if normal else (dist, geomid)
