// moreau's trajectory viewer: draws the model embedded in #moreau-data with three.js (global
// THREE) and plays the trajectories' precomputed body poses; no physics and no network here.
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("moreau-data").textContent);
  const model = data.model;
  const nbody = model.nbody;

  function bytes(s) {
    const bin = atob(s);
    const b = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) b[i] = bin.charCodeAt(i);
    return b.buffer;
  }
  const f32 = (s) => new Float32Array(bytes(s));
  const u32 = (s) => new Uint32Array(bytes(s));

  function fail(msg) {
    const e = document.getElementById("error");
    e.textContent = msg;
    e.style.display = "block";
  }

  // ------------------------------------------------------------------ renderer, scene, camera
  const view = document.getElementById("view");
  let renderer;
  try {
    renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
  } catch (err) {
    fail("This page needs WebGL, which this browser did not provide (" + err.message + ").");
    return;
  }
  renderer.setPixelRatio(window.devicePixelRatio || 1);
  renderer.setSize(view.clientWidth, view.clientHeight);
  view.appendChild(renderer.domElement);

  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0x1d2129);
  const camera = new THREE.PerspectiveCamera(45, view.clientWidth / view.clientHeight, 0.01, 1000);
  camera.up.set(0, 0, 1); // MuJoCo's z is up
  scene.add(new THREE.HemisphereLight(0xffffff, 0x404048, 1.6));
  const sun = new THREE.DirectionalLight(0xffffff, 1.8);
  scene.add(sun);
  scene.add(sun.target);
  const controls = new THREE.OrbitControls(camera, renderer.domElement);
  controls.enableDamping = false;

  // ------------------------------------------------------------------ geometry per geom type
  const meshCache = new Map();
  function meshGeometry(id) {
    if (!meshCache.has(id)) {
      const me = model.meshes[id];
      const g = new THREE.BufferGeometry();
      g.setAttribute("position", new THREE.BufferAttribute(f32(me.vert), 3));
      g.setIndex(new THREE.BufferAttribute(u32(me.face), 1));
      const flat = g.toNonIndexed(); // one normal per face: STL-style flat shading
      flat.computeVertexNormals();
      meshCache.set(id, flat);
    }
    return meshCache.get(id);
  }

  function hfieldGeometry(id) {
    const h = model.hfields[id];
    const z = f32(h.data);
    const [sx, sy, sz, base] = h.size;
    const nr = h.nrow, nc = h.ncol;
    const pos = new Float32Array(nr * nc * 3);
    for (let r = 0; r < nr; r++) {
      for (let c = 0; c < nc; c++) {
        const k = 3 * (r * nc + c);
        pos[k] = -sx + (2 * sx * c) / (nc - 1);
        pos[k + 1] = -sy + (2 * sy * r) / (nr - 1);
        pos[k + 2] = z[r * nc + c] * sz;
      }
    }
    const idx = [];
    for (let r = 0; r + 1 < nr; r++) {
      for (let c = 0; c + 1 < nc; c++) {
        const a = r * nc + c, b = a + 1, d = a + nc, e = d + 1;
        idx.push(a, b, e, a, e, d);
      }
    }
    const top = new THREE.BufferGeometry();
    top.setAttribute("position", new THREE.BufferAttribute(pos, 3));
    top.setIndex(idx);
    top.computeVertexNormals();
    // the solid below the surface, down to -zbase (MJCF hfield size: x, y, z_top, z_bottom)
    const slab = new THREE.BoxGeometry(2 * sx, 2 * sy, base);
    slab.translate(0, 0, -base / 2);
    return [top, slab];
  }

  // Geometries in the geom's frame (three.js primitives are y-up; MuJoCo's axes are z).
  function geomGeometries(g, extent) {
    const s = g.size;
    switch (g.type) {
      case "sphere":
        return [new THREE.SphereGeometry(s[0], 32, 16)];
      case "ellipsoid": {
        const e = new THREE.SphereGeometry(1, 32, 16);
        e.scale(s[0], s[1], s[2]);
        return [e];
      }
      case "capsule": {
        const c = new THREE.CapsuleGeometry(s[0], 2 * s[1], 8, 24);
        c.rotateX(Math.PI / 2);
        return [c];
      }
      case "cylinder": {
        const c = new THREE.CylinderGeometry(s[0], s[0], 2 * s[1], 32);
        c.rotateX(Math.PI / 2);
        return [c];
      }
      case "box":
        return [new THREE.BoxGeometry(2 * s[0], 2 * s[1], 2 * s[2])];
      case "plane": {
        // size 0 means infinite: draw it well beyond the model
        const hx = s[0] > 0 ? s[0] : 10 * extent, hy = s[1] > 0 ? s[1] : 10 * extent;
        return [new THREE.PlaneGeometry(2 * hx, 2 * hy)];
      }
      case "mesh":
        return g.dataid >= 0 ? [meshGeometry(g.dataid)] : [];
      case "hfield":
        return g.dataid >= 0 ? hfieldGeometry(g.dataid) : [];
      default:
        return []; // sdf: no geometry to draw
    }
  }

  function setPose(obj, p, q) {
    obj.position.set(p[0], p[1], p[2]);
    obj.quaternion.set(q[1], q[2], q[3], q[0]); // MuJoCo (w, x, y, z) -> three (x, y, z, w)
  }

  // ------------------------------------------------------------------ trajectories
  const palette = [0xff9f1c, 0x2ec4b6, 0xe71d36, 0x9b5de5, 0x3a86ff, 0x8ac926];
  const trajs = data.trajectories.map((t, k) => ({
    name: t.name,
    time: t.time,
    xpos: f32(t.xpos),
    xquat: f32(t.xquat),
    coff: u32(t.contact_offset),
    cdat: f32(t.contact_data),
    source: t.contact_source,
    fmax: t.force_max,
    fscale: t.force_scale ?? t.force_max,
    color: k === 0 ? null : palette[(k - 1) % palette.length],
    bodies: [],
    visible: true,
  }));

  // Scale from the first frame's body positions and geom sizes (planes and height fields, which
  // may be huge, excluded).
  const box = new THREE.Box3();
  {
    const t0 = trajs[0];
    for (let b = 1; b < nbody; b++) {
      box.expandByPoint(new THREE.Vector3(t0.xpos[3 * b], t0.xpos[3 * b + 1], t0.xpos[3 * b + 2]));
    }
    for (const g of model.geoms) {
      if (g.type === "plane" || g.type === "hfield") continue;
      const p = g.body === 0 ? g.pos : [t0.xpos[3 * g.body], t0.xpos[3 * g.body + 1], t0.xpos[3 * g.body + 2]];
      const r = Math.max(...g.size.slice(0, g.type === "mesh" ? 0 : 3), 0.05);
      box.expandByPoint(new THREE.Vector3(p[0] - r, p[1] - r, p[2] - r));
      box.expandByPoint(new THREE.Vector3(p[0] + r, p[1] + r, p[2] + r));
    }
    if (box.isEmpty()) box.set(new THREE.Vector3(-1, -1, -1), new THREE.Vector3(1, 1, 1));
  }
  const center = box.getCenter(new THREE.Vector3());
  const extent = Math.max(box.getSize(new THREE.Vector3()).length() / 2, 0.1);

  // Default visible groups as MuJoCo's viewer: 0, 1, 2.
  const groups = [...new Set(model.geoms.map((g) => g.group))].sort((a, b) => a - b);
  const groupOn = new Map(groups.map((g) => [g, g >= 0 && g <= 2]));
  const geomObjects = []; // {mesh, group}

  function material(rgba, tint) {
    const m = new THREE.MeshStandardMaterial({ roughness: 0.65, metalness: 0.05 });
    if (tint === null) {
      m.color.setRGB(rgba[0], rgba[1], rgba[2], THREE.SRGBColorSpace);
      if (rgba[3] < 1) {
        m.transparent = true;
        m.opacity = rgba[3];
      }
    } else {
      m.color.set(tint);
      m.transparent = true;
      m.opacity = 0.45;
      m.depthWrite = false;
    }
    return m;
  }

  // grid lines on a plane, `size[2]` apart (MuJoCo's grid spacing for rendering planes)
  function planeGrid(g) {
    const geo = geomGeometries(g, extent)[0];
    geo.computeBoundingBox();
    const w = geo.boundingBox.max.x, h = geo.boundingBox.max.y;
    let step = g.size[2] > 0 ? g.size[2] : extent / 4;
    while (Math.max(w, h) / step > 200) step *= 2;
    const pts = [];
    for (let x = -Math.floor(w / step) * step; x <= w + 1e-9; x += step) pts.push(x, -h, 0, x, h, 0);
    for (let y = -Math.floor(h / step) * step; y <= h + 1e-9; y += step) pts.push(-w, y, 0, w, y, 0);
    const lg = new THREE.BufferGeometry();
    lg.setAttribute("position", new THREE.Float32BufferAttribute(pts, 3));
    const lm = new THREE.LineBasicMaterial({ color: 0xffffff, transparent: true, opacity: 0.16 });
    return new THREE.LineSegments(lg, lm);
  }

  function addGeom(parent, g, tint) {
    if (g.rgba[3] === 0) return; // invisible in MuJoCo too
    for (const geo of geomGeometries(g, extent)) {
      const mat = material(g.rgba, tint);
      const mesh = new THREE.Mesh(geo, mat);
      setPose(mesh, g.pos, g.quat);
      parent.add(mesh);
      geomObjects.push({ mesh: mesh, group: g.group });
      if (g.type === "plane") {
        // the plane behind its grid lines
        mat.polygonOffset = true;
        mat.polygonOffsetFactor = 1;
        mat.polygonOffsetUnits = 1;
        mesh.add(planeGrid(g));
      }
    }
  }

  // world geoms once; body geoms once per trajectory
  const world = new THREE.Group();
  scene.add(world);
  for (const g of model.geoms) if (g.body === 0) addGeom(world, g, null);
  for (const t of trajs) {
    const root = new THREE.Group();
    scene.add(root);
    t.root = root;
    for (let b = 0; b < nbody; b++) {
      const o = new THREE.Group();
      root.add(o);
      t.bodies.push(o);
    }
    for (const g of model.geoms) if (g.body > 0) addGeom(t.bodies[g.body], g, t.color);
  }
  if (!model.geoms.some((g) => g.type === "plane")) {
    // no floor: a reference grid in z = 0
    const grid = new THREE.GridHelper(20 * extent, 40, 0x6b7280, 0x4b5260);
    grid.rotateX(Math.PI / 2);
    scene.add(grid);
  }

  // contact points (spheres) and forces (arrows), pooled
  const contactGroup = new THREE.Group();
  scene.add(contactGroup);
  const dotGeo = new THREE.SphereGeometry(0.012 * extent, 12, 8);
  const dotMat = new THREE.MeshBasicMaterial({ color: 0xff3b30, depthTest: false });
  const dots = [], arrows = [];
  // arrows: `arrowLen` long at `fscale` (the 95th percentile of the forces), up to twice that
  const fmax = Math.max(...trajs.map((t) => t.fmax), 0);
  const fscale = Math.max(...trajs.map((t) => t.fscale), 0);
  const arrowLen = 0.3 * extent;
  function dot(i) {
    while (dots.length <= i) {
      const d = new THREE.Mesh(dotGeo, dotMat);
      d.renderOrder = 10;
      contactGroup.add(d);
      dots.push(d);
    }
    return dots[i];
  }
  function arrow(i) {
    while (arrows.length <= i) {
      const a = new THREE.ArrowHelper(new THREE.Vector3(0, 0, 1), new THREE.Vector3(), 1, 0xffd60a);
      a.renderOrder = 11;
      a.line.material.depthTest = false;
      a.cone.material.depthTest = false;
      contactGroup.add(a);
      arrows.push(a);
    }
    return arrows[i];
  }

  // ------------------------------------------------------------------ the panel
  const tmin = Math.min(...trajs.map((t) => t.time[0]));
  const tmax = Math.max(...trajs.map((t) => t.time[t.time.length - 1]));
  const info = document.getElementById("info");
  const el = (tag, attrs, text) => {
    const e = document.createElement(tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  };
  function checkbox(parent, label, checked, onchange, swatch) {
    const l = el("label");
    const c = el("input", { type: "checkbox" });
    c.checked = checked;
    c.addEventListener("change", () => { onchange(c.checked); dirty = true; });
    l.appendChild(c);
    if (swatch) {
      const s = el("span", { class: "swatch" });
      s.style.background = swatch;
      l.appendChild(s);
    }
    l.appendChild(document.createTextNode(label));
    parent.appendChild(l);
    return c;
  }
  info.appendChild(el("h1", {}, data.title));
  const tset = el("fieldset");
  tset.appendChild(el("legend", {}, "trajectories"));
  info.appendChild(tset);
  for (const t of trajs) {
    const sw = t.color === null ? "#d0d0d0" : "#" + t.color.toString(16).padStart(6, "0");
    const label = t.name + (t.color === null ? " (model colours)" : "");
    checkbox(tset, label, true, (on) => { t.visible = on; t.root.visible = on; }, sw);
  }
  const cset = el("fieldset");
  cset.appendChild(el("legend", {}, "contacts"));
  info.appendChild(cset);
  let showPoints = true, showForces = true;
  const anyContacts = trajs.some((t) => t.source !== "none");
  checkbox(cset, "contact points", showPoints, (on) => { showPoints = on; }).id = "show-contacts";
  checkbox(cset, "contact forces", showForces, (on) => { showForces = on; }).id = "show-forces";
  const srcText = {
    recorded: "recorded in the trajectory",
    computed: "computed from qpos, qvel, ctrl",
    points: "points only (no qvel, or no ctrl of an actuated model, recorded)",
    none: "not available for this model",
  };
  for (const t of trajs) {
    cset.appendChild(el("div", { class: "note" }, t.name + ": " + srcText[t.source]));
  }
  if (fscale > 0) {
    cset.appendChild(el("div", { class: "note" },
      "force arrows: " + arrowLen.toPrecision(2) + " m = " + fscale.toPrecision(3) + " N " +
      "(95th percentile; longer arrows capped at twice that); largest force " +
      fmax.toPrecision(3) + " N"));
  }
  if (!anyContacts) cset.style.display = "none";
  if (groups.length > 1 || !groupOn.get(groups[0])) {
    const gset = el("fieldset");
    gset.appendChild(el("legend", {}, "geom groups"));
    info.appendChild(gset);
    for (const g of groups) {
      checkbox(gset, "group " + g, groupOn.get(g), (on) => { groupOn.set(g, on); applyGroups(); });
    }
  }
  let follow = false;
  const vset = el("fieldset");
  vset.appendChild(el("legend", {}, "camera"));
  info.appendChild(vset);
  checkbox(vset, "follow the first moving body", follow, (on) => { follow = on; });
  vset.appendChild(el("div", { class: "note" }, "drag: orbit · right-drag: pan · wheel: zoom"));

  function applyGroups() {
    for (const o of geomObjects) o.mesh.visible = groupOn.get(o.group) !== false;
  }
  applyGroups();

  // ------------------------------------------------------------------ time
  const slider = document.getElementById("slider");
  const clock = document.getElementById("clock");
  const playBtn = document.getElementById("play");
  const speedSel = document.getElementById("speed");
  const loopBox = document.getElementById("loop");
  slider.min = tmin;
  slider.max = tmax > tmin ? tmax : tmin + 1e-9;
  slider.value = tmin;
  let time = tmin, playing = false, dirty = true, last = null;

  // the frame at or before t and the interpolation weight towards the next one
  function locate(ts, t) {
    let lo = 0, hi = ts.length - 1;
    if (t <= ts[0]) return [0, 0];
    if (t >= ts[hi]) return [hi, 0];
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (ts[mid] <= t) lo = mid; else hi = mid;
    }
    const w = ts[hi] > ts[lo] ? (t - ts[lo]) / (ts[hi] - ts[lo]) : 0;
    return [lo, w];
  }

  const qa = new THREE.Quaternion(), qb = new THREE.Quaternion();
  let followBody = -1;
  {
    // the body that moves most in the first trajectory
    const t0 = trajs[0], n = t0.time.length;
    let best = 1e-9;
    for (let b = 1; b < nbody; b++) {
      const i = 3 * ((n - 1) * nbody + b), j = 3 * b;
      const d = Math.hypot(t0.xpos[i] - t0.xpos[j], t0.xpos[i + 1] - t0.xpos[j + 1]);
      if (d > best) { best = d; followBody = b; }
    }
  }

  function pose(t) {
    let ci = 0, ai = 0;
    for (const tr of trajs) {
      const [f, w] = locate(tr.time, t);
      const g = Math.min(f + 1, tr.time.length - 1);
      for (let b = 1; b < nbody; b++) {
        const i = 3 * (f * nbody + b), j = 3 * (g * nbody + b);
        const o = tr.bodies[b];
        o.position.set(
          tr.xpos[i] + w * (tr.xpos[j] - tr.xpos[i]),
          tr.xpos[i + 1] + w * (tr.xpos[j + 1] - tr.xpos[i + 1]),
          tr.xpos[i + 2] + w * (tr.xpos[j + 2] - tr.xpos[i + 2]));
        const p = 4 * (f * nbody + b), q = 4 * (g * nbody + b);
        qa.set(tr.xquat[p + 1], tr.xquat[p + 2], tr.xquat[p + 3], tr.xquat[p]);
        qb.set(tr.xquat[q + 1], tr.xquat[q + 2], tr.xquat[q + 3], tr.xquat[q]);
        o.quaternion.slerpQuaternions(qa, qb, w);
      }
      if (!tr.visible) continue;
      // contacts of the nearest frame
      const k = w < 0.5 ? f : g;
      for (let c = tr.coff[k]; c < tr.coff[k + 1]; c++) {
        const p = [tr.cdat[6 * c], tr.cdat[6 * c + 1], tr.cdat[6 * c + 2]];
        if (showPoints) {
          const d = dot(ci++);
          d.position.set(p[0], p[1], p[2]);
          d.visible = true;
        }
        const fv = new THREE.Vector3(tr.cdat[6 * c + 3], tr.cdat[6 * c + 4], tr.cdat[6 * c + 5]);
        const fn = fv.length();
        if (showForces && fscale > 0 && Number.isFinite(fn) && fn > 1e-6 * fscale) {
          const a = arrow(ai++);
          a.position.set(p[0], p[1], p[2]);
          a.setDirection(fv.divideScalar(fn));
          const len = Math.min(Math.max((arrowLen * fn) / fscale, 1e-4), 2 * arrowLen);
          a.setLength(len, Math.min(0.25 * len, 0.06 * extent), Math.min(0.12 * len, 0.03 * extent));
          a.visible = true;
        }
      }
    }
    for (let i = ci; i < dots.length; i++) dots[i].visible = false;
    for (let i = ai; i < arrows.length; i++) arrows[i].visible = false;
    if (follow && followBody > 0) {
      const o = trajs[0].bodies[followBody];
      const delta = new THREE.Vector3(o.position.x - controls.target.x,
        o.position.y - controls.target.y, 0);
      controls.target.add(delta);
      camera.position.add(delta);
    }
    clock.textContent = "t = " + t.toFixed(3) + " / " + tmax.toFixed(3) + " s";
  }

  // ------------------------------------------------------------------ camera and loop
  controls.target.copy(center);
  camera.position.set(center.x + 2.2 * extent, center.y - 2.6 * extent, center.z + 1.4 * extent);
  camera.near = extent / 200;
  camera.far = extent * 400;
  camera.updateProjectionMatrix();
  sun.position.set(center.x + 3 * extent, center.y - 2 * extent, center.z + 6 * extent);
  sun.target.position.copy(center);
  controls.update();
  controls.addEventListener("change", () => { dirty = true; });

  function setTime(t) {
    time = Math.min(Math.max(t, tmin), tmax);
    slider.value = time;
    dirty = true;
  }
  slider.addEventListener("input", () => { time = parseFloat(slider.value); dirty = true; });
  playBtn.addEventListener("click", () => {
    playing = !playing;
    if (playing && time >= tmax) time = tmin;
    playBtn.textContent = playing ? "Pause" : "Play";
    last = null;
  });
  window.addEventListener("resize", () => {
    camera.aspect = view.clientWidth / view.clientHeight;
    camera.updateProjectionMatrix();
    renderer.setSize(view.clientWidth, view.clientHeight);
    dirty = true;
  });

  function render() {
    pose(time);
    renderer.render(scene, camera);
    dirty = false;
  }
  function tick(now) {
    if (playing) {
      if (last !== null) {
        let t = time + ((now - last) / 1000) * parseFloat(speedSel.value);
        if (t > tmax) {
          if (loopBox.checked && tmax > tmin) t = tmin + ((t - tmin) % (tmax - tmin));
          else { t = tmax; playing = false; playBtn.textContent = "Play"; }
        }
        setTime(t);
      }
      last = now;
    }
    if (dirty) render();
    requestAnimationFrame(tick);
  }
  render();
  requestAnimationFrame(tick);

  // for scripts and tests: the time range, and setting the time as the slider does
  window.moreauViewer = {
    tmin: tmin,
    tmax: tmax,
    trajectories: trajs.map((t) => ({ name: t.name, frames: t.time.length, contacts: t.source })),
    setTime: (t) => { setTime(t); render(); },
    render: render,
  };
  document.body.dataset.ready = "1";
})();
