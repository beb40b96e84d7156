"""The summation order of MuJoCo 4.0.0's `mju_dot`, found on the oracle: four lane sums over
whole groups of four, joined as (s0 + s2) + (s1 + s3), then the last one to three products summed
among themselves and added. Checks that order (moreau's `math::dense::dot_mj`) against
`mujoco.mju_dot` bit for bit on random vectors and prints the number of mismatches (0 expected)
next to a plain left-to-right sum's.
usage: python3 tools/bench/mju_dot_order.py [CASES]"""
import sys

import mujoco
import numpy as np


def dot_mj(a, b):
    n = len(a)
    acc = [0.0] * 4
    i = 0
    while i + 4 <= n:
        for k in range(4):
            acc[k] += a[i + k] * b[i + k]
        i += 4
    s = (acc[0] + acc[2]) + (acc[1] + acc[3])
    r = n - i
    if r == 3:
        s += (a[i] * b[i] + a[i + 1] * b[i + 1]) + a[i + 2] * b[i + 2]
    elif r == 2:
        s += a[i] * b[i] + a[i + 1] * b[i + 1]
    elif r == 1:
        s += a[i] * b[i]
    return s


def dot_seq(a, b):
    s = 0.0
    for x, y in zip(a, b):
        s += x * y
    return s


def main():
    cases = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    rng = np.random.default_rng(7)
    bad_mj = bad_seq = 0
    for _ in range(cases):
        n = int(rng.integers(0, 130))
        a = rng.standard_normal(n) * np.exp(rng.standard_normal(n) * 4)
        b = rng.standard_normal(n) * np.exp(rng.standard_normal(n) * 2)
        r = mujoco.mju_dot(a, b)
        la, lb = list(map(float, a)), list(map(float, b))
        bad_mj += dot_mj(la, lb) != r
        bad_seq += dot_seq(la, lb) != r
    print(f"{cases} cases: dot_mj {bad_mj} mismatches, left-to-right sum {bad_seq}")
    sys.exit(1 if bad_mj else 0)


if __name__ == "__main__":
    main()
