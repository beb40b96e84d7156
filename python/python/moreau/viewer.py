"""The page of `moreau view` from Python: a model and its trajectories in 3-D, in a browser.

    import moreau, numpy as np
    from moreau import viewer

    m = moreau.MjModel.from_xml_path("humanoid.xml")
    d = moreau.MjData(m)
    qpos = []
    for _ in range(500):
        moreau.mj_step(m, d)
        qpos.append(d.qpos.copy())
    page = viewer.html(m, np.array(qpos))   # shown inline when it is a cell's value in Jupyter
    page.save("humanoid.html")              # or open it in any browser, offline

`html(model, trajectory)` returns a `Page`: the HTML document as a `str` (three.js, the model's
geometry and every frame's body poses inside; it needs no network), which Jupyter displays
inline. The page plays the trajectories overlaid (the first in the model's colours, the others
tinted), with play/pause, a time slider, speed, camera orbit and the contacts' points and
forces.

A trajectory is any of:

- a path to a JSON file written by `moreau simulate`, `moreau replay` or an optimizer;
- a dict with that file's keys: `qpos` (rows of `nq` numbers), optionally `time` (one per row;
  else rows are `opt.timestep` apart), `qvel`, `act`, `ctrl`, recorded `contact` lists, and
  overlays `NAME_qpos` (an optimizer's `plan_qpos`); values may be NumPy arrays;
- an array of `qpos` rows (`T × nq`), or one `qpos` (drawn still);
- a list of the above, overlaid.

Without a trajectory the model is drawn at `qpos0`. Contacts recorded in the trajectory are
shown as recorded; otherwise they are computed from the state (forces when `qvel`, and for
actuated models `ctrl`, are given; points only from `qpos` alone).
"""

import html as _html
import json
import os

import numpy as np

from moreau import _moreau

__all__ = ["html", "Page"]


class Page(str):
    """A viewer page: the HTML document (a `str`). Jupyter shows it inline, in an iframe of
    `height` pixels; `save(path)` writes it to a file any browser opens offline."""

    height = 600

    def _repr_html_(self):
        return (
            '<iframe srcdoc="%s" style="width: 100%%; height: %dpx; border: 0" '
            'sandbox="allow-scripts"></iframe>' % (_html.escape(str(self), quote=True), self.height)
        )

    def save(self, path):
        """Writes the page to `path` (UTF-8) and returns `path`."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(str(self))
        return path


def _plain(x):
    """JSON's `default`: NumPy arrays and scalars as lists and numbers."""
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, np.generic):
        return x.item()
    raise TypeError("%s is not a number, list, array or dict" % type(x).__name__)


def _is_one(t):
    """Whether `t` is one trajectory (not a list of them)."""
    if isinstance(t, (str, os.PathLike, dict, np.ndarray)):
        return True
    if isinstance(t, (list, tuple)):
        # a list of rows of numbers (qpos) is one trajectory; a list of paths, dicts or
        # arrays is several
        return not any(isinstance(e, (str, os.PathLike, dict, np.ndarray)) for e in t)
    return True


def _one(model, t, name):
    """(name, JSON text) of one trajectory."""
    if isinstance(t, (str, os.PathLike)):
        path = os.fspath(t)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        return os.path.splitext(os.path.basename(path))[0] or name, text
    if isinstance(t, dict):
        obj = t
    else:
        q = np.asarray(t, dtype=np.float64)
        if q.ndim == 1:
            q = q[None, :]
        if q.ndim != 2 or q.shape[1] != model.nq:
            raise ValueError(
                "trajectory %r: qpos rows must have nq = %d entries (got shape %s)"
                % (name, model.nq, np.shape(t))
            )
        obj = {"qpos": q}
    try:
        text = json.dumps(obj, default=_plain, allow_nan=False)
    except ValueError as e:
        raise ValueError("trajectory %r: %s (only finite numbers are drawn)" % (name, e)) from None
    return name, text


def html(model, trajectory=None, *, names=None, title=None, max_fps=120.0, height=600):
    """The viewer page of `model` (an `MjModel`) playing `trajectory` (see the module's doc:
    a path, a dict, an array of qpos rows, or a list of them, overlaid; None draws `qpos0`).

    `names` labels the trajectories in the page's legend (default: the file's name, else
    "trajectory", "trajectory 2", ...); `title` is the page's title; rows closer in time than
    `1 / max_fps` are skipped (the page interpolates between the rows kept); `height` is the
    inline frame's height in Jupyter. Raises `ValueError` for a trajectory that does not fit
    the model, `OSError` for a file that cannot be read.
    """
    if trajectory is None:
        items = []
    elif _is_one(trajectory):
        items = [trajectory]
    else:
        items = list(trajectory)
    if names is not None:
        names = list(names)
        if len(names) != len(items):
            raise ValueError("%d names for %d trajectories" % (len(names), len(items)))
    pairs = []
    for i, t in enumerate(items):
        default = "trajectory" if i == 0 else "trajectory %d" % (i + 1)
        name, text = _one(model, t, names[i] if names is not None else default)
        if names is not None:
            name = names[i]
        pairs.append((name, text))
    page = Page(_moreau.viewer_page(model, pairs, title, float(max_fps)))
    page.height = int(height)
    return page
