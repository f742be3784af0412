import * as path from "node:path";
import * as url from "node:url";
import * as pulumi from "@pulumi/pulumi";
import { isRecord } from "../../keboola/json";

// Registering a resource with the Pulumi Node SDK captures a JavaScript stack trace for every
// promise it creates (four per property, @pulumi/pulumi runtime/debuggable.js debuggablePromise),
// and each capture runs the program's source-map-support over every frame: about 5 ms per
// resource, over a second for a fleet of 200, all before the program sends its first registration.
// Those traces only serve the SDK's promise-leak report. The resource classes therefore register
// with Error.stackTraceLimit at 0. What the state records is unaffected: the SDK's own
// Resource.callsites() raises the limit itself to take the resource's source position and stack.
// With PULUMI_DEBUG_PROMISE_LEAKS set (the switch of that report), the traces are kept; an error
// thrown by the registration gets the constructor's caller frames appended.
//
// The SDK also sends the engine the whole JavaScript stack of each registration, which the state
// keeps per resource (`stackTrace`, about 700 bytes, plus `sourcePosition`): frames of this
// package, of the SDK and of Node, which the engine rewrites at every step of an `up` (see the
// README, "Large stacks"). Only the program's own frames say anything, so the registration records
// those alone (at most a few): a TypeScript program's line that declared the resource is its
// source position, as Pulumi means it; a manifest, deployed by this package's code, records none.
// The engine reads these for display only (Pulumi Cloud's link to the source).
//
// The SDK has no supported switch for either capture (no resource option or PULUMI_ variable, up to
// 3.276.0), so this replaces its private statics, Resource.stackTrace and Resource.callsites, found
// through a run-time check of their shape (hasSdkStackTracing) rather than a type assertion. They are
// the same from 3.200.0 to 3.276.0; test/mocks/registration.test.ts fails the day an SDK renames them.

/** The directory of this package (dist/provider/ or provider/ is below it). */
const PACKAGE_ROOT = path.resolve(__dirname, __dirname.includes(`${path.sep}dist${path.sep}`) ? "../../.." : "../..");
const MAX_FRAMES = 3;

type Frame = { uri: string; line: number; column: number };

/**
 * The private statics of the SDK's Resource class this file relies on (@pulumi/pulumi resource.js):
 * `stackTrace(skip)`, which the Resource constructor calls for the frames it sends with each
 * registration, and `callsites()`, the parsed frames of the current stack. The SDK declares both
 * `private static`, so no public type names them; the guard below checks them at run time.
 */
export interface SdkStackTracing {
  stackTrace: (skip: number) => unknown;
  callsites: () => unknown;
}

/** Whether the SDK's Resource class (given as `unknown`) has its own `stackTrace` and `callsites` functions. */
export function hasSdkStackTracing(resource: unknown): resource is SdkStackTracing {
  return (
    typeof resource === "function" &&
    Object.prototype.hasOwnProperty.call(resource, "stackTrace") &&
    Object.prototype.hasOwnProperty.call(resource, "callsites") &&
    "stackTrace" in resource &&
    typeof resource.stackTrace === "function" &&
    "callsites" in resource &&
    typeof resource.callsites === "function"
  );
}

/** The installed SDK's Resource class when it has the shape this file expects, else undefined. */
export function sdkStackTracing(resource: unknown = pulumi.Resource): SdkStackTracing | undefined {
  return hasSdkStackTracing(resource) ? resource : undefined;
}

/** The callsites' frames with a file, line and column (the SDK gives `{}` for a frame without them). */
function positions(callsites: unknown): Array<{ file: string; line: number; column: number }> {
  if (!Array.isArray(callsites)) return [];
  const out: Array<{ file: string; line: number; column: number }> = [];
  for (const site of callsites) {
    if (!isRecord(site)) continue;
    const { file, line, column } = site;
    if (typeof file === "string" && file && typeof line === "number" && line && typeof column === "number" && column) out.push({ file, line, column });
  }
  return out;
}

/** The frames of the current stack that belong to the program: not this package, the Pulumi SDK or Node. */
function programFrames(sdk: SdkStackTracing): Frame[] {
  const frames: Frame[] = [];
  for (const { file, line, column } of positions(sdk.callsites())) {
    if (file.startsWith(PACKAGE_ROOT + path.sep) || /[\\/]node_modules[\\/](@pulumi|keboola-pulumi)[\\/]/.test(file) || !path.isAbsolute(file)) continue;
    frames.push({ uri: url.pathToFileURL(file).toString(), line, column });
    if (frames.length >= MAX_FRAMES) break;
  }
  return frames;
}

export interface QuietStacks {
  /** Puts the limit back; idempotent. */
  restore(): void;
  /** The error thrown by the registration, with the frames of the resource's construction. */
  explain(err: unknown): unknown;
}

export function quietStacks(): QuietStacks {
  const limit = Error.stackTraceLimit;
  const debugging = !!process.env.PULUMI_DEBUG_PROMISE_LEAKS;
  // The SDK's Resource.stackTrace(skip), a static the Resource constructor calls: the program's frames instead.
  const sdk = sdkStackTracing();
  const original = sdk?.stackTrace;
  if (!debugging) {
    Error.stackTraceLimit = 0;
    if (sdk) sdk.stackTrace = () => programFrames(sdk);
  }
  let restored = debugging;
  const restore = () => {
    if (!restored) {
      Error.stackTraceLimit = limit;
      if (sdk && original) sdk.stackTrace = original;
    }
    restored = true;
  };
  return {
    restore,
    explain(err) {
      const quiet = !restored;
      restore();
      if (quiet && err instanceof Error) {
        const frames = (new Error().stack ?? "").split("\n").slice(2).join("\n");
        if (frames) err.stack = `${err.stack ?? `${err.name}: ${err.message}`}\n${frames}`;
      }
      return err;
    },
  };
}
