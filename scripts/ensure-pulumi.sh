#!/usr/bin/env bash
# Provide the real Pulumi CLI for keboola-pulumi's tests and `npm run quickstart`, and print the
# directory holding it (nothing else on stdout; progress and notes go to stderr).
#
#   bin_dir=$(bash scripts/ensure-pulumi.sh) && PATH="$bin_dir:$PATH" pulumi version
#
# Which CLI:
#   - By default (the tests, CI) the pinned build: pulumi of exactly the version vX of the
#     @pulumi/pulumi SDK in node_modules, so every run is reproducible. A `pulumi` on PATH that
#     reports vX, with pulumi-language-nodejs beside it, is that build too and is used as is.
#   - With KEBOOLA_PULUMI_USE_PATH=1 (the quickstart's default), the `pulumi` on PATH when it reports
#     at least the minimum version keboola-pulumi supports (engines.pulumi in package.json) and has
#     pulumi-language-nodejs and pulumi-resource-pulumi-nodejs beside it, as every Pulumi
#     installation does. An older or incomplete one is ignored, with a note saying why.
#   - Otherwise the pinned build from the cache, built from source on first use by
#     scripts/pulumi-cli/build.sh (the Go module proxy, a few minutes; Go >= 1.25 needed) into
#     ${KEBOOLA_PULUMI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/keboola-pulumi}/pulumi-vX-KEY, where KEY
#     hashes vX and every file under scripts/pulumi-cli/ (the recipe and the language host's Go
#     source): changing any of them builds anew, nothing else does. The build happens in a
#     temporary directory under the cache, moved in place at the end, so an interrupted build never
#     leaves a half-filled cache. Concurrent callers wait on a lock.
#
# The pinned build's bin directory holds:
#   pulumi                          built from github.com/pulumi/pulumi/pkg/v3@vX (Go module proxy)
#   pulumi-language-nodejs          a minimal Node.js language host: runs programs and generates the
#                                   Node.js SDK (scripts/pulumi-cli/language-host)
#   pulumi-resource-pulumi-nodejs   the dynamic-provider launcher shipped in @pulumi/pulumi
#   pulumi-language-yaml            github.com/pulumi/pulumi-yaml's language host (Pulumi YAML programs)
#   pulumi-language-go              minimal Go and Python language hosts that only generate SDKs
#   pulumi-language-python          (`pulumi package gen-sdk`, scripts/gen-sdk.sh; scripts/pulumi-cli/language-host-{go,python})
#
# Options:
#   --cache-dir   print the cache directory of the pinned build (its bin/ is what a run prints) and exit
# Environment:
#   KEBOOLA_PULUMI_USE_PATH  1: use the `pulumi` on PATH when it is recent enough (see above)
#   KEBOOLA_PULUMI_NO_PATH   1: ignore any `pulumi` on PATH
#   KEBOOLA_PULUMI_CACHE     cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/keboola-pulumi)
#   KEBOOLA_PULUMI_REBUILD   1: rebuild even when the cache is valid
set -euo pipefail
unset CDPATH # keep `cd` quiet: stdout is only for the bin directory

log() { printf '[ensure-pulumi] %s\n' "$*" >&2; }
die() {
  log "error: $*"
  exit 1
}

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$SCRIPT_DIR/.." && pwd)
RECIPE_DIR="$SCRIPT_DIR/pulumi-cli"
SDK_NPM_DIR="$REPO_ROOT/node_modules/@pulumi/pulumi"

command -v node >/dev/null 2>&1 || die "node is not on PATH"
[ -f "$SDK_NPM_DIR/package.json" ] ||
  die "$SDK_NPM_DIR/package.json not found: run 'npm ci' (or 'npm install') in $REPO_ROOT first"

# The pinned version, the minimum version and the cache key, in one node run.
info=$(node -e '
  const fs = require("fs"), path = require("path"), crypto = require("crypto");
  const [pkgFile, sdkPkgFile, recipeDir] = process.argv.slice(1);
  const version = JSON.parse(fs.readFileSync(sdkPkgFile, "utf8")).version;
  const min = /^>=\s*(\d+\.\d+\.\d+)$/.exec(JSON.parse(fs.readFileSync(pkgFile, "utf8")).engines?.pulumi ?? "")?.[1] ?? "-";
  const hash = crypto.createHash("sha256").update(`pulumi v${version}\0`);
  const walk = (dir) => fs.readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
  for (const file of walk(recipeDir)) hash.update(`${path.relative(recipeDir, file)}\0`).update(fs.readFileSync(file)).update("\0");
  console.log(version, min, hash.digest("hex").slice(0, 16));
' "$REPO_ROOT/package.json" "$SDK_NPM_DIR/package.json" "$RECIPE_DIR")
read -r VERSION MIN KEY <<<"$info"
[[ "$VERSION" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "unexpected @pulumi/pulumi version '$VERSION'"
[ "$MIN" != - ] || die "package.json has no engines.pulumi of the form '>=X.Y.Z' (the minimum Pulumi CLI version)"
V="v$VERSION"

CACHE_ROOT="${KEBOOLA_PULUMI_CACHE:-${XDG_CACHE_HOME:-${HOME:?neither HOME nor XDG_CACHE_HOME is set}/.cache}/keboola-pulumi}"
ENTRY="pulumi-$V-$KEY"
DEST="$CACHE_ROOT/$ENTRY"

case "${1:-}" in
  "") ;;
  --cache-dir)
    printf '%s\n' "$DEST"
    exit 0
    ;;
  *) die "unknown argument '$1' (the only option is --cache-dir)" ;;
esac

# pulumi_version DIR: the version the pulumi in DIR reports, or nothing.
pulumi_version() {
  PULUMI_SKIP_UPDATE_CHECK=true "$1/pulumi" version 2>/dev/null | tr -d '[:space:]' || true
}

# version_at_least VERSION MIN: VERSION (vX.Y.Z, maybe with -prerelease or +build) >= MIN (X.Y.Z).
# A prerelease of MIN itself is below it.
version_at_least() {
  [[ "$1" =~ ^v?([0-9]+)\.([0-9]+)\.([0-9]+)(-[^+]*)?(\+.*)?$ ]] || return 1
  local got=("${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" "${BASH_REMATCH[3]}") pre=${BASH_REMATCH[4]} want i
  IFS=. read -r -a want <<<"$2"
  for i in 0 1 2; do
    ((10#${got[i]} > 10#${want[i]})) && return 0
    ((10#${got[i]} < 10#${want[i]})) && return 1
  done
  [ -z "$pre" ]
}

# missing_plugins DIR: the plugins a Node.js program needs that DIR lacks (nothing when complete).
missing_plugins() {
  local p
  for p in pulumi-language-nodejs pulumi-resource-pulumi-nodejs; do
    [ -x "$1/$p" ] || printf '%s ' "$p"
  done
}

use() {
  log "$1"
  printf '%s\n' "$2"
  exit 0
}

# 1. A pulumi on PATH.
path_note=
if [ "${KEBOOLA_PULUMI_NO_PATH:-0}" != 1 ] && on_path=$(command -v pulumi 2>/dev/null); then
  path_dir=$(dirname "$(readlink -f "$on_path")")
  got=$(pulumi_version "$path_dir")
  missing=$(missing_plugins "$path_dir")
  if [ "${KEBOOLA_PULUMI_USE_PATH:-0}" = 1 ]; then
    if ! version_at_least "$got" "$MIN"; then
      log "note: not using the pulumi on PATH ($on_path): it reports '${got:-no version}', keboola-pulumi needs v$MIN or later"
    elif [ -n "$missing" ]; then
      log "note: not using the pulumi on PATH ($on_path, $got): $path_dir lacks ${missing% }"
    else
      use "using your Pulumi CLI $got ($path_dir)" "$path_dir"
    fi
  elif [ "$got" = "$V" ] && [ -z "$missing" ]; then
    use "using the Pulumi CLI $V on PATH ($path_dir)" "$path_dir"
  elif version_at_least "$got" "$MIN" && [ -z "$missing" ]; then
    path_note="your Pulumi CLI $got on PATH would do as well: KEBOOLA_PULUMI_USE_PATH=1 uses it instead of this build"
  fi
fi

# 2. The cache.
cache_valid() {
  [ "${KEBOOLA_PULUMI_REBUILD:-0}" != 1 ] && [ -f "$DEST/.complete" ] &&
    [ -z "$(missing_plugins "$DEST/bin")" ] && [ "$(pulumi_version "$DEST/bin")" = "$V" ]
}
cached() { use "using the Pulumi CLI $V built from source ($DEST/bin)" "$DEST/bin"; }
cache_valid && cached

# 3. Build. Serialize concurrent callers (e.g. parallel test workers) on a lock, then look again.
ESTIMATE="about 3 minutes on 2 cores, less with more cores or a warm Go build cache"
mkdir -p "$CACHE_ROOT"
if command -v flock >/dev/null 2>&1; then
  exec 9>"$CACHE_ROOT/.lock-$ENTRY"
  if ! flock -n 9; then
    log "another process is building the Pulumi CLI $V into $DEST; waiting for it ($ESTIMATE)"
    flock 9
  fi
  cache_valid && cached
  # We hold the lock for this entry: build directories left by killed builds are stale.
  rm -rf "$CACHE_ROOT/.build-$ENTRY."* 2>/dev/null || {
    chmod -R u+w "$CACHE_ROOT/.build-$ENTRY."* 2>/dev/null || true
    rm -rf "$CACHE_ROOT/.build-$ENTRY."*
  }
fi

log "Building the Pulumi CLI $V from source (first run only; $ESTIMATE)."
log "  It is cached in $DEST and reused until the pinned @pulumi/pulumi version or scripts/pulumi-cli/ changes."
if [ -n "$path_note" ]; then
  log "  ($path_note)"
elif [ "${KEBOOLA_PULUMI_USE_PATH:-0}" = 1 ]; then
  log "  (with a Pulumi CLI v$MIN or later installed on PATH, that one would be used instead of building)"
else
  log "  (with a Pulumi CLI v$MIN or later installed, KEBOOLA_PULUMI_USE_PATH=1 uses it instead of building)"
fi
command -v go >/dev/null 2>&1 || die "go is not on PATH: Go >= 1.25 is needed to build the Pulumi CLI $V"

started=$SECONDS
WORK=$(mktemp -d "$CACHE_ROOT/.build-$ENTRY.XXXXXX")
cleanup() {
  chmod -R u+w "$WORK" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

OUT="$WORK/out"
# Not handing it the lock (fd 9): nothing the build leaves running may hold it.
bash "$RECIPE_DIR/build.sh" "$V" "$SDK_NPM_DIR" "$WORK" "$OUT" >&2 9>&-

got=$(pulumi_version "$OUT/bin")
[ "$got" = "$V" ] || die "built pulumi reports version '$got', expected $V"
[ "$("$OUT/bin/pulumi-language-nodejs" -version | tr -d '[:space:]')" = "$V" ] ||
  die "built pulumi-language-nodejs does not report $V"
[ -z "$(missing_plugins "$OUT/bin")" ] || die "the build did not produce $(missing_plugins "$OUT/bin")"
[ -x "$OUT/bin/pulumi-language-yaml" ] || die "the build did not produce pulumi-language-yaml"
for lang in go python; do
  [ "$("$OUT/bin/pulumi-language-$lang" -version 2>/dev/null | tr -d '[:space:]')" = "$V" ] ||
    die "the build did not produce pulumi-language-$lang reporting $V"
done
printf '%s\n' "$KEY" >"$OUT/.complete"

# Move into place: a rename within the cache root, so the cache is never half-filled.
cd "$CACHE_ROOT"
if [ -e "$DEST" ]; then
  mv "$DEST" "$WORK/stale"
fi
mv "$OUT" "$DEST"
s=$((SECONDS - started))
use "Pulumi CLI $V ready in $(printf '%dm%02ds' $((s / 60)) $((s % 60))): $DEST/bin" "$DEST/bin"
