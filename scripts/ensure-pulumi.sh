#!/usr/bin/env bash
# Provide the real Pulumi CLI, of exactly the version of the pinned @pulumi/pulumi SDK,
# for keboola-pulumi's tests, and print the directory holding it (nothing else on stdout).
#
#   bin_dir=$(bash scripts/ensure-pulumi.sh) && PATH="$bin_dir:$PATH" pulumi version
#
# The bin directory holds:
#   pulumi                          built from github.com/pulumi/pulumi/pkg/v3@vX (Go module proxy)
#   pulumi-language-nodejs          a minimal Node.js language host (Go source below), built against sdk/v3@vX
#   pulumi-resource-pulumi-nodejs   the dynamic-provider launcher shipped in @pulumi/pulumi
#
# Lookup order: a `pulumi` on PATH that reports vX and has a pulumi-language-nodejs beside it;
# then the cache ${KEBOOLA_PULUMI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/keboola-pulumi}/pulumi-vX;
# otherwise build into a temporary directory under the cache and move it in place at the end,
# so an interrupted build never leaves a half-filled cache. Concurrent callers wait on a lock.
#
# Why not simply `go install .../pkg/v3/cmd/pulumi@vX`: pkg/go.mod replaces sdk/v3 with ../sdk, which
# `go install pkg@version` refuses. So pkg and sdk are laid out side by side and built in place.
# Why our own language host: the upstream one (module .../sdk/nodejs/cmd/pulumi-language-nodejs/v3)
# has no release tags and the Go module proxy reachable here does not serve it at any commit.
#
# Environment:
#   KEBOOLA_PULUMI_CACHE   cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/keboola-pulumi)
#   KEBOOLA_PULUMI_NO_PATH set to 1 to ignore a `pulumi` found on PATH
#   KEBOOLA_PULUMI_REBUILD set to 1 to rebuild even when the cache is valid
set -euo pipefail
unset CDPATH # keep `cd` quiet: stdout is only for the bin directory

# Bump when the build recipe or the language host source changes: older caches are then rebuilt.
RECIPE=1

log() { printf '[ensure-pulumi] %s\n' "$*" >&2; }
die() {
  log "error: $*"
  exit 1
}

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$SCRIPT_DIR/.." && pwd)
SDK_NPM_DIR="$REPO_ROOT/node_modules/@pulumi/pulumi"

command -v node >/dev/null 2>&1 || die "node is not on PATH"
[ -f "$SDK_NPM_DIR/package.json" ] ||
  die "$SDK_NPM_DIR/package.json not found: run 'npm ci' (or 'npm install') in $REPO_ROOT first"
VERSION=$(node -p 'require(process.argv[1]).version' "$SDK_NPM_DIR/package.json")
[[ "$VERSION" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "unexpected @pulumi/pulumi version '$VERSION'"
V="v$VERSION"

CACHE_ROOT="${KEBOOLA_PULUMI_CACHE:-${XDG_CACHE_HOME:-${HOME:?neither HOME nor XDG_CACHE_HOME is set}/.cache}/keboola-pulumi}"
DEST="$CACHE_ROOT/pulumi-$V"
STAMP_TEXT="pulumi $V recipe $RECIPE"

# pulumi_version DIR: the version the pulumi in DIR reports, or nothing.
pulumi_version() {
  PULUMI_SKIP_UPDATE_CHECK=true "$1/pulumi" version 2>/dev/null | tr -d '[:space:]' || true
}

# usable_bin_dir DIR: DIR has a pulumi of version vX and the Node.js language host.
usable_bin_dir() {
  [ -x "$1/pulumi" ] && [ -x "$1/pulumi-language-nodejs" ] && [ "$(pulumi_version "$1")" = "$V" ]
}

# cache_valid: the cache for vX is complete, built by the current recipe, and works.
cache_valid() {
  [ "${KEBOOLA_PULUMI_REBUILD:-0}" != 1 ] &&
    [ -f "$DEST/.complete" ] && [ "$(cat "$DEST/.complete")" = "$STAMP_TEXT" ] &&
    [ -x "$DEST/bin/pulumi-resource-pulumi-nodejs" ] && usable_bin_dir "$DEST/bin"
}

# 1. A pulumi of the right version on PATH.
if [ "${KEBOOLA_PULUMI_NO_PATH:-0}" != 1 ] && on_path=$(command -v pulumi 2>/dev/null); then
  path_dir=$(dirname "$(readlink -f "$on_path")")
  if usable_bin_dir "$path_dir"; then
    log "using pulumi $V from PATH ($path_dir)"
    printf '%s\n' "$path_dir"
    exit 0
  fi
fi

# 2. The cache.
if cache_valid; then
  printf '%s\n' "$DEST/bin"
  exit 0
fi

# 3. Build. Serialize concurrent callers (e.g. parallel test workers) on a lock, then look again.
mkdir -p "$CACHE_ROOT"
if command -v flock >/dev/null 2>&1; then
  exec 9>"$CACHE_ROOT/.lock-$V"
  if ! flock -n 9; then
    log "another process is building pulumi $V; waiting for it"
    flock 9
  fi
  if cache_valid; then
    printf '%s\n' "$DEST/bin"
    exit 0
  fi
  # We hold the lock for this version: build directories left by killed builds are stale.
  rm -rf "$CACHE_ROOT/.build-$V."* 2>/dev/null || {
    chmod -R u+w "$CACHE_ROOT/.build-$V."* 2>/dev/null || true
    rm -rf "$CACHE_ROOT/.build-$V."*
  }
fi

command -v go >/dev/null 2>&1 || die "go is not on PATH: Go >= 1.25 is needed to build the Pulumi CLI $V"

started=$(date +%s)
WORK=$(mktemp -d "$CACHE_ROOT/.build-$V.XXXXXX")
cleanup() {
  chmod -R u+w "$WORK" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
log "building pulumi $V in $WORK (takes several minutes on a cold Go cache)"

export GOWORK=off CGO_ENABLED=0 GOFLAGS="-mod=mod"
export GONOSUMDB="${GONOSUMDB:-}"

# json_get FIELD: print a top-level string field (or Origin.Hash as "Origin.Hash") of the JSON on stdin.
json_get() {
  node -e '
    let s = "";
    process.stdin.on("data", (d) => (s += d)).on("end", () => {
      let v;
      try { v = process.argv[1].split(".").reduce((o, k) => (o == null ? o : o[k]), JSON.parse(s)); } catch {}
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

log "downloading github.com/pulumi/pulumi/pkg/v3@$V and sdk/v3@$V"
module_dir "github.com/pulumi/pulumi/pkg/v3@$V"
PKG_MOD_DIR=$MODULE_DIR
module_dir "github.com/pulumi/pulumi/sdk/v3@$V"
SDK_MOD_DIR=$MODULE_DIR

# Lay pkg and sdk out side by side, as in the pulumi repository, so pkg's `replace ... => ../sdk` resolves.
SRC="$WORK/src"
mkdir -p "$SRC"
cp -R "$PKG_MOD_DIR" "$SRC/pkg"
cp -R "$SDK_MOD_DIR" "$SRC/sdk"
chmod -R u+w "$SRC" # module cache copies are read-only
grep -q '=> \.\./sdk' "$SRC/pkg/go.mod" || log "warning: pkg/go.mod no longer replaces sdk/v3 with ../sdk"

# The language host is a package of the pkg module, so it builds with the very dependency versions
# (and mostly the same compiled packages) as the CLI.
LH_DIR="$SRC/pkg/cmd/keboola-pulumi-language-nodejs"
mkdir -p "$LH_DIR"
cat >"$LH_DIR/main.go" <<'GO_SOURCE'
// pulumi-language-nodejs, minimal build for keboola-pulumi's tests.
//
// The upstream Node.js language host cannot be fetched here, so this one implements what
// `pulumi up/preview/refresh/destroy/stack` need from a language host: it runs
// `@pulumi/pulumi/cmd/run` (resolved from the program directory, like upstream) with node,
// passing the resource monitor and engine addresses, project, stack, config and entry point
// on the command line and in the environment the same way the upstream host does.
// Not implemented: code generation, packing/linking SDKs, debugging, bun, RunPlugin.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/config"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	"github.com/pulumi/pulumi/sdk/v3/go/common/version"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// Exit code with which @pulumi/pulumi's run script says it already printed an
// actionable message: the engine should bail out without adding its own.
const exitedAfterUserActionableMessage = 32

func main() {
	var tracing string
	flag.StringVar(&tracing, "tracing", "", "Emit tracing to a Zipkin-compatible tracing endpoint")
	var runtimeName string
	flag.StringVar(&runtimeName, "runtime", "nodejs", "Runtime used to run programs (only nodejs is supported)")
	showVersion := flag.Bool("version", false, "Print the plugin version and exit")
	flag.Parse()
	if *showVersion {
		fmt.Println(version.Version)
		return
	}
	if runtimeName != "nodejs" {
		fmt.Fprintf(os.Stderr, "unsupported runtime: %s\n", runtimeName)
		os.Exit(1)
	}

	var engineAddress string
	if args := flag.Args(); len(args) > 0 {
		engineAddress = args[0]
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	cancelServer := make(chan bool)
	go func() {
		<-ctx.Done()
		close(cancelServer)
	}()
	if engineAddress != "" {
		// Exit when the engine goes away.
		if err := rpcutil.Healthcheck(ctx, engineAddress, 5*time.Minute, stop); err != nil {
			fmt.Fprintf(os.Stderr, "could not start health check: %v\n", err)
			os.Exit(1)
		}
	}

	hostCtx, hostCancel := context.WithCancel(context.Background())
	host := &languageHost{engineAddress: engineAddress, tracing: tracing, cancelCtx: hostCtx, cancel: hostCancel}
	handle, err := rpcutil.ServeWithOptions(rpcutil.ServeOptions{
		Cancel: cancelServer,
		Init: func(srv *grpc.Server) error {
			pulumirpc.RegisterLanguageRuntimeServer(srv, host)
			return nil
		},
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "could not start language host RPC server: %v\n", err)
		os.Exit(1)
	}
	// The spawner reads the port from our first line of output.
	fmt.Printf("%d\n", handle.Port)
	if err := <-handle.Done; err != nil {
		fmt.Fprintf(os.Stderr, "language host RPC stopped serving: %v\n", err)
		os.Exit(1)
	}
}

type languageHost struct {
	pulumirpc.UnimplementedLanguageRuntimeServer

	engineAddress string
	tracing       string
	cancelCtx     context.Context
	cancel        context.CancelFunc
}

func (h *languageHost) Handshake(ctx context.Context,
	req *pulumirpc.LanguageHandshakeRequest,
) (*pulumirpc.LanguageHandshakeResponse, error) {
	h.engineAddress = req.GetEngineAddress()
	return &pulumirpc.LanguageHandshakeResponse{}, nil
}

func (h *languageHost) GetPluginInfo(ctx context.Context, _ *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: version.Version}, nil
}

func (h *languageHost) Cancel(ctx context.Context, _ *emptypb.Empty) (*emptypb.Empty, error) {
	h.cancel()
	return &emptypb.Empty{}, nil
}

type packageJSON struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Pulumi  struct {
		Resource bool   `json:"resource"`
		Name     string `json:"name"`
		Version  string `json:"version"`
		Server   string `json:"server"`
	} `json:"pulumi"`
}

// nodeModulesPackages reads the package.json of each package directly under <dir>/node_modules.
func nodeModulesPackages(dir string) []packageJSON {
	nm := filepath.Join(dir, "node_modules")
	var pkgDirs []string
	entries, _ := os.ReadDir(nm)
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		if strings.HasPrefix(name, "@") {
			scoped, _ := os.ReadDir(filepath.Join(nm, name))
			for _, s := range scoped {
				pkgDirs = append(pkgDirs, filepath.Join(nm, name, s.Name()))
			}
			continue
		}
		pkgDirs = append(pkgDirs, filepath.Join(nm, name))
	}
	var pkgs []packageJSON
	for _, d := range pkgDirs {
		b, err := os.ReadFile(filepath.Join(d, "package.json"))
		if err != nil {
			continue
		}
		var info packageJSON
		if json.Unmarshal(b, &info) == nil && info.Name != "" {
			pkgs = append(pkgs, info)
		}
	}
	return pkgs
}

// GetRequiredPackages lists the resource plugins that the program's direct
// node_modules packages declare with `"pulumi": {"resource": true}`.
func (h *languageHost) GetRequiredPackages(ctx context.Context,
	req *pulumirpc.GetRequiredPackagesRequest,
) (*pulumirpc.GetRequiredPackagesResponse, error) {
	var deps []*pulumirpc.PackageDependency
	for _, info := range nodeModulesPackages(req.GetInfo().GetProgramDirectory()) {
		if !info.Pulumi.Resource {
			continue
		}
		name := info.Pulumi.Name
		if name == "" {
			name = strings.TrimPrefix(strings.TrimPrefix(info.Name, "@pulumi/"), "@")
		}
		v := info.Pulumi.Version
		if v == "" {
			v = info.Version
		}
		if v != "" && !strings.HasPrefix(v, "v") {
			v = "v" + v
		}
		deps = append(deps, &pulumirpc.PackageDependency{
			Kind: "resource", Name: name, Version: v, Server: info.Pulumi.Server,
		})
	}
	return &pulumirpc.GetRequiredPackagesResponse{Packages: deps}, nil
}

func (h *languageHost) GetRequiredPlugins(ctx context.Context,
	req *pulumirpc.GetRequiredPluginsRequest,
) (*pulumirpc.GetRequiredPluginsResponse, error) {
	return nil, status.Errorf(codes.Unimplemented, "method GetRequiredPlugins not implemented")
}

// locateRunScript resolves @pulumi/pulumi/cmd/run the way node would from the program directory.
func locateRunScript(ctx context.Context, nodeBin, programDir string) (string, error) {
	mod := os.Getenv("PULUMI_LANGUAGE_NODEJS_RUN_PATH")
	if mod == "" {
		mod = "@pulumi/pulumi/cmd/run"
	}
	script := fmt.Sprintf(`try { console.log(require.resolve(%q)); } catch (e) { `+
		`if (e.code === "MODULE_NOT_FOUND") { console.error("It looks like the Pulumi SDK has not been installed. `+
		`Have you run npm install in %s?"); } else { console.error(e.message); } process.exit(1); }`,
		mod, strings.ReplaceAll(programDir, `"`, `\"`))
	cmd := exec.CommandContext(ctx, nodeBin, "-e", script)
	cmd.Dir = programDir
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", errors.New(strings.TrimSpace(string(ee.Stderr)))
		}
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

func (h *languageHost) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	info := req.GetInfo()
	programDir := info.GetProgramDirectory()
	if programDir == "" {
		programDir = req.GetPwd()
	}
	entryPoint := info.GetEntryPoint()
	if entryPoint == "" {
		entryPoint = req.GetProgram()
	}
	if entryPoint == "" {
		entryPoint = "."
	}

	nodeBin, err := exec.LookPath("node")
	if err != nil {
		return &pulumirpc.RunResponse{Error: "could not find node on the $PATH: " + err.Error()}, nil
	}
	runPath, err := locateRunScript(ctx, nodeBin, programDir)
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}

	opts := info.GetOptions().AsMap()
	typescript := true
	if v, ok := opts["typescript"]; ok {
		b, isBool := v.(bool)
		if !isBool {
			return &pulumirpc.RunResponse{Error: "typescript option must be a boolean"}, nil
		}
		typescript = b
	}

	configJSON, err := constructConfig(req)
	if err != nil {
		return &pulumirpc.RunResponse{Error: "failed to serialize configuration: " + err.Error()}, nil
	}
	secretKeys := req.GetConfigSecretKeys()
	if secretKeys == nil {
		secretKeys = []string{}
	}
	secretKeysJSON, err := json.Marshal(secretKeys)
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}

	env := append(os.Environ(), "PULUMI_CONFIG="+configJSON, "PULUMI_CONFIG_SECRET_KEYS="+string(secretKeysJSON))
	if typescript {
		env = append(env, "PULUMI_NODEJS_TYPESCRIPT=true")
	}
	if p, ok := opts["tsconfig"].(string); ok && p != "" {
		env = append(env, "PULUMI_NODEJS_TSCONFIG_PATH="+p)
	}

	var args []string
	if na, ok := opts["nodeargs"].(string); ok {
		args = append(args, strings.Fields(na)...)
	}
	args = append(args, runPath)
	add := func(k, v string) {
		if v != "" {
			args = append(args, "--"+k, v)
		}
	}
	add("monitor", req.GetMonitorAddress())
	add("engine", h.engineAddress)
	add("organization", req.GetOrganization())
	add("project", req.GetProject())
	add("root-directory", info.GetRootDirectory())
	add("stack", req.GetStack())
	add("pwd", programDir)
	if req.GetDryRun() {
		args = append(args, "--dry-run")
	}
	add("parallel", strconv.Itoa(int(req.GetParallel())))
	add("tracing", h.tracing)
	args = append(args, entryPoint)
	args = append(args, req.GetArgs()...)

	cmdCtx, cmdCancel := context.WithCancel(h.cancelCtx)
	defer cmdCancel()
	context.AfterFunc(ctx, cmdCancel)
	cmd := exec.CommandContext(cmdCtx, nodeBin, args...)
	cmd.Cancel = func() error {
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			return cmd.Process.Kill()
		}
		return nil
	}
	cmd.WaitDelay = 5 * time.Second
	cmd.Dir = programDir
	cmd.Env = env
	// Node may switch its stdio to non-blocking mode; never hand it our own file descriptors.
	cmd.Stdout = struct{ io.Writer }{os.Stdout}
	cmd.Stderr = struct{ io.Writer }{os.Stderr}

	if err := cmd.Run(); err != nil {
		_ = os.Stdout.Sync()
		_ = os.Stderr.Sync()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			switch code := ee.ExitCode(); code {
			case exitedAfterUserActionableMessage:
				return &pulumirpc.RunResponse{Bail: true}, nil
			case 0:
				return &pulumirpc.RunResponse{Error: "Program exited unexpectedly: " + err.Error()}, nil
			default:
				return &pulumirpc.RunResponse{Error: fmt.Sprintf("Program exited with non-zero exit code: %d", code)}, nil
			}
		}
		return &pulumirpc.RunResponse{
			Error: "Problem executing program (could not run language executor): " + err.Error(),
		}, nil
	}
	return &pulumirpc.RunResponse{}, nil
}

// constructConfig serializes the stack configuration the way @pulumi/pulumi expects it in PULUMI_CONFIG.
func constructConfig(req *pulumirpc.RunRequest) (string, error) {
	transformed := make(map[string]string, len(req.GetConfig()))
	for k, v := range req.GetConfig() {
		pk, err := config.ParseKey(k)
		if err != nil {
			return "", err
		}
		transformed[pk.Namespace()+":config:"+pk.Name()] = v
	}
	b, err := json.Marshal(transformed)
	return string(b), err
}

// InstallDependencies runs `npm install` in the program directory when it has a package.json.
func (h *languageHost) InstallDependencies(req *pulumirpc.InstallDependenciesRequest,
	server pulumirpc.LanguageRuntime_InstallDependenciesServer,
) error {
	closer, stdout, stderr, err := rpcutil.MakeInstallDependenciesStreams(server, req.GetIsTerminal())
	if err != nil {
		return err
	}
	defer closer.Close()
	dir := req.GetInfo().GetProgramDirectory()
	if _, err := os.Stat(filepath.Join(dir, "package.json")); err != nil {
		fmt.Fprintf(stdout, "No package.json in %s: nothing to install\n", dir)
		return closer.Close()
	}
	cmd := exec.CommandContext(server.Context(), "npm", "install")
	cmd.Dir = dir
	cmd.Stdout = stdout
	cmd.Stderr = stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("npm install failed: %w", err)
	}
	return closer.Close()
}

func (h *languageHost) RuntimeOptionsPrompts(ctx context.Context,
	req *pulumirpc.RuntimeOptionsRequest,
) (*pulumirpc.RuntimeOptionsResponse, error) {
	return &pulumirpc.RuntimeOptionsResponse{}, nil
}

func (h *languageHost) Template(ctx context.Context, req *pulumirpc.TemplateRequest) (*pulumirpc.TemplateResponse, error) {
	return &pulumirpc.TemplateResponse{}, nil
}

func (h *languageHost) About(ctx context.Context, req *pulumirpc.AboutRequest) (*pulumirpc.AboutResponse, error) {
	nodeBin, err := exec.LookPath("node")
	if err != nil {
		return nil, fmt.Errorf("could not find node on the $PATH: %w", err)
	}
	out, _ := exec.CommandContext(ctx, nodeBin, "--version").Output()
	return &pulumirpc.AboutResponse{
		Executable: nodeBin,
		Version:    strings.TrimSpace(string(out)),
		Metadata:   map[string]string{"packagemanager": "npm"},
	}, nil
}

func (h *languageHost) GetProgramDependencies(ctx context.Context,
	req *pulumirpc.GetProgramDependenciesRequest,
) (*pulumirpc.GetProgramDependenciesResponse, error) {
	var deps []*pulumirpc.DependencyInfo
	for _, info := range nodeModulesPackages(req.GetInfo().GetProgramDirectory()) {
		deps = append(deps, &pulumirpc.DependencyInfo{Name: info.Name, Version: info.Version})
	}
	return &pulumirpc.GetProgramDependenciesResponse{Dependencies: deps}, nil
}
GO_SOURCE

OUT="$WORK/out"
mkdir -p "$OUT/bin"
LDFLAGS="-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$V"
cd "$SRC/pkg"
log "go build ./cmd/pulumi"
go build -trimpath -buildvcs=false -ldflags "$LDFLAGS" -o "$OUT/bin/pulumi" ./cmd/pulumi
log "go build pulumi-language-nodejs"
go build -trimpath -buildvcs=false -ldflags "$LDFLAGS" -o "$OUT/bin/pulumi-language-nodejs" ./cmd/keboola-pulumi-language-nodejs

# The dynamic-provider launcher resolves @pulumi/pulumi/cmd/dynamic-provider from its working
# directory (the Pulumi program's), so a copy works for any checkout; no link into this repo.
cp "$SDK_NPM_DIR/pulumi-resource-pulumi-nodejs" "$OUT/bin/pulumi-resource-pulumi-nodejs"
chmod 755 "$OUT/bin/pulumi-resource-pulumi-nodejs"

got=$(pulumi_version "$OUT/bin")
[ "$got" = "$V" ] || die "built pulumi reports version '$got', expected $V"
[ "$("$OUT/bin/pulumi-language-nodejs" -version | tr -d '[:space:]')" = "$V" ] ||
  die "built pulumi-language-nodejs does not report $V"
printf '%s\n' "$STAMP_TEXT" >"$OUT/.complete"

# Move into place: a rename within the cache root, so the cache is never half-filled.
cd "$CACHE_ROOT"
if [ -e "$DEST" ]; then
  mv "$DEST" "$WORK/stale"
fi
mv "$OUT" "$DEST"
log "pulumi $V ready in $DEST/bin ($(($(date +%s) - started)) s)"
printf '%s\n' "$DEST/bin"
