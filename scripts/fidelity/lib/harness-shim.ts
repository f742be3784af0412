import { isRecord, parseJson, type JsonValue } from "../../../keboola/json";
import type { FrontHook } from "./storage-front";

// The harness shim: only for requests that are not the client under test's own (a suite says
// which those are, e.g. kbc's by User-Agent). The Go harnesses' project cleaning and state
// snapshot (keboola-sdk-go CleanProject, go-utils/keboola-as-code snapshots) look up the
// `notification`, `data-science` and `editor` services in the Storage index and panic when one is
// missing (`service not found "notification"`), which kills the whole test binary. The emulator
// now lists and serves all three, so the shim stays quiet; it remains as a guard that only acts
// when the index lacks one of them: then it adds the service under a shim URL and answers its GETs
// with `[]` (an empty project's lists). Every answer it gives is tagged in the request log and
// counted in the summary, so a run shows whether it was needed.

export const SHIM_PREFIX = "/_fidelity-shim/";
const SHIM_SERVICES = ["notification", "data-science", "editor"];

export function harnessShim(isHarness: (userAgent: string) => boolean): FrontHook {
  return {
    before(req) {
      if (!isHarness(req.userAgent) || !req.url.startsWith(SHIM_PREFIX)) return undefined;
      const service = req.url.slice(SHIM_PREFIX.length).split("/")[0];
      const tag = `shim:${service}`;
      if (req.method === "GET") return { status: 200, body: "[]", tag };
      if (req.method === "DELETE") return { status: 204, tag };
      return { status: 404, body: '{"error":"fidelity shim: not served"}', tag };
    },
    rewrite(req, status, text, publicBase) {
      if (!isHarness(req.userAgent) || req.method !== "GET" || status !== 200 || !/^\/v2\/storage\/?(\?|$)/.test(req.url)) return undefined;
      let index: JsonValue;
      try {
        index = parseJson(text);
      } catch {
        return undefined;
      }
      if (!isRecord(index) || !Array.isArray(index.services)) return undefined;
      const services = index.services;
      const added = SHIM_SERVICES.filter((id) => !services.some((s) => isRecord(s) && s.id === id));
      if (added.length === 0) return undefined;
      for (const id of added) services.push({ id, url: `${publicBase}${SHIM_PREFIX}${id}` });
      return { text: JSON.stringify(index), tag: `shim:index+${added.join("+")}` };
    },
  };
}
