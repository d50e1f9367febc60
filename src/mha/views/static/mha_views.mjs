// mha_views.mjs: what the book's views compute, in JavaScript, with no dependencies.
//
// A port of the maths the views show, so that a page can recompute a view in the reader's
// browser (the site, JupyterLab) or in Node (tests, first views drawn at build time):
//   - scaled dot-product attention, every head at once (src/mha/attention.py);
//   - the masks the book uses: none, causal, sliding window, padding (chapter 6);
//   - the trained model's forward pass and its answers (src/mha/training/model.py);
//   - the cost counts of a layer (src/mha/cost.py);
//   - the book's random heads for any seed (src/mha/toy.py random_heads, src/mha/seeds.py).
// tests/test_js_module.py and tests/test_js_random.py run it in Node against mha and PyTorch on the same inputs.
//
// Conventions, as in the Python package:
//   - matrices are plain nested arrays of numbers, row-major: X[i][j] is word i, column j;
//     shapes are written (rows, columns), heads first: W_q is (h, d_model, d_k);
//   - every number is a JS number, an IEEE float64, as the book's tensors are;
//   - a mask is an (n_q, n_k) array of booleans, true = allowed (query i may read key j),
//     false = forbidden (weight exactly 0); every row must allow at least one key.
// Functions check their arguments and throw an Error that names the offending shapes.

// ----------------------------------------------------------------------------- shapes

/** The shape of a nested array, as a list of lengths: shapeOf([[1, 2, 3]]) = [1, 3]. */
export function shapeOf(a) {
  const dims = [];
  while (Array.isArray(a) || ArrayBuffer.isView(a)) {
    dims.push(a.length);
    a = a[0];
  }
  return dims;
}

function fmtShape(a) {
  return `(${shapeOf(a).join(", ")})`;
}

// How deep in the module's exported functions the current call is. Every element of an
// argument is checked by the outermost call only (as mha.checks.boundary does in Python):
// inner calls check shapes, which is cheap, and trust the numbers.
let depth = 0;

function boundary(body) {
  depth += 1;
  try {
    return body();
  } finally {
    depth -= 1;
  }
}

/** Throws unless `a` is a rectangular array of `rank` dimensions of numbers; returns its shape. */
function checkArray(name, a, rank) {
  const dims = shapeOf(a);
  if (dims.length !== rank || dims.includes(0)) {
    throw new Error(`${name} must be a non-empty array of rank ${rank}, got shape ${fmtShape(a)}`);
  }
  if (depth > 1) return dims;
  if (!wellFormed(a, dims, 0)) {
    throw new Error(`${name} must hold numbers, in the shape ${fmtShape(a)} throughout`);
  }
  return dims;
}

function wellFormed(x, dims, level) {
  if (level === dims.length) return typeof x === "number";
  if (!(Array.isArray(x) || ArrayBuffer.isView(x)) || x.length !== dims[level]) return false;
  for (let i = 0; i < x.length; i++) if (!wellFormed(x[i], dims, level + 1)) return false;
  return true;
}

function checkInt(name, v, min = 1) {
  if (!Number.isSafeInteger(v) || v < min) {
    throw new Error(`${name} must be an integer >= ${min}, got ${String(v)}`);
  }
}

// ----------------------------------------------------------------------------- linear algebra

/**
 * Matrix product A @ B.
 * @param {number[][]} A (m, k)
 * @param {number[][]} B (k, p)
 * @returns {number[][]} (m, p)
 */
export function matmul(A, B) {
  return boundary(() => {
    const [, k] = checkArray("A", A, 2);
    const [k2, p] = checkArray("B", B, 2);
    if (k !== k2) throw new Error(`cannot multiply A ${fmtShape(A)} by B ${fmtShape(B)}`);
    return A.map((row) => {
      const out = new Array(p).fill(0); // (p,)
      for (let t = 0; t < k; t++) {
        const a = row[t];
        const b = B[t];
        for (let j = 0; j < p; j++) out[j] += a * b[j];
      }
      return out;
    });
  });
}

function transpose(A) {
  return A[0].map((_, j) => A.map((row) => row[j])); // (p, m)
}

// ----------------------------------------------------------------------------- masks

/**
 * No mask: every (query, key) pair allowed.
 * @returns {boolean[][]} (n_q, n_k), all true
 */
export function fullMask(n_q, n_k = n_q) {
  checkInt("n_q", n_q);
  checkInt("n_k", n_k);
  return Array.from({ length: n_q }, () => new Array(n_k).fill(true));
}

/**
 * The causal mask, as mha.causal_mask: query i may read keys 0..i only.
 * @returns {boolean[][]} (n_q, n_k), mask[i][j] = j <= i
 */
export function causalMask(n_q, n_k = n_q) {
  checkInt("n_q", n_q);
  checkInt("n_k", n_k);
  return Array.from({ length: n_q }, (_, i) => Array.from({ length: n_k }, (_, j) => j <= i));
}

/**
 * A sliding window, as chapter 6 builds it: each word reads itself and its neighbours up to
 * `radius` words away on either side (radius 1 is the chapter's window of three words).
 * @returns {boolean[][]} (n, n), mask[i][j] = |i - j| <= radius
 */
export function windowMask(n, radius = 1) {
  checkInt("n", n);
  checkInt("radius", radius, 0);
  return Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => Math.abs(i - j) <= radius));
}

/**
 * A padding mask, as chapter 6 builds it: the keys from `n_real` on are filler, which no
 * query may read; the mask forbids whole columns, the same for every query.
 * @returns {boolean[][]} (n_q, n_k), mask[i][j] = j < n_real
 */
export function paddingMask(n_q, n_k, n_real) {
  checkInt("n_q", n_q);
  checkInt("n_k", n_k);
  checkInt("n_real", n_real);
  if (n_real > n_k) throw new Error(`n_real = ${n_real} real keys exceed n_k = ${n_k}`);
  return Array.from({ length: n_q }, () => Array.from({ length: n_k }, (_, j) => j < n_real));
}

/**
 * A mask by name, for a control: "none", "causal", "window" (opts.radius, default 1) or
 * "padding" (opts.n_real, the number of real keys).
 * @returns {boolean[][]} (n_q, n_k)
 */
export function makeMask(kind, n_q, n_k = n_q, opts = {}) {
  if (kind === "none") return fullMask(n_q, n_k);
  if (kind === "causal") return causalMask(n_q, n_k);
  if (kind === "window") {
    if (n_q !== n_k) throw new Error(`a window mask is square, got n_q = ${n_q}, n_k = ${n_k}`);
    return windowMask(n_q, opts.radius ?? 1);
  }
  if (kind === "padding") return paddingMask(n_q, n_k, opts.n_real);
  throw new Error(`unknown mask "${kind}": use none, causal, window or padding`);
}

function checkMask(mask, n_q, n_k) {
  if (mask == null) return;
  const dims = shapeOf(mask);
  const ok =
    dims.length === 2 &&
    dims[0] === n_q &&
    mask.every((row) => row.length === n_k && row.every((v) => typeof v === "boolean"));
  if (!ok) {
    throw new Error(`mask must be boolean (n_q, n_k) = (${n_q}, ${n_k}), got ${fmtShape(mask)}`);
  }
  const empty = mask.flatMap((row, i) => (row.some(Boolean) ? [] : [i]));
  if (empty.length) {
    throw new Error(`every row of mask must allow at least one key; rows [${empty}] allow none`);
  }
}

// ----------------------------------------------------------------------------- attention

/**
 * A numerically stable softmax of one row: the largest allowed score is subtracted before
 * exp, and a forbidden entry (allowed[j] === false) gets exactly 0.
 * @param {number[]} scores (n_k,)
 * @param {boolean[]} [allowed] (n_k,), at least one true
 * @returns {number[]} (n_k,), non-negative, summing to one
 */
export function softmax(scores, allowed = null) {
  const ok = (j) => allowed == null || allowed[j];
  let top = -Infinity;
  scores.forEach((s, j) => {
    if (ok(j) && s > top) top = s;
  });
  if (top === -Infinity) throw new Error("softmax of a row that allows no entry");
  const e = scores.map((s, j) => (ok(j) ? Math.exp(s - top) : 0)); // (n_k,)
  const total = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / total); // (n_k,)
}

/**
 * softmax(Q K^T / sqrt(d_k)) V for one head, as mha.scaled_dot_product.
 * @param {number[][]} Q (n_q, d_k)
 * @param {number[][]} K (n_k, d_k)
 * @param {number[][]} V (n_k, d_v), or null for the weights alone
 * @param {boolean[][]} [mask] (n_q, n_k), true = allowed
 * @returns {{blend: number[][] | null, weights: number[][]}} blend (n_q, d_v), weights (n_q, n_k)
 */
export function scaledDotProduct(Q, K, V = null, mask = null) {
  return boundary(() => {
    const [n_q, d_k] = checkArray("Q", Q, 2);
    const [n_k, d_k2] = checkArray("K", K, 2);
    if (d_k !== d_k2) throw new Error(`Q ${fmtShape(Q)} and K ${fmtShape(K)} must agree on d_k`);
    if (V != null && checkArray("V", V, 2)[0] !== n_k) {
      throw new Error(`K ${fmtShape(K)} and V ${fmtShape(V)} must agree on n_k`);
    }
    checkMask(mask, n_q, n_k);
    const root = Math.sqrt(d_k);
    const scores = matmul(Q, transpose(K)).map((row) => row.map((s) => s / root)); // (n_q, n_k)
    const weights = scores.map((row, i) => softmax(row, mask?.[i])); // (n_q, n_k)
    return { blend: V == null ? null : matmul(weights, V), weights }; // (n_q, d_v), (n_q, n_k)
  });
}

/**
 * X @ W[i] for every head i, as mha.project.
 * @param {number[][]} X (n, d_model)
 * @param {number[][][]} W (h, d_model, d_k)
 * @param {string[]} [names] what to call X and W in an error message
 * @returns {number[][][]} (h, n, d_k)
 */
export function project(X, W, names = ["X", "W"]) {
  return boundary(() => {
    const [, d_model] = checkArray(names[0], X, 2);
    const [, d_in] = checkArray(names[1], W, 3);
    if (d_in !== d_model) {
      throw new Error(`${names[0]} ${fmtShape(X)} cannot go into ${names[1]} ${fmtShape(W)}`);
    }
    return W.map((Wi) => matmul(X, Wi)); // (h, n, d_k)
  });
}

/** The arguments of allHeads and multiHeadAttention; the projections check the widths. */
function checkHeads(X, W_q, W_k, W_v, X_kv) {
  checkArray("X", X, 2);
  if (X_kv != null) checkArray("X_kv", X_kv, 2);
  const [h, d, d_k] = checkArray("W_q", W_q, 3);
  const [hk, dk_in, d_k2] = checkArray("W_k", W_k, 3);
  if (hk !== h || d_k2 !== d_k) {
    throw new Error(`W_q ${fmtShape(W_q)} and W_k ${fmtShape(W_k)} must agree on h and d_k`);
  }
  if (W_v != null && checkArray("W_v", W_v, 3)[0] !== h) {
    throw new Error(`W_v ${fmtShape(W_v)} must have h = ${h} heads like W_q ${fmtShape(W_q)}`);
  }
  return { h, d, dk_in, d_k };
}

/**
 * Every head's softmax rows, as the weights of mha.all_heads (self-attention, X_kv = X) or
 * of mha.cross_attention (queries from X, keys from X_kv).
 * @param {number[][]} X (n_q, d_model), the words that ask
 * @param {number[][][]} W_q (h, d_model, d_k)
 * @param {number[][][]} W_k (h, d_kv, d_k)
 * @param {{mask?: boolean[][], X_kv?: number[][]}} [opts] mask (n_q, n_k); X_kv (n_k, d_kv)
 * @returns {number[][][]} (h, n_q, n_k), each row summing to one
 */
export function headWeights(X, W_q, W_k, opts = {}) {
  return allHeads(X, W_q, W_k, null, opts).weights;
}

/**
 * Every head at once, before concatenation, as mha.all_heads (with opts.mask and opts.X_kv,
 * the heads of mha.cross_attention).
 * @param {number[][]} X (n_q, d_model)
 * @param {number[][][]} W_q (h, d_model, d_k)
 * @param {number[][][]} W_k (h, d_kv, d_k)
 * @param {number[][][] | null} W_v (h, d_kv, d_v), or null for the weights alone
 * @param {{mask?: boolean[][], X_kv?: number[][]}} [opts]
 * @returns {{H: number[][][] | null, weights: number[][][]}} H (h, n_q, d_v), weights (h, n_q, n_k)
 */
export function allHeads(X, W_q, W_k, W_v, opts = {}) {
  return boundary(() => {
    const X_kv = opts.X_kv ?? X;
    checkHeads(X, W_q, W_k, W_v, opts.X_kv);
    const kv = opts.X_kv == null ? "X" : "X_kv";
    const Q = project(X, W_q, ["X", "W_q"]); // (h, n_q, d_k)
    const K = project(X_kv, W_k, [kv, "W_k"]); // (h, n_k, d_k)
    const V = W_v == null ? null : project(X_kv, W_v, [kv, "W_v"]); // (h, n_k, d_v)
    const per = Q.map((Qi, i) => scaledDotProduct(Qi, K[i], V?.[i], opts.mask ?? null));
    return { H: V && per.map((r) => r.blend), weights: per.map((r) => r.weights) };
  });
}

/**
 * The heads side by side, as mha.concat_heads: row i is head 0's row i, then head 1's, ...
 * @param {number[][][]} H (h, n, d_v)
 * @returns {number[][]} (n, h*d_v)
 */
export function concatHeads(H) {
  return boundary(() => {
    checkArray("H", H, 3);
    return H[0].map((_, i) => {
      const row = []; // (h*d_v,)
      for (const Hh of H) for (const v of Hh[i]) row.push(v);
      return row;
    }); // (n, h*d_v)
  });
}

/**
 * Multi-head attention, as mha.multi_head_attention (with opts.mask and opts.X_kv, as
 * mha.cross_attention). opts.heads, booleans (h,), switches heads off: an off head's block of
 * rows of W_o counts as zero, so its average never reaches the output (ablation).
 * @param {number[][]} X (n_q, d_model)
 * @param {number[][][]} W_q (h, d_model, d_k)
 * @param {number[][][]} W_k (h, d_kv, d_k)
 * @param {number[][][]} W_v (h, d_kv, d_v)
 * @param {number[][]} W_o (h*d_v, d_out)
 * @param {{mask?: boolean[][], X_kv?: number[][], heads?: boolean[]}} [opts]
 * @returns {{out: number[][], weights: number[][][], H: number[][][]}}
 *   out (n_q, d_out), weights (h, n_q, n_k), H (h, n_q, d_v)
 */
export function multiHeadAttention(X, W_q, W_k, W_v, W_o, opts = {}) {
  return boundary(() => {
    if (W_v == null) throw new Error("multiHeadAttention needs W_v");
    checkHeads(X, W_q, W_k, W_v, opts.X_kv);
    const { H, weights } = allHeads(X, W_q, W_k, W_v, opts); // (h, n_q, d_v), (h, n_q, n_k)
    const [h, , d_v] = shapeOf(H);
    const [rows] = checkArray("W_o", W_o, 2);
    if (rows !== h * d_v) {
      throw new Error(`W_o ${fmtShape(W_o)} must have h*d_v = ${h}*${d_v} = ${h * d_v} rows`);
    }
    const on = opts.heads ?? new Array(h).fill(true);
    if (on.length !== h || !on.every((v) => typeof v === "boolean")) {
      throw new Error(`heads must be ${h} booleans, one per head, got ${JSON.stringify(on)}`);
    }
    const kept = W_o.map((row, r) => (on[Math.floor(r / d_v)] ? row : row.map(() => 0))); // (h*d_v, d_out)
    return { out: matmul(concatHeads(H), kept), weights, H }; // (n_q, d_out)
  });
}

// ----------------------------------------------------------------------------- one head's row

/**
 * One head's scores Q K^T, divided by sqrt(d_k) if `scaled` (mha.budget.single_head_scores,
 * mha.scaling.head_scores).
 * @param {number[][]} Q (n_q, d_k)
 * @param {number[][]} K (n_k, d_k)
 * @param {boolean} [scaled] divide by sqrt(d_k)
 * @returns {number[][]} (n_q, n_k)
 */
export function headScores(Q, K, scaled = true) {
  return boundary(() => {
    const [, d_k] = checkArray("Q", Q, 2);
    if (checkArray("K", K, 2)[1] !== d_k) throw new Error(`Q ${fmtShape(Q)} and K ${fmtShape(K)} must agree on d_k`);
    const root = scaled ? Math.sqrt(d_k) : 1;
    return matmul(Q, transpose(K)).map((row) => row.map((s) => s / root)); // (n_q, n_k)
  });
}

/**
 * Softmax of one row of scores after moving t from key `lose` to key `gain`, as mha.budget.tilt.
 * @param {number[]} scores (n,)
 * @param {number} t added to scores[gain], subtracted from scores[lose]
 * @param {number} gain, lose key positions
 * @returns {number[]} (n,), summing to one
 */
export function tiltRow(scores, t, gain, lose) {
  if (!(gain >= 0 && gain < scores.length && lose >= 0 && lose < scores.length)) {
    throw new Error(`keys ${gain} and ${lose} must index the row of ${scores.length} scores`);
  }
  const s = scores.slice(); // (n,)
  s[gain] += t;
  s[lose] -= t;
  return softmax(s); // (n,)
}

/** Entropy in bits of one row of weights (n,), as mha.scaling.entropy: 0 log 0 counts 0. */
export function entropyBits(w) {
  return -w.reduce((a, p) => a + (p > 0 ? p * Math.log(p) : 0), 0) / Math.LN2;
}

// ----------------------------------------------------------------------------- the trained model

/**
 * Sinusoidal position vectors, as mha.training.data.positions (Vaswani et al. 2017):
 * column 2j is sin(p / 10000^(2j/d_model)), column 2j+1 its cos.
 * @returns {number[][]} (n, d_model)
 */
export function positions(n, d_model) {
  checkInt("n", n);
  checkInt("d_model", d_model);
  return Array.from({ length: n }, (_, p) =>
    Array.from({ length: d_model }, (_, c) => {
      const angle = p / 10000 ** ((c - (c % 2)) / d_model);
      return c % 2 ? Math.cos(angle) : Math.sin(angle);
    }),
  );
}

const positionCache = new Map();

function cachedPositions(n, d_model) {
  const key = `${n},${d_model}`;
  if (!positionCache.has(key)) positionCache.set(key, positions(n, d_model));
  return positionCache.get(key);
}

/**
 * Word ids of up to maxLen words, padded with `pad`, as mha.training.data.word_ids.
 * An unknown word throws an Error whose one-line message names the vocabulary.
 * @param {string[]} words (n,), 1 <= n <= maxLen
 * @param {string[]} vocab the model's vocabulary, in id order
 * @returns {number[]} (maxLen,)
 */
export function wordIds(words, vocab, maxLen, pad) {
  if (!Array.isArray(words) || words.length < 1 || words.length > maxLen) {
    throw new Error(`a sentence has 1 to ${maxLen} words, got ${words?.length}`);
  }
  const unknown = words.filter((w) => !vocab.includes(w));
  if (unknown.length) {
    throw new Error(`unknown words ${unknown.join(", ")}; the vocabulary is ${vocab.join(" ")}`);
  }
  const padded = [...words, ...new Array(maxLen - words.length).fill(pad)];
  return padded.map((w) => vocab.indexOf(w)); // (maxLen,)
}

/**
 * Where a sentence of the task's shape has its verb, subject and object, as
 * mha.training.data.encode: one verb, one noun before it and one after it.
 * @returns {{verb: number, subject: number, object: number}} positions in the sentence
 */
export function roles(words, verbs, nouns) {
  const where = (set) => words.flatMap((w, p) => (set.includes(w) ? [p] : []));
  const v = where(verbs);
  if (v.length !== 1) throw new Error(`a sentence needs exactly one verb, got ${words.join(" ")}`);
  const before = where(nouns).filter((p) => p < v[0]);
  const after = where(nouns).filter((p) => p > v[0]);
  if (before.length !== 1 || after.length !== 1) {
    throw new Error(`a sentence needs one noun before the verb and one after, got ${words.join(" ")}`);
  }
  return { verb: v[0], subject: before[0], object: after[0] };
}

function argmax(row) {
  let best = 0;
  row.forEach((v, j) => {
    if (v > row[best]) best = j; // the first of equal maxima, as torch.argmax
  });
  return best;
}

/**
 * The trained model's forward pass on one sentence, as HeadsModel.forward: word embeddings
 * plus fixed positions, multi-head attention, and a linear read-out of the verb's output row.
 * @param {object} model the parameters, as stored (mha.training.store.load_state):
 *   embed (vocab, d_model); W_q, W_k, W_v (h, d_model, d_k); W_o (h*d_k, d_model);
 *   read (d_model, 2*nouns); bias (2*nouns,); pe (max_len, d_model), optional: by default
 *   positions(tokens.length, d_model)
 * @param {number[]} tokens (n,) word ids (padded to the model's max_len, as the book does)
 * @param {number} verb the verb's position, whose output row is read
 * @param {boolean[]} [heads] (h,) false switches a head off (its rows of W_o count as 0)
 * @returns {{logits: number[][], answer: {subject: number, object: number},
 *   weights: number[][][], atVerb: number[]}} logits (2, nouns): subject scores, then object
 *   scores; answer: the argmax of each, indices into the nouns; weights (h, n, n);
 *   atVerb (d_model,), the layer's output row at the verb
 */
export function modelForward(model, tokens, verb, heads = null) {
  return boundary(() => {
    const [vocab, d_model] = checkArray("embed", model.embed, 2);
    for (const name of ["W_q", "W_k", "W_v"]) checkArray(name, model[name], 3);
    checkArray("W_o", model.W_o, 2);
    checkArray("bias", model.bias, 1);
    const n = tokens.length;
    if (!tokens.every((t) => Number.isInteger(t) && t >= 0 && t < vocab)) {
      throw new Error(`tokens must be word ids 0..${vocab - 1}, got [${tokens}]`);
    }
    if (!Number.isInteger(verb) || verb < 0 || verb >= n) {
      throw new Error(`verb must be a position 0..${n - 1}, got ${verb}`);
    }
    const pe = model.pe ?? cachedPositions(n, d_model); // (>= n, d_model)
    const [rows, cols] = checkArray("pe", pe, 2);
    if (rows < n || cols !== d_model) {
      throw new Error(`pe ${fmtShape(pe)} must cover n = ${n} words of d_model = ${d_model}`);
    }
    const X = tokens.map((t, p) => model.embed[t].map((v, c) => v + pe[p][c])); // (n, d_model)
    const { out, weights } = multiHeadAttention(X, model.W_q, model.W_k, model.W_v, model.W_o, {
      heads: heads ?? undefined,
    }); // (n, d_model), (h, n, n)
    const atVerb = out[verb]; // (d_model,)
    const [, outs] = checkArray("read", model.read, 2);
    if (outs % 2 || model.bias.length !== outs) {
      throw new Error(`read ${fmtShape(model.read)} and bias ${fmtShape(model.bias)} must give 2*nouns`);
    }
    const flat = matmul([atVerb], model.read)[0].map((v, j) => v + model.bias[j]); // (2*nouns,)
    const logits = [flat.slice(0, outs / 2), flat.slice(outs / 2)]; // (2, nouns)
    return {
      logits,
      answer: { subject: argmax(logits[0]), object: argmax(logits[1]) },
      weights,
      atVerb,
    };
  });
}

// ----------------------------------------------------------------------------- cost

/**
 * Parameters and multiply-adds of one layer, every count of mha.cost.layer_cost(...).as_dict().
 * h heads of width d_k (d_v = d_k) on n words; kv_groups = g key/value heads (g divides h).
 * @param {number} n
 * @param {number} d_model
 * @param {number} h
 * @param {number} [d_k] default d_model / h, which must then be whole
 * @param {number} [kv_groups] default h
 * @returns {Object<string, number>} n, d_model, h, d_k, params_per_role, params_out,
 *   params_without_out, params_total, projection_per_role, projection, scoring, blending,
 *   output, kv_groups, params_kv_per_role, projection_kv_per_role, kv_cache_per_token,
 *   macs_without_out, macs_total
 */
export function layerCost(n, d_model, h, d_k = null, kv_groups = null) {
  checkInt("n", n);
  checkInt("d_model", d_model);
  checkInt("h", h);
  if (d_k == null) {
    if (d_model % h) {
      throw new Error(`cannot split d_model = ${d_model} into h = ${h} equal heads`);
    }
    d_k = d_model / h;
  }
  checkInt("d_k", d_k);
  const g = kv_groups ?? h;
  checkInt("kv_groups", g);
  if (h % g) {
    throw new Error(`h = ${h} query heads cannot share g = ${g} key/value groups: g must divide h`);
  }
  const perRole = h * d_model * d_k;
  const kvPerRole = g * d_model * d_k;
  const c = {
    n,
    d_model,
    h,
    d_k,
    params_per_role: perRole,
    params_out: h * d_k * d_model,
    params_without_out: perRole + 2 * kvPerRole,
    params_total: 2 * perRole + 2 * kvPerRole,
    projection_per_role: h * n * d_model * d_k,
    projection: (h + 2 * g) * n * d_model * d_k,
    scoring: h * n * n * d_k,
    blending: h * n * n * d_k,
    output: n * h * d_k * d_model,
    kv_groups: g,
    params_kv_per_role: kvPerRole,
    projection_kv_per_role: g * n * d_model * d_k,
    kv_cache_per_token: 2 * g * d_k,
  };
  c.macs_without_out = c.projection + c.scoring + c.blending;
  c.macs_total = c.macs_without_out + c.output;
  const unsafe = Object.keys(c).filter((k) => !Number.isSafeInteger(c[k]));
  if (unsafe.length) throw new Error(`counts beyond 2^53, not exact in float64: ${unsafe}`);
  return c;
}

// ----------------------------------------------------------------------------- random heads
//
// mha.toy.random_heads in JavaScript, number for number, for any seed. Head i is drawn from
// a torch generator seeded by numpy's SeedSequence([seed, i, d_k, d_model]) (mha.seeds):
//   1. seedSequenceState: numpy's SeedSequence(keys).generate_state, 32-bit words
//      (numpy/random/bit_generator.pyx: hashmix, mix, mix_entropy, generate_state);
//   2. MT19937: torch's CPU engine after manual_seed (aten/src/ATen/core/MT19937RNGEngine.h);
//   3. randn: torch's float64 randn on CPU (aten/src/ATen/native/cpu/DistributionTemplates.h:
//      normal_fill in blocks of 16 for >= 16 numbers, else normal_distribution).
// 32-bit arithmetic is done with Math.imul and >>> 0, so no BigInt is needed on the way.

const SS_POOL_SIZE = 4;
const SS_INIT_A = 0x43b0d7e5;
const SS_MULT_A = 0x931e8875;
const SS_INIT_B = 0x8b51f9dd;
const SS_MULT_B = 0x58f38ded;
const SS_MIX_MULT_L = 0xca01f9dd;
const SS_MIX_MULT_R = 0x4973f715;

/** One key as numpy's _int_to_uint32_array: 32-bit words, lowest first; 0 is one word. */
function uint32Words(key) {
  if (typeof key === "bigint" && key >= 0n) {
    const words = [Number(key & 0xffffffffn)];
    for (let n = key >> 32n; n > 0n; n >>= 32n) words.push(Number(n & 0xffffffffn));
    return words;
  }
  if (!Number.isSafeInteger(key) || key < 0) {
    throw new Error(`a seed key must be an integer >= 0 (below 2^53, or a BigInt), got ${String(key)}`);
  }
  const high = Math.floor(key / 4294967296); // exact: key < 2^53
  return high ? [key % 4294967296, high] : [key];
}

/** A hashmix step of SeedSequence; `hash` ({value}) is updated in place, as its hash_const. */
function hashmix(value, hash) {
  value = (value ^ hash.value) >>> 0;
  hash.value = Math.imul(hash.value, SS_MULT_A) >>> 0;
  value = Math.imul(value, hash.value) >>> 0;
  return (value ^ (value >>> 16)) >>> 0;
}

function mix(x, y) {
  const r = (Math.imul(SS_MIX_MULT_L, x) - Math.imul(SS_MIX_MULT_R, y)) >>> 0;
  return (r ^ (r >>> 16)) >>> 0;
}

/** SeedSequence.mix_entropy into a fresh pool of 4 words. */
function entropyPool(entropy) {
  const hash = { value: SS_INIT_A };
  const pool = Array.from({ length: SS_POOL_SIZE }, (_, i) => hashmix(entropy[i] ?? 0, hash));
  for (let src = 0; src < SS_POOL_SIZE; src++) {
    for (let dst = 0; dst < SS_POOL_SIZE; dst++) {
      if (src !== dst) pool[dst] = mix(pool[dst], hashmix(pool[src], hash));
    }
  }
  for (let src = SS_POOL_SIZE; src < entropy.length; src++) {
    for (let dst = 0; dst < SS_POOL_SIZE; dst++) pool[dst] = mix(pool[dst], hashmix(entropy[src], hash));
  }
  return pool; // (4,)
}

/**
 * numpy's np.random.SeedSequence(keys).generate_state(nWords): the words that seed a generator.
 * mha.seeds.generator(*keys) seeds torch with the first of them.
 * @param {(number|bigint)[]} keys (k,), k >= 1, integers >= 0; each becomes one 32-bit word,
 *   or more, lowest first, when it is 2^32 or larger (as numpy does)
 * @param {number} [nWords] how many words
 * @returns {number[]} (nWords,) unsigned 32-bit integers
 */
export function seedSequenceState(keys, nWords = 1) {
  if (!Array.isArray(keys) || keys.length === 0) {
    throw new Error(`keys must be a non-empty array of integers, got ${String(keys)}`);
  }
  checkInt("nWords", nWords);
  const pool = entropyPool(keys.flatMap(uint32Words)); // (4,)
  let hash = SS_INIT_B;
  return Array.from({ length: nWords }, (_, i) => {
    let v = (pool[i % SS_POOL_SIZE] ^ hash) >>> 0;
    hash = Math.imul(hash, SS_MULT_B) >>> 0;
    v = Math.imul(v, hash) >>> 0;
    return (v ^ (v >>> 16)) >>> 0;
  });
}

const MT_N = 624;
const MT_M = 397;
const MT_MATRIX_A = 0x9908b0df;

/** MT19937's twist of the words u, v (torch's twist(u, v): mix_bits, shift, MATRIX_A). */
function twist(u, v) {
  return (((u & 0x80000000) | (v & 0x7fffffff)) >>> 1) ^ (v & 1 ? MT_MATRIX_A : 0);
}

/**
 * torch's CPU Mersenne Twister (at::mt19937) as torch.Generator().manual_seed(seed) leaves it:
 * the state is initialised from the seed's low 32 bits (init_genrand), and the first draw
 * twists the whole state. random() is the generator's random(), random64() its random64().
 */
export class MT19937 {
  /** @param {number|bigint} seed an integer >= 0 (below 2^53, or a BigInt) */
  constructor(seed) {
    const state = new Uint32Array(MT_N);
    state[0] = uint32Words(seed)[0];
    for (let j = 1; j < MT_N; j++) {
      const s = state[j - 1];
      state[j] = Math.imul(1812433253, s ^ (s >>> 30)) + j;
    }
    this.state = state;
    this.next = MT_N; // as torch's left_ = 1: the first draw calls nextState
  }

  /** The next state, in place, as at::mt19937's next_state. */
  nextState() {
    const p = this.state;
    for (let i = 0; i < MT_N - MT_M; i++) p[i] = p[i + MT_M] ^ twist(p[i], p[i + 1]);
    for (let i = MT_N - MT_M; i < MT_N - 1; i++) p[i] = p[i + MT_M - MT_N] ^ twist(p[i], p[i + 1]);
    p[MT_N - 1] = p[MT_M - 1] ^ twist(p[MT_N - 1], p[0]);
    this.next = 0;
  }

  /** @returns {number} the next unsigned 32-bit draw, tempered */
  random() {
    if (this.next === MT_N) this.nextState();
    let y = this.state[this.next++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** @returns {bigint} two draws as one 64-bit integer, the first one high (make64BitsFrom32Bits) */
  random64() {
    const hi = BigInt(this.random());
    return (hi << 32n) | BigInt(this.random());
  }

  /**
   * A float64 uniform on [0, 1) as at::uniform_real_distribution<double>(0, 1): the low 53
   * bits of random64() times 2^-53, computed exactly without BigInt.
   * @returns {number}
   */
  uniform() {
    const hi = this.random() & 0x1fffff; // bits 32..52 of random64()
    return (hi * 4294967296 + this.random()) / 9007199254740992;
  }
}

/** torch's normal_fill_16 on data[at..at+16): Box-Muller on (data[j], data[j + 8]), std 1. */
function normalFill16(data, at) {
  for (let j = at; j < at + 8; j++) {
    const radius = Math.sqrt(-2 * Math.log(1 - data[j]));
    const theta = 2 * Math.PI * data[j + 8];
    data[j] = radius * Math.cos(theta);
    data[j + 8] = radius * Math.sin(theta);
  }
}

/** torch's normal_fill (size >= 16): uniforms, blocks of 16, and a redrawn last block. */
function normalFill(mt, size) {
  const data = new Float64Array(size);
  for (let i = 0; i < size; i++) data[i] = mt.uniform();
  for (let i = 0; i + 16 <= size; i += 16) normalFill16(data, i);
  if (size % 16) {
    for (let i = size - 16; i < size; i++) data[i] = mt.uniform(); // overwrites a done tail
    normalFill16(data, size - 16);
  }
  return data; // (size,)
}

/** torch's normal_distribution<double> (size < 16): a pair per two draws, sin kept for next. */
function normalPairs(mt, size) {
  const data = new Float64Array(size);
  for (let i = 0; i < size; i += 2) {
    const u1 = mt.uniform();
    const u2 = mt.uniform();
    const r = Math.sqrt(-2 * Math.log1p(-u2));
    const theta = 2 * Math.PI * u1;
    data[i] = r * Math.cos(theta);
    if (i + 1 < size) data[i + 1] = r * Math.sin(theta);
  }
  return data; // (size,)
}

function nest(flat, shape, at = 0) {
  if (shape.length === 1) return Array.from(flat.subarray(at, at + shape[0]));
  const step = shape.slice(1).reduce((a, b) => a * b, 1);
  return Array.from({ length: shape[0] }, (_, i) => nest(flat, shape.slice(1), at + i * step));
}

/**
 * torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64) on
 * CPU, in torch's (row-major) order: standard normal numbers.
 * @param {number[]} shape (rank,), rank >= 1, every length >= 1
 * @param {number|bigint} seed the generator's seed, an integer >= 0
 * @returns {Array} a nested array of that shape
 */
export function randn(shape, seed) {
  if (!Array.isArray(shape) || shape.length === 0) {
    throw new Error(`shape must be a non-empty array of lengths, got ${String(shape)}`);
  }
  shape.forEach((n, i) => {
    checkInt(`shape[${i}]`, n);
  });
  const size = shape.reduce((a, b) => a * b, 1);
  checkInt("the number of entries", size);
  const mt = new MT19937(seed);
  return nest(size >= 16 ? normalFill(mt, size) : normalPairs(mt, size), shape);
}

/**
 * Random heads as mha.toy.random_heads(h, d_k, seed, d_model), entries scale * N(0, 1):
 * head i is scale * randn([3, d_model, d_k], seedSequenceState([seed, i, d_k, d_model])[0]),
 * its W_q, W_k, W_v in that order; so randomHeads(4, 3, ...) starts with the heads of
 * randomHeads(3, 3, ...).
 * @param {number} h number of heads
 * @param {number|null} d_k width of each head; null: d_model / h, which must be whole
 * @param {number|bigint} seed an integer >= 0
 * @param {number} d_model width of the word vectors
 * @param {number} scale the entries' standard deviation (the Python side's toy.RANDOM_SCALE)
 * @returns {{W_q: number[][][], W_k: number[][][], W_v: number[][][]}} each (h, d_model, d_k)
 */
export function randomHeads(h, d_k, seed, d_model, scale) {
  checkInt("h", h);
  checkInt("d_model", d_model);
  if (d_k == null) {
    if (d_model % h) throw new Error(`cannot split d_model = ${d_model} into h = ${h} equal heads`);
    d_k = d_model / h;
  }
  checkInt("d_k", d_k);
  if (typeof scale !== "number" || !Number.isFinite(scale)) {
    throw new Error(`scale must be a finite number, got ${String(scale)}`);
  }
  const heads = Array.from({ length: h }, (_, i) => {
    const [s] = seedSequenceState([seed, i, d_k, d_model]);
    const w = randn([3, d_model, d_k], s); // (3, d_model, d_k)
    return w.map((W) => W.map((row) => row.map((v) => scale * v))); // (3, d_model, d_k)
  }); // (h, 3, d_model, d_k)
  const role = (r) => heads.map((w) => w[r]); // (h, d_model, d_k)
  return { W_q: role(0), W_k: role(1), W_v: role(2) };
}
