// trained_view.mjs: the trained explorer of chapters 2 and 5, an anywidget module computed in
// the reader's browser.
//
// One implementation of the view, used three ways (as heads_view.mjs):
//   - the widget's render: drawn, and drawn again from the maths on every change;
//   - renderView(state, {inert: true}) -> HTML, run in Node at build time
//     (book/_ext/anywidget_static.mjs) to write the first view into the page before any script;
//   - tests (tests/test_trained_view.py) run renderView in Node and compare with torch.
// The maths is mha_views.mjs (modelForward: the trained model's forward pass, with heads
// switched off as mha.training.ablation does), the HTML pieces view_html.mjs;
// mha.views.anywidgets.esm inlines both into the widget's _esm.
//
// The reader picks a stored run (setting h × d_k, seed), types a sentence of the task's
// vocabulary, picks a word of it, and switches heads off. Two views:
//   trained-rows    <div class="mha-view" data-view="trained-rows" data-h data-dk data-seed
//                   data-sentence data-word data-off>: the read-out's answer at the verb
//                   (subject, object: data-value the noun), every head's row for the word as
//                   bars, r{i}-{j} (head i, position j of the 7 the model reads), and every
//                   head's full table, w{i}-{r}-{c} (r a word of the sentence, c a position);
//   trained-metrics data-h data-dk data-seed: the run's held-out loss and accuracy, and how
//                   every stored seed of the setting did.
// mha.views.trained's expected_rows/expected_metrics recompute every number in torch.

import { modelForward, roles, wordIds } from "./mha_views.mjs";
import { viewController } from "./view_controller.mjs";
import {
  CONTROL_CSS,
  barsHtml,
  countHtml,
  dataValue,
  el,
  esc,
  heatmapHtml,
  lossText,
  noscriptHtml,
  numberHtml,
  rangeHtml,
  syncRange,
  viewRoot,
} from "./view_html.mjs";
import { linkText } from "./view_link.mjs";

const PARAM_ORDER = ["embed", "W_q", "W_k", "W_v", "W_o", "read", "bias"]; // mha.views.trained_view.PARAMS
export const PAD_LABEL = "pad";

const TRAINED_CSS = `${CONTROL_CSS}
.mha-trained-view .mha-controls{position:sticky;top:0;z-index:2;background:#fff}
.mha-trained-view .mha-controls legend{background:#fff}
.mha-trained-view fieldset{min-width:0}
.mha-trained-view label.mha-control{max-width:100%}
.mha-trained-view input[type=text]{min-height:28px;font:inherit;font-size:13px;width:24em;min-width:0;flex:0 1 24em}
.mha-trained-view .mha-choices{display:inline-flex;flex-wrap:wrap;gap:2px 12px;border:0;margin:0;padding:0}
.mha-trained-view .mha-choices legend{font-weight:400;font-size:13px;float:left;padding:0 6px 0 0}
.mha-trained-view input[type=checkbox]{width:18px;height:18px;margin:0}
.mha-trained-view .mha-head.mha-off{opacity:.6;border-style:dashed}
.mha-trained-view .mha-vocab{flex:1 1 100%;font-size:12px;color:#444;margin-top:-4px}
.mha-trained-view .mha-problem{font-weight:600;border-left:4px solid #c01c28;padding-left:8px}
.mha-trained-out{display:flex;flex-direction:column;gap:8px}
`;

// ----------------------------------------------------------------------------- the sentence

/** A typed sentence as words, as mha.views.trained.words_of: lower case, a full stop a word. */
export function wordsOf(text, pad) {
  return text
    .toLowerCase()
    .replaceAll(".", ` ${pad} `)
    .split(/\s+/)
    .filter((w) => w);
}

/** The task's vocabulary in words: its words, then the full stop (the padding token `pad`)
 * named, so that no "." ends a line on a ".": the port of mha.views.trained.vocabulary_list. */
export function vocabularyList(vocab, pad) {
  const words = vocab.filter((w) => w !== pad);
  return `${words.join(", ")} and the full stop “${pad}”`;
}

/** One line saying why `words` cannot be read, or null if they can: the port of
 * mha.views.trained.vocabulary_message. */
export function vocabularyMessage(words, vocab, maxLen, pad = ".") {
  const listed = vocabularyList(vocab, pad);
  const unknown = [...new Set(words.filter((w) => !vocab.includes(w)))];
  if (unknown.length) {
    return `Not in the task's vocabulary: ${unknown.map((w) => `“${w}”`).join(", ")}. The vocabulary is: ${listed}.`;
  }
  if (words.length < 1 || words.length > maxLen) {
    return `Type 1 to ${maxLen} words of the vocabulary (${words.length} typed): ${listed}.`;
  }
  return null;
}

function ordinal(k) {
  return `${k}${["th", "st", "nd", "rd"][k] ?? "th"}`;
}

/** Labels of the maxLen positions the model reads: the words, a repeated word numbered
 * ("the (1st)", "the (2nd)"), then PAD_LABEL for the padding (mha.views.trained.position_labels). */
export function positionLabels(words, maxLen) {
  const seen = new Map();
  const labels = words.map((w) => {
    seen.set(w, (seen.get(w) ?? 0) + 1);
    return words.filter((x) => x === w).length > 1 ? `${w} (${ordinal(seen.get(w))})` : w;
  });
  return [...labels, ...new Array(Math.max(0, maxLen - words.length)).fill(PAD_LABEL)];
}

/** The word a sentence opens at: its verb if it has one, else its first word. */
export function startWord(words, verbs) {
  const v = words.findIndex((w) => verbs.includes(w));
  return Math.max(v, 0);
}

// ----------------------------------------------------------------------------- the weights

const blobs = new Map(); // base64 text -> Float32Array (each setting's blob decoded once)

function floatsOf(b64) {
  if (!blobs.has(b64)) {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    if (bytes.length % 4) throw new Error(`weights of ${bytes.length} bytes: not float32s`);
    blobs.set(b64, new Float32Array(bytes.buffer)); // little-endian, as every browser and Node
  }
  return blobs.get(b64);
}

function reshapeFlat(flat, at, shape) {
  if (shape.length === 1) return Array.from(flat.subarray(at, at + shape[0]));
  const step = shape.slice(1).reduce((a, b) => a * b, 1);
  return Array.from({ length: shape[0] }, (_, i) => reshapeFlat(flat, at + i * step, shape.slice(1)));
}

/** The parameters of the run (setting, seed) of the state, as mha.training.store.load_state
 * gives them: embed (vocab, d_model), W_q/W_k/W_v (h, d_model, d_k), W_o (h*d_k, d_model),
 * read (d_model, 2*nouns), bias (2*nouns,). */
export function trainedModel(state, setting = state.setting, seed = state.seed) {
  const [h, d_k] = state.settings[setting];
  const D = state.d_model;
  const shapes = {
    embed: [state.vocab.length, D],
    W_q: [h, D, d_k],
    W_k: [h, D, d_k],
    W_v: [h, D, d_k],
    W_o: [h * d_k, D],
    read: [D, 2 * state.nouns.length],
    bias: [2 * state.nouns.length],
  };
  const size = (s) => s.reduce((a, b) => a * b, 1);
  const perRun = PARAM_ORDER.reduce((a, k) => a + size(shapes[k]), 0);
  const flat = floatsOf(state.weights[setting]);
  const runs = state.seeds.length;
  if (flat.length !== perRun * runs) {
    throw new Error(`setting ${h} × ${d_k}: ${flat.length} numbers stored, expected ${runs} runs of ${perRun}`);
  }
  let at = state.seeds.indexOf(seed) * perRun;
  if (at < 0) throw new Error(`seed ${seed} is not stored (seeds ${state.seeds})`);
  const model = {};
  for (const k of PARAM_ORDER) {
    model[k] = reshapeFlat(flat, at, shapes[k]);
    at += size(shapes[k]);
  }
  return model;
}

/** What the view shows for the state: the sentence's words, its problem (a one-line message)
 * or the model's weights (h, n, n) on it, and, for a sentence of the task's shape, the
 * read-out's answer at the verb ({subject, object}: nouns) with the state's heads off. */
export function trainedComputed(state) {
  const words = wordsOf(state.text, state.pad);
  const problem = vocabularyMessage(words, state.vocab, state.max_len, state.pad);
  if (problem) return { words, problem };
  const tokens = wordIds(words, state.vocab, state.max_len, state.pad); // (max_len,)
  let where = null;
  try {
    where = roles(words, state.verbs, state.nouns);
  } catch {
    where = null; // not of the task's shape: no verb to read the answer at
  }
  const [h] = state.settings[state.setting];
  const on = Array.from({ length: h }, (_, i) => !state.off.includes(i)); // (h,)
  const out = modelForward(trainedModel(state), tokens, where ? where.verb : 0, on);
  const answer = where ? { subject: state.nouns[out.answer.subject], object: state.nouns[out.answer.object] } : null;
  return { words, tokens, weights: out.weights, answer };
}

/** Whether the words are one of the task's sentences (mha.training.all_sentences):
 * `the ADJ? NOUN VERB the ADJ? NOUN`, with two different nouns, then padding only. */
export function isTaskSentence(typed, state) {
  let words = typed;
  while (words.length && words.at(-1) === state.pad) words = words.slice(0, -1);
  const phrase = (at) => {
    if (words[at] !== "the") return -1;
    const noun = state.adjectives.includes(words[at + 1]) ? at + 2 : at + 1;
    return state.nouns.includes(words[noun]) ? noun : -1;
  };
  const subject = phrase(0);
  if (subject < 0 || !state.verbs.includes(words[subject + 1])) return false;
  const object = phrase(subject + 2);
  return object === words.length - 1 && words[object] !== words[subject];
}

let heldOut = { text: null, set: null }; // the test sentences' text, and as a Set

/** Which of the task's sentences the words are: held out, training, or neither. */
export function whichSentences(state, words, tokens) {
  if (heldOut.text !== state.test) heldOut = { text: state.test, set: new Set(state.test.split(" ")) };
  if (heldOut.set.has(tokens.map((t) => t.toString(36)).join(""))) return "a held-out sentence";
  return isTaskSentence(words, state) ? "a training sentence" : "not one of the task's sentences";
}

// ----------------------------------------------------------------------------- the views

function headsOffText(off) {
  if (!off.length) return "";
  const names = off.map((i) => i + 1);
  const list = names.length === 1 ? `head ${names[0]}` : `heads ${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
  return ` with ${list} switched off`;
}

function rowsPanel(state, c) {
  const [h, d_k, label] = state.settings[state.setting];
  const n = c.words.length;
  const word = Math.min(state.word, n - 1);
  const labels = positionLabels(c.words, state.max_len);
  const where = whichSentences(state, c.words, c.tokens);
  const off = state.off.filter((i) => i < h);
  const answer = c.answer
    ? `Read-out at the verb${headsOffText(off)}: subject ${el("b", { "data-key": "subject", "data-value": c.answer.subject }, esc(c.answer.subject))}, ` +
      `object ${el("b", { "data-key": "object", "data-value": c.answer.object }, esc(c.answer.object))}.`
    : "Not of the task's shape (the noun verb the noun, each noun with an optional adjective before it): no subject or object to name.";
  const text = el(
    "p",
    { class: "mha-note", role: "status" },
    `${esc(label)}, seed ${esc(state.seed)}: ${esc(where)}. ${answer}`,
  );
  const box = (i, title, body) =>
    el("div", { class: off.includes(i) ? "mha-head mha-off" : "mha-head" }, el("h3", {}, esc(title)) + body);
  const offNote = (i) => (off.includes(i) ? " (switched off)" : "");
  const bars = c.weights.map((w, i) =>
    box(i, `head ${i + 1}${offNote(i)}: ${labels[word]} → …`, barsHtml(w[word], labels, `r${i}`, state.palette)),
  );
  const tables = c.weights.map((w, i) =>
    box(
      i,
      `head ${i + 1}${offNote(i)}`,
      heatmapHtml(w.slice(0, n), labels.slice(0, n), labels, `w${i}`, state.palette, { highlight: word }),
    ),
  );
  const padNote =
    n < state.max_len
      ? el(
          "p",
          { class: "mha-note" },
          esc(
            `The model reads ${state.max_len} positions: the sentence is filled up with full stops, shown as “${PAD_LABEL}”, and the heads may put weight on them.`,
          ),
        )
      : "";
  const offNoteText = off.length
    ? el(
        "p",
        { class: "mha-note" },
        esc("A head switched off keeps its weights (shown); its output is left out of the layer's output."),
      )
    : "";
  const body =
    text +
    el("div", { class: "mha-heads" }, bars.join("")) +
    padNote +
    el(
      "p",
      { class: "mha-note" },
      esc(`Every head's full table (rows: the sentence's words; the row of ${labels[word]} framed).`),
    ) +
    el("div", { class: "mha-heads" }, tables.join("")) +
    offNoteText;
  const params = { h, d_k, seed: state.seed, sentence: c.words.join(" "), word, off: off.join(" ") };
  return viewRoot("trained-rows", params, body);
}

function lossHtml(key, v) {
  return el("span", { "data-key": key, "data-value": dataValue(v) }, esc(lossText(v)));
}

function metricsPanel(state) {
  const [h, d_k, label] = state.settings[state.setting];
  const runs = state.metrics[state.setting]; // (seeds, 4): loss, subject, object, both
  const [loss, subject, object, both] = runs[state.seeds.indexOf(state.seed)];
  const nTest = state.test.split(" ").length;
  const all = runs.map((r) => r[3]);
  const solved = all.filter((b) => b >= state.solved_at).length;
  const mean = all.reduce((a, b) => a + b, 0) / all.length;
  const run =
    `Seed ${esc(state.seed)}, with every head on, on the ${countHtml("n_test", nTest)} held-out sentences: loss ${lossHtml("loss", loss)}; ` +
    `subject right ${numberHtml("subject", subject, 3)}, object right ${numberHtml("object", object, 3)}, both right ${numberHtml("both", both, 3)}.`;
  const every =
    `${countHtml("solved", solved)} of the ${countHtml("runs", all.length)} stored seeds of ${esc(label)} solve the task ` +
    `(a run solves it when it names both nouns right in at least ${Math.round(100 * state.solved_at)}% of the held-out sentences); ` +
    `both right ${numberHtml("mean_both", mean, 3)} on average, ${numberHtml("min_both", Math.min(...all), 3)} at worst.`;
  return viewRoot(
    "trained-metrics",
    { h, d_k, seed: state.seed },
    el("p", { class: "mha-note" }, run) + el("p", { class: "mha-note" }, every),
  );
}

/** The view's output (without the controls), as HTML. A sentence that cannot be read shows
 * its one-line problem, over the last sentence that could (state.shown, the controller's
 * memory; none in the first view). */
export function outputHtml(state) {
  if (state.weights[state.setting] == null) {
    const loading = el("p", { class: "mha-note mha-loading", role: "status" }, "Loading this setting's weights…");
    return metricsPanel(state) + loading; // (the site loads them: view_controller.mjs)
  }
  const c = trainedComputed(state);
  if (!c.problem) return metricsPanel(state) + rowsPanel(state, c);
  const problem = el("p", { class: "mha-note mha-problem", role: "status" }, esc(c.problem));
  const last = state.shown && { ...state, ...state.shown };
  return metricsPanel(state) + problem + (last ? rowsPanel(last, trainedComputed(last)) : "");
}

/** The controls, as HTML: native, labelled, in one sticky fieldset. */
export function controlsHtml(state, group = "mha-trained", inert = false) {
  const [h] = state.settings[state.setting];
  const radios = state.settings.map(([, , label], i) =>
    el(
      "label",
      {},
      el("input", {
        type: "radio",
        name: `${group}-setting`,
        value: i,
        checked: i === state.setting,
        "data-control": "setting",
      }) + esc(label),
    ),
  );
  const setting = el("fieldset", { class: "mha-choices" }, el("legend", {}, "heads h × width d_k") + radios.join(""));
  const seed = rangeHtml("seed", "seed", state.seeds, state.seed);
  const text = el(
    "label",
    { class: "mha-control" },
    el("span", { class: "mha-control-label" }, "sentence") +
      el("input", {
        type: "text",
        "data-control": "text",
        value: state.text,
        spellcheck: "false",
        autocomplete: "off",
      }),
  );
  const vocab = el("span", { class: "mha-vocab" }, esc(`Its words: ${vocabularyList(state.vocab, state.pad)}.`));
  const words = wordsOf(state.text, state.pad);
  const ok = !vocabularyMessage(words, state.vocab, state.max_len, state.pad);
  const menu = ok ? state : state.shown && { ...state, ...state.shown }; // the last readable sentence
  const menuWords = menu ? wordsOf(menu.text, state.pad) : [];
  const labels = positionLabels(menuWords, state.max_len).slice(0, menuWords.length);
  const options = labels
    .map((w, i) => el("option", { value: i, selected: i === Math.min(menu.word, menuWords.length - 1) }, esc(w)))
    .join("");
  const word = el(
    "label",
    { class: "mha-control" },
    el("span", { class: "mha-control-label" }, "row of") +
      el("select", { "data-control": "word", disabled: !ok }, options),
  );
  const boxes = Array.from({ length: h }, (_, i) =>
    el(
      "label",
      {},
      el("input", { type: "checkbox", "data-control": "head", value: i, checked: !state.off.includes(i) }) +
        esc(`head ${i + 1}`),
    ),
  );
  const heads = el("fieldset", { class: "mha-choices" }, el("legend", {}, "heads on") + boxes.join(""));
  // data-lm-suppress-shortcuts: in JupyterLab, keys on these controls stay with them.
  return el(
    "fieldset",
    { class: "mha-controls", inert, "data-lm-suppress-shortcuts": "true" },
    el("legend", {}, "Trained heads (press Enter after typing a sentence)") +
      setting +
      seed +
      text +
      vocab +
      word +
      heads,
  );
}

/** The whole view for a widget state. opts.group: the radio group's name (one per view on
 * a page); opts.inert: controls inert (a static first view, before the live widget). */
export function renderView(state, opts = {}) {
  const { group = "mha-trained", inert = false } = opts;
  const inner =
    el("style", {}, state.view_css + TRAINED_CSS) +
    noscriptHtml() +
    controlsHtml(state, group, inert) +
    el("div", { class: "mha-trained-out" }, outputHtml(state));
  return el("div", { class: "mha-trained-view" }, inner);
}

// ----------------------------------------------------------------------------- permalinks
// #trained-1:h=3,dk=4,seed=7,text=the+dog+bit+the+hen,word=2,off=1-3 (heads numbered from 1).

/** The settings that the URL fragment `hash` gives the view `state.link`, those valid only
 * ({} if none; null if the fragment is not about this view). */
export function readLink(hash, state) {
  const mine = linkText(hash, state.link);
  if (mine === null) return null;
  const got = {};
  for (const part of mine.split(",")) {
    const [key, raw = ""] = part.split("=");
    let value;
    try {
      value = decodeURIComponent(raw.replaceAll("+", " "));
    } catch {
      continue; // a malformed escape: this part is ignored
    }
    got[key] = value;
  }
  const out = {};
  const int = (v) => (/^\d+$/.test(v ?? "") ? Number(v) : NaN);
  const at = state.settings.findIndex(([h, d_k]) => h === int(got.h) && d_k === int(got.dk));
  if (at >= 0) out.setting = at;
  const h = state.settings[out.setting ?? state.setting][0];
  if (state.seeds.includes(int(got.seed))) out.seed = int(got.seed);
  const text =
    got.text != null && !vocabularyMessage(wordsOf(got.text, state.pad), state.vocab, state.max_len, state.pad)
      ? got.text
      : null;
  if (text != null) out.text = text;
  const n = wordsOf(text ?? state.text, state.pad).length;
  if (int(got.word) < n) out.word = int(got.word);
  else if (text != null) out.word = startWord(wordsOf(text, state.pad), state.verbs);
  if (got.off != null) {
    const heads = got.off === "" ? [] : got.off.split("-").map(int);
    if (heads.every((i) => i >= 1 && i <= h)) out.off = [...new Set(heads.map((i) => i - 1))].sort((a, b) => a - b);
  }
  return out;
}

/** The URL fragment that links to the view at the state's settings. */
export function linkOf(state) {
  const [h, d_k] = state.settings[state.setting];
  const text = wordsOf(state.text, state.pad).map(encodeURIComponent).join("+");
  const off = state.off.map((i) => i + 1).join("-");
  return `#${state.link}:h=${h},dk=${d_k},seed=${state.seed},text=${text},word=${state.word},off=${off}`;
}

// ----------------------------------------------------------------------------- live

const TRAITS = [
  "settings",
  "seeds",
  "weights",
  "metrics",
  "vocab",
  "nouns",
  "verbs",
  "adjectives",
  "pad",
  "max_len",
  "d_model",
  "test",
  "solved_at",
  "setting",
  "seed",
  "text",
  "word",
  "off",
];

/** Whether the state's sentence can be read (no vocabulary problem). */
function readable(s) {
  return !vocabularyMessage(wordsOf(s.text, s.pad), s.vocab, s.max_len, s.pad);
}

/** The labels of the state's sentence's words ([] if it cannot be read). */
function wordLabels(s) {
  const words = wordsOf(s.text, s.pad);
  return readable(s) ? positionLabels(words, s.max_len).slice(0, words.length) : [];
}

/** The view's memory: the last sentence it could read, and its word (state.shown). */
function lastReadable() {
  let shown = null;
  return (s) => {
    if (readable(s)) shown = { text: s.text, word: s.word };
    return { shown };
  };
}

const render = viewController({
  name: "mha-trained",
  traits: TRAITS,
  live: ["setting", "seed", "text", "word", "off"],
  html: (state, group) => renderView(state, { group }),
  out: ".mha-trained-out",
  output: outputHtml,
  memory: lastReadable,
  controls: {
    selector: "fieldset.mha-controls",
    html: (s, group) => controlsHtml(s, group),
    key: (s) => `${s.setting}|${s.text}`,
  },
  sync: (root, s) => {
    for (const t of root.querySelectorAll("[data-control]")) {
      const name = t.dataset.control;
      if (name === "setting") t.checked = Number(t.value) === s.setting;
      else if (name === "head") t.checked = !s.off.includes(Number(t.value));
      else if (name === "word" && readable(s)) t.value = String(s.word);
      else if (name === "text" && document.activeElement !== t) t.value = s.text;
      else if (name === "seed") syncRange(root, t, s.seeds, s.seed);
    }
  },
  changes: (t, s, e) => {
    const name = t.dataset.control;
    if (name === "setting") {
      if (!t.checked) return null;
      const h = s.settings[Number(t.value)][0];
      return { setting: Number(t.value), off: s.off.filter((i) => i < h) };
    }
    if (name === "seed") return { seed: s.seeds[Number(t.value)] };
    if (name === "word") return { word: Number(t.value) };
    if (name === "head") {
      const i = Number(t.value);
      const off = s.off.filter((j) => j !== i); // (input then change: the same answer twice)
      return { off: t.checked ? off : [...off, i].sort((a, b) => a - b) };
    }
    if (name === "text" && e.type === "change")
      return { text: t.value, word: startWord(wordsOf(t.value, s.pad), s.verbs) };
    return null;
  },
  word: { control: "word", label: (s) => wordLabels(s)[s.word], index: (s, label) => wordLabels(s).indexOf(label) },
  link: { read: readLink, write: linkOf },
});

export default { render };
