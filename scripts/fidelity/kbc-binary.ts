import { execFileSync } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import type { Log } from "./lib/workdir";

// The kbc binary the keboola-as-code harness runs, and the wrapper it runs it through.

/** `--kbc`, or `go build -o <work>/kbc ./cmd/kbc` in the keboola-as-code tree (about 3 min cold on 2 cores). */
export function ensureKbc(given: string | undefined, kac: string, work: string, log: Log): string {
  if (given) {
    const p = path.resolve(given);
    if (!fs.existsSync(p)) throw new Error(`--kbc ${p} does not exist`);
    return p;
  }
  const p = path.join(work, "kbc");
  log(`building kbc (go build ./cmd/kbc in ${kac}) ...`);
  execFileSync("nice", ["-n", "10", "go", "build", "-o", p, "./cmd/kbc"], { cwd: kac, stdio: ["ignore", "inherit", "inherit"] });
  return p;
}

/** TEST_BINARY_CLI_HASH: the harness keys its cache of the binary by it. */
export function binaryHash(file: string): string {
  return crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex").slice(0, 16);
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * The harness runs kbc with only the project's env (TEST_KBC_* and the test's env file), so the
 * CA and the S3 bridge reach kbc through a wrapper script; TEST_BINARY_CLI points the harness at
 * it instead of letting it compile kbc with `task build-local` (which needs goreleaser).
 * With `hostsFile`, kbc runs in a private mount namespace whose /etc/hosts maps kbc's default
 * stack to the public-host front (see public-host.ts); the machine's /etc/hosts is not touched.
 */
export function writeWrapper(work: string, kbc: string, caFile: string, proxyUrl: string | undefined, hostsFile: string | undefined): string {
  const w = path.join(work, "kbc-wrapper.sh");
  const lines = ["#!/bin/sh", `export SSL_CERT_FILE=${quote(caFile)}`];
  if (proxyUrl) lines.push(`export HTTPS_PROXY=${quote(proxyUrl)}`, "export NO_PROXY='localhost,127.0.0.1'");
  if (hostsFile) lines.push(`exec /usr/bin/unshare -m /bin/sh -c '/usr/bin/mount --bind "$0" /etc/hosts && exec "$@"' ${quote(hostsFile)} ${quote(kbc)} "$@"`, "");
  else lines.push(`exec ${quote(kbc)} "$@"`, "");
  fs.writeFileSync(w, lines.join("\n"), { mode: 0o755 });
  return w;
}
