import * as fs from "node:fs";
import * as path from "node:path";
import { randomBytes } from "node:crypto";
import { startEmulator } from "../../emulator/server";
import { makePulumiWorkspace, REPO_ROOT } from "./pulumi-workspace";

// The Pulumi YAML example (examples/yaml: the quickstart's project on the provider plugin) deployed
// on the bundled emulator through this checkout's plugin; answers `pulumi stack export` (with
// the secrets it was given, which must appear nowhere in it).

export async function deployYamlExample(dir = path.join(REPO_ROOT, "examples", "yaml")): Promise<{ exported: string; secrets: string[] }> {
  const token = randomBytes(16).toString("hex");
  const apiToken = `demo-${randomBytes(8).toString("hex")}`;
  const emu = await startEmulator({ token, taskDurationMs: 10 });
  const ws = await makePulumiWorkspace({ prefix: "yaml-example-", plugin: true });
  try {
    for (const f of fs.readdirSync(dir)) fs.copyFileSync(path.join(dir, f), path.join(ws.programDir, f));
    const must = async (what: string, run: Promise<{ code: number | null; stdout: string; stderr: string }>) => {
      const r = await run;
      if (r.code !== 0) throw new Error(`${what} failed:\n${r.stdout}\n${r.stderr}`);
      return r.stdout;
    };
    await must("stack init", ws.initStack());
    await must("config", ws.setConfigs({ "keboola:host": emu.url, "keboola:token": { secret: token }, usersApiToken: { secret: apiToken } }));
    await must("pulumi up", ws.up());
    return { exported: await must("stack export", ws.pulumi(["stack", "export"])), secrets: [token, apiToken] };
  } finally {
    await ws.cleanup();
    await emu.close();
  }
}
