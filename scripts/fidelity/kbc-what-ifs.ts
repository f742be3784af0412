import { isOneOf, isRecord, parseJson } from "../../keboola/json";
import type { FrontHook } from "./lib/storage-front";

// What-ifs (opt-in, kbc --what-if): each changes one detail of an emulator answer, so that a run
// shows how many tests that detail alone decides. Every changed answer is tagged in the request
// log and counted in the summary.
//   create-answer-without-rows  POST .../configs answers without its "rows": [] (the Go SDK decodes
//                               the answer into the config it creates and then creates no rows)
//   features                    GET tokens/verify: owner.features gets one made-up entry when empty

export const WHAT_IFS = ["create-answer-without-rows", "features"] as const;
export type WhatIf = (typeof WHAT_IFS)[number];

export function isWhatIf(x: string): x is WhatIf {
  return isOneOf(WHAT_IFS, x);
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const v = parseJson(text);
    return isRecord(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

export function whatIfHook(enabled: ReadonlySet<WhatIf>): FrontHook {
  return {
    rewrite(req, status, text) {
      if (enabled.has("create-answer-without-rows") && req.method === "POST" && status < 300 &&
        /^\/v2\/storage\/(branch\/[^/]+\/)?components\/[^/]+\/configs\/?(\?|$)/.test(req.url)) {
        const v = parseObject(text);
        if (v && "rows" in v) {
          delete v.rows;
          return { text: JSON.stringify(v), tag: "what-if:create-answer-without-rows" };
        }
      }
      if (enabled.has("features") && req.method === "GET" && status === 200 && /^\/v2\/storage\/tokens\/verify\/?(\?|$)/.test(req.url)) {
        const v = parseObject(text);
        const owner = v?.owner;
        if (v && isRecord(owner) && Array.isArray(owner.features) && owner.features.length === 0) {
          owner.features = ["fidelity-what-if"];
          return { text: JSON.stringify(v), tag: "what-if:features" };
        }
      }
      return undefined;
    },
  };
}
