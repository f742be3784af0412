// pulumi-language-python, minimal build for keboola-pulumi: it only generates the Python SDK of a
// package (`pulumi package gen-sdk <schema> --language python`, see scripts/gen-sdk.sh) with
// github.com/pulumi/pulumi/pkg/v3/codegen/python, as Pulumi's own Python language host does.
// Running Python programs and every other LanguageRuntime method answer Unimplemented (../sdkgen).
//
// The upstream Python language host (module .../sdk/python/cmd/pulumi-language-python/v3) is not
// served by the Go module proxy reachable here. scripts/pulumi-cli/build.sh compiles this file as a
// package of github.com/pulumi/pulumi/pkg/v3 at the pinned version
// (pkg/cmd/keboola-pulumi-language-python), like the Node.js host, so it has no go.mod of its own.
package main

import (
	sdkgen "github.com/pulumi/pulumi/pkg/v3/cmd/keboola-pulumi-sdkgen"
	"github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

func main() {
	sdkgen.Serve("python", func(pkg *schema.Package, req *pulumirpc.GeneratePackageRequest,
		loader schema.ReferenceLoader,
	) (map[string][]byte, error) {
		return python.GeneratePackage("pulumi-language-python", pkg, req.GetExtraFiles(), loader)
	})
}
