// Runs src/mha/views/static/mha_views.mjs for tests/test_js_module.py: one process, many calls.
//
// stdin:  {"shared": {name: value, ...}, "calls": [[exportName, [arg, ...], keep?], ...]}
//         where any argument (at any depth) written {"$ref": name} stands for shared[name],
//         so a model's weights travel once for hundreds of calls; keep, a list of keys,
//         returns only those keys of a call's result object (less JSON to carry back).
// stdout: {"results": [{"value": ...} or {"error": message}, ...]}, one per call, in order.
import { readFileSync } from "node:fs";
import * as views from "../../src/mha/views/static/mha_views.mjs";

const request = JSON.parse(readFileSync(0, "utf8"));
const shared = request.shared ?? {};

function resolve(x) {
  if (Array.isArray(x)) return x.map(resolve);
  if (x && typeof x === "object") {
    if ("$ref" in x) {
      if (!(x.$ref in shared)) throw new Error(`no shared value named ${x.$ref}`);
      return shared[x.$ref];
    }
    return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, resolve(v)]));
  }
  return x;
}

const results = request.calls.map(([name, args, keep]) => {
  if (typeof views[name] !== "function") return { error: `no export named ${name}` };
  try {
    const value = views[name](...resolve(args));
    return { value: keep ? Object.fromEntries(keep.map((k) => [k, value[k]])) : value };
  } catch (err) {
    return { error: err.message };
  }
});
process.stdout.write(JSON.stringify({ results }));
