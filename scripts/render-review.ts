#!/usr/bin/env node
import * as fs from "node:fs";
import * as path from "node:path";
import { renderReview } from "../provider/review/index";
import { writePictureOf } from "./lib/mermaid-browser";
import { REPO_ROOT } from "./lib/pulumi-workspace";

// Regenerates the example of `keboola-pulumi review` in docs/: review-example.md, the review of
// the quickstart's scripted change (test/review/fixtures/quickstart-change.json, the preview
// the golden file test/review/golden/quickstart-change.md is made from), and review-example.png,
// its diagram rendered by mermaid in headless Chromium (scripts/lib/mermaid-browser.ts).
//   npm run build && node dist/scripts/render-review.js

async function main(): Promise<void> {
  const preview = fs.readFileSync(path.join(REPO_ROOT, "test", "review", "fixtures", "quickstart-change.json"), "utf8");
  const markdown = renderReview(preview);
  fs.writeFileSync(path.join(REPO_ROOT, "docs", "review-example.md"), markdown);
  await writePictureOf(markdown, path.join(REPO_ROOT, "docs", "review-example.png"));
  process.stdout.write("wrote docs/review-example.md and docs/review-example.png\n");
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
