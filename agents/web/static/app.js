// tbw-envs in the browser: play against an agent, watch recorded games. Plain JavaScript,
// no build step, nothing fetched but this server's own API.
"use strict";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
// Player 0 red, player 1 blue: the colours of the RGB frames and GIFs (PLAYER_COLORS in
// tbw_envs/tbw/render.py; tests/agents/web/test_palette.py holds them equal).
const SIDE_COLORS = ["#c82828", "#2850d2"];
const SIDE_LIGHT = ["#fde2e2", "#dde6fb"];
// What a click may do: tiles a unit may reach, enemies it may attack. Saturated colours that no
// terrain (pastel, the hash colours included) nor either player's colour comes near, and the
// attack ring contrasts with both players' discs (test_palette.py measures both).
const MARK_COLORS = { reach: "#ff00ff", attack: "#ffe600" };
const MARK_NAMES = { reach: "magenta", attack: "yellow" };
const TERRAIN_COLORS = {
  plain: "#eef6e4", grass: "#eef6e4", forest: "#9ccc9c", woods: "#9ccc9c", mountain: "#a8a29e",
  hill: "#d6c39a", hills: "#d6c39a", water: "#9fd0f5", lake: "#9fd0f5", river: "#9fd0f5",
  sea: "#7fb8e6", wall: "#4a5568", road: "#f3e3a0", fort: "#f6c98b", sand: "#f5e6b8",
  swamp: "#b5c99a",
};

const HASH_SATURATION = 35, HASH_LIGHTNESS = 75;  // an unknown terrain's colour: pastel

let games = {};        // name -> game description from /api/games

// ------------------------------------------------------------------ helpers
function el(tag, attrs = {}, parent = null, text = null) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== null) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

function html(tag, attrs = {}, parent = null, text = null) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== null) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

async function api(method, url, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(url, options);
  let data;
  try { data = await response.json(); } catch (e) { data = { error: `${response.status} ${response.statusText}` }; }
  if (!response.ok) throw new Error(data.error || `${response.status}`);
  return data;
}

function terrainColor(name) {
  if (TERRAIN_COLORS[name]) return TERRAIN_COLORS[name];
  let hash = 0;
  for (const c of name) hash = (hash * 31 + c.charCodeAt(0)) >>> 0;
  return `hsl(${hash % 360}, ${HASH_SATURATION}%, ${HASH_LIGHTNESS}%)`;
}

function resultWords(result) {
  return { moved: "moved", attacker_won: "attacked and won", attacker_lost: "attacked and lost",
           both_removed: "attacked: both removed" }[result] || result;
}

function show(id, visible) { $(id).hidden = !visible; }

// A finished game's outcome, from its last position: never whose move it would be.
function outcomeWords(position) {
  const reason = (position.end_reason || "").replaceAll("_", " ");
  const who = position.winner === null || position.winner === undefined ? "A draw" : `player ${position.winner} won`;
  return reason ? `${who}: ${reason}` : who;
}

// ------------------------------------------------------------------ TBW drawing
const TILE = 44;
const LABEL_BAND = 18;  // left of and above the board: row and column numbers

function tbwGeometry(board) {
  const hex = board.topology === "hex";
  const pitchY = hex ? TILE * 0.866 : TILE;
  const center = (row, col) => [
    col * TILE + TILE / 2 + (hex && row % 2 ? TILE / 2 : 0) + 6 + LABEL_BAND,
    row * pitchY + TILE / 2 + 6 + LABEL_BAND,
  ];
  const width = board.cols * TILE + (hex ? TILE / 2 : 0) + 12 + LABEL_BAND;
  const height = (board.rows - 1) * pitchY + TILE + 12 + LABEL_BAND;
  return { hex, center, width, height };
}

// Tiles are named (row, column) from 0, as the log names them ("unit 3 (archer) -> (2, 5)").
function drawTBWLabels(svg, geo, board) {
  for (let col = 0; col < board.cols; col++) {
    const [x] = geo.center(0, col);
    el("text", { x, y: LABEL_BAND - 2, "text-anchor": "middle", "font-size": 11, fill: "#4a5568",
                 class: "coord", "data-col": col }, svg, String(col));
  }
  for (let row = 0; row < board.rows; row++) {
    const [, y] = geo.center(row, 0);
    el("text", { x: LABEL_BAND / 2, y: y + 4, "text-anchor": "middle", "font-size": 11,
                 fill: "#4a5568", class: "coord", "data-row": row }, svg, String(row));
  }
}

function tileShape(svg, geo, row, col, attrs) {
  const [x, y] = geo.center(row, col);
  if (geo.hex) {
    const r = TILE / Math.sqrt(3);
    const points = [];
    for (let i = 0; i < 6; i++) {
      const a = Math.PI / 180 * (60 * i - 30);
      points.push(`${(x + r * Math.cos(a)).toFixed(1)},${(y + r * Math.sin(a)).toFixed(1)}`);
    }
    return el("polygon", { points: points.join(" "), ...attrs }, svg);
  }
  return el("rect", { x: x - TILE / 2, y: y - TILE / 2, width: TILE, height: TILE, ...attrs }, svg);
}

// marks: {tiles: {"r,c": "reach" | "dest"}, attackable: Set(uid), selected: uid, onTile, onUnit}
function drawTBW(container, board, position, marks = {}) {
  const geo = tbwGeometry(board);
  container.innerHTML = "";
  const svg = el("svg", { width: geo.width, height: geo.height, viewBox: `0 0 ${geo.width} ${geo.height}`,
                          "data-game": board.game, "data-board": board.kind }, container);
  for (let row = 0; row < board.rows; row++) {
    for (let col = 0; col < board.cols; col++) {
      const name = board.terrain[row * board.cols + col];
      const key = `${row},${col}`;
      const shape = tileShape(svg, geo, row, col, {
        fill: terrainColor(name), stroke: "#fff", "stroke-width": 1,
        "data-tile": key, class: marks.onTile ? "clickable" : "",
      });
      const title = el("title", {}, shape, `(${row}, ${col}) ${name}`);
      if (marks.tiles && marks.tiles[key]) {
        // The chosen destination is filled more heavily than the other reachable tiles.
        const dest = marks.tiles[key] === "dest";
        tileShape(svg, geo, row, col, { fill: MARK_COLORS.reach, "fill-opacity": dest ? 0.65 : 0.25,
                                        stroke: MARK_COLORS.reach, "stroke-width": dest ? 4 : 3,
                                        "data-tile": key, class: `clickable mark${dest ? " dest" : ""}` })
          .addEventListener("click", () => marks.onTile && marks.onTile(row, col));
      }
      if (marks.onTile) shape.addEventListener("click", () => marks.onTile(row, col));
      void title;
    }
  }
  drawTBWLabels(svg, geo, board);
  if (marks.plan) drawPlan(svg, geo, marks.plan);
  for (const unit of position.units) {
    if (!unit.alive) continue;
    const spec = board.units[unit.id];
    const [x, y] = geo.center(unit.row, unit.col);
    const g = el("g", { "data-unit": unit.id, "data-side": spec.side, class: "clickable",
                        "data-ready": marks.ready ? String(marks.ready.has(unit.id)) : "false",
                        opacity: unit.acted ? 0.5 : 1 }, svg);
    el("title", {}, g, `#${unit.id} ${spec.type}${spec.leader ? " (leader)" : ""}, side ${spec.side}: ` +
       `hp ${unit.hp}/${spec.max_hp}, atk ${spec.atk}, move ${spec.move}, range ${spec.range[0]}-${spec.range[1]}` +
       (unit.acted ? ", has acted" : ""));
    el("circle", { cx: x, cy: y, r: 16, fill: SIDE_COLORS[spec.side],
                   stroke: spec.leader ? "#d69e2e" : "#fff", "stroke-width": spec.leader ? 3 : 1.5 }, g);
    if (marks.attackable && marks.attackable.has(unit.id)) {
      // Over the disc's rim and the terrain around it: it must stand out on both.
      el("circle", { cx: x, cy: y, r: 18, fill: "none", stroke: MARK_COLORS.attack, "stroke-width": 5,
                     class: "attack-ring" }, g);
    }
    if (marks.selected === unit.id) el("circle", { cx: x, cy: y, r: 20, fill: "none", stroke: "#d69e2e", "stroke-width": 3 }, g);
    el("text", { x, y: y + 4, "text-anchor": "middle", "font-size": 12, "font-weight": 700, fill: "#fff" },
       g, spec.type.slice(0, 2).toUpperCase());
    const frac = Math.max(0, unit.hp / spec.max_hp);
    el("rect", { x: x - 16, y: y + 17, width: 32, height: 4, fill: "#2d3748" }, g);
    el("rect", { x: x - 16, y: y + 17, width: 32 * frac, height: 4, fill: frac > 0.5 ? "#38a169" : frac > 0.25 ? "#d69e2e" : "#e53e3e" }, g);
    el("text", { x: x + 14, y: y - 10, "font-size": 10, fill: "#1a202c", "font-weight": 700 }, g, String(unit.hp));
    el("text", { x: x - 21, y: y - 10, "font-size": 9, fill: "#4a5568" }, g, `#${unit.id}`);
    if (marks.onUnit) g.addEventListener("click", (event) => { event.stopPropagation(); marks.onUnit(unit.id); });
  }
  return svg;
}

// A planned turn: per unit action, an arrow from the unit to its destination, numbered in
// order, and a dashed line to the enemy it attacks.
function drawPlan(svg, geo, plan) {
  el("defs", {}, svg).innerHTML = '<marker id="plan-head" markerUnits="userSpaceOnUse" markerWidth="12" ' +
    'markerHeight="12" refX="10" refY="6" orient="auto"><path d="M0,0 L12,6 L0,12 z" fill="#805ad5"/></marker>';
  plan.forEach((step, index) => {
    const [x1, y1] = geo.center(...step.from), [x2, y2] = geo.center(...step.to);
    if (x1 !== x2 || y1 !== y2) {
      el("line", { x1, y1, x2, y2, stroke: "#805ad5", "stroke-width": 3, "stroke-opacity": 0.8,
                   "marker-end": "url(#plan-head)", class: "plan-move" }, svg);
    }
    if (step.target) {
      const [x3, y3] = geo.center(...step.target);
      el("line", { x1: x2, y1: y2, x2: x3, y2: y3, stroke: "#e53e3e", "stroke-width": 2.5,
                   "stroke-dasharray": "5 3", class: "plan-attack" }, svg);
    }
    el("circle", { cx: x2 + 13, cy: y2 + 13, r: 8, fill: "#805ad5" }, svg);
    el("text", { x: x2 + 13, y: y2 + 17, "text-anchor": "middle", "font-size": 10, fill: "#fff",
                 "font-weight": 700 }, svg, String(index + 1));
  });
}

// Unit actions of a TBW action id (Scenario.unit_action), for the side to move.
function decodeTBW(board, position, action) {
  if (action === board.end_turn) return null;
  const n = board.units_per_side, size = board.rows * board.cols;
  const k = action % (n + 1), rest = Math.floor(action / (n + 1));
  const tile = rest % size, slot = Math.floor(rest / size);
  const side = position.current_player;
  const unit = board.units.find((u) => u.side === side && u.slot === slot);
  const enemy = k === n ? null : board.units.find((u) => u.side === 1 - side && u.slot === k);
  return { unit: unit.id, to: [Math.floor(tile / board.cols), tile % board.cols], target: enemy ? enemy.id : null };
}

function planMarks(board, frames, ply, plan) {
  // Each planned action from the frame it would be played in: the unit's place there.
  const steps = [];
  const position = frames[ply];
  const where = Object.fromEntries(position.units.map((u) => [u.id, [u.row, u.col]]));
  for (const action of plan) {
    const step = decodeTBW(board, position, action);
    if (!step || !where[step.unit] || where[step.unit][0] === null) continue;
    steps.push({ from: where[step.unit], to: step.to, target: step.target !== null ? where[step.target] : null });
    where[step.unit] = step.to;
  }
  return steps;
}

// ------------------------------------------------------------------ Junqi drawing
const PITCH_X = 72, PITCH_Y = 46, RIVER = 34, JUNQI_TOP = 44;  // the column digits above

function junqiXY(post, flip) {
  let row = Math.floor(post / 5), col = post % 5;
  if (flip) { row = 11 - row; col = 4 - col; }
  return [col * PITCH_X + 50, row * PITCH_Y + JUNQI_TOP + (row >= 6 ? RIVER : 0)];
}

// marks: {selected: post, targets: Set(post), last: {from, to}, onPost}
function drawJunqi(container, board, position, flip, marks = {}) {
  container.innerHTML = "";
  const width = 4 * PITCH_X + 100, height = 11 * PITCH_Y + RIVER + JUNQI_TOP + 30;
  const svg = el("svg", { width, height, viewBox: `0 0 ${width} ${height}`, "data-game": board.game,
                          "data-board": board.kind }, container);
  for (const [a, b, kind] of board.links) {
    const [x1, y1] = junqiXY(a, flip), [x2, y2] = junqiXY(b, flip);
    el("line", { x1, y1, x2, y2, stroke: kind === "rail" ? "#4a5568" : "#a0aec0",
                 "stroke-width": kind === "rail" ? 4 : 1.5 }, svg);
  }
  const camps = new Set(board.camps), hqs = new Set(board.headquarters);
  for (let post = 0; post < 60; post++) {
    const [x, y] = junqiXY(post, flip);
    if (camps.has(post)) el("circle", { cx: x, cy: y, r: 21, fill: "#fefcbf", stroke: "#a0aec0" }, svg);
    else if (hqs.has(post)) el("rect", { x: x - 30, y: y - 18, width: 60, height: 36, rx: 14, fill: "#fbd38d", stroke: "#a0aec0" }, svg);
    else el("rect", { x: x - 27, y: y - 15, width: 54, height: 30, rx: 3, fill: "#f7fafc", stroke: "#cbd5e0" }, svg);
  }
  if (marks.last) {
    for (const post of [marks.last.from, marks.last.to]) {
      const [x, y] = junqiXY(post, flip);
      el("rect", { x: x - 31, y: y - 19, width: 62, height: 38, rx: 5, fill: "none", stroke: "#d69e2e",
                   "stroke-width": 2, "stroke-dasharray": "4 3" }, svg);
    }
  }
  const pieceName = Object.fromEntries(board.pieces.map((p) => [p.code, p]));
  if (marks.arrows) {
    el("defs", {}, svg).innerHTML = '<marker id="head" markerUnits="userSpaceOnUse" markerWidth="14" ' +
      'markerHeight="14" refX="12" refY="7" orient="auto"><path d="M0,0 L14,7 L0,14 z" fill="#805ad5"/></marker>';
    const most = Math.max(1, ...marks.arrows.map((m) => m[1]));
    for (const [action, visits] of marks.arrows) {
      const [x1, y1] = junqiXY(Math.floor(action / 60), flip), [x2, y2] = junqiXY(action % 60, flip);
      el("line", { x1, y1, x2, y2, stroke: "#805ad5", "stroke-opacity": 0.75, "marker-end": "url(#head)",
                   "stroke-width": 2 + 6 * visits / most, class: "thinking-move" }, svg);
    }
  }
  for (let post = 0; post < 60; post++) {
    const [x, y] = junqiXY(post, flip);
    const piece = position.posts[post];
    const g = el("g", { "data-post": board.posts[post], class: marks.onPost ? "clickable" : "",
                        "data-movable": marks.movable ? String(marks.movable.has(post)) : "false" }, svg);
    el("rect", { x: x - 27, y: y - 15, width: 54, height: 30, fill: "transparent" }, g);
    if (piece) {
      const hidden = piece.piece === null;
      el("rect", { x: x - 25, y: y - 13, width: 50, height: 26, rx: 4,
                   fill: hidden ? SIDE_COLORS[piece.owner] : SIDE_LIGHT[piece.owner],
                   stroke: SIDE_COLORS[piece.owner], "stroke-width": marks.selected === post ? 4 : 1.5 }, g);
      const info = hidden ? null : pieceName[piece.piece];
      el("text", { x, y: y + 5, "text-anchor": "middle", "font-size": hidden ? 15 : 14, "font-weight": 700,
                   fill: hidden ? "#fff" : SIDE_COLORS[piece.owner] }, g, hidden ? "?" : info.code);
      let title = `${board.posts[post]}: player ${piece.owner}'s `;
      title += hidden ? `hidden piece; it may be ${piece.possible ? piece.possible.join(" ") : "anything"}` :
        `${info.name.replace("_", " ")} (${info.code}, ${info.chinese})`;
      if (piece.moved) title += ", has moved";
      const belief = marks.belief && marks.belief[String(post)];
      if (belief) {
        const ranked = belief.map((p, k) => [p, board.pieces[k].code]).filter(([p]) => p > 0.005)
          .sort((a, b) => b[0] - a[0]);
        title += `\nthe searcher's belief: ${ranked.map(([p, c]) => `${c} ${(100 * p).toFixed(0)}%`).join(", ")}`;
        const [p, code] = ranked[0];
        el("text", { x, y: y + 24, "text-anchor": "middle", "font-size": 10, fill: "#805ad5",
                     "font-weight": 700, class: "belief" }, g, `${code} ${(100 * p).toFixed(0)}%`);
      }
      el("title", {}, g, title);
    } else {
      el("title", {}, g, board.posts[post]);
    }
    if (marks.targets && marks.targets.has(post)) {
      el("circle", { cx: x, cy: y, r: 9, fill: "#38a169", "fill-opacity": 0.8, class: "target" }, g);
    }
    if (marks.onPost) g.addEventListener("click", () => marks.onPost(post));
  }
  // Posts are named row letter and column digit ("G0"), as in the log's "G0-F0": the letters
  // left, the digits above, turned with the board.
  for (let row = 0; row < 12; row++) {
    const [, y] = junqiXY(row * 5, flip);
    el("text", { x: 8, y: y + 4, "font-size": 11, fill: "#4a5568", class: "coord", "data-row": board.posts[row * 5][0] },
       svg, board.posts[row * 5][0]);
  }
  for (let col = 0; col < 5; col++) {
    const [x] = junqiXY(col, flip);
    el("text", { x, y: 14, "text-anchor": "middle", "font-size": 11, fill: "#4a5568", class: "coord", "data-col": col },
       svg, String(col));
  }
  return svg;
}

// ------------------------------------------------------------------ text drawing
// A game with no board of its own: its text render, as the server sends it.
function drawText(container, board, position) {
  container.innerHTML = "";
  return html("pre", { class: "text-board", "data-game": board.game, "data-board": board.kind },
              container, position.text);
}

// ------------------------------------------------------------------ Play
// starts: how many games this page has asked for; an answer to an older request is stale.
const play = { id: null, board: null, state: null, poll: null, selected: null, dest: null, layoutRows: null, picked: null,
               starts: 0 };

function fillGameSelects() {
  for (const select of [$("play-game")]) {
    select.innerHTML = "";
    for (const name of Object.keys(games)) html("option", { value: name }, select, games[name].title);
  }
  onPlayGameChange();
}

function onPlayGameChange() {
  const game = games[$("play-game").value];
  $("play-variant-noun").textContent = game.variant_noun[0].toUpperCase() + game.variant_noun.slice(1);
  const variant = $("play-variant");
  variant.innerHTML = "";
  for (const v of game.variants) html("option", { value: v }, variant, v);
  variant.value = game.default_variant;
  const list = $("play-opponents");
  list.innerHTML = "";
  for (const spec of game.opponents) html("option", { value: spec }, list);
  show("layout-choice", game.arranges_layouts);
  show("deploy", false);
  setPlayError(null);  // the last game's error is not this one's
}

async function startGame(event) {
  event.preventDefault();
  const ticket = ++play.starts;
  setPlayError(null);
  const game = $("play-game").value;
  const arranging = games[game].arranges_layouts && $("play-layout").value === "arrange";
  if (!arranging) show("deploy", false);
  if (arranging && !play.layoutRows) {
    await openDeploy(ticket);
    return;
  }
  const layout = games[game].arranges_layouts
    ? ($("play-layout").value === "arrange" ? play.layoutRows : $("play-layout").value) : undefined;
  const request = { game, variant: $("play-variant").value, opponent: $("play-opponent").value.trim(),
                    seat: Number($("play-seat").value) };
  if (layout !== undefined) request.layout = layout;
  stopPolling();
  setPlayError(null);
  $("play-status").textContent = "Starting...";
  // The game this page leaves is given back, so that it stops thinking and the server has room.
  if (play.id) {
    const left = play.id;
    play.id = null;
    api("DELETE", `/api/play/${left}`).catch(() => {});
  }
  try {
    const data = await api("POST", "/api/play", request);
    if (ticket !== play.starts) {  // a newer game began meanwhile: this one is not wanted
      api("DELETE", `/api/play/${data.id}`).catch(() => {});
      return;
    }
    play.id = data.id; play.board = data.board; play.selected = null; play.dest = null;
    play.layoutRows = null;
    show("deploy", false);
    updatePlay(data.state);
  } catch (error) {
    if (ticket !== play.starts) return;  // the panel belongs to the newer game now
    $("play-status").textContent = "Could not start the game.";
    setPlayError(error.message);
    if (arranging) show("deploy", true);
  }
}

function setPlayError(message) {
  $("play-error").textContent = message || "";
  show("play-error", !!message);
}

function stopPolling() { if (play.poll) { clearTimeout(play.poll); play.poll = null; } }

async function pollPlay() {
  play.poll = null;
  const id = play.id;
  if (!id) return;
  try {
    const data = await api("GET", `/api/play/${id}`);
    if (play.id === id) updatePlay(data.state);  // not a game this page has left
  } catch (error) {
    if (play.id === id) setPlayError(error.message);
  }
}

function updatePlay(state) {
  play.state = state;
  show("play-thinking", state.thinking || (!state.your_turn && !state.over && !state.error));
  if (state.error) setPlayError(state.error);
  const you = state.seat;
  let status;
  if (state.over) {
    const r = state.returns[you];
    status = r > 0 ? "You won!" : r < 0 ? "You lost." : "A draw.";
    status += ` (${(state.position.end_reason || "").replaceAll("_", " ")}, ${state.plies} plies)`;
  } else if (state.your_turn) {
    status = `Your move (player ${you}).`;
  } else {
    status = `${state.opponent} is to move.`;
  }
  $("play-status").textContent = status;
  $("play-status").dataset.plies = state.plies;
  renderPlay();
  if (!state.over && !state.your_turn && !state.error) play.poll = setTimeout(pollPlay, 250);
}

function renderPlay() {
  const state = play.state, board = play.board;
  const actions = $("play-actions");
  actions.innerHTML = "";
  const render = { tiles: renderPlayTBW, posts: renderPlayJunqi }[board.kind] || renderPlayText;
  render(state, board, actions);
}

// The generic board: the text render, and a button per legal action with its words.
function renderPlayText(state, board, actions) {
  const position = state.over ? state.revealed : state.position;
  drawText($("play-board"), board, position);
  if (state.your_turn) {
    for (const act of state.position.actions || []) {
      const b = html("button", { type: "button", class: "text-action", "data-action": act.action }, actions, act.words);
      b.addEventListener("click", () => sendMove(act.action));
    }
  }
  const info = $("play-info");
  info.innerHTML = "";
  if (state.over) html("div", { class: "outcome" }, info, outcomeWords(state.position));
  else if (state.your_turn) html("div", {}, info, "Choose your action from the buttons.");
  renderLog(state.log || []);
}

function renderPlayTBW(state, board, actions) {
  const position = state.position;
  const options = position.options || {};
  const marks = { tiles: {}, attackable: new Set(), selected: play.selected,
                  ready: new Set(Object.keys(options).map(Number)) };
  const unitAt = {};
  for (const u of position.units) if (u.alive) unitAt[`${u.row},${u.col}`] = u.id;
  const chosen = play.selected !== null ? options[String(play.selected)] : null;
  if (chosen) {
    for (const option of chosen) {
      const key = option.tile.join(",");
      marks.tiles[key] = play.dest === key ? "dest" : "reach";
      if (play.dest === null || play.dest === key) {
        for (const act of option.actions) if (act.target !== null) marks.attackable.add(act.target);
      }
    }
  }
  const send = (action) => sendMove(action);
  const destOption = chosen && play.dest !== null ? chosen.find((o) => o.tile.join(",") === play.dest) : null;
  marks.onTile = state.your_turn ? (row, col) => {
    const key = `${row},${col}`;
    if (!chosen) return;
    const option = chosen.find((o) => o.tile.join(",") === key);
    if (!option) { play.selected = null; play.dest = null; renderPlay(); return; }
    if (play.dest === key) { send(option.actions[0].action); return; }  // second click: move only
    play.dest = key;
    if (option.actions.length === 1) { send(option.actions[0].action); return; }
    renderPlay();
  } : null;
  marks.onUnit = state.your_turn ? (uid) => {
    if (destOption) {
      const attack = destOption.actions.find((a) => a.target === uid);
      if (attack) { send(attack.action); return; }
    }
    if (options[String(uid)]) {
      if (play.selected === uid) {  // clicking the selected unit again: act where it stands
        const u = position.units[uid];
        marks.onTile(u.row, u.col);
        return;
      }
      play.selected = uid; play.dest = null; renderPlay(); return;
    }
    const u = position.units[uid];
    if (chosen) marks.onTile(u.row, u.col);
  } : null;
  drawTBW($("play-board"), board, position, marks);
  if (state.your_turn) {
    if (destOption) {
      const stay = html("button", { type: "button", id: "tbw-no-attack" }, actions, "Move without attacking");
      stay.addEventListener("click", () => send(destOption.actions[0].action));
      for (const act of destOption.actions.slice(1)) {
        const target = board.units[act.target];
        const b = html("button", { type: "button", class: "tbw-attack" }, actions, `Attack #${act.target} ${target.type}`);
        b.addEventListener("click", () => send(act.action));
      }
    }
    const end = html("button", { type: "button", id: "tbw-end-turn" }, actions, "End turn");
    end.addEventListener("click", () => send(board.end_turn));
  }
  const ready = Object.keys(options).length;
  $("play-info").innerHTML = "";
  html("div", {}, $("play-info"), `Turn ${position.turn} of ${board.max_turns}; win by ${board.win}. ` +
       (state.your_turn ? `${ready} of your units may still act: click one, then a ${MARK_NAMES.reach} tile, ` +
        `then a ${MARK_NAMES.attack}-ringed enemy (or the tile again to move without attacking).` : ""));
  if (state.over) html("div", { class: "outcome" }, $("play-info"), outcomeWords(position));
  tbwLegend($("play-info"), board);
  renderLog(state.log || []);
}

function tbwLegend(parent, board) {
  const legend = html("div", { class: "legend" }, parent);
  for (const [name, t] of Object.entries(board.terrain_types)) {
    const item = html("span", { class: "swatch-item" }, legend);
    // A style property, not a style attribute: the page's Content-Security-Policy refuses inline styles.
    html("span", { class: "swatch" }, item).style.background = terrainColor(name);
    const how = t.passable ? (t.cost !== null ? `cost ${t.cost}` : "some units") :
      (t.shoot_over ? "impassable, shoot over" : "impassable");
    item.appendChild(document.createTextNode(`${name} (${how}) `));
  }
  const types = [...new Set(board.units.map((u) => u.type))];
  html("div", {}, legend, "Units: " + types.map((t) => `${t.slice(0, 2).toUpperCase()} ${t}`).join(", ") +
       " (hover a unit for its hp, attack, move and range); a gold ring marks a leader; faded units have acted; " +
       "player 0 red, player 1 blue. Tiles are (row, column), numbered on the board's edges as in the log.");
  for (const [mark, words] of [["reach", "a tile the chosen unit may move to"], ["attack", "an enemy it may attack"]]) {
    const item = html("span", { class: "swatch-item" }, legend);
    html("span", { class: "swatch" }, item).style.background = MARK_COLORS[mark];
    item.appendChild(document.createTextNode(`${MARK_NAMES[mark]}: ${words} `));
  }
}

function renderLog(entries) {
  const log = $("play-log");
  log.innerHTML = "";
  for (const entry of entries) html("li", { class: `p${entry.player}` }, log, entry.text);
  log.scrollTop = log.scrollHeight;
}

function junqiLegend(parent, board) {
  html("div", { class: "legend" }, parent,
       board.pieces.map((p) => `${p.code} ${p.name.replace("_", " ")}`).join(" · "));
}

function junqiLog(position, board) {
  return position.history.map((ply) => ({
    player: ply.player,
    text: `player ${ply.player}: ${board.posts[ply.from]}-${board.posts[ply.to]} ${resultWords(ply.result)}`,
  }));
}

function renderPlayJunqi(state, board, actions) {
  const flip = state.seat === 1;
  const over = state.over;
  const position = over ? state.revealed : state.position;
  const marks = {};
  if (state.position.last) marks.last = state.position.last;
  const moves = state.position.moves || [];
  if (play.selected !== null) {
    marks.selected = play.selected;
    marks.targets = new Set(moves.filter((m) => m[0] === play.selected).map((m) => m[1]));
  }
  if (state.your_turn) {
    marks.movable = new Set(moves.map((m) => m[0]));
    marks.onPost = (post) => {
      const move = play.selected !== null && moves.find((m) => m[0] === play.selected && m[1] === post);
      if (move) { play.selected = null; sendMove(move[2]); return; }
      play.selected = moves.some((m) => m[0] === post) ? post : null;
      renderPlay();
    };
  }
  drawJunqi($("play-board"), board, position, flip, marks);
  const info = $("play-info");
  info.innerHTML = "";
  const limit = board.no_collision_limit;
  html("div", {}, info, `Ply ${state.position.ply}. No collision for ${state.position.quiet_plies}` +
       (limit ? ` of ${limit} plies (then ${board.no_collision_result.replaceAll("_", " ")}).` : " plies."));
  const flags = state.position.flag_revealed.map((p, side) => p === null ? null : `player ${side}'s flag is at ${board.posts[p]}`).filter(Boolean);
  if (flags.length) html("div", {}, info, flags.join("; ") + " (its marshal fell).");
  if (over) html("div", { class: "outcome" }, info, `${outcomeWords(state.position)}. The game is over: every piece is shown.`);
  else if (state.your_turn) html("div", {}, info, "Click one of your pieces, then a green dot. Hover a hidden piece to see what it may be.");
  junqiLegend(info, board);
  renderLog(junqiLog(state.position, board));
}

async function sendMove(action) {
  stopPolling();
  const id = play.id;
  try {
    const data = await api("POST", `/api/play/${id}/move`, { action });
    if (play.id !== id) return;  // a game this page has left
    play.selected = null; play.dest = null;
    setPlayError(null);
    updatePlay(data.state);
  } catch (error) {
    if (play.id !== id) return;
    setPlayError(error.message);
    pollPlay();
  }
}

// Junqi deployment by hand
async function openDeploy(ticket = play.starts) {
  try {
    const data = await api("GET", `/api/${encodeURIComponent($("play-game").value)}/layout`);
    if (ticket !== play.starts) return;  // another game was asked for meanwhile
    play.layoutRows = data.rows;
    play.pieces = data.pieces;
    play.layoutHeadquarters = data.headquarters;
  } catch (error) { if (ticket === play.starts) setPlayError(error.message); return; }
  play.picked = null;
  show("deploy", true);
  renderDeploy();
}

function renderDeploy() {
  const grid = $("deploy-grid");
  grid.innerHTML = "";
  const codes = Object.fromEntries(play.pieces.map((p) => [p.code, p]));
  play.layoutRows.forEach((row, r) => row.forEach((token, c) => {
    const index = r * 5 + c;
    const camp = token === null || token === ".";
    const cell = html("div", { class: `cell ${camp ? "camp" : "piece"}${play.layoutHeadquarters.includes(index) ? " hq" : ""}`,
                               "data-cell": index, draggable: camp ? "false" : "true" }, grid,
                      camp ? "camp" : token);
    if (camp) return;
    if (codes[token]) cell.title = `${codes[token].name.replace("_", " ")} (${codes[token].chinese})`;
    if (play.picked === index) cell.classList.add("picked");
    cell.addEventListener("dragstart", (e) => { e.dataTransfer.setData("text/plain", String(index)); });
    cell.addEventListener("dragover", (e) => e.preventDefault());
    cell.addEventListener("drop", (e) => { e.preventDefault(); swapCells(Number(e.dataTransfer.getData("text/plain")), index); });
    cell.addEventListener("click", () => {
      if (play.picked === null) { play.picked = index; renderDeploy(); }
      else { const a = play.picked; play.picked = null; swapCells(a, index); }
    });
  }));
}

function swapCells(a, b) {
  if (a === b || Number.isNaN(a)) { renderDeploy(); return; }
  const rows = play.layoutRows;
  const [ra, ca, rb, cb] = [Math.floor(a / 5), a % 5, Math.floor(b / 5), b % 5];
  [rows[ra][ca], rows[rb][cb]] = [rows[rb][cb], rows[ra][ca]];
  renderDeploy();
}

// ------------------------------------------------------------------ Watch
const watch = { data: null, ply: 0, timer: null, games: {} };

async function loadRuns() {
  const select = $("watch-file");
  select.innerHTML = "";
  try {
    const data = await api("GET", "/api/runs");
    if (!data.files.length) { $("watch-status").textContent = `No recorded games in the runs folder (${data.root}).`; return; }
    for (const file of data.files) html("option", { value: file }, select, file);
    await loadGames();
  } catch (error) { showWatchError(error.message); }
}

// A game's result as its replay gave it (the server sends none for a game not yet replayed).
function replayedResultWords(result) {
  const winner = result.winner === null ? "draw" : `player ${result.winner} won`;
  return `${winner}, ${result.end_reason}, ${result.plies} plies`;
}

function watchGameLabel(g, result, problem) {
  const label = `#${g.game_id} ${g.agents[0]} v ${g.agents[1]}`;
  if (result) return `${label}: ${replayedResultWords(result)}`;
  return problem ? `${label}: does not replay` : `${label} (result shown once replayed)`;
}

async function loadGames() {
  const select = $("watch-game");
  select.innerHTML = "";
  watch.games = {};
  try {
    const data = await api("GET", `/api/runs/games?file=${encodeURIComponent($("watch-file").value)}`);
    for (const g of data.games) {
      watch.games[g.index] = g;
      html("option", { value: g.index }, select, watchGameLabel(g, g.result, g.problem));
    }
    if (data.games.length) await loadGame();
  } catch (error) { showWatchError(error.message); }
}

function relabelWatchGame(index, result, problem) {
  const g = watch.games[index], option = $("watch-game").querySelector(`option[value="${index}"]`);
  if (g && option) option.textContent = watchGameLabel(g, result, problem);
}

async function loadGame() {
  stopAutoplay();
  showWatchError(null);
  const file = $("watch-file").value, index = $("watch-game").value, view = $("watch-view").value;
  $("watch-status").textContent = "Replaying...";
  try {
    watch.data = await api("GET", `/api/runs/game?file=${encodeURIComponent(file)}&index=${index}&view=${view}`);
  } catch (error) {
    // Nothing of a game that does not replay is shown, not even the last game's board.
    watch.data = null;
    relabelWatchGame(index, null, error.message);
    for (const id of ["watch-board", "watch-info"]) $(id).innerHTML = "";
    $("watch-status").textContent = "";
    $("watch-ply").textContent = "-";
    showWatchError(error.message);
    return;
  }
  relabelWatchGame(index, watch.data.result, null);
  show("watch-view-label", watch.data.board.hidden_information);
  show("watch-thinking-label", !!watch.data.thinking);
  $("watch-scrub").max = watch.data.frames.length - 1;
  setPly(Math.min(watch.ply, watch.data.frames.length - 1));
}

function showWatchError(message) { $("watch-error").textContent = message || ""; show("watch-error", !!message); }

function setPly(ply) {
  const data = watch.data;
  if (!data) return;
  watch.ply = Math.max(0, Math.min(ply, data.frames.length - 1));
  $("watch-scrub").value = watch.ply;
  $("watch-ply").textContent = `ply ${watch.ply} / ${data.frames.length - 1}`;
  const frame = data.frames[watch.ply];
  const info = $("watch-info");
  info.innerHTML = "";
  if (data.board.kind === "text") {
    drawText($("watch-board"), data.board, frame);
    html("div", frame.terminal ? { class: "outcome" } : {}, info, frame.terminal ? `${outcomeWords(frame)}.`
         : `Player ${frame.current_player} to act.`);
  } else if (data.board.kind === "tiles") {
    const thought = $("watch-thinking").checked && data.thinking ? data.thinking[watch.ply] : null;
    const marks = thought && thought.plan ? { plan: planMarks(data.board, data.frames, watch.ply, thought.plan) } : {};
    drawTBW($("watch-board"), data.board, frame, marks);
    html("div", frame.terminal ? { class: "outcome" } : {}, info, frame.terminal ? `Turn ${frame.turn}. ${outcomeWords(frame)}.`
         : `Turn ${frame.turn}; player ${frame.current_player} to act.`);
    tbwLegend(info, data.board);
    if (thought && thought.plan) {
      html("div", { class: "thinking-info" }, info,
           `Player ${frame.current_player}'s plan for the rest of its turn (numbered arrows; dashed: attacks)` +
           (thought.value !== undefined ? `, valued ${Number(thought.value).toFixed(2)}` : "") +
           (thought.solves !== undefined ? ` after ${thought.solves} solves` : "") + ".");
    }
  } else {
    const marks = frame.last ? { last: frame.last } : {};
    const thought = $("watch-thinking").checked && data.thinking ? data.thinking[watch.ply] : null;
    if (thought) {
      marks.arrows = (thought.moves || []).slice(0, 3);
      marks.belief = thought.belief;
    }
    drawJunqi($("watch-board"), data.board, frame, data.view === "1", marks);
    if (thought) {
      const mover = frame.current_player;
      const moves = (thought.moves || []).map(([a, v, q]) =>
        `${data.board.posts[Math.floor(a / 60)]}-${data.board.posts[a % 60]} ${v} visits, value ${Number(q).toFixed(2)}`);
      html("div", { class: "thinking-info" }, info,
           `Player ${mover}'s search here (${thought.iterations} iterations): ${moves.join("; ")}. ` +
           "Arrows: its three most visited moves; under each of the other side's pieces: its most likely type in the search's belief (hover for all).");
    }
    if (frame.last) {
      const ply = frame.last;
      html("div", {}, info, `Last: player ${ply.player} ${data.board.posts[ply.from]}-${data.board.posts[ply.to]} ${resultWords(ply.result)}.`);
    }
    html("div", {}, info, `No collision for ${frame.quiet_plies} plies.`);
    if (frame.terminal) html("div", { class: "outcome" }, info, `${outcomeWords(frame)}.`);
    junqiLegend(info, data.board);
  }
  if (frame.next) html("div", {}, info, `Next: ${frame.next}`);
  $("watch-status").textContent = `${data.agents[0]} (player 0) v ${data.agents[1]} (player 1): ` +
    replayedResultWords(data.result);
}

function stopAutoplay() { if (watch.timer) { clearInterval(watch.timer); watch.timer = null; } $("watch-play").textContent = "Play"; }

function toggleAutoplay() {
  if (watch.timer) { stopAutoplay(); return; }
  if (!watch.data) return;
  if (watch.ply >= watch.data.frames.length - 1) setPly(0);
  $("watch-play").textContent = "Pause";
  watch.timer = setInterval(() => {
    setPly(watch.ply + 1);
    if (watch.ply >= watch.data.frames.length - 1) stopAutoplay();
  }, Number($("watch-speed").value));
}

// ------------------------------------------------------------------ start
function switchTab(name) {
  for (const tab of document.querySelectorAll(".tab")) tab.classList.toggle("active", tab.dataset.panel === name);
  show("panel-play", name === "play");
  show("panel-watch", name === "watch");
  if (name === "watch" && !$("watch-file").options.length) loadRuns();
}

async function main() {
  for (const tab of document.querySelectorAll(".tab")) tab.addEventListener("click", () => switchTab(tab.dataset.panel));
  $("play-game").addEventListener("change", onPlayGameChange);
  $("play-layout").addEventListener("change", () => { play.layoutRows = null; show("deploy", false); });
  $("new-game").addEventListener("submit", startGame);
  $("deploy-shuffle").addEventListener("click", () => openDeploy());
  $("deploy-done").addEventListener("click", (e) => startGame(e));
  $("watch-file").addEventListener("change", loadGames);
  $("watch-game").addEventListener("change", () => { watch.ply = 0; loadGame(); });
  $("watch-view").addEventListener("change", loadGame);
  $("watch-thinking").addEventListener("change", () => setPly(watch.ply));
  $("watch-first").addEventListener("click", () => setPly(0));
  $("watch-prev").addEventListener("click", () => setPly(watch.ply - 1));
  $("watch-next").addEventListener("click", () => setPly(watch.ply + 1));
  $("watch-last").addEventListener("click", () => setPly(Infinity));
  $("watch-play").addEventListener("click", toggleAutoplay);
  $("watch-scrub").addEventListener("input", (e) => setPly(Number(e.target.value)));
  $("watch-speed").addEventListener("change", () => { if (watch.timer) { stopAutoplay(); toggleAutoplay(); } });
  // Leaving the page gives its game back (keepalive: the request outlives the page).
  window.addEventListener("pagehide", () => {
    if (play.id) fetch(`/api/play/${play.id}`, { method: "DELETE", keepalive: true }).catch(() => {});
  });
  try {
    const data = await api("GET", "/api/games");
    for (const g of data.games) games[g.name] = g;
  } catch (error) { setPlayError(error.message); return; }
  fillGameSelects();
  if (location.hash === "#watch") switchTab("watch");
}

main();
