#!/usr/bin/env bash
# make openapi-check: lint and validate docs/openapi.json with two validators
# from npm, generate a TypeScript client from it, type-check the client's
# calls, and run them against a local runner on free ports.
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -f node_modules/.installed ] || [ package-lock.json -nt node_modules/.installed ]; then
	npm ci --no-audit --no-fund --loglevel=error
	touch node_modules/.installed
fi
doc=../../docs/openapi.json
npx --no-install redocly lint --format=summary "$doc"
node validate.mjs "$doc"
npx --no-install openapi-typescript "$doc" -o api.d.ts
npx --no-install tsc -p .
echo "tsc: the client's calls type-check against the generated types"

tmp=$(mktemp -d)
trap 'kill "$runner" 2>/dev/null || true; wait "$runner" 2>/dev/null || true; rm -rf "$tmp"' EXIT
go build -o "$tmp/local" ../../lambdas/local
"$tmp/local" -api-addr 127.0.0.1:0 -dynamodb-addr 127.0.0.1:0 >"$tmp/out" 2>&1 &
runner=$!
for _ in $(seq 100); do
	url=$(awk '$1 == "API:" { print $2; exit }' "$tmp/out")
	[ -n "$url" ] && break
	sleep 0.1
done
[ -n "$url" ] || { cat "$tmp/out"; exit 1; }
node client.ts "$url"
