import * as fs from "node:fs";
import * as path from "node:path";
import { z } from "zod";

// The built `keboola-pulumi`, found as npm finds it: package.json's bin. The scripts and the tests
// run it as a user's pipeline does (`node <bin> <command> ...`), so they follow the bin wherever
// it points.

const ROOT = path.resolve(__dirname, "..", "..", fs.existsSync(path.join(__dirname, "..", "..", "package.json")) ? "" : "..");
const pkg = z.object({ bin: z.record(z.string(), z.string()) }).parse(JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")));

/** Absolute path of the built `keboola-pulumi` (run it with process.execPath). */
export const KEBOOLA_PULUMI = path.join(ROOT, pkg.bin["keboola-pulumi"]);
