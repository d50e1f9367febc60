// Runs src/mha/views/static/mha_views.mjs for tests/test_js_module.py: one process, many calls.
//
// stdin:  {"shared": {name: value, ...}, "calls": [[exportName, [arg, ...], keep?], ...]}
//         where any argument (at any depth) written {"$ref": name} stands for shared[name],
//         so a model's weights travel once for hundreds of calls; keep, a list of keys,
//         returns only those keys of a call's result object (less JSON to carry back).
//         An exportName "Class#method" with args [[constructor args], n] makes one
//         new Class(...constructor args) and returns n calls of its method, in order (a BigInt
//         comes back as its decimal string): ["MT19937#random", [[5489], 3]].
// stdout: {"results": [{"value": ...} or {"error": message}, ...]}, one per call, in order.
import { readFileSync } from "node:fs";
import * as module from "../../src/mha/views/static/mha_views.mjs";

const views = { ...module }; // every export, called by name

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

function callMethod(name, [ctorArgs, n]) {
  const [cls, method] = name.split("#");
  if (typeof views[cls] !== "function") throw new Error(`no export named ${cls}`);
  const object = new views[cls](...ctorArgs);
  if (typeof object[method] !== "function") throw new Error(`${cls} has no method ${method}`);
  return Array.from({ length: n }, () => {
    const v = object[method]();
    return typeof v === "bigint" ? v.toString() : v;
  });
}

const results = request.calls.map(([name, args, keep]) => {
  const method = name.includes("#");
  if (!method && typeof views[name] !== "function") return { error: `no export named ${name}` };
  try {
    const value = method ? callMethod(name, resolve(args)) : views[name](...resolve(args));
    return { value: keep ? Object.fromEntries(keep.map((k) => [k, value[k]])) : value };
  } catch (err) {
    return { error: err.message };
  }
});
process.stdout.write(JSON.stringify({ results }));
