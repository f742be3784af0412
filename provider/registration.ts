// Registering a resource with the Pulumi Node SDK captures a JavaScript stack trace for every
// promise it creates (four per property, @pulumi/pulumi runtime/debuggable.js debuggablePromise),
// and each capture runs the program's source-map-support over every frame: about 5 ms per
// resource, over a second for a fleet of 200, all before the program sends its first registration.
// Those traces only serve the SDK's promise-leak report. The resource classes therefore register
// with Error.stackTraceLimit at 0. What the state records is unaffected: the SDK's own
// Resource.callsites() raises the limit itself to take the resource's source position and stack.
// With PULUMI_DEBUG_PROMISE_LEAKS set (the switch of that report), the traces are kept; an error
// thrown by the registration gets the constructor's caller frames appended.

export interface QuietStacks {
  /** Puts the limit back; idempotent. */
  restore(): void;
  /** The error thrown by the registration, with the frames of the resource's construction. */
  explain(err: unknown): unknown;
}

export function quietStacks(): QuietStacks {
  const limit = Error.stackTraceLimit;
  const debugging = !!process.env.PULUMI_DEBUG_PROMISE_LEAKS;
  if (!debugging) Error.stackTraceLimit = 0;
  let restored = debugging;
  const restore = () => {
    if (!restored) Error.stackTraceLimit = limit;
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
