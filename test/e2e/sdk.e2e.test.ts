// sdk/ holds the Node.js, Go and Python SDKs of the provider, generated from schema.json by
// `npm run sdk` (scripts/gen-sdk.sh: `pulumi package gen-sdk` of the pinned CLI, with the language
// hosts of scripts/pulumi-cli/). They are checked in, so they must be current: generating them anew
// gives exactly sdk/. And each compiles with its language's tools: the Node.js SDK type-checks with
// the repository's TypeScript against the pinned @pulumi/pulumi, the Go SDK builds against
// github.com/pulumi/pulumi/sdk/v3 of the same version, the Python SDK byte-compiles. The four checks
// are independent and run at once; the compile checks run on copies of sdk/ (they write files).
// The Go and Python programs of examples/ (docs/_index.md shows them) are checked against them too.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ensurePulumiBinDir, ok, REPO_ROOT, runProcess } from "./helpers/pulumi";

const SDK = path.join(REPO_ROOT, "sdk");
const LANGUAGES = ["nodejs", "go", "python"] as const;
const PULUMI_VERSION = (JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "node_modules", "@pulumi", "pulumi", "package.json"), "utf8")) as { version: string }).version;

const tmpDirs: string[] = [];
const tmpDir = (prefix: string): string => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  tmpDirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of tmpDirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** A copy of sdk/LANG to compile in. */
const copyOf = (lang: (typeof LANGUAGES)[number]): string => {
  const dir = path.join(tmpDir(`sdk-${lang}-`), lang);
  fs.cpSync(path.join(SDK, lang), dir, { recursive: true });
  return dir;
};

/** Every file under dir by its path relative to dir, with its content. */
const filesUnder = (dir: string): Map<string, Buffer> =>
  new Map(
    fs
      .readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => path.join(e.parentPath, e.name))
      .map((f): [string, Buffer] => [path.relative(dir, f), fs.readFileSync(f)])
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );

const env = (extra: Record<string, string>): NodeJS.ProcessEnv => ({ ...process.env, ...extra });

/** The example programs docs/_index.md shows (scripts/gen-docs.ts), checked against the SDKs here. */
const GO_EXAMPLE = path.join(REPO_ROOT, "examples", "go", "main.go");
const PYTHON_EXAMPLE = path.join(REPO_ROOT, "examples", "python", "__main__.py");

/**
 * Python, run with the SDK's package folder and a program: every `keboola.<Class>(...)` call names a
 * resource class of the SDK (`import pulumi_keboola as keboola`) and only arguments of its
 * constructor's overloads, and every attribute read of what such a call answered is one of the
 * class's output properties. Prints each call (class and sorted keywords) and each attribute read,
 * one a line; exits 1 naming what the SDK lacks.
 */
const PYTHON_NAMES_CHECK = `
import ast, pathlib, sys
sdk, program = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
def named(d, name):
    d = d.func if isinstance(d, ast.Call) else d
    return (isinstance(d, ast.Name) and d.id == name) or (isinstance(d, ast.Attribute) and d.attr == name)
classes = {}
for f in sdk.glob("*.py"):
    for c in ast.parse(f.read_text()).body:
        if isinstance(c, ast.ClassDef) and any(named(b, "CustomResource") for b in c.bases):
            inits = [d for d in c.body if isinstance(d, ast.FunctionDef) and d.name == "__init__" and any(named(x, "overload") for x in d.decorator_list)]
            params = {a.arg for d in inits for a in d.args.args + d.args.kwonlyargs}
            props = {d.name for d in c.body if isinstance(d, ast.FunctionDef) and any(named(x, "getter") for x in d.decorator_list)}
            classes[c.name] = (params, props)
tree = ast.parse(program.read_text())
alias = next(a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names if a.name == sdk.name)
problems, made = [], {}
for n in ast.walk(tree):
    if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Attribute) and named(n.value.func.value, alias):
        made[n.targets[0].id] = n.value.func.attr
for n in ast.walk(tree):
    if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name) and n.func.value.id == alias:
        cls = n.func.attr
        if cls not in classes:
            problems.append(f"{alias}.{cls}: no such resource class in {sdk.name}")
            continue
        words = sorted(k.arg for k in n.keywords)
        problems += [f"{cls}({w}): no such argument" for w in words if w not in classes[cls][0]]
        print(f"{cls}({', '.join(words)})")
    if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in made:
        cls = made[n.value.id]
        if cls in classes and n.attr not in classes[cls][1]:
            problems.append(f"{n.value.id}.{n.attr}: {cls} has no output {n.attr}")
        print(f"{cls}.{n.attr}")
if problems:
    sys.exit("\\n".join(problems))
`;

describe.concurrent("e2e: the generated SDKs in sdk/", () => {
  it("are what `npm run sdk` generates from schema.json now", async () => {
    await ensurePulumiBinDir(); // built once for all the e2e files; gen-sdk.sh finds it cached
    const out = tmpDir("sdk-gen-");
    ok(await runProcess("bash", [path.join(REPO_ROOT, "scripts", "gen-sdk.sh"), out], { cwd: REPO_ROOT, env: process.env }));

    const differences: string[] = [];
    for (const lang of LANGUAGES) {
      const want = filesUnder(path.join(out, lang));
      const got = fs.existsSync(path.join(SDK, lang)) ? filesUnder(path.join(SDK, lang)) : new Map<string, Buffer>();
      for (const [file, content] of want) {
        const have = got.get(file);
        if (!have) differences.push(`missing: sdk/${lang}/${file}`);
        else if (!have.equals(content)) differences.push(`differs: sdk/${lang}/${file}`);
      }
      for (const file of got.keys()) if (!want.has(file)) differences.push(`not generated: sdk/${lang}/${file}`);
    }
    expect(differences, "sdk/ is out of date with schema.json: run `npm run sdk` and commit sdk/").toEqual([]);
  }, 300_000);

  it("Node.js: type-checks with the repository's TypeScript and @pulumi/pulumi", async () => {
    const dir = copyOf("nodejs");
    for (const pkg of ["@pulumi/pulumi", "@types/node"]) {
      fs.mkdirSync(path.dirname(path.join(dir, "node_modules", pkg)), { recursive: true });
      fs.symlinkSync(path.join(REPO_ROOT, "node_modules", pkg), path.join(dir, "node_modules", pkg), "dir");
    }
    // The SDK's own tsconfig.json is for its build (output in bin/); this only checks.
    const tsconfig = {
      compilerOptions: { target: "ES2022", module: "nodenext", moduleResolution: "nodenext", types: ["node"], strict: true, skipLibCheck: true, noEmit: true },
      include: ["**/*.ts"],
    };
    fs.writeFileSync(path.join(dir, "tsconfig.check.json"), JSON.stringify(tsconfig, null, 2));
    ok(await runProcess(path.join(REPO_ROOT, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.check.json"], { cwd: dir, env: process.env }));
  }, 120_000);

  it(`Go: builds against github.com/pulumi/pulumi/sdk/v3 v${PULUMI_VERSION}, and so do a program on it and examples/go`, async () => {
    const dir = copyOf("go");
    const goEnv = env({ GOFLAGS: "-mod=mod", GOWORK: "off" });
    // The SDK's own go.mod (schema meta.supportPack), built with the pinned SDK version.
    ok(await runProcess("go", ["mod", "edit", `-require=github.com/pulumi/pulumi/sdk/v3@v${PULUMI_VERSION}`], { cwd: dir, env: goEnv }));
    // The first run downloads the SDK's dependencies (Go module proxy) and compiles them: minutes.
    ok(await runProcess("go", ["build", "./..."], { cwd: dir, env: goEnv, timeoutMs: 600_000 }));

    // A Go program as a user writes it: resources, an output passed on, a lookup.
    const program = path.join(path.dirname(dir), "program");
    fs.mkdirSync(program);
    const module = /^module (\S+)$/m.exec(fs.readFileSync(path.join(dir, "go.mod"), "utf8"))?.[1];
    fs.writeFileSync(
      path.join(program, "go.mod"),
      `module example.com/keboola-program\n\ngo 1.25\n\nrequire (\n\tgithub.com/pulumi/pulumi/sdk/v3 v${PULUMI_VERSION}\n\t${module} v0.0.0\n)\n\nreplace ${module} => ${dir}\n`,
    );
    fs.writeFileSync(
      path.join(program, "main.go"),
      `package main

import (
\t"${module}/keboola"
\t"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
\tpulumi.Run(func(ctx *pulumi.Context) error {
\t\tbucket, err := keboola.NewBucket(ctx, "reference", &keboola.BucketArgs{Stage: keboola.BucketStageIn, Name: pulumi.String("reference")})
\t\tif err != nil {
\t\t\treturn err
\t\t}
\t\tevents, err := keboola.NewSource(ctx, "events", &keboola.SourceArgs{Name: pulumi.String("Events")})
\t\tif err != nil {
\t\t\treturn err
\t\t}
\t\t_, err = keboola.NewSink(ctx, "raw", &keboola.SinkArgs{
\t\t\tSourceId: events.SourceId,
\t\t\tName:     pulumi.String("Raw"),
\t\t\tTableId:  pulumi.String("in.c-events.raw"),
\t\t\tColumns:  pulumi.Array{pulumi.Map{"type": pulumi.String("uuid"), "name": pulumi.String("id")}},
\t\t})
\t\tif err != nil {
\t\t\treturn err
\t\t}
\t\tctx.Export("stage", keboola.LookupBucketOutput(ctx, keboola.LookupBucketOutputArgs{BucketId: bucket.BucketId}).Stage())
\t\tctx.Export("url", events.Url)
\t\treturn nil
\t})
}
`,
    );
    ok(await runProcess("go", ["build", "-o", path.join(program, "program"), "."], { cwd: program, env: goEnv, timeoutMs: 600_000 }));
    expect(fs.existsSync(path.join(program, "program"))).toBe(true);

    // examples/go (docs/_index.md shows its program) with its own go.mod, pointed at this copy of the SDK.
    const example = path.join(path.dirname(dir), "example");
    fs.cpSync(path.dirname(GO_EXAMPLE), example, { recursive: true });
    const exampleMod = fs.readFileSync(path.join(example, "go.mod"), "utf8");
    expect(exampleMod, "examples/go/go.mod: the pinned Pulumi SDK").toContain(`github.com/pulumi/pulumi/sdk/v3 v${PULUMI_VERSION}`);
    expect(exampleMod).toContain(`${module} v0.0.0`);
    ok(await runProcess("go", ["mod", "edit", `-replace=${module}=${dir}`], { cwd: example, env: goEnv }));
    ok(await runProcess("go", ["build", "-o", path.join(example, "program"), "."], { cwd: example, env: goEnv, timeoutMs: 600_000 }));
    expect(fs.existsSync(path.join(example, "program"))).toBe(true);
  }, 600_000);

  it("Python: byte-compiles, warnings as errors", async () => {
    const dir = copyOf("python");
    ok(await runProcess("python3", ["-W", "error", "-m", "compileall", "-q", "."], { cwd: dir, env: process.env }));
    expect(fs.readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".pyc")).length).toBeGreaterThan(0);
  }, 60_000);

  it("Python: examples/python byte-compiles, and names only the SDK's classes, their arguments and their outputs", async () => {
    // No Pulumi for Python here to import the SDK with: both are read as Python's own parser reads them.
    const out = tmpDir("sdk-python-example-");
    fs.copyFileSync(PYTHON_EXAMPLE, path.join(out, "__main__.py"));
    ok(await runProcess("python3", ["-W", "error", "-m", "py_compile", path.join(out, "__main__.py")], { cwd: out, env: process.env }));
    const checked = ok(await runProcess("python3", ["-c", PYTHON_NAMES_CHECK, path.join(SDK, "python", "pulumi_keboola"), PYTHON_EXAMPLE], { cwd: out, env: process.env }));
    // It found the calls it checks (a source and a sink) and the output it reads.
    expect(checked.stdout.trim().split("\n").sort()).toEqual(["Sink(columns, name, source_id, table_id)", "Source(name)", "Source.source_id", "Source.url"]);
  }, 60_000);
});
