// exercise_view.mjs: chapter 1's exercise, an anywidget module computed in the reader's
// browser: the reader sets one head's query and key weights, and the view says which goals
// chased's row meets.
//
// One implementation of the view, used three ways (as heads_view.mjs):
//   - the widget's render (the site and JupyterLab): drawn again from the maths on each change;
//   - renderView(state, {inert: true}) -> HTML, run in Node at build time
//     (book/_ext/anywidget_static.mjs), the first view in the page before any script;
//   - tests (tests/test_exercise_view.py) run exerciseRow and renderView in Node against torch.
// The maths is mha_views.mjs, the HTML pieces view_html.mjs; mha.views.anywidgets.esm inlines
// both into the widget's _esm, dropping the imports below.
//
// The head (src/mha/exercise.py): d_k = 1, W^Q and W^K (9, 1), zero but on the five named
// features of X; the controls set W^Q[verb] (q_verb) and W^K's five (k, in X's column order).
// The view: <div class="mha-view" data-view="exercise" data-qverb data-kdeterminer data-knoun
// data-kverb data-kagent data-kprey data-word>, with numbers q (the word's query), key-j (word
// j's key), s-j (the word's score against j), r-j (its weight on j), pair (the goals' words
// together), rest (the others), sum (the row), and for each goal g its status goal-g, "met"
// or "not met", and its words' weights gG-J.
// mha.views.exercise_view.expected_exercise recomputes them in torch from those attributes.

import { allHeads, project } from "./mha_views.mjs";
import { viewController } from "./view_controller.mjs";
import {
  CONTROL_CSS,
  barsHtml,
  dataValue,
  el,
  esc,
  headBox,
  noscriptHtml,
  numberHtml,
  rangeHtml,
  syncRange,
  viewRoot,
} from "./view_html.mjs";
import { linkPairs } from "./view_link.mjs";

const EXERCISE_CSS = `${CONTROL_CSS}
.mha-exercise-view .mha-controls label{flex-wrap:wrap;max-width:100%}
.mha-exercise-view .mha-controls .mha-control-label{min-width:8.5em}
.mha-exercise-view .mha-exercise-scroll{overflow-x:auto;max-width:100%}
.mha-exercise-view .mha-exercise-keys{border-collapse:collapse;font-size:13px;margin:4px 0}
.mha-exercise-view .mha-exercise-keys th,.mha-exercise-view .mha-exercise-keys td{padding:2px 8px;text-align:right;border-bottom:1px solid #8886}
.mha-exercise-view .mha-exercise-keys th[scope=row],.mha-exercise-view .mha-exercise-keys td:nth-child(2){text-align:left}
.mha-exercise-view .mha-goals{margin:4px 0;padding-left:0;list-style:none}
.mha-exercise-view .mha-bar-word{width:5.5em}
.mha-exercise-view .mha-goals li{margin:2px 0}
.mha-exercise-view .mha-goal-met{font-weight:700;color:#1b5e20}
.mha-exercise-view .mha-goal-not{font-weight:700;color:#7a2e00}
.mha-exercise-view .mha-goal-before{font-weight:700;color:#1b5e20;font-style:italic}
.mha-exercise-view .mha-live{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
`;

/** The head's (W_q, W_k), each (1, d_model, 1): one head, one column, zero but on the named
 * features (W_q on verb, W_k on the k weights), as mha.exercise.head builds them. */
export function exerciseHead(state) {
  const d_model = state.X[0].length;
  const column = (entries) => Array.from({ length: d_model }, (_, r) => [entries[r] ?? 0]); // (d_model, 1)
  const q = {};
  q[state.features.indexOf("verb")] = state.q_verb;
  return { W_q: [column(q)], W_k: [column(state.k)] }; // (1, d_model, 1) each
}

/** The word's query, every word's key and the word's scores and row (n,), by mha_views.mjs. */
export function exerciseRow(state) {
  const { W_q, W_k } = exerciseHead(state);
  const Q = project(state.X, W_q)[0]; // (n, 1)
  const K = project(state.X, W_k)[0]; // (n, 1)
  const d_k = Q[0].length;
  const q = Q[state.word][0];
  const keys = K.map((k) => k[0]); // (n,)
  const scores = keys.map((k) => (q * k) / Math.sqrt(d_k)); // (n,)
  const row = allHeads(state.X, W_q, W_k, null).weights[0][state.word]; // (n,)
  return { q, keys, scores, row };
}

/** Whether `row` meets `goal` ({words, at_least}): every goal word gets at least at_least. */
export function goalMet(row, goal) {
  return goal.words.every((j) => row[j] >= goal.at_least);
}

function goalText(state, goal) {
  const names = goal.words.map((j) => state.words[j]);
  const on = names.length > 1 ? `both ${names.join(" and ")}` : names[0];
  return `${state.words[state.word]} puts at least ${goal.at_least} on ${on}`;
}

/** "Goal 1 met. Goal 2 not met. ...": what the live region announces (it changes only when
 * a goal's status does). */
export function statusText(state, row) {
  return state.goals.map((g, i) => `Goal ${i + 1} ${goalMet(row, g) ? "met" : "not met"}.`).join(" ");
}

function keysTable(state, r) {
  const head = ["word", "its named features", "key", `score with ${state.words[state.word]}`];
  const rows = state.words.map((w, j) => {
    const named = state.features.filter((_, f) => state.X[j][f] !== 0).join(", ") || "none";
    return el(
      "tr",
      {},
      el("th", { scope: "row" }, esc(w)) +
        el("td", {}, esc(named)) +
        el("td", {}, numberHtml(`key-${j}`, r.keys[j])) +
        el("td", {}, numberHtml(`s-${j}`, r.scores[j])),
    );
  });
  const thead = el("thead", {}, el("tr", {}, head.map((t) => el("th", { scope: "col" }, esc(t))).join("")));
  const table = el("table", { class: "mha-exercise-keys" }, thead + el("tbody", {}, rows.join("")));
  return el("div", { class: "mha-exercise-scroll" }, table); // scrolls in its own box when narrow
}

/** `v` with 3 decimals, or as many more (up to 15) as it takes not to print a weight below
 * any of `thresholds` (a number or a list) as that threshold or above it (0.4999999999986,
 * not 0.500). A view prints a weight the same way wherever it shows it (every goal line, the
 * bars): with every goal's threshold. */
export function weightText(v, thresholds) {
  const below = [thresholds].flat().filter((t) => v < t);
  let digits = 3;
  while (digits < 15 && below.some((t) => Number(v.toFixed(digits)) >= t)) digits++;
  return v.toFixed(digits);
}

/** The goals' thresholds, to print weights with (weightText). */
function thresholdsOf(state) {
  return state.goals.map((g) => g.at_least);
}

/** Which goals the row meets now, or met at any setting this view has shown (state.met,
 * the controller's memory; the row alone in the first view). */
function goalsMetSoFar(state, row) {
  return state.goals.map((g, i) => goalMet(row, g) || Boolean(state.met?.[i]));
}

/** One line on the goals met so far: which ones; done when all are, or all but the last
 * (which the chapter asks the reader to try, and say why it turns out as it does). */
export function progressText(state, row) {
  const met = goalsMetSoFar(state, row);
  const numbers = met.flatMap((m, i) => (m ? [i + 1] : []));
  const list = numbers.length > 1 ? `${numbers.slice(0, -1).join(", ")} and ${numbers.at(-1)}` : String(numbers[0]);
  const last = met.length;
  if (numbers.length === last) return "Every goal met: the exercise is done.";
  if (numbers.length === last - 1 && !met[last - 1]) {
    return `Goals ${list} met: the exercise is done once you have tried goal ${last} and said why it turns out as it does.`;
  }
  return numbers.length ? `Met so far: goal${numbers.length > 1 ? "s" : ""} ${list}.` : "Met so far: none.";
}

function goalsList(state, row) {
  const before = goalsMetSoFar(state, row);
  const text = (v) => weightText(v, thresholdsOf(state));
  const items = state.goals.map((g, i) => {
    const ok = goalMet(row, g);
    const shown = ok ? "✓ met" : before[i] ? "✓ met before (not at these weights)" : "✗ not met";
    const cls = ok ? "mha-goal-met" : before[i] ? "mha-goal-before" : "mha-goal-not";
    const status = el("span", { class: cls, "data-key": `goal-${i}`, "data-value": ok ? "met" : "not met" }, shown);
    const got = g.words.map(
      (j) =>
        `${esc(state.words[j])} ${el("span", { "data-key": `g${i}-${j}`, "data-value": dataValue(row[j]) }, esc(text(row[j])))}`,
    );
    return el("li", {}, `Goal ${i + 1}: ${esc(goalText(state, g))}. ${status} (${got.join(", ")})`);
  });
  const progress = el("p", { class: "mha-note mha-progress", role: "status" }, esc(progressText(state, row)));
  return el("ul", { class: "mha-goals", "aria-label": "goals" }, items.join("")) + progress;
}

/** The view's output (without the controls), as HTML. */
export function outputHtml(state) {
  const r = exerciseRow(state);
  const word = state.words[state.word];
  const pairWords = [...new Set(state.goals.flatMap((g) => g.words))].sort((a, b) => a - b);
  const pair = pairWords.reduce((a, j) => a + r.row[j], 0);
  const sum = r.row.reduce((a, b) => a + b, 0);
  const pairNames = pairWords.map((j) => state.words[j]).join(" + ");
  const query = el(
    "p",
    { class: "mha-note" },
    `${esc(word)}'s query: ${numberHtml("q", r.q)} (its only named feature is verb, so its query is the verb weight)`,
  );
  const budget = el(
    "p",
    { class: "mha-note" },
    `${esc(pairNames)} = ${numberHtml("pair", pair)}; the other words hold ${numberHtml("rest", sum - pair)}; the row sums to ${numberHtml("sum", sum)}.`,
  );
  const params = {
    q_verb: state.q_verb,
    ...Object.fromEntries(state.features.map((f, i) => [`k_${f}`, state.k[i]])),
    word: state.word,
  };
  const body =
    goalsList(state, r.row) +
    budget +
    query +
    keysTable(state, r) +
    headBox(
      `${word}'s row of weights`,
      barsHtml(r.row, state.words, "r", state.palette, (v) => weightText(v, thresholdsOf(state))),
    );
  return viewRoot("exercise", params, body);
}

/** The controls: the query's verb weight and the key's five weights, native range inputs. */
export function controlsHtml(state, inert = false) {
  const query = rangeHtml("q_verb", "query · verb", state.values, state.q_verb);
  const keys = state.features.map((f, i) => rangeHtml(`k_${i}`, `key · ${f}`, state.values, state.k[i])).join("");
  const legend = el("legend", {}, "The head's weights (d_k = 1)");
  return el("fieldset", { class: "mha-controls", inert, "data-lm-suppress-shortcuts": "true" }, legend + query + keys);
}

/** The whole view for a widget state; opts.inert: a static first view's inert controls. */
export function renderView(state, opts = {}) {
  const { inert = false } = opts;
  const r = exerciseRow(state);
  const live = el("p", { class: "mha-live", "aria-live": "polite" }, esc(statusText(state, r.row)));
  const inner =
    el("style", {}, state.view_css + EXERCISE_CSS) +
    noscriptHtml() +
    controlsHtml(state, inert) +
    live +
    el("div", { class: "mha-exercise-out" }, outputHtml(state));
  return el("div", { class: "mha-exercise-view" }, inner);
}

// ----------------------------------------------------------------------------- permalinks
// #exercise-1:q=1,determiner=0,noun=0,verb=0,agent=0,prey=1.5 (the `link` trait names the view)

/** The settings the fragment `hash` gives the view ({} if none valid; null if not about it). */
export function readExerciseLink(hash, state) {
  const pairs = linkPairs(hash, state.link);
  if (!pairs) return null;
  const out = {};
  const k = [...state.k];
  let keyed = false;
  for (const [name, text] of pairs) {
    const v = /^-?\d+(\.\d+)?$/.test(text ?? "") ? Number(text) : NaN;
    if (!state.values.includes(v)) continue;
    if (name === "q") out.q_verb = v;
    else if (state.features.includes(name)) {
      k[state.features.indexOf(name)] = v;
      keyed = true;
    }
  }
  if (keyed) out.k = k;
  return out;
}

/** The URL fragment that links to the view at the state's settings. */
export function exerciseLinkOf(state) {
  const parts = [`q=${state.q_verb}`, ...state.features.map((f, i) => `${f}=${state.k[i]}`)];
  return `#${state.link}:${parts.join(",")}`;
}

const EXERCISE_TRAITS = ["X", "words", "features", "values", "goals", "q_verb", "k", "word"];

/** The view's memory: the goals met at any setting it has shown (state.met). */
function goalsMemory() {
  const met = [];
  return (s) => {
    const row = exerciseRow(s).row;
    s.goals.forEach((g, i) => {
      if (goalMet(row, g)) met[i] = true;
    });
    return { met: s.goals.map((_, i) => Boolean(met[i])) };
  };
}

const render = viewController({
  name: "mha-exercise",
  traits: EXERCISE_TRAITS,
  live: ["q_verb", "k"],
  html: (state) => renderView(state),
  out: ".mha-exercise-out",
  output: outputHtml,
  memory: goalsMemory,
  sync: (root, s) => {
    for (const input of root.querySelectorAll("input[data-control]")) {
      const name = input.dataset.control;
      syncRange(root, input, s.values, name === "q_verb" ? s.q_verb : s.k[Number(name.slice(2))]);
    }
  },
  changes: (t, s) => {
    const name = t.dataset.control;
    const v = s.values[Number(t.value)];
    if (!name || v === undefined) return null;
    if (name === "q_verb") return { q_verb: v };
    const k = [...s.k];
    k[Number(name.slice(2))] = v;
    return { k };
  },
  after: (root, s) => {
    const live = root.querySelector(".mha-live");
    const text = statusText(s, exerciseRow(s).row);
    if (live.textContent !== text) live.textContent = text; // announced only when it changes
  },
  link: { read: readExerciseLink, write: exerciseLinkOf },
});

export default { render };
