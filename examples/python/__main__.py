"""A Python program on the generated SDK (sdk/python): a Stream source and a sink that writes each
event it receives as a row of a Storage table, served by the provider plugin (docs/plugin.md).

test/e2e/sdk.e2e.test.ts byte-compiles it and checks each call against the SDK's classes; the
repository's pinned Pulumi CLI does not run Python programs, so no test deploys it.
"""

# docs:example Overview
import pulumi
import pulumi_keboola as keboola

events = keboola.Source("events", name="Quickstart Events")

keboola.Sink(
    "actions",
    source_id=events.source_id,
    name="User actions",
    table_id="in.c-quickstart.actions",
    # A column is one of several shapes (uuid, path, template, ...): a dict with its "type".
    columns=[
        {"type": "uuid", "name": "id"},
        {"type": "path", "name": "user", "path": "user.id"},
    ],
)

pulumi.export("ingestionUrl", events.url)
# docs:end Overview
