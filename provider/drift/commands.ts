import * as fs from "node:fs";
import * as path from "node:path";
import { parse as parseYaml } from "yaml";
import { isRecord } from "../../keboola/json";
import { pulumiCli, type PulumiCli } from "../pipeline/pulumi";
import { compareAll } from "./compare";
import { clientsOf, provenanceOfChanged, readLive, stackClient } from "./live";
import { newEntries, type NewEntry } from "./new-objects";
import { changesForCode, pullManifest, type PullResult } from "./pull";
import { counts, drifted, renderJson, renderMarkdown, renderText, type DriftReport } from "./report";
import { DriftError, readStack, type StackSnapshot } from "./stack";
import { unifiedDiff } from "./unified-diff";
import { annotateDrift, manifestFactsOf, type ManifestFacts } from "./manifest-facts";

// What `keboola-pulumi drift` and `keboola-pulumi pull` do (their command lines: provider/cli/drift.ts
// and pull.ts), run in the Pulumi project's directory with the environment `pulumi` itself needs
// (backend, passphrase). drift answers as `terraform plan -detailed-exitcode`: 0 nothing drifted,
// 2 something did; every error is thrown, and the command line makes it exit 1.

export interface DriftIo {
  env: NodeJS.ProcessEnv;
  cwd: string;
  write(text: string): void;
  error(text: string): void;
  /** The Pulumi CLI (tests may give their own). */
  pulumi?: PulumiCli;
}

/** The stack read, every object it manages read from Keboola and compared: what both commands start with. */
async function detect(io: DriftIo, stack: string | undefined, manifest?: string): Promise<{ pulumi: PulumiCli; snapshot: StackSnapshot; report: DriftReport; facts?: ManifestFacts }> {
  // The CLI's own progress stays out of the report; its errors come back in DriftError.
  const pulumi = io.pulumi ?? pulumiCli({ cwd: io.cwd, env: io.env, log: () => undefined });
  const snapshot = await readStack(pulumi, stack);
  const clientOf = clientsOf(snapshot, io.env);
  // A guarded stack (keboola:projectId) reads nothing before the token's project is verified: once
  // per distinct settings, failing the whole command on a mismatch rather than each object's read.
  await Promise.all([...new Set(snapshot.resources.map(clientOf))].map((client) => client.verifyProject()));
  const resources = compareAll(snapshot.resources, await readLive(snapshot.resources, clientOf));
  // A manifest's stack: changes it leaves to Keboola (ignoreChanges) apart, values from `${name}` with their stack config key.
  const file = manifestOf(io, manifest, snapshot.config);
  const facts = file ? manifestFactsOf(file, io.cwd, snapshot) : undefined;
  if (facts) annotateDrift(resources, facts);
  await provenanceOfChanged(resources, clientOf);
  return { pulumi, snapshot, report: { stack: snapshot.stack, resources }, ...(facts ? { facts } : {}) };
}

/** `keboola-pulumi drift`: 0 nothing drifted, 2 something did, 1 an object could not be read. */
export async function drift(o: { stack?: string; json: boolean; markdown?: string }, io: DriftIo): Promise<number> {
  const { report } = await detect(io, o.stack);
  io.write(o.json ? renderJson(report) : renderText(report));
  if (o.markdown) fs.writeFileSync(path.resolve(io.cwd, o.markdown), renderMarkdown(report));
  if (counts(report).error) return 1;
  return drifted(report) ? 2 : 0;
}

/** The manifest a stack deploys, or undefined for a stack made by a program (Pulumi.yaml's main is not the manifest program). */
function manifestOf(io: DriftIo, given: string | undefined, config: Record<string, string>): string | undefined {
  if (given) return path.resolve(io.cwd, given);
  let main: unknown;
  try {
    const project: unknown = parseYaml(fs.readFileSync(path.join(io.cwd, "Pulumi.yaml"), "utf8"));
    main = isRecord(project) ? project.main : undefined;
  } catch {
    main = undefined;
  }
  if (typeof main !== "string" || !/provider\/manifest\/program(\.js)?$/.test(main.replace(/\\/g, "/"))) return undefined;
  return path.resolve(io.cwd, config["keboola:manifest"] ?? "keboola.yaml");
}

/** What `pull` writes, worked out before anything is written. */
export type PullPlan =
  | { program: true; snapshot: StackSnapshot; report: DriftReport }
  | { program: false; snapshot: StackSnapshot; report: DriftReport; pulumi: PulumiCli; file: string; name: string; before: string; result: PullResult; added: number };

/** The stack read and compared, and (for a manifest's stack that drifted) the manifest's new text: both `pull` and the pipeline's drift step start here. */
export async function planPull(io: DriftIo, o: { manifest?: string; stack?: string; includeDeleted: boolean; includeNew?: boolean }): Promise<PullPlan> {
  const { pulumi, snapshot, report, facts } = await detect(io, o.stack, o.manifest);
  const failed = report.resources.filter((d) => d.status === "error");
  if (failed.length) throw new DriftError(`not every object could be read, nothing was pulled:\n${failed.map((d) => `  ${d.resource.name}: ${d.error ?? ""}`).join("\n")}`);
  const file = manifestOf(io, o.manifest, snapshot.config);
  if (!file) return { program: true, snapshot, report };
  let before: string;
  try {
    before = fs.readFileSync(file, "utf8");
  } catch (err) {
    throw new DriftError(`cannot read the manifest ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const name = path.relative(io.cwd, file).split(path.sep).join("/") || path.basename(file);
  const added = o.includeNew ? await newObjectsOf(io, snapshot, before) : { entries: [], notes: [] };
  const result =
    drifted(report) || added.entries.length
      ? pullManifest(before, name, report.resources, snapshot.resources, { includeDeleted: o.includeDeleted, additions: added.entries, ...(facts ? { facts } : {}) })
      : { text: before, pulled: [], notes: [] };
  result.notes.push(...added.notes);
  return { program: false, snapshot, report, pulumi, file, name, before, result, added: added.entries.length };
}

/** `--include-new`: the default branch's objects no resource of the stack manages, as entries of the manifest. */
async function newObjectsOf(io: DriftIo, snapshot: StackSnapshot, text: string): Promise<{ entries: NewEntry[]; notes: string[] }> {
  if (snapshot.config["keboola:branch"]) {
    throw new DriftError(
      `--include-new reads the project's default branch, and stack ${snapshot.stack} deploys into development branch "${snapshot.config["keboola:branch"]}" (stack config keboola:branch): pull new objects with the production stack`,
    );
  }
  let declared: unknown;
  try {
    declared = parseYaml(text);
  } catch {
    declared = undefined;
  }
  const keysOf = (section: string) => new Set(isRecord(declared) && isRecord(declared[section]) ? Object.keys(declared[section]) : []);
  return newEntries(stackClient(snapshot, io.env), snapshot, keysOf);
}

/** Why a program's stack cannot be pulled, and what to change in the program instead. */
export function programRefusal(plan: { snapshot: StackSnapshot; report: DriftReport }, command: string): string {
  return `keboola-pulumi ${command}: stack ${plan.snapshot.stack} is deployed by a program (Pulumi.yaml's main is not keboola-pulumi's manifest program), and pull rewrites keboola.yaml only. Change the program as follows, then \`pulumi up\`:\n${changesForCode(plan.report.resources).join("\n")}\n`;
}

/** `keboola-pulumi pull`: 0 written (or nothing to write), 1 a program's stack drifted (its changes printed). */
export async function pull(o: { manifest?: string; stack?: string; dryRun: boolean; includeDeleted: boolean; includeNew: boolean }, io: DriftIo): Promise<number> {
  const { stack } = o;
  const plan = await planPull(io, { manifest: o.manifest, stack, includeDeleted: o.includeDeleted, includeNew: o.includeNew });
  const { snapshot, report } = plan;
  if (plan.program) {
    io.write(renderText(report));
    if (!drifted(report)) return 0;
    io.error(programRefusal(plan, "pull"));
    return 1;
  }
  const { name, before, result } = plan;
  if (!drifted(report) && !plan.added) {
    io.write(`Nothing drifted in stack ${snapshot.stack}${o.includeNew ? " and nothing new was made in Keboola" : ""}: ${name} is left as it is.\n`);
    for (const note of result.notes) io.error(`note: ${note}\n`);
    return 0;
  }
  io.write(unifiedDiff(before, result.text, name) || `${name}: no change to write (the drifted objects are not entries of it)\n`);
  for (const note of result.notes) io.error(`note: ${note}\n`);
  if (o.dryRun) {
    io.error(`--dry-run: neither ${name} nor the state of stack ${snapshot.stack} was written\n`);
    return 0;
  }
  if (result.text !== before) fs.writeFileSync(plan.file, result.text);
  if (result.pulled.length) {
    // The pulled objects' state brought up to Keboola, as `pulumi refresh` does: the next preview compares the manifest with it.
    const refresh = await plan.pulumi.run(["refresh", "--yes", "--skip-preview", ...(stack ? ["--stack", stack] : []), ...result.pulled.flatMap((r) => ["--target", r.urn])], { quiet: true });
    if (refresh.code !== 0) throw new DriftError(`${name} was written, but refreshing the state failed; run \`pulumi refresh\`: ${(refresh.stderr || refresh.stdout).trim().split("\n").slice(-5).join("\n")}`);
  }
  if (drifted(report)) io.error(`pulled ${result.pulled.length} object(s) into ${name}; the state of stack ${snapshot.stack} now matches Keboola for them\n`);
  if (plan.added) io.error(`added ${plan.added} object(s) made in Keboola to ${name}: the next \`pulumi up\` takes them over (adoptExisting), changing nothing in Keboola\n`);
  return 0;
}
