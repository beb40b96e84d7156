"""Count the public API a user of a crate can reach, from rustdoc's JSON output.

Usage: python3 tools/api_count.py target/doc/CRATE.json [...] (docs/architecture.md, "The public API, counted")
Items counted: everything under crate 0 in `paths` (modules, structs, enums, traits, functions,
constants, statics, type aliases, macros), plus the public methods and fields in the index.
"""
import json, sys, collections
for f in sys.argv[1:]:
    j = json.load(open(f))
    kinds = collections.Counter()
    for iid, p in j["paths"].items():
        if p["crate_id"] == 0:
            kinds[p["kind"]] += 1
    idx = j["index"]
    meth = fields = 0
    for iid, it in idx.items():
        if it.get("crate_id") != 0:
            continue
        inner = it.get("inner", {})
        if "impl" in inner:
            imp = inner["impl"]
            if imp.get("trait") is None:
                for m in imp["items"]:
                    mi = idx.get(str(m)) or idx.get(m)
                    if mi and mi.get("visibility") == "public" and "function" in mi.get("inner", {}):
                        meth += 1
        if "struct_field" in inner and it.get("visibility") == "public":
            fields += 1
    total = sum(kinds.values())
    print(f"{f}: {total} paths {dict(sorted(kinds.items()))}; inherent pub methods {meth}; pub fields {fields}")
