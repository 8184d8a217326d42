"""Compares `intentc explain --json` (or `profiles show --json`) output without and
with an override that replaces exactly one family: every other kernel/family is
identical; the replaced family's rows are exactly the override rows, in file order."""
import json, sys

kind, base_path, over_path, family, override_path = sys.argv[1:6]
base = json.load(open(base_path))
over = json.load(open(over_path))
rows = json.load(open(override_path))["triton"][family]

def check_rows(got):
    assert [r["source"] for r in got] == ["override"] * len(rows), got
    assert [r["index"] for r in got] == list(range(len(rows))), got
    vals = [list(r["requested"].values()) if "requested" in r else r["values"] for r in got]
    assert vals == rows, (vals, rows)

if kind == "explain":
    assert len(base["kernels"]) == len(over["kernels"])
    changed = 0
    for b, o in zip(base["kernels"], over["kernels"]):
        if b["family"] != family:
            assert b == o, "kernel %s (family %s) changed" % (b["kernel"], b["family"])
            continue
        changed += 1
        for key in ("kernel", "family", "structure", "facts", "parameters"):
            assert b[key] == o[key], key
        assert b["rows"] != o["rows"]
        check_rows(o["rows"])
        assert o["candidates"] == sum(r["status"] in ("kept", "unknown") for r in o["rows"])
    assert changed == 1, changed
else:
    assert base["columns"] == over["columns"]
    assert base["families"].keys() == over["families"].keys()
    for f in base["families"]:
        if f == family:
            check_rows(over["families"][f])
        else:
            assert base["families"][f] == over["families"][f], f
            assert all(r["source"] == "default" for r in over["families"][f]), f
print("ok")
