import { vi } from "vitest";

// vitest.stryker.config.mts runs the test files one after another in one worker (isolate: false):
// a fresh worker per file costs about a second of loading node_modules each time, and a mutant
// runs once per test file that covers it. Each test file still evaluates the project's own modules
// afresh, as it would in its own worker: a mutant Stryker activates when modules load (a "static"
// mutant, such as a schema's message) is then in every file's copy. node_modules stay loaded.
vi.resetModules();
