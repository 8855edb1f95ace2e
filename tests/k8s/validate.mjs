// Validates a manifest that `zero batch --k8s` wrote against Kubernetes' own
// API schemas (the pinned kubernetes-models package: the OpenAPI definitions
// of the API server, compiled to ajv validators). Usage:
//   node validate.mjs MANIFEST.json
// The manifest is a v1 List; each item must be a kind this script knows
// (ConfigMap, Job) and valid against its schema. Prints one line per item
// ("ok ConfigMap demo-tasks") or the schema's errors, and exits 1 on any.
import { readFileSync } from "node:fs";
import { ConfigMap } from "kubernetes-models/v1/ConfigMap";
import { Job } from "kubernetes-models/batch/v1/Job";

const KINDS = { "v1/ConfigMap": ConfigMap, "batch/v1/Job": Job };
const doc = JSON.parse(readFileSync(process.argv[2], "utf8"));
let bad = 0;
if (doc.apiVersion !== "v1" || doc.kind !== "List" || !Array.isArray(doc.items)) {
  console.log("not a v1 List");
  process.exit(1);
}
for (const item of doc.items) {
  const Model = KINDS[`${item.apiVersion}/${item.kind}`];
  const name = item.metadata && item.metadata.name;
  if (!Model) {
    console.log(`unexpected kind ${item.apiVersion}/${item.kind}`);
    bad++;
    continue;
  }
  try {
    new Model(item).validate();
    console.log(`ok ${item.kind} ${name}`);
  } catch (e) {
    console.log(`invalid ${item.kind} ${name}: ${e.message}`);
    bad++;
  }
}
process.exit(bad ? 1 : 0);
