#!/usr/bin/env bash
# The build recipe of the Pulumi CLI that scripts/ensure-pulumi.sh provides: it compiles pulumi vX,
# our Node.js language host (language-host/main.go), our Go and Python language hosts, which only
# generate SDKs (language-host-go, language-host-python; all three share sdkgen/), and the YAML
# language host into OUT/bin, working in WORK.
#
#   bash scripts/pulumi-cli/build.sh vX SDK_NPM_DIR WORK OUT
#
# Run it through scripts/ensure-pulumi.sh, which checks what was built, caches it and serializes
# concurrent builds. Everything in this directory is part of that cache's key: editing any file
# here (this recipe, the language host) makes the next run rebuild.
#
# Why not simply `go install .../pkg/v3/cmd/pulumi@vX`: pkg/go.mod replaces sdk/v3 with ../sdk, which
# `go install pkg@version` refuses. So pkg and sdk are laid out side by side and built in place.
# Why our own language host: the upstream one (module .../sdk/nodejs/cmd/pulumi-language-nodejs/v3)
# has no release tags and the Go module proxy reachable here does not serve it at any commit.
# A user's own Pulumi installation ships the upstream one; ours serves only this build. The same holds
# for the upstream Go and Python language hosts: ours only answer `pulumi package gen-sdk` (scripts/gen-sdk.sh).
#
# Progress goes to stderr: a step line per step, and a line every 30 s during the long ones.
set -euo pipefail
unset CDPATH

V=${1:?usage: build.sh vX SDK_NPM_DIR WORK OUT}
SDK_NPM_DIR=${2:?usage: build.sh vX SDK_NPM_DIR WORK OUT}
WORK=${3:?usage: build.sh vX SDK_NPM_DIR WORK OUT}
OUT=${4:?usage: build.sh vX SDK_NPM_DIR WORK OUT}
RECIPE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

log() { printf '[ensure-pulumi] %s\n' "$*" >&2; }
die() {
  log "error: $*"
  exit 1
}

started=$SECONDS
elapsed() {
  local s=$((SECONDS - started))
  printf '%dm%02ds' $((s / 60)) $((s % 60))
}

# step N LABEL COMMAND...: run COMMAND under a step line, with a line every 30 s while it runs.
ticker=
stop_ticker() {
  if [ -n "$ticker" ]; then
    kill "$ticker" 2>/dev/null || true
    wait "$ticker" 2>/dev/null || true
    ticker=
  fi
}
trap stop_ticker EXIT
step() {
  local label=$2
  log "[$1/6] $label"
  shift 2
  # sleep gets no handle on our stderr: a reader waiting for it to close must not wait on a stray sleep.
  (
    while sleep 30 </dev/null >/dev/null 2>&1; do log "      ... still $label ($(elapsed) since the build started)"; done
  ) &
  ticker=$!
  "$@"
  stop_ticker
}

export GOWORK=off CGO_ENABLED=0 GOFLAGS="-mod=mod"
export GONOSUMDB="${GONOSUMDB:-}"

# json_get FIELD: print a top-level string field of the JSON on stdin.
json_get() {
  node -e '
    let s = "";
    process.stdin.on("data", (d) => (s += d)).on("end", () => {
      let v;
      try { v = JSON.parse(s)[process.argv[1]]; } catch {}
      if (typeof v === "string") process.stdout.write(v);
    });' "$1"
}

# module_dir MODULE@VERSION: download a module; set MODULE_DIR to its directory in the module cache.
module_dir() {
  local out err
  MODULE_DIR=
  out=$(cd "$WORK" && go mod download -json "$1" 2>&1) || true
  MODULE_DIR=$(printf '%s' "$out" | json_get Dir)
  err=$(printf '%s' "$out" | json_get Error)
  if [ -z "$MODULE_DIR" ] || [ -n "$err" ]; then
    # The checksum database may not know a release ("verifying go.mod ... 404 Not Found"). The module's
    # content still comes from the module proxy; skip the checksum database for github.com/pulumi/pulumi only.
    if [[ "$err" == *verifying* || "$err" == *sumdb* ]] && [[ ",$GONOSUMDB," != *,github.com/pulumi/pulumi,* ]]; then
      log "warning: the checksum database cannot verify $1; retrying without it for github.com/pulumi/pulumi"
      log "  ($err)"
      GONOSUMDB="${GONOSUMDB:+$GONOSUMDB,}github.com/pulumi/pulumi"
      module_dir "$1"
      return
    fi
    die "could not download $1: ${err:-$out}"
  fi
}

download_sources() {
  module_dir "github.com/pulumi/pulumi/pkg/v3@$V"
  PKG_MOD_DIR=$MODULE_DIR
  module_dir "github.com/pulumi/pulumi/sdk/v3@$V"
  SDK_MOD_DIR=$MODULE_DIR
}
step 1 "downloading the sources of github.com/pulumi/pulumi pkg/v3 and sdk/v3 $V (Go module proxy)" download_sources

# Lay pkg and sdk out side by side, as in the pulumi repository, so pkg's `replace ... => ../sdk` resolves.
# Tests and their testdata are left out: nine files in ten of pkg, which the build never reads.
SRC="$WORK/src"
copy_module() {
  mkdir -p "$2"
  (cd "$1" && tar -cf - --exclude=testdata --exclude='*_test.go' .) | (cd "$2" && tar -xf -)
}
copy_module "$PKG_MOD_DIR" "$SRC/pkg"
copy_module "$SDK_MOD_DIR" "$SRC/sdk"
chmod -R u+w "$SRC" # module cache copies are read-only
grep -q '=> \.\./sdk' "$SRC/pkg/go.mod" || log "warning: pkg/go.mod no longer replaces sdk/v3 with ../sdk"

# The language hosts are packages of the pkg module, so they build with the very dependency versions
# (and mostly the same compiled packages) as the CLI; sdkgen, their shared SDK generation, too.
LH_PKG=./cmd/keboola-pulumi-language-nodejs
LH_GO_PKG=./cmd/keboola-pulumi-language-go
LH_PYTHON_PKG=./cmd/keboola-pulumi-language-python
for d in "$LH_PKG:language-host" "$LH_GO_PKG:language-host-go" "$LH_PYTHON_PKG:language-host-python" \
  ./cmd/keboola-pulumi-sdkgen:sdkgen; do
  mkdir -p "$SRC/pkg/${d%%:*}"
  cp "$RECIPE_DIR/${d#*:}"/*.go "$SRC/pkg/${d%%:*}/"
done

cd "$SRC/pkg"
# Loading the packages downloads exactly the modules the four commands need.
step 2 "downloading the Go modules the CLI depends on" \
  go list -deps ./cmd/pulumi "$LH_PKG" "$LH_GO_PKG" "$LH_PYTHON_PKG" >/dev/null

mkdir -p "$OUT/bin"
LDFLAGS="-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$V"
step 3 "compiling pulumi (the longest step)" \
  go build -trimpath -buildvcs=false -ldflags "$LDFLAGS" -o "$OUT/bin/pulumi" ./cmd/pulumi
step 4 "compiling the Node.js language host (scripts/pulumi-cli/language-host)" \
  go build -trimpath -buildvcs=false -ldflags "$LDFLAGS" -o "$OUT/bin/pulumi-language-nodejs" "$LH_PKG"
build_codegen_hosts() {
  go build -trimpath -buildvcs=false -ldflags "$LDFLAGS" -o "$OUT/bin/pulumi-language-go" "$LH_GO_PKG"
  go build -trimpath -buildvcs=false -ldflags "$LDFLAGS" -o "$OUT/bin/pulumi-language-python" "$LH_PYTHON_PKG"
}
step 5 "compiling the Go and Python language hosts, for SDK generation only (scripts/pulumi-cli/language-host-{go,python})" \
  build_codegen_hosts

# The YAML language host, for Pulumi YAML programs served by the provider plugin (pulumi-resource-keboola):
# its own module, built from the Go module proxy at the release pinned here (a Pulumi installation ships
# it beside the CLI; `go install module@version` builds it with its own go.mod's dependency versions).
YAML_V=v1.25.0
build_yaml_host() {
  (cd "$WORK" && GOBIN="$OUT/bin" go install -trimpath -buildvcs=false -ldflags "-s -w" "github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml@$YAML_V")
}
step 6 "compiling the YAML language host (github.com/pulumi/pulumi-yaml $YAML_V)" build_yaml_host

# The dynamic-provider launcher resolves @pulumi/pulumi/cmd/dynamic-provider from its working
# directory (the Pulumi program's), so a copy works for any checkout; no link into this repo.
cp "$SDK_NPM_DIR/pulumi-resource-pulumi-nodejs" "$OUT/bin/pulumi-resource-pulumi-nodejs"
chmod 755 "$OUT/bin/pulumi-resource-pulumi-nodejs"
