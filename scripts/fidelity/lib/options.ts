import { UsageError } from "../../../provider/cli/command";

// The options both Go suites take (their own come beside them), and what they mean once parsed.

/** The options' declarations (provider/cli/command.ts); `timeout` gets the suite's own default. */
export function goSuiteOptions(timeout: string) {
  return {
    parallel: { type: "string", default: "2", value: "<1..4>", help: "test projects (emulators) and go test -test.parallel (default 2)" },
    timeout: { type: "string", default: timeout, value: "<duration>", help: `go test -test.timeout (default ${timeout})` },
    run: { type: "string", value: "<regex>", help: "go test -run: only these tests" },
    work: { type: "string", value: "<dir>", help: "where the artifacts go (default /tmp/fidelity-<suite>-<time>)" },
    "no-s3-bridge": { type: "boolean", help: "without the S3 bridge (the Go clients' uploads to amazonaws.com then fail)" },
    keep: { type: "boolean", help: "keep the local CA's key in the work dir" },
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
  if (!(parallel >= 1 && parallel <= 4)) throw new UsageError("--parallel must be 1..4");
  return { parallel, timeout: v.timeout, run: v.run, work: v.work, s3Bridge: !v["no-s3-bridge"], keep: v.keep };
}
