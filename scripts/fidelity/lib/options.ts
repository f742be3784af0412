// The options both Go suites take (their own come beside them), and what they mean once parsed.

/** node:util parseArgs specs; `timeout` gets the suite's own default. */
export function goSuiteOptions(timeout: string) {
  return {
    parallel: { type: "string", default: "2" },
    timeout: { type: "string", default: timeout },
    run: { type: "string" },
    work: { type: "string" },
    "no-s3-bridge": { type: "boolean", default: false },
    keep: { type: "boolean", default: false },
    help: { type: "boolean", short: "h", default: false },
  } as const;
}

export interface GoSuiteOptions {
  parallel: number;
  timeout: string;
  run?: string;
  work?: string;
  s3Bridge: boolean;
  keep: boolean;
}

export function goSuiteValues(v: { parallel: string; timeout: string; run?: string; work?: string; "no-s3-bridge": boolean; keep: boolean }): GoSuiteOptions {
  const parallel = Number(v.parallel);
  if (!(parallel >= 1 && parallel <= 4)) throw new Error("--parallel must be 1..4");
  return { parallel, timeout: v.timeout, run: v.run, work: v.work, s3Bridge: !v["no-s3-bridge"], keep: v.keep };
}
