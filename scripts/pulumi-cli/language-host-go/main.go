// pulumi-language-go, minimal build for keboola-pulumi: it only generates the Go SDK of a package
// (`pulumi package gen-sdk <schema> --language go`, see scripts/gen-sdk.sh) with
// github.com/pulumi/pulumi/pkg/v3/codegen/go, as Pulumi's own Go language host does. Running Go
// programs and every other LanguageRuntime method answer Unimplemented (../sdkgen).
//
// The upstream Go language host (module .../sdk/go/pulumi-language-go/v3) is not served by the Go
// module proxy reachable here. scripts/pulumi-cli/build.sh compiles this file as a package of
// github.com/pulumi/pulumi/pkg/v3 at the pinned version (pkg/cmd/keboola-pulumi-language-go), like
// the Node.js host, so it has no go.mod of its own.
package main

import (
	sdkgen "github.com/pulumi/pulumi/pkg/v3/cmd/keboola-pulumi-sdkgen"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

func main() {
	sdkgen.Serve("go", func(pkg *schema.Package, req *pulumirpc.GeneratePackageRequest,
		_ schema.ReferenceLoader,
	) (map[string][]byte, error) {
		files, err := gogen.GeneratePackage("pulumi-language-go", pkg, req.GetLocalDependencies())
		if err != nil {
			return nil, err
		}
		return sdkgen.WithExtraFiles(files, req), nil
	})
}
