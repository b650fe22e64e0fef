// mcp-sdk.mjs - `paddock mcp` driven by the official MCP TypeScript SDK client:
// initialize, tools with their outputSchema, a run, held-back output and recall_output,
// each structuredContent valid against data/result.schema.json, the network modes,
// overlapping calls, cancel, a refused call, elicitation accepted and declined, an
// approval answered out of band while the dialog is open, progress, and malformed
// input on the pipe.
// Prints TAP. Needs PADDOCK, T, MARK and NODE_PATH-free import of the SDK (argv[2]).
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const sdk = process.argv[2];
const imp = (p) => import(pathToFileURL(path.join(sdk, "node_modules/@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await imp("client/index.js");
const { StdioClientTransport } = await imp("client/stdio.js");
const { ElicitRequestSchema } = await imp("types.js");

const { PADDOCK, T, MARK } = process.env;
let n = 0, failed = 0;
function ok(cond, desc, show) {
	n++;
	console.log(`${cond ? "ok" : "not ok"} ${n} - ${desc}`);
	if (!cond) {
		failed++;
		if (show !== undefined)
			for (const l of JSON.stringify(show, null, 1).split("\n").slice(0, 20))
				console.log("#   " + l.slice(0, 300));
	}
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const alive = (pat) => spawnSync("pgrep", ["-f", pat]).stdout.toString().trim() !== "";
async function until(fn, secs = 30) {
	const end = Date.now() + secs * 1000;
	while (Date.now() < end) {
		const v = await fn();
		if (v) return v;
		await sleep(50);
	}
	return null;
}
const approvals = (...a) => spawnSync(PADDOCK, ["approvals", ...a], { cwd: T, encoding: "utf8" });
const pending = () => {
	const r = approvals("--json");
	return r.status === 0 ? JSON.parse(r.stdout) : [];
};
const text = (r) => (r && r.content && r.content[0] && r.content[0].text) || "";
// obj is valid against data/result.schema.json's $defs/def, by python3-jsonschema
// (besides the SDK's own check against the tool's outputSchema on every call).
const srcdir = process.env.srcdir || ".";
function valid(def, obj) {
	const f = path.join(T, "structured.json");
	writeFileSync(f, JSON.stringify(obj) + "\n");
	const r = spawnSync("python3", [path.join(srcdir, "tests/shell/json-valid.py"),
		path.join(srcdir, "data/result.schema.json"), def, f], { encoding: "utf8" });
	if (r.status !== 0) console.log(r.stdout + r.stderr);
	return r.status === 0;
}

// The person at the client: each dialog is answered by the next function queued.
const answers = [];
const dialogs = [];
const client = new Client({ name: "paddock-test", version: "1.0.0" }, { capabilities: { elicitation: {} } });
client.setRequestHandler(ElicitRequestSchema, async (req, extra) => {
	dialogs.push({ req, extra });
	const next = answers.shift();
	return next ? next(req, extra) : { action: "cancel" };
});
const transport = new StdioClientTransport({ command: PADDOCK, args: ["mcp"], cwd: T, stderr: "pipe", env: process.env });
let stderr = "";
transport.stderr.on("data", (d) => (stderr += d));
const errors = [];
client.onerror = (e) => errors.push(String(e));

await client.connect(transport);
ok(client.getServerVersion()?.name === "paddock", "initialize: the SDK client connects", client.getServerVersion());
const tools = (await client.listTools()).tools.map((t) => t.name);
ok(tools.includes("run_command") && tools.includes("recall_output"), "tools/list", tools);
const listed = (await client.listTools()).tools;
ok(listed.every((t) => t.outputSchema?.type === "object" && t.outputSchema.$defs?.failure &&
	t.outputSchema.required.includes(t.name === "recall_output" ? "text" : "exit_status")),
	"every tool declares an outputSchema, the shipped result schema's", listed.map((t) => [t.name, t.outputSchema?.required]));

let r = await client.callTool({ name: "run_command", arguments: { argv: ["sh", "-c", "echo hello; exit 2"] } });
ok(!r.isError && r.structuredContent.exit_status === 2 && text(r).includes("hello"), "run_command runs, a non-zero exit is no error", r);
ok(valid("run", r.structuredContent), "its structuredContent is run --json's object, valid against the schema", r.structuredContent);

r = await client.callTool({ name: "run_command", arguments: { argv: ["seq", "1", "30000"] } });
const id = r.structuredContent?.output_id;
ok(id && text(r).includes("held back") && text(r).includes(id), "a long output is held back, its note names the output id", r.structuredContent?.notes);
r = await client.callTool({ name: "recall_output", arguments: { id: id || "00000000", match: "^2999[0-9]$" } });
ok(!r.isError && text(r).includes("29995"), "recall_output reads the held-back lines", r);
ok(valid("recall", r.structuredContent) && r.structuredContent.text === text(r),
	"recall_output's structuredContent is recall --json's object, its text the content", r.structuredContent);
r = await client.callTool({ name: "recall_output", arguments: { id: "0badc0de" } });
ok(r.isError === true && r.structuredContent?.error_kind === "not_found" && valid("recall", r.structuredContent),
	"recall_output of an unknown id: isError, and a valid recall object saying not_found", r);

// The network modes: domains through the proxy, with the domains listed; off and full.
answers.push(async () => ({ action: "accept", content: { decision: "once" } }));
r = await client.callTool({ name: "run_command", arguments: { argv: ["true"], network: "domains", allowDomains: ["example.invalid"] } });
ok(!r.isError && r.structuredContent.network?.mode === "domains" &&
	r.structuredContent.network.allowed_domains.includes("example.invalid") && valid("run", r.structuredContent),
	"network domains: the domains mode with allowDomains (a domain not configured is asked)", r);
r = await client.callTool({ name: "run_command", arguments: { argv: ["true"], network: "off" } });
ok(!r.isError && r.structuredContent.network?.mode === "off", "network off", r.structuredContent);
r = await client.callTool({ name: "run_command", arguments: { argv: ["true"], network: "off", allowDomains: ["example.invalid"] } });
ok(r.isError === true && text(r).includes("'allowDomains' goes with"), "allowDomains without network domains: a tool error saying so", r);
r = await client.callTool({ name: "run_command", arguments: { argv: ["true"], network: "domains", allowDomains: ["exa mple"] } });
ok(r.isError === true && text(r).includes("not a domain"), "a bad domain: refused, naming it", r);

// Overlapping calls: a short one answers while a long one runs.
const slow = client.callTool({ name: "run_command", arguments: { argv: ["sh", "-c", `sleep 3 # ${MARK}-slow`] } });
const t0 = Date.now();
r = await client.callTool({ name: "run_command", arguments: { argv: ["echo", "quick"] } });
ok(r.structuredContent?.stdout === "quick\n" && Date.now() - t0 < 2500, "overlapping calls: a short one is not held up by a long one", Date.now() - t0);
await client.ping();
ok((await slow).structuredContent?.exit_status === 0, "... and the long one finishes too");

// Progress.
const progress = [];
r = await client.callTool({ name: "run_command", arguments: { argv: ["sleep", "2.5"] } }, undefined, { onprogress: (p) => progress.push(p) });
ok(progress.length >= 1 && progress[0].progress >= 1, "progress notifications while a call runs", progress);

// Cancel of a long command.
const ac = new AbortController();
const long = client.callTool({ name: "run_command", arguments: { argv: ["sh", "-c", `sleep 1000 # ${MARK}-cancel`] } }, undefined, { signal: ac.signal });
await until(() => alive(`${MARK}-cancel`));
ac.abort("test");
let rejected = false;
try { await long; } catch { rejected = true; }
ok(rejected && (await until(() => !alive(`${MARK}-cancel`))), "cancel stops the long command");

// A refused call.
r = await client.callTool({ name: "run_command", arguments: { argv: ["ls"], outsideSandbox: true } });
ok(r.isError === true && /denied|not approved/.test(text(r)), "a refused call is isError with the reason", r);
ok(r.structuredContent?.ran === false && valid("run", r.structuredContent), "... and its structuredContent says why, valid", r.structuredContent);

// Elicitation, accepted and declined.
const ASK = ["git", "push", "--force", "origin", "HEAD"];
answers.push(async () => ({ action: "accept", content: { decision: "once" } }));
const asked = dialogs.length;
r = await client.callTool({ name: "run_command", arguments: { argv: ASK } });
ok(!r.isError && "exit_status" in (r.structuredContent || {}) && dialogs.length === asked + 1, "elicitation accepted: the command runs", r);
answers.push(async () => ({ action: "decline" }));
r = await client.callTool({ name: "run_command", arguments: { argv: ASK } });
ok(r.isError === true && text(r).includes("said no"), "elicitation declined: refused", r);

// Out of band while the dialog is open: the dialog is withdrawn.
let dialogAborted = null;
let dialogOpen = false;
answers.push((req, extra) => new Promise((resolve) => {
	const done = () => { dialogAborted = true; resolve({ action: "cancel" }); };
	dialogOpen = true;
	if (extra.signal.aborted) done();
	else extra.signal.addEventListener("abort", done);
}));
const oob = client.callTool({ name: "run_command", arguments: { argv: ASK } });
await until(() => dialogOpen);
const waiting = await until(() => { const p = pending(); return p.length ? p : null; });
const ans = approvals("approve", waiting ? waiting[0].id : "00000000");
r = await oob;
ok(ans.status === 0 && !r.isError && text(r).includes("paddock approvals"), "approved out of band while the dialog is open", r);
ok(await until(() => dialogAborted), "the open dialog is withdrawn");

// Malformed input on the raw pipe: answered with an error, the server goes on.
transport._process.stdin.write("{ this is not json\n");
await sleep(200);
await client.ping();
r = await client.callTool({ name: "run_command", arguments: { argv: ["echo", "still"] } });
ok(r.structuredContent?.stdout === "still\n", "malformed input on the pipe: the server keeps serving", errors);

await client.close();
ok(stderr === "", "nothing on the server's stderr", stderr);
console.log(`1..${n}`);
process.exit(failed ? 1 : 0);
