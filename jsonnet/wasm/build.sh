#!/usr/bin/env bash
# Rebuilds jsonnet.wasm.gz + wasm_exec.js from main.go (needs the Go toolchain; the
# module versions are pinned by go.mod/go.sum). Not run by `npm ci`: the build output
# is committed, so installing the package needs neither Go nor a C++ toolchain.
set -euo pipefail
cd "$(dirname "$0")"
GOROOT="$(go env GOROOT)"
GOOS=js GOARCH=wasm CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags="-s -w" -o jsonnet.wasm .
gzip -9 -n -c jsonnet.wasm > jsonnet.wasm.gz
rm jsonnet.wasm
# wasm_exec.js must come from the same Go release as the build (Go >= 1.24 keeps it in lib/wasm).
cp "$GOROOT/lib/wasm/wasm_exec.js" wasm_exec.js 2>/dev/null || cp "$GOROOT/misc/wasm/wasm_exec.js" wasm_exec.js
{
  echo "go: $(go version)"
  echo "go-jsonnet: $(grep 'keboola/go-jsonnet' go.mod | sed 's/.*=> //')"
  echo "sha256 jsonnet.wasm.gz: $(sha256sum jsonnet.wasm.gz | cut -d' ' -f1)"
  echo "sha256 wasm_exec.js: $(sha256sum wasm_exec.js | cut -d' ' -f1)"
} > BUILD-INFO.txt
cat BUILD-INFO.txt
