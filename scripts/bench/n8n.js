#!/usr/bin/env node
'use strict';
// `npm run bench:n8n`: our nodes side by side with what a user builds from n8n's own nodes, in one
// real n8n 2.x (the e2e harness's install, the packed package) against the simulator; prints
// Markdown tables, exit 1 when a run went wrong. Options: --quick, --parts items,deliveries,rate,
// --n8n-env NAME=VALUE (e.g. N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true), --levels, the DEFAULTS.
// items: Webhook → Code (--items) → Consent Flow create (Map Automatically) vs HTTP Request + n8n's
//   generic OAuth2 credential with one templated JSON body, and Real Estate Estimate get vs HTTP
//   Request with a templated URL, at loopback and +--latency ms; ours also at each of --levels.
//   Node time: its executionTime. A run on a fresh credential, then --reps interleaved; medians.
// deliveries: signed deliveries from --senders senders to the Consent Flow Trigger and the Webhook
//   node, bare and with Header Auth; --rounds rounds, each receiver first once in turn.
// rate: Real Estate Estimate get under the simulator's rate limit (--rate-limit/s, then 429).
const crypto = require('node:crypto');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const { parseArgs } = require('node:util');
const { log } = require('../../test/e2e/lib/install');
const { packPackage } = require('../../test/e2e/lib/pkg');
const { startN8n } = require('../../test/e2e/lib/n8n');
const { sleep, waitFor } = require('../../test/e2e/lib/http');
const { simConfig, simFault, simReset } = require('../../test/e2e/lib/suite');
const { signedDeliveries } = require('../../test/e2e/lib/deliveries');
const { send, percentile } = require('../../test/e2e/lib/sender');
const { TRIGGER_OUTPUTS, allExecutions } = require('../../test/e2e/lib/loop');
const S = require('../../test/e2e/lib/scenarios');
const W = require('../../test/e2e/lib/workflows');
const waitLib = require('../../test/e2e/lib/wait');
const { syntheticNationalIdRange } = require('../../test/support/synthetic-ids');
const { startSimulator } = require('../../test/simulator');

/** Each number option's default: [full run, --quick]. */
const DEFAULTS = { items: [1000, 100], reps: [3, 1], latency: [20, 20], deliveries: [300, 60] };
Object.assign(DEFAULTS, { rounds: [5, 1], senders: [8, 8], rateLimit: [50, 20] });
const flag = (name) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

function options() {
	const spec = { quick: { type: 'boolean' }, 'n8n-env': { type: 'string', multiple: true } };
	for (const name of [...Object.keys(DEFAULTS), 'levels', 'parts'])
		spec[flag(name)] = { type: 'string' };
	const { values } = parseArgs({ options: spec });
	const o = {};
	for (const [name, [full, quick]] of Object.entries(DEFAULTS))
		o[name] = Number(values[flag(name)] ?? (values.quick ? quick : full));
	o.levels = (values.levels ?? '1,5,10,20').split(',').map(Number).filter(Boolean);
	o.parts = (values.parts ?? 'items,deliveries,rate').split(',');
	o.n8nEnv = Object.fromEntries((values['n8n-env'] ?? []).map((e) => e.split(/=(.*)/s, 2)));
	return o;
}

const median = (values) => percentile(values.filter(Number.isFinite), 50);
const fmt = (n, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : '—');
const ratio = (a, b) => `${fmt(a / b, 2)}×`;
const table = (head, rows) =>
	[head, head.map(() => '---'), ...rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
const problems = [];

// ---- part 1: items ------------------------------------------------------------------------------

const NODE = 'Under Test';
const CADASTRE = ['knr', 'gnr', 'bnr', 'fnr', 'snr'];

/** Webhook (answers when done) → Code making the items → the node under test. */
function itemsWorkflow(title, jsCode, under) {
	const path = W.uniquePath('bench');
	const start = W.webhookNode({ name: 'Start', path, responseData: 'noData' });
	const items = { id: crypto.randomUUID(), name: 'Make Items', type: 'n8n-nodes-base.code' };
	Object.assign(items, { typeVersion: 2, position: [220, 0], parameters: { jsCode } });
	return { path, workflow: W.workflow(`bench ${title} ${path}`, [start, items, under]) };
}

/** HTTP Request (POST) with n8n's generic OAuth2 credential; a JSON body when `jsonBody` is given. */
function httpNode(url, cred, typeVersion, jsonBody) {
	const node = W.httpRequestNode({ name: NODE, url, method: 'POST' });
	node.typeVersion = typeVersion;
	Object.assign(node.parameters, { authentication: 'genericCredentialType' });
	Object.assign(node.parameters, { genericAuthType: 'oAuth2Api' });
	if (jsonBody) Object.assign(node.parameters, { sendBody: true, specifyBody: 'json', jsonBody });
	node.credentials = { oAuth2Api: { id: cred.id, name: cred.name } };
	return node;
}

/** n8n's generic OAuth2 credential: client credentials, client authentication in the header as ours. */
async function genericOAuth2(ctx, realm, client, scope) {
	const { clientId, clientSecret } = ctx.sim.clients[client];
	const data = { grantType: 'clientCredentials', accessTokenUrl: ctx.sim.realms[realm].tokenUrl };
	Object.assign(data, { clientId, clientSecret, scope, authentication: 'header' });
	return await ctx.n8n.createCredential({ name: `bench ${realm}`, type: 'oAuth2Api', data });
}

/** Part 1's jobs; each side sends the same requests: our node (default, each level), HTTP Request. */
function jobs(ctx, o, versions) {
	const { sim, n8n } = ctx;
	const webhookUrl = JSON.stringify(`${n8n.url}/webhook/sbl-bench-no-events`);
	const ids = JSON.stringify(syntheticNationalIdRange(50000, o.items));
	const fields = ['nationalId', 'lastName', 'organizationId', 'redirectUrl', 'webhookUrl'];
	const body = [...fields, 'externalId'].map((f) => `"${f}": "{{ $json.${f} }}"`);
	const cadastre = Object.fromEntries(CADASTRE.map((f) => [f, `={{ $json.${f} }}`]));
	const path = CADASTRE.map((f) => `{{ $json.${f} }}`).join('/');
	const list = [
		{
			title: 'Consent Flow create',
			api: { prefix: '/consent/api/flow-definitions/sbl', ok: 201 },
			items: `return ${ids}.map((nationalId, i) => ({ json: { nationalId, lastName: 'Nordmann-' + i, organizationId: '923609016', redirectUrl: 'https://bank.example.com/thank-you', webhookUrl: ${webhookUrl}, externalId: 'bench-' + i } }));`,
			type: 'consentFlow',
			parameters: { resource: 'flow', operation: 'create', mappingMode: 'autoMapInputData' },
			credential: () => S.consentCredential(ctx, 'bench cf'),
			oauth: ['sbl', 'consent', 'sbl'],
			url: `${sim.consentBaseUrl}/api/flow-definitions/sbl`,
			body: `={\n${body.join(',\n')}\n}`,
		},
		{
			title: 'Real Estate Estimate get',
			api: { prefix: `${sim.estimatePrefix}/RealEstates/`, ok: 200 },
			items: `return Array.from({ length: ${o.items} }, (_, i) => ({ json: { knr: '0301', gnr: 1 + (i % 400), bnr: 1 + Math.floor(i / 400), fnr: 0, snr: 0 } }));`,
			type: 'realEstateEstimate',
			// the raw answer, as HTTP Request gives it
			parameters: {
				resource: 'estimate',
				operation: 'get',
				identifyBy: 'cadastre',
				simplify: false,
			},
			credential: () => S.estimateCredential(ctx, 'bench ree'),
			oauth: ['estimate', 'estimate', 'estimate:read'],
			url: `=${sim.estimateBaseUrl}/RealEstates/${path}/EvEstimate`,
		},
	];
	return list.map((job) => {
		const wf = (node) => itemsWorkflow(job.title, job.items, node);
		const parameters =
			job.type === 'realEstateEstimate' ? { ...job.parameters, ...cadastre } : job.parameters;
		const ours = (options) => (cred) =>
			wf(S.packageNode(job.type, { name: NODE, cred, parameters: { ...parameters, options } }));
		const http = (cred) => wf(httpNode(job.url, cred, versions.httpRequest, job.body));
		const sides = [
			{ label: 'our node', ours: true, fresh: job.credential, build: ours({}) },
			{
				label: 'HTTP Request + oAuth2Api',
				fresh: () => genericOAuth2(ctx, ...job.oauth),
				build: http,
			},
		];
		for (const concurrency of o.levels)
			sides.push({
				label: `our node, Concurrent Requests ${concurrency}`,
				ours: true,
				build: ours({ concurrency }),
			});
		return { ...job, sides };
	});
}

/** Digest of the requests a run sent (method, path, JSON body with its keys sorted). */
function fingerprint(calls) {
	const sorted = (_, v) =>
		v && typeof v === 'object' && !Array.isArray(v)
			? Object.fromEntries(Object.entries(v).sort())
			: v;
	const lines = calls.map((r) => `${r.method} ${r.path} ${JSON.stringify(r.body, sorted)}`);
	return crypto.createHash('sha256').update(lines.sort().join('\n')).digest('hex');
}

async function runItems(ctx, side, job, o, what) {
	if (job.limited) await sleep(1100); // a full bucket for each run
	const r = await S.runWorkflow(ctx, side.wf, {}, { apiPrefix: job.api.prefix });
	const run = r.exec.data?.resultData?.runData?.[NODE]?.[0];
	const answered = (status) => r.apiCalls.filter((c) => c.status === status).length;
	const items = S.nodeItems(r.exec, NODE)?.length ?? 0;
	const out = { nodeMs: run?.executionTime ?? NaN, tokens: r.tokenCalls.length, items };
	Object.assign(out, { refused: answered(429), fingerprint: fingerprint(r.apiCalls) });
	log(`${side.name}, ${what}: node ${fmt(out.nodeMs)} ms, ${items} items, ${r.exec.status}`);
	const ok = r.exec.status === 'success' && items === o.items && answered(job.api.ok) === o.items;
	// under the rate limit HTTP Request stops at the first 429: what the comparison shows
	if (!ok && (side.ours || !job.limited))
		problems.push(`${side.name}, ${what}: ${r.exec.status}, ${items} items`);
	return out;
}

/** Deploys every side (a fresh credential each, the levels share the first's), runs them. */
async function compare(ctx, job, at, o) {
	for (const side of job.sides) {
		Object.assign(side, { at, name: `${job.title}, ${side.label}, ${at}`, runs: [] });
		side.cred = side.fresh ? await side.fresh() : job.sides[0].cred;
		const built = side.build(side.cred);
		side.wf = { id: (await ctx.n8n.deployWorkflow(built.workflow)).id, path: built.path };
		if (side.fresh) side.cold = (await runItems(ctx, side, job, o, 'fresh credential')).tokens;
	}
	for (let rep = 1; rep <= o.reps; rep++)
		for (const side of job.sides) side.runs.push(await runItems(ctx, side, job, o, `run ${rep}`));
	const first = job.sides[0].runs[0]?.fingerprint;
	for (const side of job.sides.slice(1))
		if (!job.limited && side.runs[0]?.fingerprint !== first)
			problems.push(`${side.name}: not the same requests as ${job.sides[0].label}`);
	return job;
}

function itemsTable(done, o) {
	const rows = done.flatMap((job) => {
		const http = median(job.sides[1].runs.map((r) => r.nodeMs));
		return job.sides.map((side) => {
			const nodeMs = median(side.runs.map((r) => r.nodeMs));
			const runs = side.runs.map((r) => fmt(r.nodeMs / 1000, 2)).join(', ');
			const tokens = [side.cold, side.runs.map((r) => r.tokens).join(', ')];
			const ours = side.ours ? ratio(http, nodeMs) : '—';
			const row = [job.title, side.at, side.label, fmt(nodeMs / 1000, 2), runs, ours];
			row.push(tokens.filter((t) => t !== undefined).join(' → '));
			return [...row, side.runs.map((r) => `${r.items}, ${r.refused}`).join('; ')];
		});
	});
	const head = ['Job', 'Per request', 'Side', 'Node time, s (median)', 'runs, s'];
	head.push("HTTP Request's node time ÷ this row's", 'Token requests (fresh → measured)');
	head.push('Output items, 429 answers (runs)');
	return `### ${fmt(o.items)} items per execution\n\n${table(head, rows)}`;
}

/** Every job at loopback and +latency, Real Estate Estimate get (default only) under the rate limit. */
async function itemsPart(ctx, o, versions) {
	const conditions = [];
	if (o.parts.includes('items')) conditions.push({ at: 'loopback' }, { latencyMs: o.latency });
	if (o.parts.includes('rate')) conditions.push({ rateLimitPerSecond: o.rateLimit });
	const done = [];
	for (const { at, latencyMs, rateLimitPerSecond } of conditions) {
		await simReset(ctx.sim);
		await simConfig(ctx.sim, { autoLifecycle: false, rateLimitPerSecond });
		if (latencyMs) await simFault(ctx.sim, { latencyMs, count: 1e9 });
		const limited = Boolean(rateLimitPerSecond);
		const list = limited
			? jobs(ctx, { ...o, levels: [] }, versions).slice(1)
			: jobs(ctx, o, versions);
		const label = at ?? (limited ? `${rateLimitPerSecond} requests/s` : `+${latencyMs} ms`);
		for (const job of list) done.push(await compare(ctx, { ...job, limited }, label, o));
	}
	return itemsTable(done, o); // (the deliveries do not use the simulator)
}

// ---- part 2: signed deliveries ------------------------------------------------------------------

/** user + system seconds of every process in a process group (n8n and its task runner). */
function groupCpuSeconds(pgid) {
	let ticks = 0;
	for (const pid of fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
		try {
			const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
			if (Number(fields[2]) === pgid) ticks += Number(fields[11]) + Number(fields[12]);
		} catch {} // the process ended between the listing and the read
	}
	return ticks / 100; // USER_HZ
}

/** The receivers: the trigger, and the Webhook node bare and with Header Auth, each → NoOp. */
async function receivers(ctx, versions) {
	const { n8n, sim } = ctx;
	const credential = (name, type, data) => n8n.createCredential({ name, type, data });
	const secret = { secret: sim.signingSecret, signatureHeader: '' };
	const signing = await credential('bench signing', 'consentFlowWebhookSigningApi', secret);
	const token = crypto.randomBytes(24).toString('base64url');
	const header = { name: 'X-Bench-Token', value: token };
	const headerAuth = await credential('bench header auth', 'httpHeaderAuth', header);
	const noOp = waitLib.noOp('NoOp', [220, 0]);
	const trigger = W.packageTriggerNode({ credentials: { consentFlowWebhookSigningApi: signing } });
	// the version the editor adds: for a start node of version 1, n8n 2.41 evaluates an expression per request
	trigger.typeVersion = 1.1;
	const outputs = Array.from(TRIGGER_OUTPUTS, () => [{ node: noOp.name, type: 'main', index: 0 }]);
	const sides = [
		{
			label: 'Consent Flow Trigger (defaults; 11 outputs → NoOp)',
			path: W.triggerWebhookPath(trigger),
			workflow: W.workflow('bench trigger', [trigger, noOp], { [trigger.name]: { main: outputs } }),
		},
	];
	for (const auth of [false, true]) {
		const path = W.uniquePath('bench');
		const hook = W.webhookNode({ path, responseMode: 'onReceived' });
		hook.typeVersion = versions.webhook;
		if (auth) {
			hook.parameters.authentication = 'headerAuth';
			hook.credentials = { httpHeaderAuth: { id: headerAuth.id, name: headerAuth.name } };
		}
		sides.push({
			label: `Webhook${auth ? ' + Header Auth' : ''}, respond immediately → NoOp`,
			path,
			headers: auth ? { 'x-bench-token': token } : {},
			workflow: W.workflow(`bench ${path}`, [hook, noOp]),
		});
	}
	for (const side of sides) {
		const created = await n8n.deployWorkflow(side.workflow, { webhookPaths: [side.path] });
		Object.assign(side, { id: created.id, url: n8n.webhookUrl(side.path), runs: [] });
	}
	return sides;
}

/** One burst to one receiver: rates until answered and executed, ack times, n8n's CPU. */
async function burst(ctx, side, count, o, what) {
	const { n8n, sim } = ctx;
	const signer = { secret: sim.signingSecret, header: sim.signatureHeader };
	const signed = signedDeliveries({ count, tag: `bench-${crypto.randomUUID()}`, ...signer });
	const deliveries = signed.map((d) => ({ ...d, headers: { ...d.headers, ...side.headers } }));
	const newest = await n8n.executions(side.id, { includeData: false, limit: 1 });
	const before = Number(newest[0]?.id ?? 0);
	const cpu = groupCpuSeconds(n8n.pid);
	const started = Date.now();
	const retry = { maxAttempts: 1 };
	const { totals } = await send({ urls: [side.url], deliveries, concurrency: o.senders, retry });
	const answered = Date.now();
	const after = (status) =>
		allExecutions(n8n, side.id, { includeData: false, pageSize: 250, status, afterId: before });
	const succeeded = () => after('success');
	const done = async () => (await succeeded()).length >= count;
	await waitFor(done, { timeoutMs: 180000, what }).catch(() => {});
	const cpuMs = (1000 * (groupCpuSeconds(n8n.pid) - cpu)) / count;
	await sleep(500); // copies or failures would show now
	const success = await succeeded();
	const failed = (await after('error')).length;
	const stops = success.map((e) => Date.parse(e.stoppedAt)).filter(Number.isFinite);
	const seconds = (end) => (end - started) / 1000;
	const r = { cpuMs, p50: totals.ackP50Ms, p99: totals.ackP99Ms };
	r.answered = count / seconds(answered);
	r.executed = count / seconds(Math.max(answered, ...stops));
	log(`${side.label}, ${what}: ${fmt(r.executed, 1)}/s executed, n8n CPU ${fmt(cpuMs, 1)} ms each`);
	if (totals.answered2xx !== count || success.length !== count || failed) {
		const ran = `${success.length} successful and ${failed} failed executions`;
		problems.push(`${side.label}, ${what}: ${totals.answered2xx}/${count} answered 2xx, ${ran}`);
	}
	return r;
}

async function deliveriesPart(ctx, o, versions) {
	const sides = await receivers(ctx, versions);
	const warm = Math.ceil(o.deliveries / 3);
	for (const side of sides) await burst(ctx, side, warm, o, 'warm-up');
	for (let round = 0; round < o.rounds; round++)
		for (let i = 0; i < sides.length; i++) {
			const side = sides[(i + round) % sides.length];
			side.runs.push(await burst(ctx, side, o.deliveries, o, `round ${round + 1}`));
		}
	const m = (side, key) => median(side.runs.map((r) => r[key]));
	const rows = sides.map((s) => [
		s.label,
		fmt(m(s, 'answered'), 1),
		fmt(m(s, 'executed'), 1),
		s.runs.map((r) => fmt(r.executed, 1)).join(', '),
		fmt(m(s, 'cpuMs'), 1),
		`${fmt(m(s, 'p50'))} / ${fmt(m(s, 'p99'))}`,
		ratio(m(sides[0], 'executed'), m(s, 'executed')),
		ratio(m(s, 'cpuMs'), m(sides[0], 'cpuMs')),
	]);
	const head = ['Receiver', 'Answered/s (median)', 'Executed/s (median)', 'runs, executed/s'];
	head.push('n8n CPU per delivery, ms (median)', 'Ack p50 / p99, ms');
	head.push("Trigger's executed/s ÷ this row's", "This row's CPU ÷ the trigger's");
	const what = `${o.deliveries} per run after ${warm} to warm up, ${o.senders} senders, ${o.rounds} round(s)`;
	return `### Signed deliveries (${what})\n\n${table(head, rows)}`;
}

// ---- the run ------------------------------------------------------------------------------------

async function main() {
	const o = options();
	const loadBefore = os.loadavg()[0];
	const pkg = packPackage({ build: 'if-missing' });
	const sim = await startSimulator({ port: 0, autoLifecycle: false });
	const env = { NODE_FUNCTION_ALLOW_BUILTIN: 'crypto', ...o.n8nEnv };
	let n8n;
	const sections = [];
	try {
		n8n = await startN8n({ major: '2', tgz: pkg.tgz, logLevel: 'warn', env });
		const ctx = { n8n, sim };
		const types = await n8n.rest('GET', '/types/nodes.json');
		const versions = {};
		for (const name of ['httpRequest', 'webhook']) {
			const type = types.filter((t) => t.name === `n8n-nodes-base.${name}`);
			versions[name] = Math.max(...type.flatMap((t) => t.version));
		}
		if (o.parts.includes('items') || o.parts.includes('rate'))
			sections.push(await itemsPart(ctx, o, versions));
		if (o.parts.includes('deliveries')) sections.push(await deliveriesPart(ctx, o, versions));
	} finally {
		if (n8n) await n8n.stop();
		await sim.close();
	}
	const commit = execFileSync('git', ['describe', '--always', '--dirty'], { encoding: 'utf8' });
	const settings = Object.entries(o.n8nEnv).map(([k, v]) => `, ${k}=${v}`);
	const machine = `${os.cpus().length} cores, ${fmt(os.totalmem() / 2 ** 30)} GiB, ${os.cpus()[0]?.model}`;
	const load = `1-minute load ${fmt(loadBefore, 2)} before, ${fmt(os.loadavg()[0], 2)} after`;
	console.log(`\nn8n ${n8n.version} (SQLite${settings.join('')}), package at ${commit.trim()}`);
	console.log(`${machine}, ${new Date().toISOString().slice(0, 10)}, ${load}\n`);
	console.log(sections.join('\n\n'));
	console.log(
		`\n${problems.length ? `Problems:\n- ${problems.join('\n- ')}` : 'No problem seen.'}`,
	);
	if (problems.length) process.exitCode = 1;
}

main().catch((error) => {
	console.error(error.stack || error);
	process.exit(1);
});
