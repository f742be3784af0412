import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "emulator/**/*.test.ts"],
    testTimeout: 30000,
    hookTimeout: 60000,
    reporters: ["default", "./test/summary-reporter.ts"],
    benchmark: { include: ["test/bench/**/*.bench.ts"] },
  },
});
