#!/usr/bin/env python3
"""Compilation units of the fresh-clone build sequence, from cargo's unit graph (the build is
planned, not run, so the count does not depend on the machine's load):
    cargo build -p moreau-cli; cargo build --workspace --examples; cargo test --workspace --no-run
Each step counts the units the earlier steps did not build (a unit: package, target, mode,
profile, features, platform and, recursively, its dependencies), and how many of them are the
engine library (`moreau`) and nalgebra.
usage: tools/bench/build_units.py [REPO_DIR]   (default: this repository's working tree)
Needs `RUSTC_BOOTSTRAP=1` for `-Z unstable-options --unit-graph` on a stable toolchain (set here).
"""
import hashlib
import json
import os
import subprocess
import sys

repo = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', '..')
env = dict(os.environ, RUSTC_BOOTSTRAP='1', RUSTC_WRAPPER='')
steps = [['build', '-p', 'moreau-cli'], ['build', '--workspace', '--examples'],
         ['test', '--workspace', '--no-run']]
built = set()
for cmd in steps:
    out = subprocess.run(['cargo', *cmd, '--unit-graph', '-Z', 'unstable-options'], cwd=repo,
                         env=env, capture_output=True, text=True, check=True).stdout
    units = json.loads(out)['units']
    memo = {}

    def key(i):
        if i not in memo:
            u = units[i]
            prof = dict(u['profile'])
            prof.pop('name', None)
            k = json.dumps([u['pkg_id'], u['target']['name'], u['target']['kind'],
                            u['target'].get('crate_types'), u['mode'], sorted(u['features']),
                            u['platform'], prof,
                            sorted(key(d['index']) for d in u['dependencies'])], sort_keys=True)
            memo[i] = hashlib.sha1(k.encode()).hexdigest()
        return memo[i]

    new = []
    for i, u in enumerate(units):
        if u['mode'] != 'run-custom-build' and key(i) not in built:
            built.add(key(i))
            new.append(u)

    def name(u):
        return u['pkg_id'].split('#')[-1].split('@')[0].split('/')[-1]

    def libs(n):
        return sum(1 for u in new if name(u) == n and u['mode'] == 'build'
                   and u['target']['kind'] in (['lib'], ['rlib']))

    print(f"cargo {' '.join(cmd)}: {len(new)} units; engine library {libs('moreau')}, "
          f"nalgebra {libs('nalgebra')}; {len(built)} so far")
