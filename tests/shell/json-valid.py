# json-valid.py SCHEMA DEF FILE - FILE holds exactly one JSON object on one line,
# valid against the schema's $defs/DEF (run, check, recall). Says why not on stdout as
# TAP comments; exit 0 when valid.
import json
import sys

import jsonschema

schema_path, name, path = sys.argv[1:4]
with open(schema_path) as f:
    schema = json.load(f)
data = open(path, "rb").read()
lines = data.split(b"\n")
if len(lines) != 2 or lines[1] != b"":
    print("# not one line ending in a newline: %d lines" % (len(lines) - 1))
    sys.exit(1)
try:
    obj = json.loads(lines[0])
except ValueError as e:
    print("# not JSON: %s" % e)
    sys.exit(1)
if not isinstance(obj, dict):
    print("# not an object")
    sys.exit(1)
whole = jsonschema.Draft202012Validator(schema)
whole.check_schema(schema)
one = dict(schema)
del one["oneOf"]
one["$ref"] = "#/$defs/" + name
errors = list(jsonschema.Draft202012Validator(one).iter_errors(obj))
errors += list(whole.iter_errors(obj))
for e in errors[:5]:
    print("# %s: %s" % ("/".join(str(p) for p in e.absolute_path) or "(top)", e.message[:300]))
sys.exit(1 if errors else 0)
