// Durations and sizes as the Stream settings use them. Compared by value, so `1m` and `1m0s`
// are the same setting and a refresh that reads back `1m0s` shows no diff.

const DURATION_UNITS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  "µs": 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Go duration string (`45s`, `1m30s`, `1.5h`) -> milliseconds, or undefined when malformed. */
export function parseDuration(text: string): number | undefined {
  const s = text.trim();
  if (s === "0") return 0;
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let pos = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(s)) !== null) {
    total += Number(m[1]) * DURATION_UNITS[m[2]];
    pos = re.lastIndex;
  }
  return pos === s.length && pos > 0 ? total : undefined;
}

/** Milliseconds -> Go's canonical duration string, e.g. 60000 -> "1m0s". */
export function formatDuration(ms: number): string {
  if (ms === 0) return "0s";
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  if (h > 0) return `${h}h${m}m${s}s`;
  if (m > 0) return `${m}m${s}s`;
  return `${s}s`;
}

// The service parses sizes with c2h5oh/datasize: binary units, case-insensitive, optional "B".
const SIZE_UNITS: Record<string, number> = { b: 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };

/** Size string (`100B`, `12MB`, `5mb`, `1 KB`) -> bytes, or undefined when malformed. */
export function parseSize(text: string): number | undefined {
  const m = /^\s*(\d+)\s*([kmgt]?)(b?)\s*$/i.exec(text);
  if (!m) return undefined;
  const unit = m[2] ? m[2].toLowerCase() : "b";
  if (!m[2] && !m[3] && m[1] !== "0") return Number(m[1]); // a bare number is bytes
  return Number(m[1]) * SIZE_UNITS[unit];
}

/** Bytes -> the service's canonical form, the largest unit that divides evenly (`5MB`, `100B`). */
export function formatSize(bytes: number): string {
  for (const [unit, factor] of [["TB", 1024 ** 4], ["GB", 1024 ** 3], ["MB", 1024 ** 2], ["KB", 1024]] as const) {
    if (bytes >= factor && bytes % factor === 0) return `${bytes / factor}${unit}`;
  }
  return `${bytes}B`;
}
