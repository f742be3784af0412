import * as fs from "node:fs";
import * as path from "node:path";
import type { TlsMaterial } from "./certs";
import { stopChildren } from "./children";
import { saveEmulatorRequests } from "./emulators";
import { projectsEnv, startProjects, writeProjectsFile, type ProjectSlot } from "./projects";
import { RequestLog } from "./request-log";
import { startS3Bridge, type S3Bridge } from "./s3-bridge";
import { IssuedCredentials } from "./s3-credentials";
import type { FrontHook } from "./storage-front";
import type { Log } from "./workdir";

// What both Go suites run against: the projects (an emulator and its TLS front per slot, in the
// projects file), the S3 bridge, the request log, and the go test environment that points at
// them (the projects file and lock dir, the CA bundle, the bridge as HTTPS_PROXY). Stopped with
// everything it started; the CA's key is removed unless asked to keep it.

export interface Stack {
  slots: ProjectSlot[];
  bridge?: S3Bridge;
  requestLog: RequestLog;
  credentials: IssuedCredentials;
  /** The go test environment (the suite adds its own variables). */
  env: NodeJS.ProcessEnv;
  /** The emulators' and fronts' requests saved, the log closed: before the reports read them. */
  stopRecording(): Promise<void>;
  close(o: { keepCaKey: boolean }): void;
}

export async function startStack(o: { work: string; suite: string; tokenPrefix: string; parallel: number; tls: TlsMaterial; hooks: FrontHook[]; s3Bridge: boolean; log: Log }): Promise<Stack> {
  const requestLog = new RequestLog(path.join(o.work, "requests.jsonl"));
  const credentials = new IssuedCredentials();
  const slots = await startProjects({ work: o.work, count: o.parallel, tokenPrefix: o.tokenPrefix, tls: o.tls, requestLog, credentials, hooks: o.hooks, log: o.log });
  const bridge = o.s3Bridge ? await startS3Bridge(o.tls, slots.map((s) => s.url), credentials, requestLog) : undefined;
  if (bridge) o.log(`S3 bridge (HTTPS_PROXY) at ${bridge.url}`);
  const projectsFile = path.join(o.work, "projects.json");
  writeProjectsFile(projectsFile, slots);
  const env = projectsEnv(process.env, projectsFile, `fidelity-${o.suite}-locks-${process.pid}`);
  env.SSL_CERT_FILE = o.tls.caFile;
  if (bridge) Object.assign(env, { HTTPS_PROXY: bridge.url, NO_PROXY: "localhost,127.0.0.1" });
  return {
    slots,
    bridge,
    requestLog,
    credentials,
    env,
    async stopRecording() {
      await saveEmulatorRequests(o.work, slots);
      await requestLog.close();
    },
    close({ keepCaKey }) {
      stopChildren();
      if (!keepCaKey) fs.rmSync(o.tls.caKeyFile, { force: true });
      for (const s of slots) s.front.server.close();
      bridge?.server.close();
    },
  };
}
