#!/usr/bin/env bash
# Rebuilds viewer/assets/three.min.js, the three.js build that `moreau view` embeds in its pages
# (include_str!, so pages need no network): fetches the `three` package from the npm registry,
# checks the tarball against the integrity hash the registry publishes for that version (pinned
# below), bundles the library with its OrbitControls into one classic script (global `THREE`)
# with esbuild, and compares the result with the committed file's SHA-256.
#
#   tools/viewer/fetch_three.sh           # check: rebuild in a temporary directory and compare
#   tools/viewer/fetch_three.sh --write   # replace the committed build (after a version bump)
#
# Needs node and npm. The build is deterministic for fixed versions of three and esbuild.
set -euo pipefail
THREE_VERSION=0.187.0
THREE_INTEGRITY=sha512-Qiu7R+Cmh8CstZsY1uJOSWnVlfo7ZtNLV7mF8Jltk3LB3AtDu9cRZlcnRKkAk8Y4z6KKw35z7Y7Urd7jWY8etA==
ESBUILD_VERSION=0.28.2

root=$(cd "$(dirname "$0")/../.." && pwd)
assets="$root/viewer/assets"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

npm pack --silent "three@$THREE_VERSION" >/dev/null
tgz="three-$THREE_VERSION.tgz"
got="sha512-$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)"
if [ "$got" != "$THREE_INTEGRITY" ]; then
    echo "fetch_three: $tgz: integrity $got, expected $THREE_INTEGRITY" >&2
    exit 1
fi
npm init -y >/dev/null
npm install --silent --no-audit --no-fund "./$tgz" "esbuild@$ESBUILD_VERSION" >/dev/null
cat > entry.js <<'JS'
export * from 'three';
export { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
JS
./node_modules/.bin/esbuild entry.js --bundle --format=iife --global-name=THREE --minify \
    --target=es2020 --log-level=warning --outfile=three.min.js
tar xzf "$tgz" package/LICENSE

if [ "${1:-}" = "--write" ]; then
    mkdir -p "$assets"
    cp three.min.js "$assets/three.min.js"
    cp package/LICENSE "$assets/three.LICENSE"
    (cd "$assets" && sha256sum three.min.js > three.min.js.sha256)
    echo "wrote $assets/three.min.js (three $THREE_VERSION, esbuild $ESBUILD_VERSION)"
    exit 0
fi
want=$(cut -d' ' -f1 "$assets/three.min.js.sha256")
have=$(sha256sum three.min.js | cut -d' ' -f1)
committed=$(sha256sum "$assets/three.min.js" | cut -d' ' -f1)
if [ "$have" != "$want" ] || [ "$committed" != "$want" ]; then
    echo "fetch_three: rebuilt $have, recorded $want, committed file $committed" >&2
    exit 1
fi
echo "three.min.js: three $THREE_VERSION rebuilt, sha256 $have matches"
