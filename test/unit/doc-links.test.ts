import { describe, expect, it } from "vitest";
import * as fs from "node:fs";
import * as path from "node:path";
import { slug } from "../../scripts/gen-docs";

// The hand-written pages (README.md, CONTRIBUTING.md, docs/*.md) send readers to one another as
// text moves between them: every relative link must reach a file, and every #anchor into a
// Markdown file a heading it has (as GitHub makes anchors). The generated pages are held to the
// same in test/unit/reference-docs.test.ts.

const ROOT = path.resolve(__dirname, "..", "..");
const PAGES = ["README.md", "CONTRIBUTING.md", ...fs.readdirSync(path.join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];

const headings = (file: string) => new Set([...fs.readFileSync(file, "utf8").matchAll(/^#+ (.+)$/gm)].map((m) => slug(m[1]!)));

describe("links of the hand-written pages", () => {
  it.each(PAGES)("%s links only files that exist, and only headings they have", (page) => {
    // Relative links only, outside code blocks: [text](target) with no scheme.
    const text = fs.readFileSync(path.join(ROOT, page), "utf8").replace(/```[\s\S]*?```/g, "");
    for (const m of text.matchAll(/\]\(((?![a-z]+:)[^)#\s]*)(?:#([^)\s]+))?\)/g)) {
      const target = path.resolve(path.dirname(path.join(ROOT, page)), m[1] || path.basename(page));
      expect(fs.existsSync(target), `${page} links ${m[0]}: no such file`).toBe(true);
      if (m[2] && target.endsWith(".md")) expect(headings(target), `${page} links ${m[0]}: no such heading`).toContain(m[2]);
    }
  });
});
