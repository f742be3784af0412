import * as crypto from "node:crypto";
import * as fs from "node:fs";
import type { TlsMaterial } from "./certs";
import { startEmulator, type EmulatorSlot } from "./emulators";
import type { RequestLog } from "./request-log";
import type { IssuedCredentials } from "./s3-credentials";
import { startStorageFront, type FrontHook, type StorageFront } from "./storage-front";
import type { Log } from "./workdir";

// The test projects of a run: per parallel slot an emulator and its TLS front, described in
// go-utils `testproject`'s projects file (TEST_KBC_PROJECTS_FILE), from which both Go suites take
// their projects. go-utils locks a project per test, with a file lock (flock) under
// os.TempDir()/<TEST_KBC_PROJECTS_LOCK_DIR_NAME> when no redis lock host is set; see lockEnv.

export interface ProjectSlot extends EmulatorSlot {
  front: StorageFront;
}

export interface StartProjectsOptions {
  work: string;
  count: number;
  /** Tokens are `<tokenPrefix>-<slot>-<random>`. */
  tokenPrefix: string;
  tls: TlsMaterial;
  requestLog: RequestLog;
  credentials: IssuedCredentials;
  hooks: FrontHook[];
  log: Log;
}

/** The first project id; slot i serves 4242 + i (the id the emulator's docs use). */
const FIRST_PROJECT_ID = 4242;

export async function startProjects(o: StartProjectsOptions): Promise<ProjectSlot[]> {
  const slots: ProjectSlot[] = [];
  for (let i = 0; i < o.count; i++) {
    const token = `${o.tokenPrefix}-${i}-${crypto.randomBytes(12).toString("hex")}`;
    const emu = await startEmulator(o.work, i, token, FIRST_PROJECT_ID + i);
    const front = await startStorageFront({ slot: i, emulatorUrl: emu.url, tls: o.tls, log: o.requestLog, credentials: o.credentials, hooks: o.hooks });
    slots.push({ ...emu, front });
    o.log(`emulator ${i}: ${emu.url} (project ${emu.projectId}) behind ${front.publicBase}`);
  }
  return slots;
}

/** go-utils testproject.Definition (pkg/testproject/testproject.go). */
interface ProjectDefinition {
  host: string;
  token: string;
  project: number;
  stagingStorage: "s3";
  backend: "snowflake";
  legacyTransformation: boolean;
}

/**
 * Writes the projects file. Every project is S3 staging and Snowflake backend, as the emulator
 * presents itself (tokens/verify); a test asking for BigQuery, ABS or GCS gets "no compatible test
 * project". `legacyTransformation: true`: the emulator's catalog lists the legacy `transformation`
 * component, and go-utils' IsCompatible lets such a project serve tests that do not ask for it.
 */
export function writeProjectsFile(file: string, slots: ProjectSlot[]): void {
  const defs: ProjectDefinition[] = slots.map((s) => ({
    host: s.front.host,
    token: s.token,
    project: s.projectId,
    stagingStorage: "s3",
    backend: "snowflake",
    legacyTransformation: true,
  }));
  fs.writeFileSync(file, JSON.stringify(defs, null, 2));
}

/**
 * The go test environment for the projects: the file, a lock dir name of this run only (stale
 * locks of an earlier run cannot block it), and no redis lock settings, so that go-utils falls
 * back to its file lock. Proxy variables of the caller are dropped: the suites get only the
 * S3 bridge.
 */
export function projectsEnv(base: NodeJS.ProcessEnv, projectsFile: string, lockDirName: string): NodeJS.ProcessEnv {
  const env = { ...base };
  for (const k of ["TEST_KBC_PROJECTS_LOCK_HOST", "TEST_KBC_PROJECTS_LOCK_PASSWORD", "TEST_KBC_PROJECTS_LOCK_TLS", "HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "NO_PROXY", "no_proxy"]) delete env[k];
  env.TEST_KBC_PROJECTS_FILE = projectsFile;
  env.TEST_KBC_PROJECTS_LOCK_DIR_NAME = lockDirName;
  return env;
}
