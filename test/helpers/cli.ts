import * as fs from "node:fs";
import * as path from "node:path";

// The built `keboola-pulumi`, found as npm finds it: package.json's bin. Tests run it as a user's
// pipeline does (`node <bin> <command> ...`), so they follow the bin wherever it points.

const ROOT = path.resolve(__dirname, "..", "..");
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { bin: Record<string, string> };

/** Absolute path of the built `keboola-pulumi` (run it with process.execPath). */
export const KEBOOLA_PULUMI = path.join(ROOT, pkg.bin["keboola-pulumi"]);
