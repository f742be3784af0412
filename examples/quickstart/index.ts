import * as keboola from "keboola-pulumi";

// An HTTP source receiving app events, with two sinks: the raw events, and user actions mapped
// field by field (path columns and a jsonnet template). Stack config `keboola:host` and
// `keboola:token` (secret), or KBC_HOST / KBC_TOKEN, say which Keboola stack to use.

const events = new keboola.Source("events", {
  name: "Quickstart Events",
  description: "Events from the quickstart app",
});

const raw = new keboola.Sink("raw", {
  sourceId: events.sourceId,
  name: "Raw events",
  tableId: "in.c-quickstart.raw",
  columns: [
    { type: "uuid", name: "id" },
    { type: "datetime", name: "received_at" },
    { type: "ip", name: "ip" },
    { type: "headers", name: "headers" },
    { type: "body", name: "body" },
  ],
});

const actions = new keboola.Sink("actions", {
  sourceId: events.sourceId,
  name: "User actions",
  tableId: "in.c-quickstart.actions",
  columns: [
    { type: "uuid", name: "id" },
    { type: "path", name: "user", path: "user.id", rawString: true },
    { type: "path", name: "action", path: "action", defaultValue: "unknown", rawString: true },
    {
      type: "template",
      name: "summary",
      rawString: true,
      template: { content: "Body('user.id') + ' did ' + Body('action', 'nothing')" },
    },
  ],
});

new keboola.SourceSettings("events-settings", {
  sourceId: events.sourceId,
  targetImportTrigger: { interval: "1m", count: 1000 },
});

new keboola.SinkSettings("actions-settings", {
  sourceId: events.sourceId,
  sinkId: actions.sinkId,
  stagingUploadTrigger: { interval: "5s", size: "1MB" },
});

export const sourceId = events.sourceId;
export const ingestionUrl = events.url; // a secret: `pulumi stack output --show-secrets`
export const tables = [raw.tableId, actions.tableId];
