// Package sdkgen is what keboola-pulumi's minimal language hosts share to answer GeneratePackage,
// the request behind `pulumi package gen-sdk <schema> --language <lang>`: bind the schema the CLI
// sends, run the language's code generator of github.com/pulumi/pulumi/pkg/v3/codegen on it and
// write the files into the requested directory. It also serves the Go and Python hosts, which
// do nothing else (Serve).
//
// scripts/pulumi-cli/build.sh copies this file to pkg/cmd/keboola-pulumi-sdkgen in the pinned
// github.com/pulumi/pulumi/pkg/v3 sources, so the language hosts (packages of the same module)
// import it as github.com/pulumi/pulumi/pkg/v3/cmd/keboola-pulumi-sdkgen.
package sdkgen

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	"github.com/pulumi/pulumi/sdk/v3/go/common/version"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// Generator runs one language's code generator on a bound package and returns the files of the
// SDK, by path relative to the SDK's directory.
type Generator func(pkg *schema.Package, req *pulumirpc.GeneratePackageRequest,
	loader schema.ReferenceLoader) (map[string][]byte, error)

// GeneratePackage answers a GeneratePackageRequest the way Pulumi's own language hosts do: the
// schema is bound (references to other packages are loaded through the CLI's schema loader at
// req.LoaderTarget), binding errors come back as diagnostics, and each generated file is written
// under req.Directory (which the CLI has just emptied).
func GeneratePackage(req *pulumirpc.GeneratePackageRequest, generate Generator) (*pulumirpc.GeneratePackageResponse, error) {
	loader, err := schema.NewLoaderClient(req.GetLoaderTarget())
	if err != nil {
		return nil, fmt.Errorf("connecting to the schema loader: %w", err)
	}
	defer loader.Close()

	var spec schema.PackageSpec
	if err := json.Unmarshal([]byte(req.GetSchema()), &spec); err != nil {
		return nil, fmt.Errorf("reading the package schema: %w", err)
	}
	pkg, diags, err := schema.BindSpec(spec, loader, schema.ValidationOptions{AllowDanglingReferences: true})
	if err != nil {
		return nil, err
	}
	rpcDiags := plugin.HclDiagnosticsToRPCDiagnostics(diags)
	if diags.HasErrors() {
		return &pulumirpc.GeneratePackageResponse{Diagnostics: rpcDiags}, nil
	}

	files, err := generate(pkg, req, loader)
	if err != nil {
		return nil, err
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		out := filepath.Join(req.GetDirectory(), filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return nil, fmt.Errorf("creating the directory of %s: %w", out, err)
		}
		if err := os.WriteFile(out, files[p], 0o644); err != nil {
			return nil, fmt.Errorf("writing %s: %w", out, err)
		}
	}
	return &pulumirpc.GeneratePackageResponse{Diagnostics: rpcDiags}, nil
}

// WithExtraFiles adds the overlay files of the request (`gen-sdk --overlays`) to files, for the
// generators that do not take them themselves (Go's).
func WithExtraFiles(files map[string][]byte, req *pulumirpc.GeneratePackageRequest) map[string][]byte {
	for p, b := range req.GetExtraFiles() {
		files[p] = b
	}
	return files
}

// codegenHost is a language host that only generates SDKs.
type codegenHost struct {
	pulumirpc.UnimplementedLanguageRuntimeServer

	language string
	generate Generator
}

func (h *codegenHost) Handshake(ctx context.Context,
	req *pulumirpc.LanguageHandshakeRequest,
) (*pulumirpc.LanguageHandshakeResponse, error) {
	return &pulumirpc.LanguageHandshakeResponse{}, nil
}

func (h *codegenHost) GetPluginInfo(ctx context.Context, _ *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: version.Version}, nil
}

func (h *codegenHost) Cancel(ctx context.Context, _ *emptypb.Empty) (*emptypb.Empty, error) {
	return &emptypb.Empty{}, nil
}

func (h *codegenHost) GeneratePackage(ctx context.Context,
	req *pulumirpc.GeneratePackageRequest,
) (*pulumirpc.GeneratePackageResponse, error) {
	return GeneratePackage(req, h.generate)
}

// supported are the LanguageRuntime methods a codegenHost answers; any other is refused by
// refuseOthers with a message that says what this host is.
var supported = map[string]bool{"Handshake": true, "GetPluginInfo": true, "Cancel": true, "GeneratePackage": true}

const serviceName = "/pulumirpc.LanguageRuntime/"

func (h *codegenHost) refusal(fullMethod string) error {
	if !strings.HasPrefix(fullMethod, serviceName) || supported[strings.TrimPrefix(fullMethod, serviceName)] {
		return nil
	}
	return status.Errorf(codes.Unimplemented,
		"%s is not implemented by pulumi-language-%s: keboola-pulumi's pinned Pulumi CLI build ships this "+
			"language host only to generate SDKs (`pulumi package gen-sdk --language %s`); "+
			"to run %s programs, use a full Pulumi installation",
		strings.TrimPrefix(fullMethod, serviceName), h.language, h.language, h.language)
}

func (h *codegenHost) refuseUnary(ctx context.Context, req any, info *grpc.UnaryServerInfo,
	handler grpc.UnaryHandler,
) (any, error) {
	if err := h.refusal(info.FullMethod); err != nil {
		return nil, err
	}
	return handler(ctx, req)
}

func (h *codegenHost) refuseStream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo,
	handler grpc.StreamHandler,
) error {
	if err := h.refusal(info.FullMethod); err != nil {
		return err
	}
	return handler(srv, ss)
}

// Serve is the main function of a language host that only generates SDKs for language: it takes
// the flags and the engine address the CLI passes any language plugin, serves LanguageRuntime on
// a free port and prints the port on its first line of output, as the CLI expects.
func Serve(language string, generate Generator) {
	flag.String("tracing", "", "Emit tracing to a Zipkin-compatible tracing endpoint (ignored)")
	showVersion := flag.Bool("version", false, "Print the plugin version and exit")
	flag.Parse()
	if *showVersion {
		fmt.Println(version.Version)
		return
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	cancelServer := make(chan bool)
	go func() {
		<-ctx.Done()
		close(cancelServer)
	}()
	if args := flag.Args(); len(args) > 0 && args[0] != "" {
		// Exit when the engine goes away.
		if err := rpcutil.Healthcheck(ctx, args[0], 5*time.Minute, stop); err != nil {
			fmt.Fprintf(os.Stderr, "could not start health check: %v\n", err)
			os.Exit(1)
		}
	}

	host := &codegenHost{language: language, generate: generate}
	handle, err := rpcutil.ServeWithOptions(rpcutil.ServeOptions{
		Cancel: cancelServer,
		Init: func(srv *grpc.Server) error {
			pulumirpc.RegisterLanguageRuntimeServer(srv, host)
			return nil
		},
		Options: []grpc.ServerOption{
			grpc.ChainUnaryInterceptor(host.refuseUnary),
			grpc.ChainStreamInterceptor(host.refuseStream),
		},
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "could not start language host RPC server: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("%d\n", handle.Port)
	if err := <-handle.Done; err != nil {
		fmt.Fprintf(os.Stderr, "language host RPC stopped serving: %v\n", err)
		os.Exit(1)
	}
}
