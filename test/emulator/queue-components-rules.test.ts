import { describe, expect, it } from "vitest";
import type { JsonObject } from "../../keboola/json";
import { APPLICATION_ERROR_MESSAGE, runComponent } from "../../emulator/queue/components";

// What the emulator's keboola.runner-config-test does with a configuration (emulator/queue/components.ts),
// called directly: its operations are keboola/runner-config-test src/ConfigDefinition.php's, its
// failures the job runner's (the file's header names the sources).

const OPERATIONS = ["application-error", "create-result", "create-state", "child-jobs", "dump-config", "dump-env", "list", "sleep", "unsafe-dump-config", "user-error", "whoami", "print-logs"];
const run = (configuration: JsonObject, rows: JsonObject[] = []) =>
  runComponent("keboola.runner-config-test", { configuration, state: {}, rows: rows.map((c, i) => ({ id: String(i), configuration: c, state: {} })) });

describe("keboola.runner-config-test", () => {
  it("accepts each operation of its configuration definition, and refuses another with the list", () => {
    const refused = run({ parameters: { operation: "explode" } });
    expect(refused).toEqual({ type: "user", message: `Invalid configuration for path "root.parameters.operation": Allowed operations are: ${OPERATIONS.join(", ")}\n` });
    for (const operation of OPERATIONS) {
      expect(run({ parameters: { operation } })?.message ?? "").not.toContain("Allowed operations");
    }
  });

  it("fails as the operation says; a missing operation is a user error", () => {
    expect(run({ parameters: { operation: "user-error" } })).toEqual({ type: "user", message: "This is a user error.\n" });
    expect(run({ parameters: { operation: "application-error" } })).toEqual({ type: "application", message: APPLICATION_ERROR_MESSAGE });
    expect(run({ parameters: { operation: "list" } })).toBeUndefined();
    for (const parameters of [{}, { operation: null }] as JsonObject[]) {
      expect(run({ parameters })).toEqual({ type: "user", message: 'Invalid configuration: Key "parameters.operation" does not exist\n' });
    }
  });

  it("runs each row on the configuration merged with it; the first failing row fails the job", () => {
    expect(run({ parameters: { operation: "list", x: 1 } }, [{ parameters: { x: 2 } }, { parameters: { operation: "user-error" } }])).toEqual({
      type: "user",
      message: "This is a user error.\n",
    });
    expect(run({ parameters: { operation: "user-error" } }, [{ parameters: { operation: "list" } }])).toBeUndefined();
  });

  it("another component succeeds", () => {
    expect(runComponent("keboola.ex-http", { configuration: { parameters: { operation: "user-error" } }, state: {}, rows: [] })).toBeUndefined();
  });
});
