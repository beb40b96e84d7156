#!/usr/bin/env python3
"""Writes python/moreau/_moreau.pyi, the type stubs of the extension module, from the built
module's signatures and docstrings (run after `maturin develop` or `pip install ./python`):

    python python/tools/gen_stubs.py

python/tests/test_api.py checks that the stubs name every public name of the module.
"""

import inspect
import pathlib

import numpy as np  # noqa: F401  (the stubs refer to numpy types)

from moreau import _moreau

OUT = pathlib.Path(__file__).resolve().parents[1] / "python" / "moreau" / "_moreau.pyi"

# argument name -> annotation
ARGS = {
    "m": "MjModel",
    "d": "MjData",
    "dest": "MjData",
    "src": "MjData | ArrayLike",
    "nstep": "int",
    "key": "int",
    "sig": "int",
    "srcsig": "int",
    "dstsig": "int",
    "state": "NDArray[np.float64]",
    "jacp": "NDArray[np.float64] | None",
    "jacr": "NDArray[np.float64] | None",
    "point": "ArrayLike",
    "body": "int",
    "site": "int",
    "geom": "int",
    "qvel": "NDArray[np.float64]",
    "qpos": "NDArray[np.float64]",
    "qpos1": "ArrayLike",
    "qpos2": "ArrayLike",
    "dt": "float",
    "pnt": "ArrayLike",
    "vec": "ArrayLike",
    "geomgroup": "ArrayLike | None",
    "flg_static": "bool",
    "bodyexclude": "int",
    "geomid": "NDArray[np.int32] | None",
    "normal": "NDArray[np.float64] | None",
    "dist": "NDArray[np.float64]",
    "nray": "int",
    "cutoff": "float",
    "type": "int",
    "name": "str",
    "id": "int",
    "dst": "NDArray[np.float64]",
    "res": "NDArray[np.float64]",
    "eps": "float",
    "flg_centered": "bool",
    "flg_actuation": "bool",
    "x": "NDArray[np.float64]",
    "u": "NDArray[np.float64]",
    "jacobian": "str | None",
    "centered": "bool",
    "method": "str",
    "sensors": "bool",
    "trajectories": "list[tuple[str, str]]",
    "title": "str | None",
    "max_fps": "float",
    "xml": "str",
    "path": "str | os.PathLike[str]",
    "assets": "dict[str, bytes] | None",
    "modelfiledir": "str | None",
}
RETURNS = {
    "contact_trajopt": "CollocationResult",
    "ilqr": "IlqrResult",
    "record": "Recording",
    "identify": "Identified",
    "excitation": "NDArray[np.float64]",
    "mj_stateSize": "int",
    "mj_ray": "float",
    "mj_name2id": "int",
    "mj_id2name": "str | None",
    "mj_version": "int",
    "mj_versionString": "str",
    "viewer_page": "str",
    "_step": "NDArray[np.float64] | tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]",
    "transition": "tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]",
    "inverse": "tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]",
    "_spec_parse": "list[tuple[int | None, str, list[tuple[str, str]], str, int]]",
    "_spec_compile": "tuple[MjModel, list[str]]",
}


def annot(p):
    a = ARGS.get(p.name, "NDArray[np.float64] | None" if p.name[0].isupper() else "object")
    if p.name == "src" and "mj_copyData":
        a = "MjData"
    default = "" if p.default is inspect.Parameter.empty else f" = {p.default!r}"
    if p.default is None and "None" not in a and a != "object":
        a += " | None"
    return f"{p.name}: {a}{default}"


def doc(obj, indent):
    text = inspect.getdoc(obj) or ""
    if not text:
        return ""
    pad = " " * indent
    lines = text.replace('"""', "'''").splitlines()
    body = "\n".join(pad + ln if ln else "" for ln in lines)
    return f'{pad}"""\n{body}\n{pad}"""\n'


def function(name, f, indent=0):
    sig = inspect.signature(f)
    params = ", ".join(annot(p) for p in sig.parameters.values())
    ret = RETURNS.get(name, "None")
    pad = " " * indent
    d = doc(f, indent + 4)
    return f"{pad}def {name}({params}) -> {ret}:\n{d}{pad}    ...\n" if d else f"{pad}def {name}({params}) -> {ret}: ...\n"


def klass(name, cls):
    out = [f"class {name}:\n", doc(cls, 4)]
    for attr in sorted(vars(cls)):
        if attr.startswith("__") and attr not in ("__init__", "__len__", "__getitem__", "__copy__", "__deepcopy__", "__getattr__", "__setattr__"):
            continue
        v = getattr(cls, attr)
        if attr == "_arrays":
            out.append("    _arrays: tuple[str, ...]\n")
        elif isinstance(v, (staticmethod,)) or (callable(v) and attr in ("from_xml_path", "from_xml_string")):
            sig = "filename: str | os.PathLike[str]" if attr == "from_xml_path" else "xml: str"
            out.append(f"    @staticmethod\n    def {attr}({sig}, assets: dict[str, bytes] | None = None) -> MjModel:\n{doc(v, 8)}        ...\n")
        elif type(v).__name__ == "getset_descriptor":
            kind = "NDArray[Any]"
            if attr.startswith("n") and attr not in ("name",) and name == "MjModel" and attr[1:].isalpha() and len(attr) < 13:
                kind = "int"
            if name == "MjData" and attr in ("time",):
                kind = "float"
            if name == "MjData" and attr in ("ncon", "nefc", "nisland", "ne", "nf", "nl", "nJ", "nA",
                                             "nidof", "nbody_awake", "ntree_awake", "nv_awake",
                                             "nparent_awake", "narena", "maxuse_con", "maxuse_efc"):
                kind = "int"
            if name == "MjData" and attr in ("flg_energypos", "flg_energyvel"):
                kind = "bool"
            if name == "MjData" and attr == "model":
                kind = "MjModel"
            if name == "MjData" and attr == "contact":
                kind = "MjContactList"
            if name == "MjData" and attr == "warning":
                kind = "list[MjWarningStat]"
            if name == "MjData" and attr == "solver":
                kind = "_MjSolverStatList"
            if name == "MjModel" and attr == "opt":
                kind = "MjOption"
            if name == "MjOption":
                kind = "NDArray[np.float64]" if attr in ("gravity", "wind", "magnetic", "o_solref", "o_solimp", "o_friction") else ("float" if attr in ("timestep", "impratio", "tolerance", "ls_tolerance", "noslip_tolerance", "ccd_tolerance", "sleep_tolerance", "density", "viscosity", "o_margin") else "int")
            if name in ("MjWarningStat",):
                kind = "int"
            if name == "MjSolverStat":
                kind = "float" if attr in ("improvement", "gradient", "lineslope") else "int"
            if name == "_MjSolverStatList":
                kind = "NDArray[Any]"
            if name in ("MjContactList", "MjContact"):
                kind = "Any"
            if name == "_NamedAccess":
                kind = "int" if attr == "id" else "str"
            if cls.__module__ == "moreau.optim":
                kind = "Any"
            out.append(f"    @property\n    def {attr}(self) -> {kind}:\n{doc(v, 8)}        ...\n")
        elif callable(v):
            if attr in ("body", "joint", "jnt", "geom", "site", "camera", "actuator", "tendon", "sensor", "equality", "key", "keyframe"):
                out.append(f"    def {attr}(self, key: int | str) -> _NamedAccess:\n{doc(v, 8)}        ...\n")
            elif attr == "__init__" or attr == "__new__":
                pass
            elif cls.__module__ == "moreau.optim":
                try:
                    sig = inspect.signature(v)
                    params = ", ".join(["self"] + [annot(p) for p in list(sig.parameters.values())[1:]])
                except (TypeError, ValueError):
                    params = "self, *args: Any, **kwargs: Any"
                out.append(f"    def {attr}({params}) -> Any:\n{doc(v, 8)}        ...\n")
            elif attr == "name":
                out.append(f"    def name(self, objtype: int, id: int) -> str | None:\n{doc(v, 8)}        ...\n")
            elif attr == "__len__":
                out.append("    def __len__(self) -> int: ...\n")
            elif attr == "__getitem__":
                out.append("    def __getitem__(self, i: int) -> MjContact: ...\n")
            elif attr == "__getattr__":
                out.append("    def __getattr__(self, attr: str) -> NDArray[Any]: ...\n")
            elif attr == "__setattr__":
                out.append("    def __setattr__(self, attr: str, value: Any) -> None: ...\n")
            elif attr == "__copy__":
                out.append(f"    def __copy__(self) -> {name}: ...\n")
            elif attr == "__deepcopy__":
                out.append(f"    def __deepcopy__(self, memo: Any) -> {name}: ...\n")
    if name == "MjData":
        out.insert(2, "    def __init__(self, model: MjModel) -> None: ...\n")
    if cls.__module__ == "moreau.optim" and cls.__text_signature__:
        params = cls.__text_signature__.strip("()").replace("$self, ", "").replace("$self", "")
        out.insert(2, f"    def __init__(self, {params}) -> None: ...\n")
    return "".join(out) + "\n"


def main():
    parts = [
        '"""Type stubs of `moreau._moreau` (written by python/tools/gen_stubs.py)."""\n\n',
        "import os\nfrom types import ModuleType\nfrom typing import Any\n\nimport numpy as np\n",
        "from numpy.typing import ArrayLike, NDArray\n\n",
        "class MjcfLoadError(ValueError):\n" + doc(_moreau.MjcfLoadError, 4)
        + "    file: str\n    line: int\n    column: int\n    element: str | None\n"
        "    attribute: str | None\n    kind: str\n\n",
        "class FatalError(Exception):\n" + doc(_moreau.FatalError, 4) + "\n",
        "class UnstableSimulationError(RuntimeError):\n" + doc(_moreau.UnstableSimulationError, 4)
        + "    warning: int\n    index: int\n\n",
    ]
    for name in ["MjModel", "MjOption", "MjData", "MjContactList", "MjContact", "MjWarningStat",
                 "MjSolverStat", "_MjSolverStatList", "_NamedAccess", "_Rollout", "_Batch"]:
        parts.append(klass(name, getattr(_moreau, name)))
    for name in sorted(dir(_moreau)):
        f = getattr(_moreau, name)
        if callable(f) and not isinstance(f, type) and type(f).__name__ == "builtin_function_or_method":
            parts.append(function(name, f) + "\n")
    # module constants (mjNISLAND, ...)
    for name in sorted(dir(_moreau)):
        if not name.startswith("_") and type(getattr(_moreau, name)) is int:
            parts.append(f"{name}: int\n\n")
    optim = _moreau.optim
    opt_classes = [n for n in dir(optim) if isinstance(getattr(optim, n), type)]
    for name in opt_classes:
        parts.append(klass(name, getattr(optim, name)))
    parts.append("class _Optim(ModuleType):\n")
    for name in opt_classes:
        parts.append(f"    {name}: type[{name}]\n")
    for name in sorted(dir(optim)):
        f = getattr(optim, name)
        if type(f).__name__ == "builtin_function_or_method":
            parts.append("    @staticmethod\n" + function(name, f, 4))
    parts.append("\noptim: _Optim\n\n")
    parts.append("class _Derivatives(ModuleType):\n")
    for name in ["transition", "inverse"]:
        parts.append("    @staticmethod\n" + function(name, getattr(_moreau.derivatives, name), 4))
    parts.append("\nderivatives: _Derivatives\n")
    OUT.write_text("".join(parts))
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
