#!/usr/bin/env python3
"""Prints STRUCTURAL of python/src/batch_fields.rs: MuJoCo 4.0.0's expandable model fields
(`mujoco.batch.MODEL_FIELDS`) that moreau's MjModel has as arrays but that moreau's batch does
not give per-simulation values of (its read-only copies: ids, addresses, counts, types,
keyframes, derived patterns).

Run with both packages installed (moreau built by `maturin develop`):
    python python/tools/gen_batch_structural.py
"""
import numpy as np

import moreau
from moreau import _moreau
import mujoco
from mujoco import batch as mj_batch

assert mujoco.__version__ == "4.0.0", mujoco.__version__

model = moreau.MjModel.from_xml_string("<mujoco/>")
values = set(_moreau._Batch.value_fields())
names = sorted(
    n for n in mj_batch.MODEL_FIELDS
    if not n.startswith("opt.") and n not in values
    and isinstance(getattr(model, n, None), np.ndarray)
)
print("pub const STRUCTURAL: &[&str] = &[")
for n in names:
    print(f'    "{n}",')
print("];")
