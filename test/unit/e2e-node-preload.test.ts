// The preload of the end-to-end tests' Node.js processes (scripts/lib/e2e-node-preload.ts): it may
// make them faster, never different. Each case runs a fresh `node` with the built preload.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const ROOT = path.join(__dirname, "..", "..");
const PRELOAD = path.join(ROOT, "dist", "scripts", "lib", "e2e-node-preload.js");

function node(script: string, env: NodeJS.ProcessEnv, cwd = ROOT): string {
  const clean: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
  const res = spawnSync(process.execPath, ["--require", PRELOAD, "-e", script], { cwd, env: { ...clean, ...env }, encoding: "utf8" });
  if (res.status !== 0) throw new Error(`node exited ${String(res.status)}: ${res.stderr}`);
  return res.stdout.trim();
}

const temps: string[] = [];
const tempDir = (): string => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "e2e-preload-"));
  temps.push(d);
  return d;
};
afterEach(() => {
  for (const d of temps.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe("deferred SDK modules", () => {
  // Which of the two deferred packages have been loaded: [typescript, arborist].
  const loaded = `["/typescript/lib/typescript.js", "/@npmcli/arborist/"].map((p) => Object.keys(require.cache).some((k) => k.includes(p)))`;

  it("loads neither typescript nor @npmcli/arborist with the SDK, and each on first use, working", () => {
    const out = node(
      `const pulumi = require("@pulumi/pulumi");
       const atStart = ${loaded};
       pulumi.runtime.serializeFunction(() => 41 + 1).then(async (s) => {
         const afterSerialize = ${loaded};
         const ts = require("@pulumi/pulumi/typescript-shim");
         const codePaths = await pulumi.runtime.computeCodePaths({ extraIncludePackages: ["zod"] });
         console.log(JSON.stringify({ atStart, afterSerialize, serialized: s.text.includes("41 + 1"), kind: ts.SyntaxKind[ts.SyntaxKind.Identifier], zod: [...codePaths.keys()].some((k) => k.includes("zod")), end: ${loaded} }));
       });`,
      { KEBOOLA_E2E_DEFER_SDK_MODULES: "1" },
    );
    expect(JSON.parse(out)).toEqual({
      atStart: [false, false],
      // serializing a function parses it with TypeScript: loaded then, and only then
      afterSerialize: [true, false],
      serialized: true,
      kind: "Identifier",
      // computeCodePaths walks the dependency tree with arborist
      zod: true,
      end: [true, true],
    });
  });

  it("fails a require of a missing module where the SDK catches it: typescript-shim falls back to its bundled TypeScript", () => {
    // An SDK installed where no `typescript` resolves (a program's own node_modules without it).
    const sdk = path.join(tempDir(), "node_modules", "@pulumi", "pulumi");
    fs.mkdirSync(path.join(sdk, "vendor", "typescript@3.8.3"), { recursive: true });
    fs.copyFileSync(path.join(ROOT, "node_modules", "@pulumi", "pulumi", "typescript-shim.js"), path.join(sdk, "typescript-shim.js"));
    fs.writeFileSync(path.join(sdk, "vendor", "typescript@3.8.3", "typescript.js"), "module.exports = { bundled: true };\n");
    const script = `console.log(JSON.stringify(require(${JSON.stringify(path.join(sdk, "typescript-shim.js"))})))`;
    expect(JSON.parse(node(script, { KEBOOLA_E2E_DEFER_SDK_MODULES: "1" }, sdk))).toEqual({ bundled: true });
  });

  it("changes nothing without its variable: the SDK loads both at start", () => {
    expect(JSON.parse(node(`require("@pulumi/pulumi"); console.log(JSON.stringify(${loaded}))`, {}))).toEqual([true, true]);
  });
});

describe("compile cache", () => {
  const entries = (cache: string): string[] =>
    fs.existsSync(cache) ? fs.readdirSync(cache).flatMap((v) => fs.readdirSync(path.join(cache, v)).map((e) => path.join(cache, v, e))) : [];

  it("caches a module under its root once, uses the entry, and recompiles a changed module", () => {
    const root = tempDir();
    const cache = path.join(tempDir(), "v8");
    const mod = path.join(root, "m.js");
    fs.writeFileSync(mod, "#!/usr/bin/env node\nmodule.exports = () => 40 + 2;\n");
    const env = { KEBOOLA_E2E_COMPILE_CACHE: cache, KEBOOLA_E2E_COMPILE_ROOT: root };
    const run = () => node(`console.log(require(${JSON.stringify(mod)})())`, env);

    expect(run()).toBe("42"); // a hashbang line is no syntax error in the wrapper
    const [entry] = entries(cache);
    expect(entries(cache)).toHaveLength(1);
    const stat = fs.statSync(mod);
    expect(fs.readFileSync(entry).subarray(0, 40).toString()).toMatch(new RegExp(`^${stat.size}:${stat.mtimeMs}\n`));

    // Accepted by V8: a rejected or missing entry would be written again.
    const written = fs.readFileSync(entry);
    fs.utimesSync(entry, new Date(0), new Date(0));
    expect(run()).toBe("42");
    expect(fs.statSync(entry).mtimeMs).toBe(0);
    expect(fs.readFileSync(entry)).toEqual(written);

    // Same size, new content and mtime: compiled afresh, the one entry replaced.
    fs.writeFileSync(mod, "#!/usr/bin/env node\nmodule.exports = () => 40 + 3;\n");
    fs.utimesSync(mod, new Date(), new Date(Date.now() + 5000));
    expect(run()).toBe("43");
    expect(entries(cache)).toEqual([entry]);
    expect(fs.readFileSync(entry).toString("latin1")).toContain(`${fs.statSync(mod).size}:${fs.statSync(mod).mtimeMs}\n`);
  });

  it("leaves modules outside its root alone, and keeps line numbers and require's parts", () => {
    const root = tempDir();
    const outside = tempDir();
    const cache = path.join(tempDir(), "v8");
    fs.writeFileSync(path.join(outside, "o.js"), "module.exports = 1;\n");
    fs.writeFileSync(path.join(root, "dep.js"), "module.exports = 'dep';\n");
    fs.writeFileSync(
      path.join(root, "m.js"),
      [
        "#!/usr/bin/env node",
        "exports.dep = require('./dep');",
        "exports.resolved = require.resolve('./dep');",
        "exports.paths = Array.isArray(require.resolve.paths('x'));",
        "exports.cache = require.cache === require('module')._cache;",
        "exports.child = module.children.map((c) => c.id);",
        "exports.line = new Error().stack.split('\\n')[1];",
        "exports.esm = import('node:path').then((p) => typeof p.join);",
      ].join("\n"),
    );
    const out = node(
      `require(${JSON.stringify(path.join(outside, "o.js"))});
       const m = require(${JSON.stringify(path.join(root, "m.js"))});
       m.esm.then((esm) => console.log(JSON.stringify({ ...m, esm })));`,
      { KEBOOLA_E2E_COMPILE_CACHE: cache, KEBOOLA_E2E_COMPILE_ROOT: root },
    );
    const m = JSON.parse(out) as Record<string, unknown>;
    expect(m).toMatchObject({ dep: "dep", resolved: path.join(root, "dep.js"), paths: true, cache: true, child: [path.join(root, "dep.js")], esm: "function" });
    expect(m.line).toContain(`${path.join(root, "m.js")}:7:`);
    expect(entries(cache)).toHaveLength(2); // m.js and dep.js, not o.js
  });
});
