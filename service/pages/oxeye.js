// Shared by the pages: element lookup, API calls whose errors come back as data, the presets list,
// and a photo's or a live frame's hands as table rows and drawn over the picture.
"use strict";

const $ = (id) => document.getElementById(id);

async function api(path, body) {
  const init = body === undefined ? {} : body instanceof FormData ? {method: "POST", body}
    : {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)};
  const response = await reach(path, init);
  if (!response.ok) throw await failure(response);
  return response.json();
}

// The server's response, or why there is none in words: the browser said only "Failed to fetch" of a
// server stopped or a network gone.
async function reach(path, init) {
  try {
    return await fetch(path, init);
  } catch {
    throw new Error("the page could not reach the server: try again once it is back");
  }
}

// A refused request's reason: the service's {"error"}, or the status of an answer that is not the
// service's (a proxy's HTML page, which read as JSON said "Unexpected token '<'"); its status kept as ``status``.
async function failure(response) {
  const data = (response.headers.get("Content-Type") || "").includes("json") ? await response.json() : {};
  const words = data.error || `the server answered ${response.status} ${response.statusText}`.trim();
  return Object.assign(new Error(words), {status: response.status});
}

// A box whose value does not match its pattern is refused in these words, checked as it is typed (the
// browser said only "Please match the requested format"); the check is returned, for a box the page fills.
function explainPattern(box, words) {
  const check = () => box.setCustomValidity(box.validity.patternMismatch ? words : "");
  box.addEventListener("input", check);
  return check;
}

// The API's words for a name of spaces alone, said by a name box before it is sent (trimmed, it was sent empty and
// refused as "String should have at least 1 character").
const SPACES_ALONE = "a name needs more than spaces";

// What no one sees around a name, which the service drops (service/names.py), and the most characters it keeps of
// what is left, counted as it counts them: Unicode's code points, where a box's maxlength counted UTF-16 units.
const INVISIBLE = "[\\s\\u200b-\\u200f\\u202a-\\u202e\\u2066-\\u2069\\u2060\\ufeff]+";
const AROUND_NAME = new RegExp(`^${INVISIBLE}|${INVISIBLE}$`, "g");
const NAME_CHARS = 100;

// A name box that says, as it is typed, a name the service would refuse: one of spaces alone, or one longer than it
// keeps, counted in the name's normal form (NFC, one space between its words); its maxlength="100" kept a name of 51
// emoji, which the service takes, from being typed, and refused 100 letters with the space a phone leaves after them.
function explainName(box) {
  box.addEventListener("input", () => {
    const kept = [...box.value.normalize("NFC").replace(AROUND_NAME, "").replace(/\s+/g, " ")].length;
    box.setCustomValidity(box.validity.patternMismatch ? SPACES_ALONE
      : kept > NAME_CHARS ? `a name is at most ${NAME_CHARS} characters, not ${kept}` : "");
  });
}

// What a banker's box wants: a browser's number box let "1e0" or "1e3" through, refused by the service as no integer.
const HAND_NUMBER = "a hand's number, in digits: 0, 1, 2 …";

// A box of JSON with a phone's curly double quotes made straight: an iPhone's keyboard types {"1": 10} as {“1”: 10},
// which is no JSON, refused, the straight quote to be hunted for on a long press.
function straightenQuotes(box) {
  box.value = box.value.replace(/[“”„‟]/g, '"');
}

// "1 item", "2 items": the pages wrote "1 items read", as oxeye detect once wrote "1 items in 1 hands".
function counted(count, noun) {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

// The one kind of item read, "card" or "tile"; null where none, or both, were read.
function kindRead(items) {
  const kinds = new Set(items.map((item) => item.kind));
  return kinds.size === 1 ? [...kinds][0] : null;
}

function text(tag, content, className) {
  const node = document.createElement(tag);
  node.textContent = content;
  if (className) node.className = className;
  return node;
}

// The presets into the select; one that cannot be had is thrown, for the page to say where its errors go
// (the list stood empty without a word, and a photo sent then was read under gnau, unasked).
async function loadRules(select) {
  let presets;
  try {
    presets = await api("/v1/rules");
  } catch (error) {
    throw new Error(`The rules could not be loaded: ${error.message}`);
  }
  for (const [name, description] of Object.entries(presets)) {
    const option = text("option", name);
    option.value = name;
    option.title = description;
    select.append(option);
  }
}

// What each hand won or paid, by hand index, from a scored photo's settlement.
function outcomes(settlement) {
  const result = settlement && settlement.result;
  if (!result) return {};
  const byHand = {[result.banker.name.replace("hand ", "")]: `banker ${signed(result.banker.delta)}`};
  for (const player of result.players) byHand[player.name.replace("hand ", "")] = `${player.outcome} ${signed(player.delta)}`;
  return byHand;
}

function signed(amount) {
  return amount > 0 ? `+${amount}` : `${amount}`;
}

// One row per hand (index, codes, best ox or why not, win or loss) into tbody; the settlement in words.
function showHands(tbody, settlementLine, scored) {
  const results = outcomes(scored.settlement);
  // the hands' column named for what they hold, which said "Cards" over dominoes
  const heading = tbody.closest("table")?.tHead.rows[0].cells[1];
  const kind = kindRead(scored.items);
  if (heading) heading.textContent = kind === "tile" ? "Tiles" : kind === "card" ? "Cards" : "Cards or tiles";
  tbody.replaceChildren(...scored.hands.map((hand) => {
    const row = document.createElement("tr");
    row.className = hand.reading ? "read" : "unread";
    row.append(text("td", hand.index), text("td", hand.codes.join(" ")),
      text("td", hand.reading ? hand.reading.label : hand.problem, hand.reading ? "" : "problem"),
      text("td", results[hand.index] || ""));
    return row;
  }));
  if (!scored.hands.length) {
    const row = document.createElement("tr");
    const cell = text("td", "no hands in view", "problem");
    cell.colSpan = 4;
    row.append(cell);
    tbody.append(row);
  }
  const result = scored.settlement.result;
  settlementLine.textContent = scored.settlement.problem ? `Not settled: ${scored.settlement.problem}`
    : `Settled: the house takes ${result.house}; ` + (result.next_banker === null
      ? "the bank passes to the banker's right (who sits there is not seen)"
      : `next banker ${result.next_banker}`);
}

const HAND = {settled: "#7ee787", settling: "#f4c95d"}, DOUBT = "#ff6b5b", ITEM = "#9ecbff";

// Over a picture drawn in the context: each item's box (dashed where held) and code, and around each hand its label and
// what it won or paid, or how far it is from settling (a photo's hands are all settled); scale turns
// the answer's pixels into the canvas's.
function drawOverlay(context, scored, scale) {
  const results = outcomes(scored.settlement);
  const size = labelSize(context.canvas);
  context.lineWidth = Math.max(2, size / 7);
  context.font = `${size}px system-ui, sans-serif`;
  for (const item of scored.items) {
    const [x1, y1, x2, y2] = item.box.map((v) => v * scale);
    context.strokeStyle = context.fillStyle = item.flag ? DOUBT : ITEM;
    context.setLineDash(item.held ? [4, 4] : []);  // not seen in this frame: held where its hand last saw it
    context.strokeRect(x1, y1, x2 - x1, y2 - y1);
    context.setLineDash([]);
    label(context, item.code + (item.flag ? "?" : ""), x1 + 3, y1 + size);
  }
  for (const hand of scored.hands) {
    const [x1, y1, x2, y2] = hand.box.map((v) => v * scale);
    const settled = hand.settled !== false;
    context.strokeStyle = context.fillStyle = settled ? HAND.settled : HAND.settling;
    context.setLineDash(settled ? [] : [8, 6]);
    context.strokeRect(x1 - 5, y1 - 5, x2 - x1 + 10, y2 - y1 + 10);
    context.setLineDash([]);
    const words = hand.reading ? hand.reading.label : settled ? hand.problem : `settling ${hand.streak}…`;
    label(context, `hand ${hand.index}: ${words} ${results[hand.index] || ""}`.trim(), x1, y2 + 1.5 * size);
  }
}

// The labels' size in the canvas's pixels: a 60th of its width, and 12 px at least as it is shown (a phone
// shows a 960-pixel photo 343 px wide, where a 60th was 6 px, not to be read).
function labelSize(canvas) {
  const shown = canvas.clientWidth || canvas.width;  // one not on the page is shown as drawn
  return Math.max(12 * canvas.width / shown, canvas.width / 60);
}

function label(context, words, x, y) {
  context.save();
  context.lineWidth = 4;
  context.strokeStyle = "#000";
  context.strokeText(words, x, y);
  context.restore();
  context.fillText(words, x, y);
}
