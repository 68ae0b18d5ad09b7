#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Validate tdtrace --json files against share/tdtrace-trace.schema.json.

  tools/check-json.py SCHEMA FILE...

Every line must parse and match the schema; each file must start with the
header record and hold at most one summary record, last. Prints one line per
problem (file:line: why) and a closing count; exits 1 on any problem, 2 when
the jsonschema module is missing (the caller reports a skip)."""
import json
import sys

try:
    import jsonschema
except ImportError:
    print("check-json: the python3 jsonschema module is not installed")
    sys.exit(2)


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip().splitlines()[2].strip())
        return 2
    with open(sys.argv[1]) as f:
        schema = json.load(f)
    v = jsonschema.Draft202012Validator(schema)
    by_type = {t: jsonschema.Draft202012Validator({"$defs": schema["$defs"], "$ref": "#/$defs/" + t})
               for t in schema["$defs"] if "properties" in schema["$defs"][t]
               and "type" in schema["$defs"][t]["properties"]}
    bad = records = 0
    for name in sys.argv[2:]:
        with open(name, encoding="utf-8", errors="strict") as f:
            lines = f.read().splitlines()
        types = []
        for n, line in enumerate(lines, 1):
            records += 1
            try:
                r = json.loads(line)
            except ValueError as e:
                print(f"{name}:{n}: not JSON: {e}")
                bad += 1
                continue
            if list(v.iter_errors(r)):
                # say why against the branch of the record's own type
                t = r.get("type") if isinstance(r, dict) else None
                branch = by_type.get(t) if isinstance(t, str) else None
                e = next(iter(branch.iter_errors(r)), None) if branch else None
                why = f"{e.message} (at {'/'.join(map(str, e.absolute_path)) or 'top'})" if e else "no record type matches"
                print(f"{name}:{n}: {t or '?'} record: {why}")
                bad += 1
            types.append(r.get("type") if isinstance(r, dict) else None)
        if not types or types[0] != "header":
            print(f"{name}: the first record is not the header")
            bad += 1
        if "summary" in types and (types.count("summary") > 1 or types[-1] != "summary"):
            print(f"{name}: the summary record is not one and last")
            bad += 1
    print(f"check-json: {records} records in {len(sys.argv) - 2} files, {bad} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
