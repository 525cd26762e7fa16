// mbd's web viewer: the run in the page's JSON block drawn with three.js, a time bar with the
// event log, a signal plot. Written by viz.html (viz/webpage.py documents the data).
import * as THREE from "three";
import { OrbitControls } from "three/OrbitControls";

const data = JSON.parse(document.getElementById("mbd-data").textContent);

// colours are given as they are meant to look: no colour management
THREE.ColorManagement.enabled = false;

function decode(text, Type) {
  const bin = atob(text);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return new Type(bytes.buffer);
}

const times = decode(data.t, Float64Array);
const t0 = times[0];
const t1 = times[times.length - 1];

// ----------------------------------------------------------------------------- the scene

const canvas = document.getElementById("scene");
const renderer = new THREE.WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true });
renderer.outputColorSpace = THREE.LinearSRGBColorSpace;
renderer.setPixelRatio(window.devicePixelRatio || 1);
const scene = new THREE.Scene();
scene.background = new THREE.Color(1, 1, 1);
const cam = data.camera;
const camera = new THREE.PerspectiveCamera(cam.fov, 4 / 3, cam.radius * 1e-3, cam.radius * 100);
camera.up.set(...cam.up);
camera.position.set(...cam.position);
const controls = new OrbitControls(camera, canvas);
controls.target.set(...cam.target);
controls.update();

// the first view: looking as the camera given does, at the bodies' extent over the whole run
// (the hull of their boxes' corners at every row), which fills cam.fill of the canvas's width
// or height, whichever is limiting; refitted when the canvas changes size until the user
// moves the view
const FILL = cam.fill;
const fitPoints = cam.fit ? decode(cam.fit, Float32Array) : null;
let userMoved = false;
controls.addEventListener("start", () => { userMoved = true; });

function fitCamera(aspect) {
  if (!fitPoints || !fitPoints.length) return;
  const back = new THREE.Vector3(...cam.position).sub(new THREE.Vector3(...cam.target)).normalize();
  const right = new THREE.Vector3().crossVectors(camera.up, back).normalize();
  const up = new THREE.Vector3().crossVectors(back, right);
  const lo = new THREE.Vector3(Infinity, Infinity, Infinity), hi = lo.clone().negate();
  const p = new THREE.Vector3();
  for (let k = 0; k < fitPoints.length; k += 3) {
    p.fromArray(fitPoints, k);
    const v = new THREE.Vector3(p.dot(right), p.dot(up), p.dot(back));
    lo.min(v); hi.max(v);
  }
  // aim at the middle of the extent as seen, then back off until every point is inside
  const x0 = (lo.x + hi.x) / 2, y0 = (lo.y + hi.y) / 2;
  const tanV = Math.tan(THREE.MathUtils.degToRad(cam.fov) / 2) * FILL;
  const tanH = tanV * aspect;
  let distance = 0;
  for (let k = 0; k < fitPoints.length; k += 3) {
    p.fromArray(fitPoints, k);
    const x = p.dot(right) - x0, y = p.dot(up) - y0, z = p.dot(back);
    distance = Math.max(distance, z + Math.max(Math.abs(x) / tanH, Math.abs(y) / tanV));
  }
  // the target: the middle as seen, at the depth of the extent's middle
  const target = right.clone().multiplyScalar(x0).addScaledVector(up, y0)
    .addScaledVector(back, (lo.z + hi.z) / 2);
  distance -= (lo.z + hi.z) / 2;
  controls.target.copy(target);
  camera.position.copy(target).addScaledVector(back, distance);
  camera.near = Math.max(1e-3 * cam.radius, 1e-3 * distance);
  camera.far = Math.max(100 * cam.radius, 10 * distance);
  camera.aspect = aspect;
  camera.updateProjectionMatrix();
  controls.update();
}
scene.add(new THREE.HemisphereLight(0xffffff, 0x777777, 1.6));
const lamp = new THREE.DirectionalLight(0xffffff, 1.6);
lamp.position.set(0.3, 0.5, 1.0);
camera.add(lamp);              // a head lamp: the lit side is the side seen
scene.add(camera);

function makePart(part) {
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute("position", new THREE.BufferAttribute(decode(part.positions, Float32Array), 3));
  const own = part.colors !== undefined;
  if (own) {
    geometry.setAttribute("color", new THREE.BufferAttribute(decode(part.colors, Uint8Array), 3, true));
  }
  const transparent = part.opacity < 1;
  const base = { vertexColors: own, transparent, opacity: part.opacity };
  if (!own) base.color = new THREE.Color(...part.color);
  if (part.kind === "lines") {
    return new THREE.LineSegments(geometry, new THREE.LineBasicMaterial(base));
  }
  geometry.setAttribute("normal", new THREE.BufferAttribute(decode(part.normals, Float32Array), 3));
  geometry.setIndex(new THREE.BufferAttribute(decode(part.indices, Uint32Array), 1));
  const material = part.unlit
    ? new THREE.MeshBasicMaterial({ ...base, side: THREE.DoubleSide })
    : new THREE.MeshPhongMaterial({ ...base, side: THREE.DoubleSide, shininess: 25,
                                    depthWrite: !transparent });
  return new THREE.Mesh(geometry, material);
}

const bodies = data.bodies.map((b) => {
  const group = new THREE.Group();
  group.name = "body:" + b.name;
  const objects = b.parts.map(makePart);
  objects.forEach((o) => group.add(o));
  scene.add(group);
  return { name: b.name, group, objects, position: decode(b.position, Float32Array),
           quaternion: decode(b.quaternion, Float32Array) };
});
const staticObjects = data.static.map(makePart);
const world = new THREE.Group();
world.name = "grounds";
staticObjects.forEach((o) => world.add(o));
scene.add(world);
const floor = new THREE.Group();
floor.name = "floor";
data.floor.forEach((p) => floor.add(makePart(p)));
scene.add(floor);

// coils between two CSs, remade each frame as the Python coil_points makes them
const TURNS = 8, PER_TURN = 16, COIL_POINTS = TURNS * PER_TURN + 3;
const coils = data.coils.map((c) => {
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute("position", new THREE.BufferAttribute(new Float32Array(3 * COIL_POINTS), 3));
  const line = new THREE.Line(geometry, new THREE.LineBasicMaterial({ color: new THREE.Color(...data.colors.spring) }));
  line.name = "coil:" + c.name;
  line.frustumCulled = false;
  scene.add(line);
  return { name: c.name, line, a: decode(c.a, Float32Array), b: decode(c.b, Float32Array) };
});

function perpendicular(axis) {
  // two unit vectors square to axis and to each other (as viz.shapes.frame_of)
  const helper = Math.abs(axis.x) < 0.9 ? new THREE.Vector3(1, 0, 0) : new THREE.Vector3(0, 1, 0);
  const e1 = new THREE.Vector3().crossVectors(axis, helper).normalize();
  const e2 = new THREE.Vector3().crossVectors(axis, e1);
  return [e1, e2];
}

function setCoil(coil, pa, pb) {
  const d = new THREE.Vector3().subVectors(pb, pa);
  const length = d.length();
  const axis = length > 0 ? d.clone().divideScalar(length) : new THREE.Vector3(0, 0, 1);
  const [e1, e2] = perpendicular(axis);
  const radius = 0.02 * data.length;
  const out = coil.line.geometry.attributes.position;
  out.setXYZ(0, pa.x, pa.y, pa.z);
  const n = TURNS * PER_TURN;
  for (let k = 0; k <= n; k++) {
    const s = 0.1 + 0.8 * k / n;
    const phase = 2 * Math.PI * TURNS * (s - 0.1) / 0.8;
    const c = radius * Math.cos(phase), w = radius * Math.sin(phase);
    out.setXYZ(k + 1, pa.x + s * d.x + c * e1.x + w * e2.x, pa.y + s * d.y + c * e1.y + w * e2.y,
               pa.z + s * d.z + c * e1.z + w * e2.z);
  }
  out.setXYZ(n + 2, pb.x, pb.y, pb.z);
  out.needsUpdate = true;
}

// contact and stick colours, row by row
const states = data.states.map((s) => {
  const targets = s.coil ? [coils.find((c) => c.name === s.name).line]
    : s.parts.map(([owner, k]) => owner === null ? staticObjects[k]
      : bodies.find((b) => b.name === owner).objects[k]);
  return { ...s, targets, rows: s.rows === null ? null : decode(s.rows, Uint8Array) };
});
const palette = Object.fromEntries(Object.entries(data.colors).map(([k, v]) => [k, new THREE.Color(...v)]));

// the contact points while they touch (viz.html(contacts=True)), as the GIF draws them: a small
// ball at each and an arrow along the force on its side b (data.contacts.scale m per N, the
// run's largest force a quarter of the drawing's size), flat red, over everything else
const touch = data.contacts ? {
  names: data.contacts.names,
  points: decode(data.contacts.points, Float32Array),
  forces: decode(data.contacts.forces, Float32Array),
  scale: data.contacts.scale,
  group: new THREE.Group(),
  marks: [],
} : null;
if (touch) {
  touch.group.name = "contacts";
  const L = data.length;
  const material = new THREE.MeshBasicMaterial({ color: palette.contact, depthTest: false,
                                                 depthWrite: false });
  const ball = new THREE.SphereGeometry(0.015 * L, 12, 8);
  // a shaft and a tip along +y of unit size, scaled per frame as viz.elements.contact_marks
  const shaft = new THREE.CylinderGeometry(1, 1, 1, 12).translate(0, 0.5, 0);
  const tip = new THREE.ConeGeometry(1, 1, 12).translate(0, 0.5, 0);
  for (const name of touch.names) {
    const dot = new THREE.Mesh(ball, material);
    const arrow = new THREE.Group();
    const body = new THREE.Mesh(shaft, material), head = new THREE.Mesh(tip, material);
    arrow.add(body, head);
    dot.name = "contact point:" + name;
    arrow.name = "contact force:" + name;
    for (const o of [dot, body, head]) { o.renderOrder = 10; o.frustumCulled = false; }
    touch.group.add(dot, arrow);
    touch.marks.push({ dot, arrow, body, head });
  }
  scene.add(touch.group);
}
const yAxis = new THREE.Vector3(0, 1, 0);

function setContacts(i, j, w) {
  // the state of row i (as the contact colours); the point and the force interpolated
  // toward row j where the point still touches there
  const P = touch.names.length, L = data.length;
  touch.marks.forEach((m, k) => {
    const a = 3 * (i * P + k), b = 3 * (j * P + k);
    const on = Number.isFinite(touch.points[a]);
    m.dot.visible = on;
    m.arrow.visible = false;
    if (!on) return;
    const wk = Number.isFinite(touch.points[b]) ? w : 0;
    const at = new THREE.Vector3().fromArray(touch.points, a)
      .lerp(new THREE.Vector3().fromArray(touch.points, b), wk);
    const f = new THREE.Vector3().fromArray(touch.forces, a)
      .lerp(new THREE.Vector3().fromArray(touch.forces, b), wk);
    m.dot.position.copy(at);
    const size = f.length() * touch.scale;
    if (!(size > 1e-6 * L)) return;
    // the shaft and the tip as thick at every length (pyvista's Arrow, as the GIF sizes it)
    const tipLength = Math.min(0.5 * size, 0.05 * L), tipRadius = Math.min(0.5 * size, 0.018 * L);
    const shaftRadius = Math.min(0.25 * size, 0.006 * L);
    m.body.scale.set(shaftRadius, size - tipLength, shaftRadius);
    m.head.scale.set(tipRadius, tipLength, tipRadius);
    m.head.position.set(0, size - tipLength, 0);
    m.arrow.position.copy(at);
    m.arrow.quaternion.setFromUnitVectors(yAxis, f.normalize());
    m.arrow.visible = true;
  });
}

function legend() {
  const items = [];
  if (states.some((s) => s.kind === "contact")) items.push(["free", "not in contact"], ["contact", "in contact"]);
  if (states.some((s) => s.kind === "stiction")) items.push(["stuck", "stuck"], ["slip", "slipping"]);
  if (touch) items.push(["contact", "contact points, forces"]);
  document.getElementById("legend").innerHTML = items.map(([k, label]) =>
    `<span style="background:#${palette[k].getHexString()}"></span>${label}`).join("");
  if (!items.length) document.getElementById("legend").hidden = true;
}

// ----------------------------------------------------------------------------- time

let now = t0;

function rowAt(t) {
  // the last row at or before t (the state in force at t, as Scene.state_at)
  let lo = 0, hi = times.length - 1;
  if (t >= times[hi]) return hi;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (times[mid] <= t) lo = mid; else hi = mid;
  }
  return lo;
}

const qa = new THREE.Quaternion(), qb = new THREE.Quaternion();
const va = new THREE.Vector3(), vb = new THREE.Vector3();
const pa = new THREE.Vector3(), pb = new THREE.Vector3();

function lerpRows(array, i, j, w, out) {
  va.fromArray(array, 3 * i);
  vb.fromArray(array, 3 * j);
  return out.lerpVectors(va, vb, w);
}

function between(t) {
  // the rows i, j around t and the weight of j: what the view and the readout interpolate
  const i = rowAt(t);
  const j = Math.min(i + 1, times.length - 1);
  const w = j > i && times[j] > times[i] ? (t - times[i]) / (times[j] - times[i]) : 0;
  return [i, j, w];
}

function setTime(t) {
  now = Math.min(Math.max(Number(t), t0), t1);
  const [i, j, w] = between(now);
  for (const b of bodies) {
    lerpRows(b.position, i, j, w, b.group.position);
    qa.fromArray(b.quaternion, 4 * i);
    qb.fromArray(b.quaternion, 4 * j);
    b.group.quaternion.slerpQuaternions(qa, qb, w);
  }
  for (const c of coils) {
    lerpRows(c.a, i, j, w, pa);
    lerpRows(c.b, i, j, w, pb);
    setCoil(c, pa.clone(), pb.clone());
  }
  for (const s of states) {
    const on = s.rows === null ? null : s.rows[i];
    const colour = on === null ? palette.unknown
      : s.kind === "contact" ? (on ? palette.contact : palette.free)
        : (on ? palette.stuck : palette.slip);
    for (const o of s.targets) o.material.color.copy(colour);
  }
  if (touch) setContacts(i, j, w);
  scene.updateMatrixWorld(true);
  showTime();
  drawChart();
  requestRender();
}

// ----------------------------------------------------------------------------- the time bar

const track = document.getElementById("track");
const clock = document.getElementById("clock");
const playButton = document.getElementById("play");
const speedSelect = document.getElementById("speed");
const loopBox = document.getElementById("loop");
const tip = document.getElementById("tip");
const span = t1 > t0 ? t1 - t0 : 1;

function fraction(t) { return (t - t0) / span; }

function timeText(t) {
  // the clock's and the readout's time, to the same digits
  return `t = ${t.toFixed(t1 - t0 < 1 ? 4 : 3)} s`;
}

function showTime() {
  const f = 100 * fraction(now);
  document.getElementById("cursor").style.left = f + "%";
  document.getElementById("progress").style.width = f + "%";
  clock.textContent = timeText(now);
  track.setAttribute("aria-valuenow", now);
  track.setAttribute("aria-valuetext", timeText(now));
}

const marks = document.getElementById("marks");
// one mark per instant: events closer than 0.2 % of the run (a contact and its damping
// switching microseconds apart) share one mark, at the first one's time, named by all
const instants = [];
for (const e of data.events) {
  const last = instants[instants.length - 1];
  if (last && e.t - last.last <= 0.002 * span) { last.labels.push(e.label); last.last = e.t; }
  else instants.push({ t: e.t, last: e.t, labels: [e.label] });
}
for (const e of instants) {
  const mark = document.createElement("div");
  mark.className = "mark";
  mark.style.left = 100 * fraction(e.t) + "%";
  mark.dataset.t = e.t;
  mark.dataset.label = `t = ${e.t.toPrecision(6)} s: ${e.labels.join("; ")}`;
  mark.setAttribute("aria-label", mark.dataset.label);
  marks.appendChild(mark);
}
marks.addEventListener("pointerover", (ev) => {
  if (!ev.target.classList.contains("mark")) return;
  tip.textContent = ev.target.dataset.label;
  tip.hidden = false;
  const r = ev.target.getBoundingClientRect();
  tip.style.left = Math.max(4, Math.min(r.left - 20, window.innerWidth - tip.offsetWidth - 4)) + "px";
  tip.style.top = r.top - 26 + "px";
});
marks.addEventListener("pointerout", () => { tip.hidden = true; });

let dragging = false;
function scrub(ev) {
  const r = track.getBoundingClientRect();
  const f = Math.min(Math.max((ev.clientX - r.left) / r.width, 0), 1);
  let t = t0 + f * span;
  const near = ev.target.classList && ev.target.classList.contains("mark");
  if (near) t = Number(ev.target.dataset.t);     // a click on an event goes to its instant
  pause();
  setTime(t);
}
track.addEventListener("pointerdown", (ev) => { dragging = true; track.setPointerCapture(ev.pointerId); scrub(ev); });
track.addEventListener("pointermove", (ev) => { if (dragging) scrub(ev); });
track.addEventListener("pointerup", () => { dragging = false; });

let playing = false, lastFrame = null;
function play() {
  if (times.length < 2) return;
  if (now >= t1) setTime(t0);
  playing = true;
  lastFrame = null;
  playButton.innerHTML = "&#10074;&#10074;";
  requestAnimationFrame(step);
}
function pause() {
  playing = false;
  playButton.innerHTML = "&#9654;";
}
function step(stamp) {
  if (!playing) return;
  if (lastFrame !== null) {
    let t = now + (stamp - lastFrame) / 1000 * Number(speedSelect.value);
    if (t >= t1) {
      if (loopBox.checked) t = t0 + (t - t1) % span;
      else { setTime(t1); pause(); return; }
    }
    setTime(t);
  }
  lastFrame = stamp;
  requestAnimationFrame(step);
}
playButton.addEventListener("click", () => (playing ? pause() : play()));

// the keyboard. Space plays or pauses whichever control has focus (its own use of space, a
// button's click, a select's list, a checkbox's tick, is kept from it), except while typing
// into a text field. On the time bar (or with nothing focused) the arrows step one row
// (with shift ten), Home and End go to the first and the last row.
const TEXT_INPUTS = ["text", "search", "number", "email", "url", "tel", "password"];
function typing(el) {
  return el && (el.isContentEditable || el.tagName === "TEXTAREA"
    || (el.tagName === "INPUT" && TEXT_INPUTS.includes(el.type)));
}
function rowStep(k) {
  // the row k rows after (k < 0: before) the slider's time; between rows, the row on that side
  const i = rowAt(now);
  const from = k > 0 || times[i] === now ? i : i + 1;
  return Math.min(Math.max(from + k, 0), times.length - 1);
}
document.addEventListener("keydown", (ev) => {
  if (ev.code !== "Space" || ev.ctrlKey || ev.altKey || ev.metaKey || typing(ev.target)) return;
  ev.preventDefault();
  if (!ev.repeat && times.length > 1) playing ? pause() : play();
}, true);
document.addEventListener("keyup", (ev) => {      // a button or a checkbox acts on keyup
  if (ev.code === "Space" && !typing(ev.target)) ev.preventDefault();
}, true);
document.addEventListener("keydown", (ev) => {
  const el = ev.target;
  if (el !== track && el !== document.body && el !== canvas) return;
  if (ev.ctrlKey || ev.altKey || ev.metaKey || times.length < 2) return;
  const n = ev.shiftKey ? 10 : 1;
  let row;
  if (ev.key === "ArrowRight" || ev.key === "ArrowUp") row = rowStep(n);
  else if (ev.key === "ArrowLeft" || ev.key === "ArrowDown") row = rowStep(-n);
  else if (ev.key === "Home") row = 0;
  else if (ev.key === "End") row = times.length - 1;
  else return;
  ev.preventDefault();
  pause();
  setTime(times[row]);
});
track.setAttribute("aria-valuemin", t0);
track.setAttribute("aria-valuemax", t1);
if (touch) {
  // a box on the time bar that shows or hides the contact points and their forces
  const label = document.createElement("label");
  label.innerHTML = '<input id="contacts" type="checkbox" checked> contacts';
  document.getElementById("timebar").appendChild(label);
  document.getElementById("contacts").addEventListener("change", (ev) => {
    touch.group.visible = ev.target.checked;
    requestRender();
  });
}
if (times.length < 2) {
  playButton.disabled = true; track.style.cursor = "default"; track.removeAttribute("tabindex");
}

// ----------------------------------------------------------------------------- the plot

const chart = document.getElementById("chart");
const signalSelect = document.getElementById("signal");
const signals = data.signals.map((s) => ({ ...s, values: decode(s.values, Float64Array) }));
signals.forEach((s, k) => {
  const option = document.createElement("option");
  option.value = k;
  option.textContent = `${s.name} [${s.unit}]`;
  signalSelect.appendChild(option);
});
if (!signals.length) document.getElementById("plot").hidden = true;
signalSelect.addEventListener("change", drawChart);

function drawChart() {
  const s = signals[Number(signalSelect.value)];
  if (!s) return;
  const ratio = window.devicePixelRatio || 1;
  const width = chart.clientWidth, height = chart.clientHeight;
  if (chart.width !== Math.round(width * ratio) || chart.height !== Math.round(height * ratio)) {
    chart.width = Math.round(width * ratio);
    chart.height = Math.round(height * ratio);
  }
  const g = chart.getContext("2d");
  g.setTransform(ratio, 0, 0, ratio, 0, 0);
  g.clearRect(0, 0, width, height);
  const left = 64, right = 12, top = 6, bottom = 18;
  let lo = Infinity, hi = -Infinity;
  for (const v of s.values) { if (Number.isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); } }
  if (!(hi > lo)) { hi = (Number.isFinite(hi) ? hi : 0) + 1; lo = hi - 2; }
  const x = (t) => left + (width - left - right) * fraction(t);
  const y = (v) => top + (height - top - bottom) * (hi - v) / (hi - lo);
  g.strokeStyle = "#bbb"; g.lineWidth = 1;
  g.strokeRect(left, top, width - left - right, height - top - bottom);
  g.fillStyle = "#555"; g.font = "11px system-ui, sans-serif"; g.textAlign = "right";
  g.fillText(hi.toPrecision(4), left - 4, top + 9);
  g.fillText(lo.toPrecision(4), left - 4, height - bottom);
  g.textAlign = "left"; g.fillText(`${t0} s`, left, height - 4);
  g.textAlign = "right"; g.fillText(`${t1.toPrecision(4)} s`, width - right, height - 4);
  g.strokeStyle = "#1f77b4"; g.lineWidth = 1.5; g.beginPath();
  for (let k = 0; k < times.length; k++) {
    const px = x(times[k]), py = y(s.values[k]);
    if (k === 0) g.moveTo(px, py); else g.lineTo(px, py);
  }
  g.stroke();
  g.strokeStyle = "#d03030"; g.lineWidth = 1; g.beginPath();
  g.moveTo(x(now), top); g.lineTo(x(now), height - bottom); g.stroke();
  // the value at the slider's time, interpolated between rows as the 3-D view is
  const [i, j, w] = between(now);
  const value = w > 0 ? s.values[i] + w * (s.values[j] - s.values[i]) : s.values[i];
  document.getElementById("value").textContent = `${value.toPrecision(6)} ${s.unit} at ${timeText(now)}`;
}

// ----------------------------------------------------------------------------- drawing

let pending = false;
function render() {
  pending = false;
  const width = canvas.clientWidth, height = canvas.clientHeight;
  const size = renderer.getSize(new THREE.Vector2());
  if (size.x !== width || size.y !== height) {
    renderer.setSize(width, height, false);
    camera.aspect = width / Math.max(height, 1);
    camera.updateProjectionMatrix();
    if (!userMoved) fitCamera(camera.aspect);
  }
  renderer.render(scene, camera);
}
function requestRender() {
  if (!pending) { pending = true; requestAnimationFrame(render); }
}
controls.addEventListener("change", requestRender);
window.addEventListener("resize", () => { requestRender(); drawChart(); });

document.getElementById("title").textContent = data.title;
document.getElementById("subtitle").textContent = data.subtitle;
legend();
setTime(t0);
render();

// what a test (or a curious user) reads: the scene graph and the controls
window.mbdViewer = {
  scene, camera, renderer, controls, setTime, play, pause, render,
  time: () => now,
  fit: fitCamera,
  playing: () => playing,
  signal: (name) => signals.find((s) => s.name === name),
  ready: true,
};
document.body.dataset.ready = "1";
