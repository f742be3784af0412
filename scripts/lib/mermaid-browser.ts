import * as fs from "node:fs";
import * as path from "node:path";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { mermaidOf } from "./mermaid-block";
import { REPO_ROOT } from "./pulumi-workspace";

// Mermaid rendered as GitHub renders it: the `mermaid` package in a real headless Chromium (the
// system's: CHROMIUM_PATH, or Debian's /usr/bin/chromium; puppeteer-core downloads no browser),
// loaded from node_modules, so nothing comes from the network. For the review's browser test
// (test/review/mermaid.test.ts) and the example's picture (scripts/render-review.ts).

export interface RenderedNode {
  /** The node's id in the diagram source (`sink_actions`). */
  id: string;
  classes: string[];
  text: string;
}

export interface MermaidPage {
  /** Renders a diagram into the page; throws mermaid's parse or render error. */
  render(definition: string): Promise<{ svg: string; nodes: RenderedNode[]; clusters: RenderedNode[] }>;
  /** A PNG of the diagram rendered last. */
  screenshot(file: string): Promise<void>;
  close(): Promise<void>;
}

export function chromiumPath(): string {
  const candidates = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"].filter((p): p is string => !!p);
  const found = candidates.find((p) => fs.existsSync(p));
  if (!found) throw new Error(`no Chromium found (tried ${candidates.join(", ")}): install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH`);
  return found;
}

// What the page's code below uses of the browser (this package compiles without the DOM library).
interface PageElement {
  id: string;
  classList: Iterable<string>;
  textContent: string | null;
  innerHTML: string;
  querySelectorAll(selector: string): Iterable<PageElement>;
}
interface MermaidApi {
  initialize(config: object): void;
  parse(definition: string): Promise<unknown>;
  render(id: string, definition: string): Promise<{ svg: string }>;
}
declare const document: { getElementById(id: string): PageElement | null };
declare const window: { mermaid: MermaidApi };

const MERMAID = path.join(REPO_ROOT, "node_modules", "mermaid", "dist", "mermaid.min.js");

/** `scale`: device pixels per CSS pixel of the screenshot (2 for a sharp picture). */
export async function openMermaidPage(options: { scale?: number } = {}): Promise<MermaidPage> {
  const browser: Browser = await puppeteer.launch({
    executablePath: chromiumPath(),
    headless: true,
    // Root in a container has no user namespace sandbox; no GPU either.
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--font-render-hinting=none"],
  });
  try {
    const page: Page = await browser.newPage();
    await page.setViewport({ width: 1600, height: 1000, deviceScaleFactor: options.scale ?? 1 });
    await page.setContent('<!doctype html><html><head><meta charset="utf-8"></head><body style="margin:0;background:#fff"><div id="diagram" style="display:inline-block;padding:16px"></div></body></html>');
    await page.addScriptTag({ path: MERMAID });
    await page.evaluate(() => {
      // GitHub renders with the default theme and strict security (no scripts, no click handlers).
      window.mermaid.initialize({ startOnLoad: false, securityLevel: "strict", theme: "default" });
    });
    let counter = 0;
    return {
      async render(definition) {
        const id = `diagram${++counter}`;
        return page.evaluate(
          async (def: string, renderId: string) => {
            await window.mermaid.parse(def);
            const { svg } = await window.mermaid.render(renderId, def);
            const host = document.getElementById("diagram")!;
            host.innerHTML = svg;
            // Mermaid names a node's element `<renderId>-flowchart-<node id>-<n>`, a subgraph's `<renderId>-<id>`.
            const nodeId = (el: PageElement) => /flowchart-(.+)-\d+$/.exec(el.id)?.[1] ?? el.id.replace(`${renderId}-`, "");
            const read = (el: PageElement) => ({ id: nodeId(el), classes: [...el.classList], text: (el.textContent ?? "").trim() });
            return {
              svg,
              nodes: [...host.querySelectorAll("g.node")].map(read),
              clusters: [...host.querySelectorAll("g.cluster")].map(read),
            };
          },
          definition,
          id,
        );
      },
      async screenshot(file) {
        const element = await page.$("#diagram");
        if (!element) throw new Error("nothing rendered");
        await element.screenshot({ path: file });
      },
      close: () => browser.close(),
    };
  } catch (err) {
    await browser.close();
    throw err;
  }
}

/**
 * A PNG of a Markdown report's Mermaid block, as the docs show it (2 device pixels per CSS
 * pixel); `check` sees the rendered nodes first and throws to refuse the picture.
 */
export async function writePictureOf(markdown: string, file: string, check: (nodes: RenderedNode[]) => void = () => undefined): Promise<void> {
  const page = await openMermaidPage({ scale: 2 });
  try {
    check((await page.render(mermaidOf(markdown))).nodes);
    await page.screenshot(file);
  } finally {
    await page.close();
  }
}
