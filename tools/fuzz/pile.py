#!/usr/bin/env python3
"""Rebuilds the fuzzer's slowest inputs: models/convex_pairs.xml with copies of its convex geoms
(mesh, box, ellipsoid, cylinder) piled onto its seven free bodies, as the mutator's "huge
counts" edit (an element repeated 10 to 1,000 times, fuzz/src/mutate.rs) makes them.

  python3 tools/fuzz/pile.py NGEOM [OUT] [--concentric] [--model models/convex_pairs.xml]

NGEOM is the model's total geom count (the model's own 14 plus NGEOM - 14 copies). Copy k is the
k-th convex geom of the model (in document order, cycling) without its name, position and
orientation, so it sits at the origin of free body k mod 7, overlapping that body's own geom and
the fixed geom under it. The output is a fuzz input (fuzz/src/harness.rs: the document alone;
the model's mesh is inline) and loads with `moreau` and MuJoCo alike. Without OUT it goes to
standard output.

--concentric also drops the free bodies' `pos` (the mutator's attribute deletion), so all seven
bodies start at the world origin and every geom of one body is concentric with every geom of
another: the class of the slow inputs (GJK gets no direction from two equal centres).
"""
import argparse
import re
import sys

CONVEX = ("mesh", "box", "ellipsoid", "cylinder")


def pile(text, ngeom, concentric=False):
    # the geoms of the world body (not the <default> class's)
    geoms = re.findall(r"<geom\b[^>]*/>", text[text.index("<worldbody>"):])
    templates = []
    for g in geoms:
        t = re.search(r'\btype="([^"]*)"', g)
        if t and t.group(1) in CONVEX:
            # drop the name (copies must not repeat it), the placement and the orientation
            templates.append(re.sub(r'\s(name|pos|euler|quat|axisangle)="[^"]*"', "", g))
    free = [m.end() for m in re.finditer(r"<freejoint\s*/>", text)]
    extra = ngeom - len(geoms)
    if not templates or not free or extra < 0:
        sys.exit(f"pile: {len(geoms)} geoms, {len(templates)} convex, {len(free)} free bodies")
    # the copies of each free body, inserted after its <freejoint/> (from the end: offsets hold)
    per = [[] for _ in free]
    for k in range(extra):
        per[k % len(free)].append(templates[k % len(templates)])
    out = text
    for b in reversed(range(len(free))):
        at = free[b]
        out = out[:at] + "".join("\n      " + g for g in per[b]) + out[at:]
    if concentric:
        out = re.sub(r'(<body name="[^"]*") pos="[^"]*"', r"\1", out)
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("ngeom", type=int)
    p.add_argument("out", nargs="?")
    p.add_argument("--concentric", action="store_true")
    p.add_argument("--model", default="models/convex_pairs.xml")
    a = p.parse_args()
    text = pile(open(a.model).read(), a.ngeom, a.concentric)
    if a.out:
        open(a.out, "w").write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
