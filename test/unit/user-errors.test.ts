import { afterEach, describe, expect, it } from "vitest";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { HttpClient } from "../../provider/api/http";
import { KeboolaClient } from "../../provider/api/client";
import { KeboolaApiError, KeboolaNetworkError, KeboolaProtocolError } from "../../provider/api/errors";
import { userFacingError } from "../../provider/lifecycle/errors";
import * as path from "node:path";
import type * as Runtime from "../../provider/dynamic/runtime";

// The runtime loads resource modules with require() at call time, so it runs from the build: loaded
// by its path (the build is an output of the same compilation, not one of its inputs), typed by its
// source.
const { call, configure }: typeof Runtime = require(path.join(__dirname, "..", "..", "dist", "provider", "dynamic", "runtime.js"));

// What a person reads when something fails: hosts that are not Keboola APIs are named as such, a
// host that never answers fails within the request deadline, and errors reaching Pulumi carry the
// resource, the operation and a fix, with no JavaScript stack trace and no secret.

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
}

const TOKEN = "secret-token-987654321";
const info = { service: "stream" as const, method: "POST", path: "/v1/branches/default/sources" };
// The dynamic provider host prints failures of check, read and delete as `${err}: ${err.stack}`
// (@pulumi/pulumi cmd/dynamic-provider/index.js): that is what the user sees.
const printed = (e: Error) => `${String(e)}: ${e.stack ?? ""}`;

describe("hosts that are not a Keboola API", () => {
  it("names an HTML answer as such instead of failing on its shape", async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { "Content-Type": "text/html" });
      res.end("<!DOCTYPE html><html><body>Welcome to nginx</body></html>");
    });
    const err = await new HttpClient({ token: TOKEN }).request({ service: "storage", baseUrl: url, method: "GET", path: "/v2/storage" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KeboolaProtocolError);
    expect((err as Error).message).toMatch(/answered an HTML page, not a Keboola API answer\. Check keboola:host/);
  });

  it("names a JSON answer without the Storage index's services list", async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ hello: "world" }));
    });
    const client = new KeboolaClient({ host: url, token: TOKEN, taskTimeoutSeconds: 5 });
    await expect(client.stream()).rejects.toThrow(/without a "services" list: it is not a Keboola Storage API\. Set keboola:host/);
  });

  it("fails a host that accepts connections and never answers within the request deadline", async () => {
    const url = await serve(() => {
      /* never answers */
    });
    const http = new HttpClient({ token: TOKEN, requestTimeoutMs: 300, retryBaseMs: 1, retryMaxMs: 5 });
    const err = await http.request({ service: "storage", baseUrl: url, method: "GET", path: "/v2/storage" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KeboolaNetworkError);
  });
});

describe("errors as Pulumi prints them", () => {
  it("name the resource, the operation and a fix, with no stack trace or token", () => {
    const api = new KeboolaApiError(503, undefined, `upstream failed for token ${TOKEN}`, info);
    const e = userFacingError("Source", "delete", "events", api);
    expect(e.message).toMatch(/^Source "events": deleting failed: POST .* failed with 503: .* run the same `pulumi up` \(or destroy\) again/);
    expect(printed(e)).not.toMatch(/\n\s+at /);
    expect(printed(e)).not.toContain(TOKEN);
  });

  it("take the name from the owner URN in state written before names were recorded", () => {
    const e = userFacingError("Sink", "read", "raw", new KeboolaNetworkError(info, "ECONNRESET", true));
    expect(e.message).toMatch(/^Sink "raw": reading \(refresh\) failed: .*check keboola:host/);
  });

  it("come out of the runtime for check, read and delete with no stack trace", async () => {
    const url = await serve((_req, res) => {
      res.writeHead(401, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ error: "Invalid access token", code: "storage.tokenInvalid" }));
    });
    configure({ get: (k: string) => ({ "keboola:host": url, "keboola:token": TOKEN })[k] });
    const props = { __resourceName: "events", __owner: "urn:pulumi:dev::app::pulumi-nodejs:dynamic/keboola:Source::events", branch: "default", sourceId: "events" };
    for (const method of ["read", "delete"] as const) {
      const err = (await call("source", method, ["101/events", props]).catch((e: unknown) => e)) as Error;
      // refresh and destroy run with the stored config: what works is the new token in stack config and
      // --run-program; KBC_TOKEN does not (configured settings win over the environment).
      expect(err.message).toMatch(/^Source "events": (reading \(refresh\)|deleting) failed: .*401.*use the token stored with the stack's last deployment, not the current `pulumi config`: set the valid one with `pulumi config set --secret keboola:token <token>`, then run them with --run-program \(`pulumi refresh --run-program`, `pulumi destroy --run-program`\)/);
      expect(err.message).not.toContain("KBC_TOKEN");
      expect(printed(err)).not.toMatch(/\n\s+at /);
      expect(printed(err)).not.toContain(TOKEN);
    }
    // State written by 0.1.0 recorded no name for a source: the error names it by its id.
    const err = (await call("source", "delete", ["101/events", { branch: "default", sourceId: "events" }]).catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(/^Source "101\/events": deleting failed: /);
    configure({ get: () => undefined });
  });
});

// The engine prints a check failure as `property <p> value <inputs[p]> has a problem: <reason>`,
// looking the value up as a top-level input (pulumi/pulumi pkg/resource/deploy/step_generator.go
// issueCheckFailures): a nested path printed `value {<nil>}`. The runtime reports nested paths in
// the reason instead.
describe("check failures as the engine prints them", () => {
  it("put a nested property path in the reason and keep top-level properties", async () => {
    const inputs = {
      __resourceName: "sums",
      componentId: "keboola.python-transformation-v2",
      name: "",
      configuration: { parameters: { blocks: [{ name: "Block 1", codes: [{ name: "Main", script: ["print({{since}})"] }] }] } },
      variables: { configId: "11", declared: [{ name: "limit", type: "string" }] },
    };
    const r = (await call("componentConfig", "check", [{}, inputs])) as { failures: Array<{ property: string; reason: string }> };
    expect(r.failures).toEqual([
      { property: "name", reason: "must not be empty" },
      { property: "", reason: expect.stringMatching(/^configuration\.parameters\.blocks\[0\]\.codes\[0\]\.script\[0\]: placeholder \{\{since\}\} refers to variable "since"/) },
    ]);
  });
});
