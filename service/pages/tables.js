// The tables page over the ledger API: the tables (a page at a time), one table's banker, balances and rounds
// (newest first, older ones a page at a time), a round recorded once however often it is sent, seats and banker
// changed.
"use strict";

const PAGE = 10;  // rounds shown at once
const KEY = "oxeye-api-key";  // the API key's name in sessionStorage: kept for this tab only
let shown = null;  // the table on show, as the API last answered it
let oldest = 1;  // the number of the oldest round on show
let lastTable = 0;  // the id of the last table listed
// + a table's id: the Idempotency-Key of a round sent there and not yet answered, kept for the tab (a reload
// too) so that the round resent, the page reloaded or the table left and come back to, is not stored twice
const PENDING = "oxeye-round-key-";

// A ledger request's answer as data (ledgerAnswer).
async function ledger(path, method = "GET", body = undefined, headers = {}) {
  return (await ledgerAnswer(path, method, body, headers)).json();
}

// A ledger request, the API key sent with a change where one is kept; a refusal comes back as an Error
// with the answer's status (none where no answer came), and a 401 or 403 asks for the key.
async function ledgerAnswer(path, method = "GET", body = undefined, headers = {}) {
  const init = {method, headers: {...headers}};
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const key = sessionStorage.getItem(KEY);
  if (key && method !== "GET") init.headers["X-API-Key"] = utf8(key);
  const response = await reach(path, init);
  if (response.ok) return response;
  if (response.status === 401 || response.status === 403) askForKey();
  const error = await failure(response);
  error.status = response.status;
  throw error;
}

// The key's UTF-8 bytes, one character each, as the server reads the header: fetch refuses a header
// holding a character beyond Latin-1 ("é" went as one byte, "€" not at all).
function utf8(words) {
  return String.fromCharCode(...new TextEncoder().encode(words));
}

// The key's box, shown and in focus: the server refused a change for want of the key.
function askForKey() {
  $("keys").hidden = false;
  $("key").focus();
}

// The key typed kept for this tab (none: forgotten), sent with each change from now on.
function keepKey(event) {
  event.preventDefault();
  const key = $("key").value;
  if (key) sessionStorage.setItem(KEY, key);
  else sessionStorage.removeItem(KEY);
  say(key ? "The key is kept for this tab: send again" : "No key kept", "");
}

// Why something failed (class "error"), or a plain word, above the page; "" hides it.
function say(words, className = "error") {
  $("problem").textContent = words;
  $("problem").className = className;
  $("problem").hidden = !words;
}

// Names typed one a line, trimmed, blank lines left out.
function lines(box) {
  return box.value.split("\n").map((name) => name.trim()).filter(Boolean);
}

// A select's options made these names, ``chosen`` chosen where it is one of them.
function offer(select, names, chosen) {
  select.replaceChildren(...names.map((name) => text("option", name)));
  if (names.includes(chosen)) select.value = chosen;
}

// A table's rules in a word: the preset's name, or the options it was opened with.
function rulesName(rules) {
  return typeof rules === "string" ? rules : JSON.stringify(rules);
}

// The page for the address's #id: that table, or the list of tables.
async function route() {
  say("");
  const id = location.hash.slice(1);
  $("list").hidden = Boolean(id);
  $("table").hidden = true;  // until it is loaded: a table that is not there showed as an empty form
  try {
    await (id ? openTable(id) : listTables());
    $("table").hidden = !id;
  } catch (error) {
    say(error.message);
  }
}

// The tables opened after the one of id ``after`` (0: from the first), a page of them the API's way, each a
// link to its page, with who banks now and how many rounds it has; "More tables" shown where more follow.
async function listTables(after = 0) {
  const answer = await ledgerAnswer(`/v1/tables?after=${after}`);
  const tables = await answer.json();
  const rows = tables.map(tableRow);
  if (after) $("tables").append(...rows);
  else $("tables").replaceChildren(...rows);
  if (!after && !tables.length) {
    const row = document.createElement("tr");
    row.append(across(text("td", "no table yet: open one below", "problem"), 4));
    $("tables").append(row);
  }
  lastTable = tables.length ? tables.at(-1).id : after;
  $("more-tables").hidden = !answer.headers.has("Link");
}

// A table's row in the list: its name, a link to its page, its rules, who banks now and its rounds.
function tableRow(table) {
  const row = document.createElement("tr");
  const name = Object.assign(document.createElement("td"), {className: "typed"});
  name.append(Object.assign(text("a", table.name), {href: `#${table.id}`}));
  row.append(name, text("td", rulesName(table.rules), "typed"), text("td", table.banker, "typed"), text("td", table.rounds));
  return row;
}

// The next page of tables, below those listed.
async function showMoreTables() {
  say("");
  try {
    await listTables(lastTable);
  } catch (error) {
    say(error.message);
  }
}

// The cell, spread over ``columns`` columns.
function across(cell, columns) {
  cell.colSpan = columns;
  return cell;
}

// Open the table the form describes, and show it.
async function openNew(event) {
  event.preventDefault();
  say("");
  $("create").disabled = true;
  try {
    const table = await ledger("/v1/tables", "POST", {name: $("name").value.trim(), rules: $("rules").value,
      seats: lines($("seats")), banker: $("banker").value});
    location.hash = table.id;
  } catch (error) {
    say(error.message);
  } finally {
    $("create").disabled = false;
  }
}

// A table's banker, balances and latest rounds; the round form and the seats form made for its seats.
async function openTable(id) {
  const table = await ledger(`/v1/tables/${encodeURIComponent(id)}`);
  const first = Math.max(0, table.rounds - PAGE);
  const latest = await ledger(`/v1/tables/${table.id}/rounds?after=${first}&limit=${PAGE}`);
  showTable(table);
  $("rounds").replaceChildren();
  showRounds(latest, first + 1);
}

// The table as the API answered it: title, banker, balances (as given), the round and seats forms.
function showTable(table) {
  const changed = !shown || shown.id !== table.id;
  shown = table;
  $("title").textContent = `${table.name} (${rulesName(table.rules)})`;
  $("banks").textContent = `${table.banker} banks now · ${table.rounds} round${table.rounds === 1 ? "" : "s"} recorded`;
  $("balances").replaceChildren(...Object.entries(table.balances).map(([name, amount]) => {
    const row = document.createElement("tr");
    const who = table.seats.includes(name) ? name + (name === table.banker ? " (banker)" : "") : `${name} (no seat)`;
    row.append(text("td", who, "typed"), text("td", amount, "balance"));
    row.dataset.name = name;
    return row;
  }));
  showPlays(table, changed);
  $("new-seats").value = table.seats.join("\n");
  offer($("new-banker"), table.seats, table.banker);
}

// The round form's rows, one a seat: a hand, and for a player a stake and onlookers; what is typed stays
// as typed at the same table (a recorded round's hands are emptied first; stakes stay for the next round).
function showPlays(table, fresh) {
  const typed = fresh ? {} : Object.fromEntries([...$("plays").rows].map((row) => [row.dataset.name, row]));
  $("plays").replaceChildren(...table.seats.map((name) => {
    const row = document.createElement("tr");
    row.dataset.name = name;
    const banker = name === table.banker;
    row.append(text("td", banker ? `${name} (banker)` : name, "typed"), field("hand", name, value(typed[name], "hand")));
    if (banker) row.append(across(text("td", "banks: no stake"), 2));
    else row.append(field("stake", name, value(typed[name], "stake")), field("onlookers", name, value(typed[name], "onlookers")));
    return row;
  }));
}

// A cell with a box for one seat's hand, stake or onlookers (``kind``, its class and its column's too), holding
// ``typed``; the column's heading kept with it, to be shown over the box where a phone's screen has no room for columns.
function field(kind, name, typed) {
  const cell = document.createElement("td");
  cell.dataset.heading = document.querySelector(`#round th.${kind}`).textContent;
  const input = Object.assign(document.createElement("input"), {className: kind, value: typed});
  input.setAttribute("aria-label", `${name}'s ${kind}`);
  if (kind === "stake") input.inputMode = "decimal";
  else asTyped(input);
  cell.append(input);
  return cell;
}

// A box of names or codes taken as typed on a phone: its keyboard capitalised the first letter ("Ann", another seat
// than "ann") and corrected a name to a word ("ned" to "need").
function asTyped(box) {
  Object.assign(box, {autocapitalize: "none", spellcheck: false});
  box.setAttribute("autocorrect", "off");
}

// What a seat's row holds typed in its box of this class ("" where it has none).
function value(row, className) {
  const input = row && row.querySelector(`.${className}`);
  return input ? input.value : "";
}

// The round as the API takes it: each hand typed, with its stake (as text, taken digit for digit) and
// onlookers; a seat with no hand sits out, the stake kept from the last round not sent (the round was
// refused for it). What is missing or does not match is the API's to refuse, in its words.
function played() {
  const round = {hands: {}, stakes: {}, onlookers: {}};
  for (const row of $("plays").rows) {
    const name = row.dataset.name;
    const hand = value(row, "hand").trim(), stake = value(row, "stake").trim(), backers = value(row, "onlookers").trim();
    if (!hand) continue;
    round.hands[name] = hand;
    if (stake) round.stakes[name] = stake;
    if (backers) round.onlookers[name] = backers.split(",").map((entry) => onlooker(name, entry.trim()));
  }
  return round;
}

// "dee 5": an onlooker's name, then the stake.
function onlooker(player, entry) {
  const parts = entry.match(/^(.*\S)\s+(\S+)$/);
  if (!parts) throw new Error(`${player}'s onlookers: write each as a name and a stake, like "dee 5, eve 2" (not "${entry}")`);
  return {name: parts[1], stake: parts[2]};
}

// 16 random bytes in hex: crypto.randomUUID is only given to a page over https or on this machine.
function freshKey() {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

// Record the round under an Idempotency-Key kept until the server answers: a resend after no answer
// (the network dropped it, the server was restarting) reuses it, so a round the server did store is
// not stored twice; a changed round refused under that key (409) shows the one the server kept.
async function record(event) {
  event.preventDefault();
  if ($("record").disabled) return;
  say("");
  let round;
  try {
    round = played();
  } catch (error) {
    return say(error.message);
  }
  const pending = PENDING + shown.id;
  if (!sessionStorage.getItem(pending)) sessionStorage.setItem(pending, freshKey());
  $("record").disabled = true;  // a second click would send the round again (answered once, but twice)
  try {
    await ledger(`/v1/tables/${shown.id}/rounds`, "POST", round, {"Idempotency-Key": sessionStorage.getItem(pending)});
    sessionStorage.removeItem(pending);
    // emptied at once, not kept when the table is shown again (nor, were it not, recorded anew by a second click)
    for (const input of $("plays").querySelectorAll(".hand")) input.value = "";
    await openTable(shown.id);
    $("plays").querySelector(".hand").focus();  // the next round's hands are next (the rows were made anew)
  } catch (error) {
    if (error.status && error.status < 500) sessionStorage.removeItem(pending);  // answered: nothing stored under it
    say(error.status === 409 ? await storedAfterAll() : error.status ? await refusedAsItIs(error.message) : error.message);
  } finally {
    $("record").disabled = false;
  }
}

// A 409: the round sent before, its answer lost, was stored after all, and the form now holds another
// round. The API's "send a new key" meant nothing here, and the stored round was not on show.
async function storedAfterAll() {
  try {
    await openTable(shown.id);
  } catch (error) {
    return error.message;
  }
  return "The round sent before was recorded after all (its answer was lost): it is the latest below. " +
    "This one is not recorded yet: record it again";
}

// A refusal's words, the table shown anew as it is now: another client's round or change made meanwhile (a new
// banker, other seats) had every round typed for the table on show refused, while the page went on showing it.
async function refusedAsItIs(words) {
  const banker = shown.banker, seats = shown.seats.join("\n");
  try {
    await openTable(shown.id);
  } catch (error) {
    return words;
  }
  const changed = shown.banker !== banker || shown.seats.join("\n") !== seats;
  return changed ? `${words}. The table changed meanwhile: ${shown.banker} banks now` : words;
}

// Rounds as the API lists them (oldest first), shown newest first below those on show.
function showRounds(rounds, from) {
  $("rounds").append(...rounds.reverse().map(roundTable));
  oldest = from;
  $("older").hidden = oldest <= 1;
  if (!shown.rounds) $("rounds").replaceChildren(text("p", "no round recorded yet", "problem"));
}

// The page of rounds before the oldest on show, below them.
async function showOlder() {
  say("");
  const after = Math.max(0, oldest - 1 - PAGE);
  try {
    showRounds(await ledger(`/v1/tables/${shown.id}/rounds?after=${after}&limit=${oldest - 1 - after}`), after + 1);
  } catch (error) {
    say(error.message);
  }
}

// One round: its banker, everyone's hand, label and result, the house's take and the next banker.
function roundTable(round) {
  const settled = round.settlement;
  const table = Object.assign(document.createElement("table"), {className: "hands round"});
  table.dataset.number = round.number;
  table.createCaption().textContent = `Round ${round.number} · ${new Date(round.created).toLocaleString()} · ` +
    `the house takes ${settled.house} · ${settled.next_banker} banks next`;
  const head = document.createElement("tr");
  head.append(...["Who", "Hand", "Label", "Result"].map((name) => text("th", name)));
  table.createTHead().append(head);
  const body = table.createTBody();
  const banker = settled.banker;
  body.append(person(`${banker.name} (banker)`, banker.cards, banker.label, signed(banker.delta)));
  for (const p of settled.players) body.append(person(p.name, p.cards, p.label, `${p.outcome} ${signed(p.delta)}`));
  for (const o of settled.onlookers) body.append(person(`${o.name} (backs ${o.backs})`, [], "", `${o.outcome} ${signed(o.delta)}`));
  return table;
}

// One person's row of a round: who, the hand, its label, what they won or paid.
function person(who, cards, label, result) {
  const row = document.createElement("tr");
  row.append(text("td", who, "typed"), text("td", cards.join(" ")), text("td", label), text("td", result, "delta"));
  return row;
}

// The table's seats or banker, or both, as changed in the form; what is as it was is not sent, so as
// not to undo another's change made meanwhile.
async function change(event) {
  event.preventDefault();
  say("");
  const seats = lines($("new-seats")), banker = $("new-banker").value, body = {};
  if (seats.join("\n") !== shown.seats.join("\n")) body.seats = seats;
  if (banker !== shown.banker) body.banker = banker;
  if (!Object.keys(body).length) return say("The seats and the banker are as they were: nothing to change", "");
  $("save").disabled = true;
  try {
    showTable(await ledger(`/v1/tables/${shown.id}`, "PATCH", body));
  } catch (error) {
    say(error.message);
  } finally {
    $("save").disabled = false;
  }
}

$("keys").hidden = !sessionStorage.getItem(KEY);
$("key").value = sessionStorage.getItem(KEY) || "";
$("keys").addEventListener("submit", keepKey);
$("seats").addEventListener("input", () => offer($("banker"), lines($("seats")), $("banker").value));
$("new-seats").addEventListener("input", () => offer($("new-banker"), lines($("new-seats")), $("new-banker").value));
$("open").addEventListener("submit", openNew);
explainName($("name"));
$("round").addEventListener("submit", record);
$("change").addEventListener("submit", change);
$("older").addEventListener("click", showOlder);
$("more-tables").addEventListener("click", showMoreTables);
window.addEventListener("hashchange", route);
loadRules($("rules")).catch((error) => say(error.message));
route();
