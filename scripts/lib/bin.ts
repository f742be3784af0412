import * as fs from "node:fs";
import * as path from "node:path";
import { z } from "zod";

// The built `keboola-pulumi` and `pulumi-resource-keboola`, found as npm finds them: package.json's
// bin. The scripts and the tests run them as a user's pipeline and the engine do (`node <bin> ...`),
// so they follow the bin wherever it points.

const ROOT = path.resolve(__dirname, "..", "..", fs.existsSync(path.join(__dirname, "..", "..", "package.json")) ? "" : "..");
const pkg = z.object({ bin: z.record(z.string(), z.string()) }).parse(JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")));

/** Absolute path of the built `keboola-pulumi` (run it with process.execPath). */
export const KEBOOLA_PULUMI = path.join(ROOT, pkg.bin["keboola-pulumi"]);

/** Absolute path of the built provider plugin, the npm bin the engine runs (run it with process.execPath). */
export const PULUMI_RESOURCE_KEBOOLA = path.join(ROOT, pkg.bin["pulumi-resource-keboola"]);
