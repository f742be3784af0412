module example.com/keboola-go

go 1.25

require (
	github.com/keboola/keboola-pulumi/sdk/go v0.0.0
	github.com/pulumi/pulumi/sdk/v3 v3.248.0
)

// The SDK from this checkout (sdk/go); `go mod tidy` fills in the rest.
replace github.com/keboola/keboola-pulumi/sdk/go => ../../sdk/go
