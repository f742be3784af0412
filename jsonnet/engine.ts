/**
 * Jsonnet engine for Keboola Stream template columns.
 *
 * Engine: go-jsonnet compiled to WebAssembly (jsonnet/wasm, built by jsonnet/wasm/build.sh from the
 * same go-jsonnet fork the Keboola Stream service links), so parse errors ("1:1-8 Unknown variable:
 * Invalid"), runtime messages ("Field does not exist: x", "max stack frames exceeded.") and output
 * formatting (e.g. 0.1 -> 0.10000000000000001, sorted keys) are the service's own. See README.md.
 *
 * The API is synchronous. The ~7.6 MB module is loaded on the first getJsonnetEngine() call
 * (about 100-150 ms); importing this file is cheap.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as zlib from "node:zlib";
import { GLOBAL_BINDINGS, NATIVE_FUNCTIONS, RecordState, TemplateFunctionError, type TemplateContext } from "./globals";
import type { JsonValue } from "./body";

export type { TemplateContext } from "./globals";

/** go-jsonnet LocationRange: "L:C", "L:C-C2" or "(L:C)-(L2:C2)" (columns 1-based, end exclusive). */
export interface JsonnetLocation {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}

export type CompileResult =
  | { ok: true }
  /** error: go-jsonnet's static error text, e.g. "1:1-8 Unknown variable: Invalid" (what the service puts after "template is invalid: "). */
  | { ok: false; error: string; location?: JsonnetLocation };

export type EvalResult =
  /** json: the service's compact JSON text of the result (input of templateColumnValue). */
  | { ok: true; json: string }
  /** error: the service's error text, e.g. `path "a.b" not found in the body`. */
  | { ok: false; error: string };

export interface JsonnetEngine {
  /** e.g. "go-jsonnet v0.22.0 (keboola fork, wasm)" */
  readonly name: string;
  /** Static check only (syntax + unknown variables), knowing the template globals. Like the service's sink create/update validation. */
  compile(content: string): CompileResult;
  /** Evaluates the template for one record. Not reentrant (do not call from inside a template function). */
  evaluate(content: string, ctx: TemplateContext): EvalResult;
}

/** Parses the location prefix of a go-jsonnet error message. */
export function parseJsonnetLocation(error: string): JsonnetLocation | undefined {
  let m = /^(\d+):(\d+)(?:-(\d+))?(?=\s)/.exec(error);
  if (m) {
    const line = Number(m[1]);
    const column = Number(m[2]);
    return { line, column, endLine: line, endColumn: m[3] ? Number(m[3]) : column };
  }
  m = /^\((\d+):(\d+)\)-\((\d+):(\d+)\)(?=\s)/.exec(error);
  if (m) return { line: Number(m[1]), column: Number(m[2]), endLine: Number(m[3]), endColumn: Number(m[4]) };
  return undefined;
}

interface GoBridge {
  configure(spec: string, dispatch: (name: string, argsJson: string) => string): string;
  compile(code: string): string;
  evaluate(code: string): [boolean, string];
  version: string;
}

// Minimal WebAssembly typing (tsconfig has no DOM lib and @types/node 20 does not declare it).
interface WasmInstance {
  readonly exports: unknown;
}
interface WasmGlobal {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => WasmInstance;
}

/** Whether an object has a function (a method, a class) under `key`. */
const hasFunction = (value: object, key: string): boolean => typeof Reflect.get(value, key) === "function";

function isWasmGlobal(value: unknown): value is WasmGlobal {
  return typeof value === "object" && value !== null && hasFunction(value, "Module") && hasFunction(value, "Instance");
}

function wasm(): WasmGlobal {
  const api: unknown = Reflect.get(globalThis, "WebAssembly");
  if (!isWasmGlobal(api)) throw new Error("jsonnet: this Node.js has no WebAssembly");
  return api;
}

interface GoRuntime {
  importObject: object;
  run(instance: WasmInstance): Promise<void>;
}

/** An instance of wasm_exec.js's Go class: its import object and run(). */
function isGoRuntime(value: unknown): value is GoRuntime {
  if (typeof value !== "object" || value === null || !hasFunction(value, "run")) return false;
  return "importObject" in value && typeof value.importObject === "object" && value.importObject !== null;
}

/** The API the wasm module registers (jsonnet/wasm/main.go). */
function isGoBridge(value: unknown): value is GoBridge {
  return typeof value === "object" && value !== null && hasFunction(value, "configure") && hasFunction(value, "compile") && hasFunction(value, "evaluate") && "version" in value && typeof value.version === "string";
}

/** Finds jsonnet/wasm both from sources (jsonnet/engine.ts) and from the build (dist/jsonnet/engine.js). */
function wasmDir(): string {
  const candidates = [path.join(__dirname, "wasm"), path.resolve(__dirname, "..", "..", "jsonnet", "wasm")];
  for (const dir of candidates) {
    if (fs.existsSync(path.join(dir, "jsonnet.wasm.gz"))) return dir;
  }
  throw new Error(`jsonnet: jsonnet.wasm.gz not found in ${candidates.join(" or ")}`);
}

function loadBridge(): GoBridge {
  const dir = wasmDir();
  // wasm_exec.js (Go's loader) writes to globalThis.{Go,fs}; run it against a private object instead.
  const sandbox: Record<string, unknown> = {};
  Object.setPrototypeOf(sandbox, globalThis);
  Object.defineProperties(sandbox, {
    crypto: { value: globalThis.crypto, writable: true },
    performance: { value: globalThis.performance, writable: true },
  });
  new Function("globalThis", fs.readFileSync(path.join(dir, "wasm_exec.js"), "utf8"))(sandbox);
  const Go = sandbox.Go;
  const go: unknown = typeof Go === "function" ? Reflect.construct(Go, []) : undefined;
  if (!isGoRuntime(go)) throw new Error("jsonnet: wasm_exec.js did not define its Go class");
  const module = new (wasm().Module)(zlib.gunzipSync(fs.readFileSync(path.join(dir, "jsonnet.wasm.gz"))));
  const instance = new (wasm().Instance)(module, go.importObject);
  // Runs main() synchronously until it blocks (select {}); the promise settles only if the program exits.
  go.run(instance).catch((e: unknown) => {
    process.emitWarning(`jsonnet wasm exited: ${String(e)}`);
  });
  const bridge = sandbox.__keboolaJsonnet;
  if (!isGoBridge(bridge)) throw new Error("jsonnet: the wasm module did not register its API");
  return bridge;
}

class WasmJsonnetEngine implements JsonnetEngine {
  readonly name: string;
  private current: RecordState | undefined;
  private readonly states = new WeakMap<TemplateContext, RecordState>();

  constructor(private readonly bridge: GoBridge) {
    this.name = `go-jsonnet ${bridge.version} (keboola fork, wasm)`;
    const natives = Object.entries(NATIVE_FUNCTIONS).map(([name, def]) => ({ name, params: def.params }));
    const err = bridge.configure(JSON.stringify({ natives, binds: GLOBAL_BINDINGS }), (name, argsJson) => this.dispatch(name, argsJson));
    if (err) throw new Error(`jsonnet: configure failed: ${err}`);
  }

  private dispatch(name: string, argsJson: string): string {
    const def = NATIVE_FUNCTIONS[name];
    const rec = this.current;
    try {
      if (!def || !rec) throw new TemplateFunctionError(`native function "${name}" is not available`);
      // JSON.parse without a reviver gives a JSON value (keboola/json.ts parseJson, which this layer does not import).
      const args: JsonValue = JSON.parse(argsJson);
      if (!Array.isArray(args)) throw new TemplateFunctionError(`native function "${name}" got no argument list`);
      const value = def.impl(args, rec);
      return JSON.stringify({ v: value });
    } catch (e) {
      return JSON.stringify({ e: e instanceof Error ? e.message : String(e) });
    }
  }

  compile(content: string): CompileResult {
    const error = this.bridge.compile(content);
    if (error === "") return { ok: true };
    const location = parseJsonnetLocation(error);
    return location ? { ok: false, error, location } : { ok: false, error };
  }

  evaluate(content: string, ctx: TemplateContext): EvalResult {
    if (this.current) throw new Error("jsonnet: evaluate() is not reentrant");
    let state = this.states.get(ctx);
    if (!state) {
      state = new RecordState(ctx);
      this.states.set(ctx, state);
    }
    this.current = state;
    try {
      const [ok, text] = this.bridge.evaluate(content);
      return ok ? { ok: true, json: text } : { ok: false, error: text };
    } finally {
      this.current = undefined;
    }
  }
}

let engine: JsonnetEngine | undefined;

/** The process-wide engine; loads the wasm module on first use. Synchronous. */
export function getJsonnetEngine(): JsonnetEngine {
  return (engine ??= new WasmJsonnetEngine(loadBridge()));
}
