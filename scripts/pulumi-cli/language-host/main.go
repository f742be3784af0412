// pulumi-language-nodejs, minimal build for keboola-pulumi's tests.
//
// The upstream Node.js language host cannot be fetched here, so this one implements what
// `pulumi up/preview/refresh/destroy/stack` need from a language host: it runs
// `@pulumi/pulumi/cmd/run` (resolved from the program directory, like upstream) with node,
// passing the resource monitor and engine addresses, project, stack, config and entry point
// on the command line and in the environment the same way the upstream host does. And it generates
// the Node.js SDK of a package (GeneratePackage, behind `pulumi package gen-sdk --language nodejs`,
// see scripts/gen-sdk.sh) with github.com/pulumi/pulumi/pkg/v3/codegen/nodejs, like upstream.
// Not implemented: program code generation, packing/linking SDKs, debugging, bun, RunPlugin.
//
// scripts/pulumi-cli/build.sh compiles this file as a package of github.com/pulumi/pulumi/pkg/v3 at
// the pinned version (it is copied to pkg/cmd/keboola-pulumi-language-nodejs), so it builds with
// exactly the CLI's dependency versions; that is why it has no go.mod of its own. GeneratePackage
// comes from ../sdkgen, shared with the Go and Python hosts (copied to pkg/cmd/keboola-pulumi-sdkgen).
// Any change here changes the cache key of scripts/ensure-pulumi.sh, so the next run rebuilds.
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

	sdkgen "github.com/pulumi/pulumi/pkg/v3/cmd/keboola-pulumi-sdkgen"
	"github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
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

// GeneratePackage writes the Node.js (TypeScript) SDK of the package in the request.
func (h *languageHost) GeneratePackage(ctx context.Context,
	req *pulumirpc.GeneratePackageRequest,
) (*pulumirpc.GeneratePackageResponse, error) {
	return sdkgen.GeneratePackage(req, func(pkg *schema.Package, req *pulumirpc.GeneratePackageRequest,
		loader schema.ReferenceLoader,
	) (map[string][]byte, error) {
		return nodejs.GeneratePackage("pulumi-language-nodejs", pkg, req.GetExtraFiles(),
			req.GetLocalDependencies(), req.GetLocal(), loader)
	})
}
