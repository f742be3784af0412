import { describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

// What `npm pack` ships must hold everything a user's repository needs for the manifest: the
// export command (package.json `bin`), the program a user's Pulumi.yaml points at, and the
// manifest's JSON Schema the YAML language server reads (checked by installing the tarball
// into a project by hand; here: the file list and the entry points).

const ROOT = path.resolve(__dirname, "..", "..");
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { bin: Record<string, string> };

describe("the packed package", () => {
  const files = (() => {
    const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
    return (JSON.parse(out) as Array<{ files: Array<{ path: string }> }>)[0].files.map((f) => f.path);
  })();

  it("ships the export command, the manifest program, keboola.schema.json and the provider plugin with the schema it serves", () => {
    expect(pkg.bin).toEqual({ "keboola-pulumi": "dist/provider/cli/main.js", "pulumi-resource-keboola": "dist/bin/pulumi-resource-keboola.js" });
    // The plugin's bin is one bundled file; it reads the schema, package.json and the jsonnet engine from the package.
    const plugin = ["dist/bin/pulumi-resource-keboola.js", "package.json", "jsonnet/wasm/jsonnet.wasm.gz", "jsonnet/wasm/wasm_exec.js"];
    for (const f of ["dist/provider/cli/main.js", "dist/provider/manifest/program.js", "dist/provider/manifest/deploy.js", "keboola.schema.json", "schema.json", ...plugin]) {
      expect(files).toContain(f);
    }
  });

  it("ships the emulator's component catalog beside the module that loads it", () => {
    expect(files).toContain("dist/emulator/storage/component-catalog.json");
    expect(files).toContain("dist/emulator/storage/components.js");
    // The built module reads the catalog from its own directory, as it does in the package.
    const built = require(path.join(ROOT, "dist/emulator/storage/components.js")) as {
      componentDefinition: (s: { addedComponents: object }, id: string) => { type: string; name: string };
    };
    expect(built.componentDefinition({ addedComponents: {} }, "keboola.ex-aws-s3")).toMatchObject({ type: "extractor", name: "AWS S3" });
  });

  it("the export command is a node script", () => {
    expect(fs.readFileSync(path.join(ROOT, pkg.bin["keboola-pulumi"]), "utf8").split("\n")[0]).toBe("#!/usr/bin/env node");
  });
});
