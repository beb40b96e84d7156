// A PNG of a page written by `moreau view`, at a given time, from headless Chromium (Debian's
// `chromium` package, driven by playwright-core; npm ci --prefix tools/viewer):
//
//   node tools/viewer/screenshot.mjs PAGE.html OUT.png [TIME_SECONDS | end] [WIDTHxHEIGHT] [follow]
//
// `follow` ticks the page's "follow the first moving body" box before moving the time, so that a
// robot walking away stays in view.
//
// The docs' screenshots are made with it.
import path from "node:path";
import { chromium } from "playwright-core";

const [page_, out, when = "0", size = "1200x750", follow] = process.argv.slice(2);
if (!page_ || !out) {
  console.error("usage: node tools/viewer/screenshot.mjs PAGE.html OUT.png [TIME | end] [WxH]");
  process.exit(2);
}
const [width, height] = size.split("x").map(Number);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--enable-unsafe-swiftshader", "--use-angle=swiftshader"],
});
try {
  const context = await browser.newContext({ viewport: { width, height }, offline: true });
  const page = await context.newPage();
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto("file://" + path.resolve(page_), { waitUntil: "load" });
  await page.waitForFunction(() => document.body.dataset.ready === "1", null, { timeout: 60000 });
  if (follow === "follow") {
    await page.getByLabel("follow the first moving body").check();
  } else if (follow) {
    console.error("the fifth argument is `follow` or nothing, not `" + follow + "`");
    process.exit(2);
  }
  await page.evaluate((when) => {
    const v = window.moreauViewer;
    v.setTime(when === "end" ? v.tmax : parseFloat(when));
  }, when);
  await page.screenshot({ path: out });
  if (errors.length) {
    console.error("console errors: " + errors.join(" | "));
    process.exitCode = 1;
  }
  console.log("wrote " + out);
} finally {
  await browser.close();
}
