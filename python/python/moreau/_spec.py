"""`MjSpec`: MuJoCo 4.0.0's editable model specification (`mujoco.MjSpec`), the part a porting
script meets first.

A specification is the document's element tree (its `<include>`s expanded), read by moreau's
MJCF front end with the errors MuJoCo raises while reading (`_moreau._spec_parse`). Elements are
`MjsBody`, `MjsGeom`, `MjsJoint`, `MjsSite`, `MjsCamera`, `MjsLight`, `MjsActuator` (and, with
their names only, tendons, sensors, equalities, keyframes and assets); their attributes read as
MuJoCo's specification gives them (the element's own values over its default class chain over
MuJoCo's defaults, unconverted: angles as written, orientations in `alt`) and write back into
the tree. `compile()` writes the tree as MJCF and compiles it (`_moreau._spec_compile`);
`to_xml()` is that document. What is not covered is listed in docs/python.md ("MjSpec").
"""

import copy as _copy
import math
import warnings
from xml.sax.saxutils import escape, quoteattr

import numpy as np

from moreau import _moreau
from moreau._enums import (
    mjtBias,
    mjtCamLight,
    mjtDyn,
    mjtGain,
    mjtGeom,
    mjtJoint,
    mjtLimited,
    mjtOrientation,
    mjtTrn,
)

__all__ = [
    "MjSpec",
    "MjsBody",
    "MjsGeom",
    "MjsJoint",
    "MjsSite",
    "MjsCamera",
    "MjsLight",
    "MjsActuator",
    "MjsElement",
    "MjsOrientation",
    "MjsDefault",
    "MjOptionSpec",
]


def _keywords(enum, prefix, names=None):
    """XML keyword -> enum member (`mjGEOM_BOX` -> "box"), or from `names` in enum order."""
    members = [m for m in enum if m.name.startswith(prefix)]
    if names is None:
        return {m.name[len(prefix):].lower(): m for m in members}
    return dict(zip(names, members))


_GEOM_TYPES = _keywords(mjtGeom, "mjGEOM_")
_GEOM_TYPES.pop("none", None)
_JOINT_TYPES = _keywords(mjtJoint, "mjJNT_")
_LIMITED = {"false": mjtLimited.mjLIMITED_FALSE, "true": mjtLimited.mjLIMITED_TRUE,
            "auto": mjtLimited.mjLIMITED_AUTO}
_GAIN = _keywords(mjtGain, "mjGAIN_")
_BIAS = _keywords(mjtBias, "mjBIAS_")
_DYN = _keywords(mjtDyn, "mjDYN_")
_CAMMODE = {"fixed": mjtCamLight.mjCAMLIGHT_FIXED, "track": mjtCamLight.mjCAMLIGHT_TRACK,
            "trackcom": mjtCamLight.mjCAMLIGHT_TRACKCOM,
            "targetbody": mjtCamLight.mjCAMLIGHT_TARGETBODY,
            "targetbodycom": mjtCamLight.mjCAMLIGHT_TARGETBODYCOM}
_BOOL = {"false": 0, "true": 1}

NAN = float("nan")
# the orientation alternatives of MuJoCo's `mjsOrientation`, by XML attribute
_ALT = {"axisangle": 4, "xyaxes": 6, "zaxis": 3, "euler": 3}
_ALT_TYPE = {"axisangle": mjtOrientation.mjORIENTATION_AXISANGLE,
             "xyaxes": mjtOrientation.mjORIENTATION_XYAXES,
             "zaxis": mjtOrientation.mjORIENTATION_ZAXIS,
             "euler": mjtOrientation.mjORIENTATION_EULER}


# attribute kinds: ("s",) string, ("f",) float, ("i",) int, ("b",) bool (XML false/true),
# ("v", n) n floats, ("e", keyword map) enum; each with MuJoCo 4.0.0's default (the value a
# fresh element of `mujoco.MjSpec` reads) and the XML attribute's name when it differs.
def _a(kind, default, xml=None, n=None, keys=None, dtype=float):
    return {"kind": kind, "default": default, "xml": xml, "n": n, "keys": keys, "dtype": dtype}


_ORIENT = {"pos": _a("v", [0, 0, 0], n=3), "quat": _a("v", [1, 0, 0, 0], n=4)}

_BODY = {
    "name": _a("s", ""),
    "childclass": _a("s", ""),
    **_ORIENT,
    "gravcomp": _a("f", 0.0),
    "mocap": _a("b", 0),
}
_INERTIAL = {  # MjsBody attributes that live on the body's <inertial> child in MJCF
    "mass": _a("f", 0.0),
    "ipos": _a("v", [NAN, 0, 0], xml="pos", n=3),
    "iquat": _a("v", [1, 0, 0, 0], xml="quat", n=4),
    "inertia": _a("v", [0, 0, 0], xml="diaginertia", n=3),
    "fullinertia": _a("v", [NAN, 0, 0, 0, 0, 0], n=6),
}
_GEOM = {
    "name": _a("s", ""),
    "type": _a("e", mjtGeom.mjGEOM_SPHERE, keys=_GEOM_TYPES),
    "size": _a("v", [0, 0, 0], n=3),
    **_ORIENT,
    "fromto": _a("v", [NAN, 0, 0, 0, 0, 0], n=6),
    "rgba": _a("v", [0.5, 0.5, 0.5, 1], n=4, dtype=np.float32),
    "friction": _a("v", [1, 0.005, 0.0001], n=3),
    "mass": _a("f", NAN),
    "density": _a("f", 1000.0),
    "contype": _a("i", 1),
    "conaffinity": _a("i", 1),
    "condim": _a("i", 3),
    "priority": _a("i", 0),
    "group": _a("i", 0),
    "margin": _a("f", 0.0),
    "gap": _a("f", 0.0),
    "solmix": _a("f", 1.0),
    "solref": _a("v", [0.02, 1], n=2),
    "solimp": _a("v", [0.9, 0.95, 0.001, 0.5, 2], n=5),
    "material": _a("s", ""),
    "meshname": _a("s", "", xml="mesh"),
    "hfieldname": _a("s", "", xml="hfield"),
}
_JOINT = {
    "name": _a("s", ""),
    "type": _a("e", mjtJoint.mjJNT_HINGE, keys=_JOINT_TYPES),
    "pos": _a("v", [0, 0, 0], n=3),
    "axis": _a("v", [0, 0, 1], n=3),
    "range": _a("v", [0, 0], n=2),
    "limited": _a("e", mjtLimited.mjLIMITED_AUTO, keys=_LIMITED),
    "actfrcrange": _a("v", [0, 0], n=2),
    "actfrclimited": _a("e", mjtLimited.mjLIMITED_AUTO, keys=_LIMITED),
    "damping": _a("v", [0, 0, 0], n=3),
    "stiffness": _a("v", [0, 0, 0], n=3),
    "armature": _a("f", 0.0),
    "frictionloss": _a("f", 0.0),
    "springref": _a("f", 0.0),
    "ref": _a("f", 0.0),
    "margin": _a("f", 0.0),
    "group": _a("i", 0),
    "solref_limit": _a("v", [0.02, 1], xml="solreflimit", n=2),
    "solimp_limit": _a("v", [0.9, 0.95, 0.001, 0.5, 2], xml="solimplimit", n=5),
    "solref_friction": _a("v", [0.02, 1], xml="solreffriction", n=2),
    "solimp_friction": _a("v", [0.9, 0.95, 0.001, 0.5, 2], xml="solimpfriction", n=5),
}
_SITE = {
    "name": _a("s", ""),
    "type": _a("e", mjtGeom.mjGEOM_SPHERE, keys=_GEOM_TYPES),
    "size": _a("v", [0.005, 0.005, 0.005], n=3),
    **_ORIENT,
    "fromto": _a("v", [NAN, 0, 0, 0, 0, 0], n=6),
    "rgba": _a("v", [0.5, 0.5, 0.5, 1], n=4, dtype=np.float32),
    "group": _a("i", 0),
    "material": _a("s", ""),
}
_CAMERA = {
    "name": _a("s", ""),
    **_ORIENT,
    "fovy": _a("f", 45.0),
    "ipd": _a("f", 0.068),
    "mode": _a("e", mjtCamLight.mjCAMLIGHT_FIXED, keys=_CAMMODE),
    "targetbody": _a("s", "", xml="target"),
}
_LIGHT = {
    "name": _a("s", ""),
    "pos": _a("v", [0, 0, 0], n=3),
    "dir": _a("v", [0, 0, -1], n=3),
    "mode": _a("e", mjtCamLight.mjCAMLIGHT_FIXED, keys=_CAMMODE),
    "targetbody": _a("s", "", xml="target"),
    "castshadow": _a("b", 1),
    "active": _a("b", 1),
}
_ACTUATOR = {
    "name": _a("s", ""),
    "gear": _a("v", [1, 0, 0, 0, 0, 0], n=6),
    "ctrlrange": _a("v", [0, 0], n=2),
    "ctrllimited": _a("e", mjtLimited.mjLIMITED_AUTO, keys=_LIMITED),
    "forcerange": _a("v", [0, 0], n=2),
    "forcelimited": _a("e", mjtLimited.mjLIMITED_AUTO, keys=_LIMITED),
    "actrange": _a("v", [0, 0], n=2),
    "actlimited": _a("e", mjtLimited.mjLIMITED_AUTO, keys=_LIMITED),
    "lengthrange": _a("v", [0, 0], n=2),
    "group": _a("i", 0),
    "actdim": _a("i", -1),
    "actearly": _a("b", 0),
    "cranklength": _a("f", 0.0),
    "refsite": _a("s", ""),
    "slidersite": _a("s", ""),
    # the general actuator's dynamics, gain and bias (`_SHORTCUT` for the other elements)
    "gaintype": _a("e", mjtGain.mjGAIN_FIXED, keys=_GAIN),
    "biastype": _a("e", mjtBias.mjBIAS_NONE, keys=_BIAS),
    "dyntype": _a("e", mjtDyn.mjDYN_NONE, keys=_DYN),
    "gainprm": _a("v", [1] + [0] * 9, n=10),
    "biasprm": _a("v", [0] * 10, n=10),
    "dynprm": _a("v", [1] + [0] * 9, n=10),
}
_NAMED = {"name": _a("s", "")}
_OPTION = {
    "timestep": _a("f", 0.002),
    "gravity": _a("v", [0, 0, -9.81], n=3),
    "wind": _a("v", [0, 0, 0], n=3),
    "magnetic": _a("v", [0, -0.5, 0], n=3),
    "density": _a("f", 0.0),
    "viscosity": _a("f", 0.0),
    "impratio": _a("f", 1.0),
    "tolerance": _a("f", 1e-8),
    "ls_tolerance": _a("f", 0.01),
    "noslip_tolerance": _a("f", 1e-6),
    "ccd_tolerance": _a("f", 1e-6),
    "sleep_tolerance": _a("f", 1e-3),
    "iterations": _a("i", 100),
    "ls_iterations": _a("i", 50),
    "noslip_iterations": _a("i", 0),
    "ccd_iterations": _a("i", 35),
    "o_margin": _a("f", 0.0),
    "o_solref": _a("v", [0.02, 1], n=2),
    "o_solimp": _a("v", [0.9, 0.95, 0.001, 0.5, 2], n=5),
    "o_friction": _a("v", [1, 1, 0.005, 0.0001, 0.0001], n=5),
    # ints, as MuJoCo's `MjSpec.option` gives them (mjtIntegrator, mjtCone, mjtSolver values)
    "integrator": _a("e", 0, keys={"Euler": 0, "RK4": 1, "implicit": 2, "implicitfast": 3}),
    "cone": _a("e", 0, keys={"pyramidal": 0, "elliptic": 1}),
    "solver": _a("e", 2, keys={"PGS": 0, "CG": 1, "Newton": 2}),
}

_ACTUATOR_TAGS = ("general", "motor", "position", "velocity", "intvelocity", "damper",
                  "cylinder", "muscle", "adhesion", "dcmotor")
# the transmission target's XML attribute -> mjtTrn
_TRN = {"joint": mjtTrn.mjTRN_JOINT, "jointinparent": mjtTrn.mjTRN_JOINTINPARENT,
        "tendon": mjtTrn.mjTRN_TENDON, "site": mjtTrn.mjTRN_SITE,
        "cranksite": mjtTrn.mjTRN_SLIDERCRANK, "body": mjtTrn.mjTRN_BODY}
_TRN_ATTR = {v: k for k, v in _TRN.items()}
# the shortcuts' own attributes, which a general actuator does not have
_SHORTCUT_ATTRS = ("kp", "kv", "dampratio", "timeconst", "inheritrange")


def _fmt(x):
    """A float as MJCF text that reads back to the same double."""
    x = float(x)
    if math.isfinite(x) and x == int(x) and abs(x) < 1e15:
        return str(int(x))
    return repr(x)


def _floats(text, attr, tag):
    try:
        return [float(t) for t in text.split()]
    except ValueError:
        raise ValueError(f"bad format in attribute '{attr}' of <{tag}>: {text!r}") from None


class _Node:
    """One element of the document: tag, attributes (XML text, in order), children, text."""

    _ATTRS = {}

    def __init__(self, tag, attrs=None, spec=None):
        d = object.__getattribute__(self, "__dict__")
        d["_tag"] = tag
        d["_attrs"] = dict(attrs or {})
        d["_children"] = []
        d["_text"] = ""
        d["_parent"] = None
        d["_spec"] = spec

    def _add(self, node, index=None):
        node.__dict__["_parent"] = self
        node.__dict__["_spec"] = self._spec
        if index is None:
            self._children.append(node)
        else:
            self._children.insert(index, node)
        return node

    def _child(self, tag, create=False):
        for c in self._children:
            if c._tag == tag:
                return c
        if create:
            return self._add(_Node(tag))
        return None

    def _walk(self):
        """This node and its descendants in document order (without recursion)."""
        stack = [self]
        while stack:
            n = stack.pop()
            yield n
            stack.extend(reversed(n._children))


def _resolve(node, table, attr, tags):
    """The value of `attr` (described by `table[attr]`) of `node`: MuJoCo's default, then each
    default class from `main` down to the node's class (their children of a tag in `tags`),
    then the node's own attribute; vectors given shorter keep the rest (as MuJoCo's reader)."""
    d = table[attr]
    xml = d["xml"] or attr
    layers = [c._attrs.get(xml) for c in _class_chain(node, tags)]
    layers.append(node._attrs.get(xml))
    kind = d["kind"]
    if kind == "v":
        v = list(d["default"])
        for text in layers:
            if text is not None:
                vals = _floats(text, xml, node._tag)
                v[: len(vals)] = vals[: d["n"]]
        return np.array(v, dtype=d["dtype"])
    text = None
    for t in layers:
        if t is not None:
            text = t
    if text is None:
        return d["default"]
    text = text.strip()
    if kind == "s":
        return text
    if kind == "f":
        return float(text)
    if kind == "i":
        return int(text)
    if kind == "b":
        return bool(_BOOL.get(text, 0))
    if kind == "e":
        return d["keys"].get(text, d["default"])
    raise AssertionError(kind)


def _default_root(spec):
    return spec._root._child("default") if spec is not None else None


def _class_chain(node, tags):
    """The default classes' elements of a tag in `tags` that apply to `node`, from `main` down
    to its class (the node's `class`, else the nearest enclosing `childclass`)."""
    spec = node._spec
    root = _default_root(spec)
    if root is None:
        return []
    cls = node._attrs.get("class")
    p = node._parent
    while cls is None and p is not None:
        if p._tag in ("body", "frame"):
            cls = p._attrs.get("childclass")
        p = p._parent
    # the default element of that class and its ancestors
    path = [root]
    if cls is not None and cls != "main":
        found = next((n for n in root._walk() if n._tag == "default"
                      and n._attrs.get("class") == cls), None)
        if found is not None:
            path = []
            while found is not None and found._tag == "default":
                path.append(found)
                found = found._parent
            path.reverse()
    out = []
    for dflt in path:
        out.extend(c for c in dflt._children if c._tag in tags)
    return out


class MjsDefault:
    """A default class of the specification (its `name`; `main` for the top one)."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"MjsDefault({self.name!r})"


class MjsOrientation:
    """An element's alternative orientation (`mujoco.MjsOrientation`): `type` and the
    `axisangle`, `xyaxes`, `zaxis`, `euler` values; setting one makes it the orientation."""

    def __init__(self, node):
        self.__dict__["_node"] = node

    @property
    def type(self):
        for k, t in _ALT_TYPE.items():
            if k in self._node._attrs:
                return t
        return mjtOrientation.mjORIENTATION_QUAT

    def __getattr__(self, k):
        if k not in _ALT:
            raise AttributeError(f"'MjsOrientation' object has no attribute '{k}'")
        v = [0.0] * _ALT[k]
        text = self._node._attrs.get(k)
        if text is not None:
            vals = _floats(text, k, self._node._tag)
            v[: len(vals)] = vals
        return np.array(v)

    def __setattr__(self, k, value):
        if k not in _ALT:
            raise AttributeError(f"'MjsOrientation' object has no attribute '{k}'")
        v = np.asarray(value, dtype=float).ravel()
        if v.size != _ALT[k]:
            raise TypeError(f"{k} takes {_ALT[k]} numbers, not {v.size}")
        for other in _ALT:
            self._node._attrs.pop(other, None)
        self._node._attrs[k] = " ".join(_fmt(x) for x in v)


class _View(np.ndarray):
    """An attribute's array that writes item assignments back (`geom.size[0] = .2`), as
    MuJoCo's arrays are views of the specification."""

    def __array_finalize__(self, obj):
        self._owner = None

    def __setitem__(self, k, v):
        super().__setitem__(k, v)
        if self._owner is not None:
            el, attr = self._owner
            setattr(el, attr, np.asarray(self))


def _view(arr, el, attr):
    v = arr.view(_View)
    v._owner = (el, attr)
    return v


class MjsElement(_Node):
    """An element of the specification: its attributes read and write as `mujoco.Mjs*`'s."""

    _TAGS = ()

    @property
    def _table(self):
        return self._ATTRS

    def __getattr__(self, k):
        if k.startswith("_"):
            raise AttributeError(k)
        table = self._table
        if k not in table:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{k}' "
                                 "(moreau's MjSpec covers a subset: docs/python.md)")
        v = _resolve(self, table, k, self._TAGS or (self._tag,))
        if isinstance(v, np.ndarray):
            return _view(v, self, k)
        return v

    def __setattr__(self, k, value):
        if k.startswith("_"):
            object.__setattr__(self, k, value)
            return
        table = self._table
        if k not in table:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{k}' "
                                 "(moreau's MjSpec covers a subset: docs/python.md)")
        self._write(table, k, value)

    def _write(self, table, k, value):
        d = table[k]
        xml = d["xml"] or k
        kind = d["kind"]
        if kind == "v":
            v = np.asarray(value, dtype=float).ravel()
            if v.size != d["n"]:
                raise TypeError(f"{type(self).__name__}.{k} takes {d['n']} numbers, not {v.size}")
            if math.isnan(d["default"][0]) and math.isnan(v[0]):
                self._attrs.pop(xml, None)  # unset, as MuJoCo's NaN
            else:
                self._attrs[xml] = " ".join(_fmt(x) for x in v)
        elif kind == "s":
            if value is None:
                value = ""
            if not isinstance(value, str):
                raise TypeError(f"{type(self).__name__}.{k} is a str")
            if value:
                self._attrs[xml] = value
            else:
                self._attrs.pop(xml, None)
        elif kind == "f":
            x = float(value)
            if math.isnan(x):
                self._attrs.pop(xml, None)
            else:
                self._attrs[xml] = _fmt(x)
        elif kind == "i":
            self._attrs[xml] = str(int(value))
        elif kind == "b":
            self._attrs[xml] = "true" if value else "false"
        elif kind == "e":
            keys = d["keys"]
            word = next((w for w, e in keys.items() if int(e) == int(value)), None)
            if word is None:
                raise ValueError(f"{type(self).__name__}.{k}: {value!r} is not one of "
                                 f"{sorted(int(e) for e in keys.values())}")
            self._attrs[xml] = word

    @property
    def parent(self):
        """The enclosing body (through frames), None for the world."""
        p = self._parent
        while p is not None and not isinstance(p, MjsBody):
            p = p._parent
        return p

    @property
    def classname(self):
        """The default class the element takes its defaults from."""
        cls = self._attrs.get("class")
        p = self._parent
        while cls is None and p is not None:
            if p._tag in ("body", "frame"):
                cls = p._attrs.get("childclass")
            p = p._parent
        return MjsDefault(cls or "main")

    @property
    def alt(self):
        """The alternative orientation (`MjsOrientation`)."""
        return MjsOrientation(self)

    def __repr__(self):
        name = self._attrs.get("name", "")
        return f"<moreau.{type(self).__name__} {name!r}>"

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._table))


class MjsBody(MjsElement):
    """A body (`mujoco.MjsBody`); the world body is `spec.worldbody`."""

    _ATTRS = _BODY
    _TAGS = ("__none__",)  # bodies take no defaults

    @property
    def _table(self):
        return {**_BODY, **_INERTIAL}

    def __getattr__(self, k):
        if k == "name" and self._tag == "worldbody":
            return "world"
        if k == "childclass":
            # the body's own, else the nearest enclosing one (as MuJoCo's specification)
            p = self
            while p is not None:
                if p._tag in ("body", "frame") and "childclass" in p._attrs:
                    return p._attrs["childclass"]
                p = p._parent
            return "main"
        if k in _INERTIAL:
            inertial = self._child("inertial")
            node = inertial if inertial is not None else _Node("inertial")
            v = _resolve(node, _INERTIAL, k, ())
            return _view(v, self, k) if isinstance(v, np.ndarray) else v
        return super().__getattr__(k)

    @property
    def classname(self):
        """The default class of the body's elements (its `childclass`)."""
        return MjsDefault(self.childclass)

    def __setattr__(self, k, value):
        if k in _INERTIAL:
            inertial = self._child("inertial")
            if inertial is None:
                inertial = self._add(_Node("inertial", {"pos": "0 0 0"}), 0)
            MjsElement._write(inertial, _INERTIAL, k, value)
            return
        if self._tag == "worldbody" and not k.startswith("_"):
            raise AttributeError(f"the world body's '{k}' cannot be set")
        super().__setattr__(k, value)

    def _items(self, cls):
        """The elements of `cls` in this body, through frames, in document order."""
        out = []
        stack = list(reversed(self._children))
        while stack:
            n = stack.pop()
            if isinstance(n, cls):
                out.append(n)
            if n._tag == "frame":
                stack.extend(reversed(n._children))
        return out

    @property
    def bodies(self):
        """The child bodies."""
        return self._items(MjsBody)

    @property
    def geoms(self):
        return self._items(MjsGeom)

    @property
    def joints(self):
        return self._items(MjsJoint)

    @property
    def sites(self):
        return self._items(MjsSite)

    @property
    def cameras(self):
        return self._items(MjsCamera)

    @property
    def lights(self):
        return self._items(MjsLight)

    def _new(self, cls, tag, default, kwargs):
        el = cls(tag)
        self._add(el)
        if default is not None:
            el._attrs["class"] = default.name if isinstance(default, MjsDefault) else str(default)
        try:
            for k, v in kwargs.items():
                setattr(el, k, v)
        except Exception:
            self._children.remove(el)
            raise
        return el

    def add_body(self, default=None, **kwargs):
        """Adds a child body with the attributes `kwargs` (`name`, `pos`, `quat`, ...)."""
        return self._new(MjsBody, "body", default, kwargs)

    def add_geom(self, default=None, **kwargs):
        """Adds a geom with the attributes `kwargs` (`type`, `size`, `rgba`, ...)."""
        return self._new(MjsGeom, "geom", default, kwargs)

    def add_joint(self, default=None, **kwargs):
        """Adds a joint with the attributes `kwargs` (`type`, `axis`, `range`, ...)."""
        return self._new(MjsJoint, "joint", default, kwargs)

    def add_freejoint(self, **kwargs):
        """Adds a free joint."""
        el = self._new(MjsJoint, "joint", None, {})
        el._attrs["type"] = "free"
        for k, v in kwargs.items():
            setattr(el, k, v)
        return el

    def add_site(self, default=None, **kwargs):
        """Adds a site with the attributes `kwargs`."""
        return self._new(MjsSite, "site", default, kwargs)

    def add_camera(self, default=None, **kwargs):
        """Adds a camera with the attributes `kwargs`."""
        return self._new(MjsCamera, "camera", default, kwargs)

    def add_light(self, default=None, **kwargs):
        """Adds a light with the attributes `kwargs`."""
        return self._new(MjsLight, "light", default, kwargs)


class MjsGeom(MjsElement):
    """A geom (`mujoco.MjsGeom`)."""

    _ATTRS = _GEOM


class MjsJoint(MjsElement):
    """A joint (`mujoco.MjsJoint`); `<freejoint>` reads as a joint of type free."""

    _ATTRS = _JOINT
    _TAGS = ("joint",)

    def __getattr__(self, k):
        if self._tag == "freejoint":
            if k == "type":
                return mjtJoint.mjJNT_FREE
            if not k.startswith("_") and k in _JOINT and k not in ("name", "group"):
                return _JOINT[k]["default"] if _JOINT[k]["kind"] != "v" else \
                    _view(np.array(_JOINT[k]["default"], dtype=float), self, k)
        return super().__getattr__(k)

    def __setattr__(self, k, value):
        if self._tag == "freejoint" and k not in ("name", "group") and not k.startswith("_"):
            # a `<freejoint>` has only a name and a group: the same joint written in full
            object.__getattribute__(self, "__dict__")["_tag"] = "joint"
            self._attrs["type"] = "free"
        super().__setattr__(k, value)


class MjsSite(MjsElement):
    """A site (`mujoco.MjsSite`)."""

    _ATTRS = _SITE


class MjsCamera(MjsElement):
    """A camera (`mujoco.MjsCamera`)."""

    _ATTRS = _CAMERA


class MjsLight(MjsElement):
    """A light (`mujoco.MjsLight`)."""

    _ATTRS = _LIGHT


def _shortcut_gain_bias(el):
    """A position or velocity actuator's gain, bias and dynamics as MuJoCo's specification
    holds them (XML Reference, "actuator/position", "actuator/velocity"), from its `kp`,
    `kv` and `timeconst` (the element's, over its class's element of the same tag)."""
    tag = el._tag

    def num(attr, default):
        text = None
        for c in _class_chain(el, (tag,)) + [el]:
            if attr in c._attrs:
                text = c._attrs[attr]
        return float(text) if text is not None else default

    gain = [0.0] * 10
    bias = [0.0] * 10
    dyn = [1.0] + [0.0] * 9
    dyntype = mjtDyn.mjDYN_NONE
    if tag == "position":
        kp, kv = num("kp", 1.0), num("kv", 0.0)
        gain[0], bias[1], bias[2] = kp, -kp, -kv
        # a damping ratio is kept as a positive biasprm[2] until compiled (MuJoCo's)
        dr = num("dampratio", 0.0)
        if dr > 0:
            bias[2] = dr
        tc = num("timeconst", 0.0)
        if tc > 0:
            dyntype, dyn[0] = mjtDyn.mjDYN_FILTEREXACT, tc
    else:
        kv = num("kv", 1.0)
        gain[0], bias[2] = kv, -kv
    return {"gaintype": mjtGain.mjGAIN_FIXED, "biastype": mjtBias.mjBIAS_AFFINE,
            "dyntype": dyntype, "gainprm": np.array(gain), "biasprm": np.array(bias),
            "dynprm": np.array(dyn)}


_GAIN_BIAS = ("gaintype", "biastype", "dyntype", "gainprm", "biasprm", "dynprm")


class MjsActuator(MjsElement):
    """An actuator (`mujoco.MjsActuator`): `target` and `trntype` are the transmission (the
    XML's `joint=`, `tendon=`, `site=`, ... attribute); MJCF shortcuts read as the general
    actuator MuJoCo makes of them (`motor`, `position`, `velocity`; the others' gain, bias and
    dynamics raise `NotImplementedError`), and setting their gain, bias or dynamics writes them
    as `<general>`."""

    _ATTRS = _ACTUATOR
    _TAGS = _ACTUATOR_TAGS

    @property
    def _table(self):
        return {**_ACTUATOR, "target": _a("s", ""), "trntype": _a("e", mjtTrn.mjTRN_UNDEFINED)}

    def __getattr__(self, k):
        if k == "target":
            return next((self._attrs[a] for a in _TRN if a in self._attrs), "")
        if k == "trntype":
            return next((t for a, t in _TRN.items() if a in self._attrs),
                        mjtTrn.mjTRN_UNDEFINED)
        if k in _GAIN_BIAS and self._tag not in ("general", "motor"):
            if self._tag in ("position", "velocity"):
                v = _shortcut_gain_bias(self)[k]
                return _view(v, self, k) if isinstance(v, np.ndarray) else v
            raise NotImplementedError(f"moreau's MjSpec does not expand <{self._tag}> into a "
                                      f"general actuator: its {k} is not read")
        return super().__getattr__(k)

    def __setattr__(self, k, value):
        if k == "target":
            trn = self.trntype
            attr = _TRN_ATTR.get(trn, "joint")
            for a in _TRN:
                self._attrs.pop(a, None)
            if value:
                self._attrs[attr] = str(value)
            return
        if k == "trntype":
            if int(value) not in {int(t) for t in _TRN.values()}:
                raise ValueError(f"MjsActuator.trntype: {value!r} is not a transmission "
                                 "moreau writes (joint, jointinparent, tendon, site, "
                                 "slidercrank, body)")
            target = self.target
            for a in _TRN:
                self._attrs.pop(a, None)
            self._attrs[_TRN_ATTR[mjtTrn(int(value))]] = target
            return
        if k in _GAIN_BIAS and self._tag not in ("general", "motor"):
            self._to_general()
        if k in _GAIN_BIAS and self._tag == "motor":
            object.__getattribute__(self, "__dict__")["_tag"] = "general"
        super().__setattr__(k, value)

    def _to_general(self):
        """Rewrites a position or velocity shortcut as the general actuator it stands for."""
        if self._tag not in ("position", "velocity"):
            raise NotImplementedError(f"moreau's MjSpec does not expand <{self._tag}> into a "
                                      "general actuator")
        full = _shortcut_gain_bias(self)
        for a in _SHORTCUT_ATTRS:
            self._attrs.pop(a, None)
        object.__getattribute__(self, "__dict__")["_tag"] = "general"
        for k, v in full.items():
            MjsElement._write(self, _ACTUATOR, k, v)


class _Named(MjsElement):
    """An element moreau's `MjSpec` gives with its name only (tendon, sensor, equality,
    keyframe, asset)."""

    _ATTRS = _NAMED


class MjOptionSpec:
    """`spec.option`: the `<option>` element's physics options (`mujoco.MjOption` of a spec)."""

    def __init__(self, spec):
        self.__dict__["_spec"] = spec

    def _node(self, create):
        return self._spec._root._child("option", create=create)

    def __getattr__(self, k):
        if k not in _OPTION:
            raise AttributeError(f"'MjOption' object has no attribute '{k}' (moreau's MjSpec "
                                 "covers a subset: docs/python.md)")
        node = self._node(False)
        if node is None:
            node = _Node("option")
        v = _resolve(node, _OPTION, k, ())
        return _view(v, self, k) if isinstance(v, np.ndarray) else v

    def __setattr__(self, k, value):
        if k not in _OPTION:
            raise AttributeError(f"'MjOption' object has no attribute '{k}' (moreau's MjSpec "
                                 "covers a subset: docs/python.md)")
        MjsElement._write(self._node(True), _OPTION, k, value)


# tag -> element class, by the section the element is in (None: anywhere)
_CLASSES = {"body": MjsBody, "worldbody": MjsBody, "geom": MjsGeom, "joint": MjsJoint,
            "freejoint": MjsJoint, "site": MjsSite, "camera": MjsCamera, "light": MjsLight}
_SECTIONS = {
    "actuator": {t: MjsActuator for t in _ACTUATOR_TAGS},
    "tendon": {"fixed": _Named, "spatial": _Named},
    "equality": {t: _Named for t in ("connect", "weld", "joint", "tendon", "flex", "flexvert")},
    "keyframe": {"key": _Named},
    "asset": {t: _Named for t in ("mesh", "material", "texture", "hfield", "skin")},
}
# lists of the spec: attribute -> (section, tags)
_LISTS = {
    "tendons": ("tendon", ("fixed", "spatial")),
    "equalities": ("equality", ("connect", "weld", "joint", "tendon", "flex", "flexvert")),
    "keys": ("keyframe", ("key",)),
    "meshes": ("asset", ("mesh",)),
    "materials": ("asset", ("material",)),
    "textures": ("asset", ("texture",)),
    "hfields": ("asset", ("hfield",)),
}


def _node_class(tag, section, in_default):
    if in_default:
        return _Node
    if section == "worldbody" or tag == "worldbody":
        return _CLASSES.get(tag, _Node)
    if section == "sensor" and tag != "sensor":
        return _Named
    return _SECTIONS.get(section, {}).get(tag, _Node)


class MjSpec:
    """MuJoCo's model specification (`mujoco.MjSpec`, the part listed in docs/python.md):
    `from_string` / `from_file` read a document (raising the errors MuJoCo raises while
    reading), elements are found by name (`body`, `geom`, `joint`, `site`, `camera`, `light`,
    `actuator`, ...) and listed (`bodies`, `geoms`, ...), their attributes read and set as
    MuJoCo's, elements are added (`worldbody.add_body`, `body.add_geom`, `spec.add_actuator`,
    ...) and deleted (`delete`), `option` holds the physics options; `compile()` compiles the
    specification as it stands (as often as wanted), `to_xml()` writes it as MJCF."""

    def __init__(self):
        self._root = _Node("mujoco", spec=self)
        self._root._add(MjsBody("worldbody"))
        self._assets = None
        self._dir = None

    # ---- reading

    @staticmethod
    def from_string(xml, include=None, assets=None):
        """The specification of the MJCF document `xml`; `include` (the files `<include>`
        names) and `assets` (meshes, height fields, textures) map file names to their bytes.
        Errors MuJoCo 4.0.0 raises while reading (malformed XML, schema violations, bad
        numbers, unknown keywords or classes, repeated names, several orientations, missing
        include files) raise `MjcfLoadError` (a `ValueError`) here; the others at `compile`."""
        files = _files(include, assets)
        return MjSpec._build(_moreau._spec_parse(xml=xml, assets=files), files, None)

    @staticmethod
    def from_file(filename, include=None, assets=None):
        """The specification of the MJCF file `filename` (its files relative to its
        directory); `include` and `assets` as in `from_string`."""
        import os

        files = _files(include, assets)
        path = os.fspath(filename)
        spec = MjSpec._build(_moreau._spec_parse(path=path, assets=files), files, None)
        d = os.path.dirname(path)
        spec._dir = d + "/" if d else ""
        return spec

    @staticmethod
    def _build(elements, files, directory):
        spec = MjSpec.__new__(MjSpec)
        spec._assets = files
        spec._dir = directory
        nodes = []
        for parent, tag, attrs, text, _line in elements:
            if parent is None:
                node = _Node(tag, attrs, spec)
                spec._root = node
            else:
                p = nodes[parent]
                section = p._section if p._section is not None else (
                    tag if p._tag == "mujoco" else None)
                cls = _node_class(tag, p._section, p._in_default)
                node = cls(tag, attrs)
                p._add(node)
                node.__dict__["_section"] = section
            node.__dict__["_text"] = text
            node.__dict__["_in_default"] = tag == "default" or (
                parent is not None and nodes[parent]._in_default)
            if parent is None:
                node.__dict__["_section"] = None
            nodes.append(node)
        root = spec._root
        # the world body collects every <worldbody> section (as MuJoCo's)
        worlds = [c for c in root._children if c._tag == "worldbody"]
        if not worlds:
            root._add(MjsBody("worldbody"))
        else:
            for w in worlds[1:]:
                for c in w._children:
                    worlds[0]._add(c)
                root._children.remove(w)
        return spec

    # ---- elements

    @property
    def worldbody(self):
        """The world body."""
        return self._root._child("worldbody")

    def _all(self, cls, tags=None, section=None):
        out = []
        for n in self._root._walk():
            if not isinstance(n, cls):
                continue
            if tags is not None and n._tag not in tags:
                continue
            if section is not None and getattr(n, "_section", None) != section:
                continue
            out.append(n)
        return out

    @property
    def bodies(self):
        """Every body, the world first, in document order."""
        return self._all(MjsBody)

    def _in_bodies(self, cls):
        """The elements of `cls` body by body (bodies in depth-first order), as MuJoCo's
        lists."""
        return [el for b in self.bodies for el in b._items(cls)]

    @property
    def geoms(self):
        """Every geom, body by body."""
        return self._in_bodies(MjsGeom)

    @property
    def joints(self):
        """Every joint, body by body."""
        return self._in_bodies(MjsJoint)

    @property
    def sites(self):
        """Every site, body by body."""
        return self._in_bodies(MjsSite)

    @property
    def cameras(self):
        """Every camera, body by body."""
        return self._in_bodies(MjsCamera)

    @property
    def lights(self):
        """Every light, body by body."""
        return self._in_bodies(MjsLight)

    @property
    def actuators(self):
        return self._all(MjsActuator)

    @property
    def sensors(self):
        return [n for n in self._all(_Named) if n.__dict__.get("_section") == "sensor"]

    def __getattr__(self, k):
        if k in _LISTS:
            section, tags = _LISTS[k]
            return [n for n in self._all(_Named, tags) if n.__dict__.get("_section") == section]
        raise AttributeError(f"'MjSpec' object has no attribute '{k}' (moreau's MjSpec covers "
                             "a subset: docs/python.md)")

    def _find(self, items, name):
        for n in items:
            if n._attrs.get("name") == name or (n._tag == "worldbody" and name == "world"):
                return n
        return None

    def body(self, name):
        """The body named `name`, or None."""
        return self._find(self.bodies, name)

    def geom(self, name):
        return self._find(self.geoms, name)

    def joint(self, name):
        return self._find(self.joints, name)

    def site(self, name):
        return self._find(self.sites, name)

    def camera(self, name):
        return self._find(self.cameras, name)

    def light(self, name):
        return self._find(self.lights, name)

    def actuator(self, name):
        return self._find(self.actuators, name)

    def sensor(self, name):
        return self._find(self.sensors, name)

    def tendon(self, name):
        return self._find(self.tendons, name)

    def equality(self, name):
        return self._find(self.equalities, name)

    def key(self, name):
        return self._find(self.keys, name)

    def mesh(self, name):
        return self._find(self.meshes, name)

    def material(self, name):
        return self._find(self.materials, name)

    def texture(self, name):
        return self._find(self.textures, name)

    def add_actuator(self, default=None, **kwargs):
        """Adds a general actuator with the attributes `kwargs` (`target`, `trntype`, `gear`,
        `gainprm`, ...), as `mujoco.MjSpec.add_actuator`."""
        section = self._root._child("actuator")
        if section is None:
            section = self._root._add(_Node("actuator"))
            section.__dict__["_section"] = "actuator"
        el = MjsActuator("general")
        section._add(el)
        el.__dict__["_section"] = "actuator"
        if default is not None:
            el._attrs["class"] = default.name if isinstance(default, MjsDefault) else str(default)
        # the transmission type before the target (the target's attribute depends on it)
        items = sorted(kwargs.items(), key=lambda kv: kv[0] != "trntype")
        try:
            for k, v in items:
                setattr(el, k, v)
        except Exception:
            section._children.remove(el)
            raise
        return el

    def delete(self, element):
        """Removes `element` (with its subtree: a body's children, joints, geoms, ...)."""
        if not isinstance(element, MjsElement) or element._spec is not self:
            raise ValueError("delete: the element is not in this specification")
        if isinstance(element, MjsBody) and element._tag == "worldbody":
            raise ValueError("delete: the world body cannot be deleted")
        p = element._parent
        if p is None or element not in p._children:
            raise ValueError("delete: the element was deleted already")
        p._children.remove(element)
        element.__dict__["_parent"] = None
        if isinstance(element, MjsBody):
            self._delete_references(element)

    def _delete_references(self, body):
        """Removes the actuators, tendons, sensors, equalities and contact pairs that refer to
        an element of the deleted subtree of `body` (or to a tendon so removed), as MuJoCo's
        `delete` of a body does."""
        gone = {k: set() for k in ("body", "joint", "geom", "site", "camera", "tendon")}
        for n in body._walk():
            kind = {"body": "body", "joint": "joint", "freejoint": "joint", "geom": "geom",
                    "site": "site", "camera": "camera"}.get(n._tag)
            if kind and "name" in n._attrs:
                gone[kind].add(n._attrs["name"])
        changed = True
        while changed:
            changed = False
            for section in ("actuator", "tendon", "sensor", "equality", "contact"):
                for sec in [c for c in self._root._children if c._tag == section]:
                    for el in list(sec._children):
                        if _refers(el, gone):
                            sec._children.remove(el)
                            el.__dict__["_parent"] = None
                            if section == "tendon" and "name" in el._attrs:
                                gone["tendon"].add(el._attrs["name"])
                            changed = True

    @property
    def option(self):
        """The physics options (`timestep`, `gravity`, ...)."""
        return MjOptionSpec(self)

    @property
    def modelfiledir(self):
        """The directory the model's files are relative to (`from_file`'s), '' for none."""
        return self._dir or ""

    @modelfiledir.setter
    def modelfiledir(self, d):
        self._dir = str(d)

    @property
    def modelname(self):
        return self._root._attrs.get("model", "MuJoCo Model")

    @modelname.setter
    def modelname(self, name):
        self._root._attrs["model"] = str(name)

    def copy(self):
        """An independent copy of the specification."""
        return _copy.deepcopy(self)

    # ---- output

    def to_xml(self):
        """The specification as an MJCF document (includes expanded; attributes as read or
        set, angles and orientations as given): compiling it gives the model `compile` gives."""
        out = []
        stack = [(self._root, 0, False)]
        while stack:
            node, depth, closing = stack.pop()
            pad = "  " * depth
            if closing:
                out.append(f"{pad}</{node._tag}>\n")
                continue
            attrs = dict(node._attrs)
            if any(a in attrs for a in _ALT) and node._tag != "inertial":
                attrs.pop("quat", None)  # the alternative wins, as in MuJoCo's compiler
            text = "".join(f" {k}={quoteattr(v)}" for k, v in attrs.items())
            body = escape(node._text.strip()) if node._text and node._text.strip() else ""
            if not node._children and not body:
                out.append(f"{pad}<{node._tag}{text}/>\n")
                continue
            if not node._children:
                out.append(f"{pad}<{node._tag}{text}>{body}</{node._tag}>\n")
                continue
            out.append(f"{pad}<{node._tag}{text}>{body}\n" if body else f"{pad}<{node._tag}{text}>\n")
            stack.append((node, depth, True))
            for c in reversed(node._children):
                stack.append((c, depth + 1, False))
        return "".join(out)

    def compile(self):
        """Compiles the specification as it stands into an `MjModel` (again after every
        edit). Errors as `MjModel.from_xml_string`'s (`ValueError`); each warning of the
        compiler is raised as a `UserWarning` with MuJoCo's text, as `mujoco.MjSpec.compile`."""
        m, warns = _moreau._spec_compile(self.to_xml(), self._dir or None, self._assets)
        for w in warns:
            warnings.warn(w, UserWarning, stacklevel=2)
        return m

    def __repr__(self):
        return f"<moreau.MjSpec {self.modelname!r}>"


# reference attributes -> the kind of element they name
_REFS = {"joint": "joint", "jointinparent": "joint", "joint1": "joint", "joint2": "joint",
         "site": "site", "cranksite": "site", "slidersite": "site", "refsite": "site",
         "site1": "site", "site2": "site", "sidesite": "site", "body": "body", "body1": "body",
         "body2": "body", "geom": "geom", "geom1": "geom", "geom2": "geom", "tendon": "tendon",
         "tendon1": "tendon", "tendon2": "tendon", "camera": "camera"}


def _refers(el, gone):
    """Whether `el` or one of its children names an element of `gone` (kind -> names);
    a sensor's `objname`/`refname` by its `objtype`/`reftype`."""
    for n in el._walk():
        for k, v in n._attrs.items():
            kind = _REFS.get(k)
            if kind is None and k in ("objname", "refname"):
                t = n._attrs.get("objtype" if k == "objname" else "reftype", "")
                kind = {"xbody": "body", "body": "body"}.get(t, t)
            if kind in gone and v in gone[kind]:
                return True
    return False


def _files(include, assets):
    if include is None and assets is None:
        return None
    out = {}
    for d in (include, assets):
        if d:
            out.update(d)
    return out
