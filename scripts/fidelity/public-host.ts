import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import type { Log } from "./lib/workdir";
import { startStorageFront, type FrontHook, type StorageFrontOptions } from "./lib/storage-front";

// kbc's default stack. A few commands (`validate`, `status`, interactive `init`) call
// connection.keboola.com when no host is given, and kbc's HTTP/2 transport ignores proxies. So
// emulator 0 gets a second front on 127.0.0.2:443 with that name, and kbc (only kbc, through its
// wrapper) runs in a private mount namespace whose /etc/hosts maps the name there. This needs
// root (unshare -m, binding port 443); without it the mapping is skipped and about 15 tests fail
// on DNS.

export const PUBLIC_HOST = "connection.keboola.com";
const PUBLIC_ADDR = "127.0.0.2";

/** Starts the public-host front; answers the hosts file for the wrapper, or undefined when not possible. */
export async function mapPublicHost(work: string, front: Omit<StorageFrontOptions, "listen" | "hooks">, hooks: FrontHook[], log: Log): Promise<string | undefined> {
  try {
    execFileSync("/usr/bin/unshare", ["-m", "/bin/sh", "-c", "/usr/bin/mount --bind /etc/hosts /etc/hosts"], { stdio: "ignore" });
    await startStorageFront({ ...front, hooks, listen: { host: PUBLIC_ADDR, port: 443, publicBase: `https://${PUBLIC_HOST}` } });
  } catch (e) {
    log(`no ${PUBLIC_HOST} mapping (${(e instanceof Error ? e.message : String(e)).split("\n")[0]}); tests that use the default stack will fail on DNS`);
    return undefined;
  }
  const hostsFile = path.join(work, "hosts");
  const orig = fs.existsSync("/etc/hosts") ? fs.readFileSync("/etc/hosts", "utf8") : "127.0.0.1 localhost\n";
  fs.writeFileSync(hostsFile, `${orig.trimEnd()}\n${PUBLIC_ADDR} ${PUBLIC_HOST}\n`);
  log(`${PUBLIC_HOST} (kbc's default stack) -> ${PUBLIC_ADDR}:443 -> emulator 0, in kbc's own mount namespace`);
  return hostsFile;
}
