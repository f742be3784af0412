import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../../emulator/server";
import { REPO_ROOT, describeResult, type RunResult } from "./pulumi-workspace";
import { makeRootProject, type RootProject } from "./root-project";

// The scripted change of the quickstart that `keboola-pulumi review` is shown and tested with
// (test/e2e/review.e2e.test.ts compares its review with the golden file; scripts/review-fixtures.ts
// captures the unit tests' previews): examples/quickstart/keboola.yaml deployed through the root
// Pulumi project to the emulator, with one more source (`legacy`, so that a source can be deleted
// while the quickstart's sinks stay), then
//   (a) a configuration edit: the extractor's baseUrl,
//   (b) a sink column added: `country` in `actions`, which writes a new table (the existing one
//       has the old columns, and a sink's columns must equal its table's: preview refuses the
//       column alone, see provider/validation/columns.ts mappingMismatch),
//   (c) a table reloaded: a row appended to countries.csv,
//   (d) a configuration replaced: the variables configuration gets a configId of its own,
//   (e) a source deleted: `legacy`.

export const QUICKSTART_DIR = path.join(REPO_ROOT, "examples", "quickstart");
export const QUICKSTART_SECRET = "demo-users-api-token-1";
/** The stack the example review names (ids such as `kp-<hash of the URN>` depend on it). */
export const REVIEW_STACK = "review-example";

const text = (): string => fs.readFileSync(path.join(QUICKSTART_DIR, "keboola.yaml"), "utf8");

function replaceOnce(source: string, from: string, to: string): string {
  if (!source.includes(from)) throw new Error(`review scenario: the quickstart manifest no longer contains ${JSON.stringify(from)}: update scripts/lib/review-scenario.ts`);
  return source.replace(from, to);
}

/** The quickstart with the `legacy` source: what is deployed first. */
export function baseManifest(): string {
  return replaceOnce(text(), "\nsinks:\n", "  legacy:\n    name: Legacy Events\n\nsinks:\n");
}

export const EDITS = {
  configuration: (m: string) => replaceOnce(m, "https://api.example.com/v1/", "https://api.example.com/v2/"),
  column: (m: string) =>
    replaceOnce(
      replaceOnce(m, "    tableId: in.c-quickstart.actions\n", "    tableId: in.c-quickstart.actions_v2\n"),
      "      - { type: path, name: action, path: action, defaultValue: unknown, rawString: true }\n",
      "      - { type: path, name: action, path: action, defaultValue: unknown, rawString: true }\n      - { type: path, name: country, path: user.country, defaultValue: \"\", rawString: true }\n",
    ),
  replace: (m: string) => replaceOnce(m, "    name: Users extractor variables\n", "    configId: users-vars-v2\n    name: Users extractor variables\n"),
  deleteSource: (m: string) => replaceOnce(m, "  legacy:\n    name: Legacy Events\n\n", ""),
};

/** Every edit of the scenario but the table's data. */
export function changedManifest(): string {
  return EDITS.deleteSource(EDITS.replace(EDITS.column(EDITS.configuration(baseManifest()))));
}

/** (c): one more row in the manifest's copy of countries.csv. */
export function reloadData(dir: string): void {
  fs.appendFileSync(path.join(dir, "countries.csv"), "SK,Slovakia\n");
}

export interface QuickstartStack {
  emulator: Emulator;
  root: RootProject;
  /** The directory of the manifest (a copy of the quickstart's, with countries.csv). */
  dir: string;
  manifest: string;
  write(manifest: string): void;
  /** `pulumi up --parallel 1`: one resource at a time, so the emulator's ids are the same every run. */
  up(): Promise<void>;
  /** `pulumi preview --json [flags]`, with the temporary manifest directory normalized away. */
  previewJson(flags?: string[]): Promise<string>;
  cleanup(): Promise<void>;
}

function must(what: string, res: RunResult): RunResult {
  if (res.code !== 0) throw new Error(`${what} failed:\n${describeResult(res)}`);
  return res;
}

/**
 * The run-dependent parts of a preview: the manifest's temporary directory (in the table's `data`
 * path, relative to the repository root, and in the config) reads as the quickstart's own
 * directory, the emulator's address as `http://127.0.0.1:8080`, and the checkout's directory (a
 * table's hidden `__root`) as `.`. (The stack has a fixed name,
 * and `up --parallel 1` makes the emulator's ids the same on every run, so nothing else varies.)
 */
export function normalizePreview(json: string, dir: string, host: string): string {
  const relative = path.relative(REPO_ROOT, dir).split(path.sep).join("/");
  return json.split(relative).join("examples/quickstart").split(dir).join("examples/quickstart").split(host).join("http://127.0.0.1:8080").split(REPO_ROOT).join(".");
}

/** Starts the emulator and a stack named `stack` for the base manifest (nothing deployed yet). */
export async function quickstartStack(stack: string, manifestText = baseManifest()): Promise<QuickstartStack> {
  const emulator = await startEmulator({ token: "review-master-token", taskDurationMs: 20 });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "keboola-review-"));
  const manifest = path.join(dir, "keboola.yaml");
  fs.copyFileSync(path.join(QUICKSTART_DIR, "countries.csv"), path.join(dir, "countries.csv"));
  fs.writeFileSync(manifest, manifestText);
  // A fixed stack name: a config file left by a killed run would hold another encryption salt.
  fs.rmSync(path.join(REPO_ROOT, `Pulumi.${stack}.yaml`), { force: true });
  let root: RootProject | undefined;
  const cleanup = async () => {
    await root?.cleanup();
    await emulator.close();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    root = await makeRootProject({ prefix: "review", stack, host: emulator.url, token: "review-master-token", manifest, config: { usersApiToken: { secret: QUICKSTART_SECRET } } });
  } catch (err) {
    await cleanup();
    throw err;
  }
  const r = root;
  return {
    emulator,
    root: r,
    dir,
    manifest,
    write: (m) => fs.writeFileSync(manifest, m),
    async up() {
      must("pulumi up", await r.pulumi(["up", "--yes", "--skip-preview", "--parallel", "1"], { timeoutMs: 300_000 }));
    },
    async previewJson(flags = []) {
      const res = await r.pulumi(["preview", "--json", ...flags], { timeoutMs: 300_000 });
      // A preview that fails still prints its JSON (with the diagnostics), and exits non-zero.
      if (!res.stdout.trim().startsWith("{")) throw new Error(`pulumi preview --json printed no JSON:\n${describeResult(res)}`);
      return normalizePreview(res.stdout, dir, emulator.url);
    },
    cleanup,
  };
}
