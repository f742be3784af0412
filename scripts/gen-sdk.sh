#!/usr/bin/env bash
# Generate the Node.js (TypeScript), Go and Python SDKs of the Keboola provider from schema.json with
# the pinned Pulumi CLI (`pulumi package gen-sdk`, the language hosts of scripts/pulumi-cli/):
#
#   bash scripts/gen-sdk.sh [OUT]     (npm run sdk)
#
# writes OUT/nodejs, OUT/go and OUT/python, replacing what they held; OUT defaults to the
# repository's sdk/, where the SDKs are checked in. The Node.js SDK is generated with --local, the
# flavour Pulumi makes for an SDK used from a directory rather than from npm (what `pulumi package
# add` does): its package.json has "main": "bin/index.js" and a postinstall script that compiles the
# TypeScript, so `npm install --install-links <this repo>/sdk/nodejs` gives a working package. test/e2e/sdk.e2e.test.ts runs this into a
# temporary directory and fails when the result differs from sdk/: after changing schema.json
# (npm run schema), run `npm run sdk` and commit sdk/ with it.
set -euo pipefail
unset CDPATH

log() { printf '[gen-sdk] %s\n' "$*" >&2; }
die() {
  log "error: $*"
  exit 1
}

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$SCRIPT_DIR/.." && pwd)
SCHEMA="$REPO_ROOT/schema.json"
LANGUAGES=(nodejs go python)

[ $# -le 1 ] || die "usage: gen-sdk.sh [OUT] (default: $REPO_ROOT/sdk)"
OUT=${1:-$REPO_ROOT/sdk}
[ -f "$SCHEMA" ] || die "$SCHEMA not found"

# The pinned build (not a newer pulumi on PATH, whose code generators may write other code).
BIN_DIR=$(KEBOOLA_PULUMI_USE_PATH=0 bash "$SCRIPT_DIR/ensure-pulumi.sh")
for lang in "${LANGUAGES[@]}"; do
  [ -x "$BIN_DIR/pulumi-language-$lang" ] || die "$BIN_DIR has no pulumi-language-$lang"
done

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
# Generate into a temporary directory, then swap each language's directory in.
WORK=$(mktemp -d "${TMPDIR:-/tmp}/keboola-gen-sdk.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir "$WORK/home" "$WORK/out"

for lang in "${LANGUAGES[@]}"; do
  log "generating the $lang SDK"
  flags=()
  [ "$lang" != nodejs ] || flags=(--local)
  # A fresh PULUMI_HOME: nothing of the user's Pulumi setup (plugins, credentials) takes part. The
  # language hosts are the ones beside this pulumi, never others on PATH.
  if ! res=$(cd "$WORK" && env PATH="$BIN_DIR:$PATH" HOME="$WORK/home" PULUMI_HOME="$WORK/home" \
    PULUMI_SKIP_UPDATE_CHECK=true PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true \
    PULUMI_IGNORE_AMBIENT_PLUGINS=true \
    "$BIN_DIR/pulumi" package gen-sdk "$SCHEMA" --language "$lang" ${flags[@]+"${flags[@]}"} --out "$WORK/out" 2>&1); then
    printf '%s\n' "$res" >&2
    die "pulumi package gen-sdk --language $lang failed"
  fi
  # Anything but the closing "SDK has been written to ..." is a diagnostic worth showing.
  grep -v '^SDK has been written to ' <<<"$res" >&2 || true
done

chmod -R u=rwX,go=rX "$WORK/out" # the CLI creates each SDK's directory private (0700)
for lang in "${LANGUAGES[@]}"; do
  rm -rf "${OUT:?}/$lang"
  mv "$WORK/out/$lang" "$OUT/$lang"
done
log "SDKs written to $OUT: ${LANGUAGES[*]}"
