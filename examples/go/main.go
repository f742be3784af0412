// A Go program on the generated SDK (sdk/go): a Stream source and a sink that writes each event
// it receives as a row of a Storage table, served by the provider plugin (docs/plugin.md).
// test/e2e/sdk.e2e.test.ts builds it against the SDK; the repository's pinned Pulumi CLI does not
// run Go programs, so no test deploys it.

// docs:example Overview

package main

import (
	"github.com/keboola/keboola-pulumi/sdk/go/keboola"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		events, err := keboola.NewSource(ctx, "events", &keboola.SourceArgs{
			Name: pulumi.String("Quickstart Events"),
		})
		if err != nil {
			return err
		}
		_, err = keboola.NewSink(ctx, "actions", &keboola.SinkArgs{
			SourceId: events.SourceId,
			Name:     pulumi.String("User actions"),
			TableId:  pulumi.String("in.c-quickstart.actions"),
			// A column is one of several shapes, by its "type": SinkColumnUuidArgs, SinkColumnPathArgs,
			// SinkColumnTemplateArgs, ... (Go has no union type, so the list itself is a pulumi.Array).
			Columns: pulumi.Array{
				keboola.SinkColumnUuidArgs{Type: pulumi.String("uuid"), Name: pulumi.String("id")},
				keboola.SinkColumnPathArgs{Type: pulumi.String("path"), Name: pulumi.String("user"), Path: pulumi.String("user.id"), RawString: pulumi.Bool(true)},
			},
		})
		if err != nil {
			return err
		}
		ctx.Export("ingestionUrl", events.Url)
		return nil
	})
}

// docs:end Overview
