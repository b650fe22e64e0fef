#!/bin/sh
# schema-header.sh - data/result.schema.json as one C string, for the MCP server's
# outputSchema: the contract is written once, in the shipped file.
# Usage: schema-header.sh result.schema.json > src/agent/result_schema.h
set -eu
in=${1:?usage: schema-header.sh FILE.json}
echo "/* Generated from data/result.schema.json by tools/schema-header.sh: do not edit. */"
echo "#define PDK_RESULT_SCHEMA_JSON \\"
sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/	"/' -e 's/$/\\n" \\/' "$in"
echo '	""'
