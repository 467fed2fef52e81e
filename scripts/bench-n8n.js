#!/usr/bin/env node
'use strict';

// `npm run bench:n8n`: this package's nodes side by side with what a user builds from n8n's own
// nodes, in one run of a real n8n 2.41.1 (the e2e harness's cached install, the packed package
// installed like the Community Nodes screen does) against the simulator.
//
//   node scripts/bench-n8n.js [--quick] [--reps N] [--items N] [--deliveries N] [--senders N]
//                             [--delivery-reps N] [--latency MS] [--levels 1,5,10,20] [--dedupe-off]
//                             [--remembered-variant N] [--no-deliveries]
//                             [--rate-limit N] [--only-rate-limit] [--only-deliveries]
//                             [--n8n-env NAME=VALUE]… [--no-lazy] [--write | --no-write]
//
// 1. 1,000 items per execution, at loopback and with +MS per request (the simulator's latency
//    fault on every request, token requests included):
//      Consent Flow node create, with   vs  HTTP Request + generic oAuth2Api (client credentials),
//      Map Automatically and with Map       twice: body "Using JSON" (one template: one expression
//      Each Field Manually (6 expressions)  per item) and "Using Fields Below" (one body parameter
//                                           per field); every side takes all six fields from the item
//      Real Estate Estimate node get   vs  HTTP Request + generic oAuth2Api, twice: templated URL
//                                          (one expression) and Edit Fields mapping the five
//                                          identity fields one by one → HTTP Request
//    Workflow: Webhook (answers when done) → Code (the items) → node under test. Timings from
//    n8n's execution data: the node's executionTime and the execution's startedAt → stoppedAt.
//    Token and API requests from the simulator's request log. Our nodes at their default
//    Concurrent Requests and at each of --levels (loopback and +MS). Every workflow runs once first
//    (cold credential: shows how many tokens n8n fetches), then --reps times, interleaved
//    (A, B, A, B, …); medians.
// 2. Signed deliveries (the simulator's signer, unique webhookIds, ten events round-robin) from
//    --senders concurrent senders to: the Consent Flow Trigger, a bare Webhook (respond
//    immediately) → NoOp, the same with Header Auth, and Webhook (raw body) → Code (HMAC-SHA256,
//    constant time) → Switch (11 outputs). Deliveries/s until all answered and until all executed
//    (executions counted through n8n's public API), ack p50/p99, exactly N successful executions,
//    and the CPU ms per delivery of n8n's process group (from /proc). After a warm-up burst per
//    receiver, --delivery-reps rounds (default 5) of one run per receiver in a balanced order
//    (each receiver first once in 4 rounds and after each other receiver once).
//    --dedupe-off adds the trigger with Ignore Duplicate Deliveries off (what the duplicate memory costs);
//    --remembered-variant N the trigger remembering N deliveries (what the size of that memory costs).
//    --no-deliveries skips part 2; the written section then keeps the previous run's deliveries
//    subsection unchanged. --only-deliveries runs only part 2 and prints its table (writes nothing);
//    with --n8n-env NAME=VALUE (repeatable) n8n runs with that setting, e.g.
//    N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true, to see what one of n8n's costs does to each receiver.
//
//    Then (unless --no-lazy, or --n8n-env already sets it) part 2 again in a second n8n started
//    with N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true (issue 26): the trigger beside the bare Webhook
//    node where n8n creates an expression isolate only for an expression that needs one.
// 3. Under a rate limit (--rate-limit N requests/s, default 50; 0 skips): the simulator's token
//    bucket (429 with Retry-After: 1 beyond it), 1,000 estimates from our node at its default and
//    from HTTP Request + oAuth2Api (templated URL): items answered, 429s, execution status, time.
//    --only-rate-limit runs only this part. Written as the section "Under a rate limit".
//
// Prints the tables and writes the section "Side by side in one n8n" of BENCHMARKS.md (not with
// --quick unless --write). n8n and the simulator are stopped by pid on exit, errors and Ctrl-C.

const { execFileSync } = require('node:child_process');
const crypto = require('node:crypto');
const os = require('node:os');
const path = require('node:path');

const { log } = require('../test/e2e/lib/install');
const { packPackage } = require('../test/e2e/lib/pkg');
const { startN8n } = require('../test/e2e/lib/n8n');
const { simConfig, simFault } = require('../test/e2e/lib/suite');
const S = require('../test/e2e/lib/scenarios');
const B = require('./bench/n8n-workflows');
const M = require('./bench/n8n-measure');
const R = require('./bench/n8n-report');
const { groupCpuSeconds } = require('./bench/proc-cpu');
const { startSimulatorProcess } = require('./bench/simulator-process');

const ROOT = path.resolve(__dirname, '..');
const BENCHMARKS = path.join(ROOT, 'BENCHMARKS.md');

function parseArgs(argv) {
	const quick = argv.includes('--quick');
	const out = {
		quick,
		reps: quick ? 1 : 3,
		// part 2: one receiver's runs spread by 10-55 % on this shared machine, more than the gaps
		deliveryReps: quick ? 1 : 5,
		items: quick ? 100 : 1000,
		deliveries: quick ? 60 : 300,
		warmDeliveries: quick ? 10 : 100,
		senders: 8,
		latency: 20,
		levels: [1, 5, 10, 20],
		write: !quick,
		dedupeOff: false,
		rememberedVariant: null,
		deliveries2: true,
		rateLimit: quick ? 20 : 50,
		rateItems: quick ? 100 : 1000,
		onlyRateLimit: false,
		onlyDeliveries: false,
		n8nEnv: {},
		lazy: true,
	};
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i];
		const num = () => {
			const v = Number(argv[++i]);
			if (!Number.isFinite(v) || v < 0) throw new Error(`${a} needs a number`);
			return v;
		};
		if (a === '--quick') continue;
		else if (a === '--reps') out.reps = Math.max(1, num());
		else if (a === '--items') out.items = Math.max(1, num());
		else if (a === '--deliveries') out.deliveries = Math.max(1, num());
		else if (a === '--delivery-reps') out.deliveryReps = Math.max(1, num());
		else if (a === '--senders') out.senders = Math.max(1, num());
		else if (a === '--latency') out.latency = num();
		else if (a === '--levels')
			out.levels = argv[++i]
				.split(',')
				.map(Number)
				.filter((n) => n >= 1);
		else if (a === '--dedupe-off') out.dedupeOff = true;
		else if (a === '--remembered-variant') out.rememberedVariant = Math.max(1, num());
		else if (a === '--no-deliveries') out.deliveries2 = false;
		else if (a === '--no-lazy') out.lazy = false;
		else if (a === '--rate-limit') out.rateLimit = num();
		else if (a === '--only-rate-limit') out.onlyRateLimit = true;
		else if (a === '--only-deliveries') out.onlyDeliveries = true;
		else if (a === '--n8n-env') {
			const [name, ...value] = String(argv[++i] ?? '').split('=');
			if (!/^[A-Z0-9_]+$/.test(name) || value.length === 0) throw new Error('--n8n-env needs NAME=VALUE');
			out.n8nEnv[name] = value.join('=');
		}
		else if (a === '--write') out.write = true;
		else if (a === '--no-write') out.write = false;
		else
			throw new Error(`unknown argument ${a} (see the comment at the top of scripts/bench-n8n.js)`);
	}
	return out;
}

// ---- processes: started here, stopped by pid -------------------------------------------------------

const running = { n8n: null, sim: null };

function killSimulator() {
	const child = running.sim;
	running.sim = null;
	if (child && child.exitCode === null && child.signalCode === null) {
		try {
			process.kill(child.pid, 'SIGTERM');
		} catch {}
	}
}

let cleaning = null;
function cleanup() {
	if (!cleaning) {
		cleaning = (async () => {
			const n8n = running.n8n;
			running.n8n = null;
			if (n8n) await n8n.stop().catch((e) => log(`stopping n8n: ${e.message}`));
			killSimulator();
		})();
	}
	return cleaning;
}

// Our own handlers (registered before n8n starts, so the harness leaves the signals to us): stop n8n
// gracefully and the simulator, then exit; a second signal kills at once. The harness's exit hook and
// its detached reaper still cover a crash or SIGKILL of this process.
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
	process.on(sig, () => {
		if (cleaning) {
			if (running.n8n) running.n8n._killNow();
			killSimulator();
			process.exit(130);
		}
		process.stderr.write(`\n${sig}: stopping n8n and the simulator …\n`);
		cleanup().finally(() => process.exit(128 + (os.constants.signals[sig] || 0)));
	});
}
process.on('exit', () => {
	if (running.n8n) running.n8n._killNow();
	killSimulator();
});

// ---- n8n facts ----------------------------------------------------------------------------------

/** Highest version of a node type in /types/nodes.json (what the editor adds today). */
function latestVersion(types, name, fallback) {
	const versions = types
		.filter((t) => t.name === name)
		.flatMap((t) => (Array.isArray(t.version) ? t.version : [t.version]));
	return versions.length ? Math.max(...versions) : fallback;
}

/** The node's "Concurrent Requests" option for an operation: { exists, default }. */
function concurrencyOption(types, name, operation) {
	const desc = types.find((t) => t.name === name);
	if (!desc) throw new Error(`n8n does not list ${name}`);
	for (const prop of desc.properties || []) {
		if (prop.name !== 'options' || !Array.isArray(prop.options)) continue;
		const ops = prop.displayOptions?.show?.operation;
		if (ops && !ops.includes(operation)) continue;
		const option = prop.options.find((o) => o.name === 'concurrency');
		if (option) return { exists: true, default: option.default };
	}
	return { exists: false, default: 1 };
}

// ---- node comparisons -----------------------------------------------------------------------------

/**
 * One comparison: deploys every side (our default and the built-in side with a fresh credential
 * each, the other levels of our node with our default side's credential), runs the default and the
 * built-in side once (cold credential), then `reps` rounds A, B, C, … of all sides;
 * returns { title, latencyMs, sides, sameRequests, problems }.
 */
async function compareNodes(ctx, { title, latencyMs, sides, api, opts }) {
	const { n8n } = ctx;
	for (const side of sides) {
		side.cred = side.credential ? await side.credential() : sides.find((s) => s.isDefault).cred;
		const built = side.build(side.cred);
		const created = await n8n.deployWorkflow(built.workflow);
		side.wf = {
			id: created.id,
			path: built.path,
			nodeName: built.nodeName,
			nodeNames: built.nodeNames,
		};
		side.runs = [];
	}
	const problems = [];
	const run = async (side, what) => {
		const r = await M.runItemsExecution({
			n8n,
			log: ctx.log,
			wf: side.wf,
			api,
			expectItems: opts.items,
		});
		r.fingerprint = M.requestFingerprint(r.requests);
		r.sample = r.requests[0];
		delete r.requests;
		if (latencyMs && r.latencyFaulted !== r.apiCalls)
			r.problems.push(`${r.latencyFaulted}/${r.apiCalls} API calls delayed`);
		for (const p of r.problems)
			problems.push(
				`${title}, ${latencyMs ? `+${latencyMs} ms` : 'loopback'}, ${side.label}, ${what}: ${p}`,
			);
		log(
			`${title} ${latencyMs ? `+${latencyMs} ms` : 'loopback'} | ${side.label} | ${what}: node ${R.secs(r.nodeMs)} s, wall ${R.secs(r.wallMs)} s, tokens ${r.tokens}, API ${r.apiOk}/${r.apiCalls}${r.problems.length ? ` PROBLEMS: ${r.problems.join('; ')}` : ''}`,
		);
		return r;
	};
	for (const side of sides)
		if (side.credential) side.warm = await run(side, 'first run (cold credential)');
	for (let rep = 1; rep <= opts.reps; rep++) {
		for (const side of sides) side.runs.push(await run(side, `run ${rep}`));
	}
	const ours = sides.find((s) => s.isDefault) || sides.find((s) => !s.builtIn);
	let sameRequests = true;
	// every side (built-in or ours in another mode or at another level) must send the same requests
	for (const other of sides.filter((s) => s !== ours)) {
		if (ours.runs[0].fingerprint === other.runs[0].fingerprint) continue;
		sameRequests = false;
		problems.push(
			`${title}: ours and ${other.label} did not send the same requests, e.g. ours ${JSON.stringify(ours.runs[0].sample)} vs ${JSON.stringify(other.runs[0].sample)}`,
		);
	}
	return { title, latencyMs, sides, sameRequests, problems };
}

function consentSides(ctx, { opts, option, httpVersion }) {
	const { n8n, sim } = ctx;
	const webhookUrl = `${n8n.url}/webhook/sbl-bench-no-events`;
	const cred = (label) => () => S.consentCredential(ctx, `bench cf ${label}`);
	const genericCred = (label) => () =>
		genericOAuth2(ctx, `bench http cf ${label}`, {
			tokenUrl: sim.realms.sbl.tokenUrl,
			client: sim.clients.consent,
			scope: 'sbl',
		});
	// Every side takes all six fields from the item; the "(default)" mark is Concurrent Requests'.
	const ourLabel = (c) => `Consent Flow node, Map Automatically, Concurrent Requests ${c}`;
	const sides = [
		{
			label: option.exists
				? ourLabel(option.default)
				: 'Consent Flow node, Map Automatically (no Concurrent Requests option: one at a time)',
			isDefault: true,
			credential: cred('default'),
			build: (c) => B.consentFlowCreate({ count: opts.items, cred: c, webhookUrl }),
		},
		{
			label: `Consent Flow node, Map Each Field Manually (6 expressions per item), Concurrent Requests ${option.exists ? option.default : 1}`,
			manualMapping: true,
			credential: cred('manual'),
			build: (c) =>
				B.consentFlowCreate({ count: opts.items, cred: c, webhookUrl, mappingMode: 'defineBelow' }),
		},
		{
			label: 'HTTP Request + oAuth2Api, body Using JSON (one template: one expression per item)',
			builtIn: 'one expression',
			credential: genericCred('x'),
			build: (c) =>
				B.httpConsentCreate({ count: opts.items, cred: c, sim, webhookUrl, httpVersion }),
		},
		{
			label:
				'HTTP Request + oAuth2Api, body Using Fields Below (fields mapped one by one: 6 expressions per item)',
			builtIn: 'fields one by one',
			credential: genericCred('f'),
			build: (c) =>
				B.httpConsentCreateFields({ count: opts.items, cred: c, sim, webhookUrl, httpVersion }),
		},
	];
	if (option.exists) {
		for (const level of opts.levels) {
			if (level === option.default) continue;
			sides.push({
				label: ourLabel(level),
				build: (c) =>
					B.consentFlowCreate({ count: opts.items, cred: c, webhookUrl, concurrency: level }),
			});
		}
	}
	return sides;
}

function estimateSides(ctx, { opts, option, httpVersion }) {
	const { sim } = ctx;
	const cred = (label) => () => S.estimateCredential(ctx, `bench ree ${label}`);
	const genericCred = (label) => () =>
		genericOAuth2(ctx, `bench http ree ${label}`, {
			tokenUrl: sim.realms.estimate.tokenUrl,
			client: sim.clients.estimate,
			scope: 'estimate:read',
		});
	const ourLabel = (c) => `Real Estate Estimate node, Concurrent Requests ${c}`;
	const sides = [
		{
			label: ourLabel(option.default),
			isDefault: true,
			credential: cred('default'),
			build: (c) => B.estimateGet({ count: opts.items, cred: c }),
		},
		{
			label: 'HTTP Request + oAuth2Api, templated URL (one expression per item)',
			builtIn: 'one expression',
			credential: genericCred('x'),
			build: (c) => B.httpEstimateGet({ count: opts.items, cred: c, sim, httpVersion }),
		},
		{
			label:
				'Edit Fields (5 fields mapped one by one) → HTTP Request + oAuth2Api, templated URL (6 expressions per item; node time = both nodes)',
			builtIn: 'fields one by one',
			credential: genericCred('f'),
			build: (c) => B.httpEstimateGetFields({ count: opts.items, cred: c, sim, httpVersion }),
		},
	];
	for (const level of opts.levels) {
		if (level === option.default) continue;
		sides.push({
			label: ourLabel(level),
			build: (c) => B.estimateGet({ count: opts.items, cred: c, concurrency: level }),
		});
	}
	return sides;
}

/** n8n's generic OAuth2 credential, client credentials, Basic client authentication (as ours). */
async function genericOAuth2(ctx, name, { tokenUrl, client, scope }) {
	const data = {
		grantType: 'clientCredentials',
		accessTokenUrl: tokenUrl,
		clientId: client.clientId,
		clientSecret: client.clientSecret,
		scope,
		authentication: 'header',
	};
	const created = await ctx.n8n.createCredential({
		name: `${name} ${crypto.randomBytes(3).toString('hex')}`,
		type: 'oAuth2Api',
		data,
	});
	return { id: created.id, name: created.name, type: 'oAuth2Api' };
}

// ---- webhook comparison ------------------------------------------------------------------------------

async function compareReceivers(ctx, { opts, webhookVersion }) {
	const { n8n, sim } = ctx;
	const signing = await n8n.createCredential({
		name: 'bench signing',
		type: 'consentFlowWebhookSigningApi',
		data: { secret: sim.signingSecret, signatureHeader: '' },
	});
	const headerValue = crypto.randomBytes(24).toString('base64url');
	const headerAuth = await n8n.createCredential({
		name: 'bench header auth',
		type: 'httpHeaderAuth',
		data: { name: 'X-Bench-Token', value: headerValue },
	});
	const sides = [
		{
			label: 'Consent Flow Trigger (defaults; 11 outputs → NoOp)',
			ours: true,
			built: B.triggerWorkflow({ cred: signing }),
		},
		...(opts.dedupeOff
			? [
					{
						label: 'Consent Flow Trigger, Ignore Duplicate Deliveries off',
						ours: true,
						variant: true,
						built: B.triggerWorkflow({ cred: signing, ignoreDuplicates: false }),
					},
				]
			: []),
		...(opts.rememberedVariant
			? [
					{
						label: `Consent Flow Trigger, Remembered Deliveries ${opts.rememberedVariant}`,
						ours: true,
						variant: true,
						built: B.triggerWorkflow({ cred: signing, rememberedDeliveries: opts.rememberedVariant }),
					},
				]
			: []),
		{
			label: 'Webhook, respond immediately → NoOp',
			built: B.bareWebhookWorkflow({ webhookVersion }),
		},
		{
			label: 'Webhook + Header Auth, respond immediately → NoOp',
			built: B.bareWebhookWorkflow({ webhookVersion, headerAuthCred: headerAuth }),
			headers: { 'x-bench-token': headerValue },
		},
		{
			label:
				'Webhook (raw body, respond immediately) → Code (HMAC-SHA256, constant time) → Switch (11 outputs) → NoOp',
			built: B.diyWorkflow({
				webhookVersion,
				secret: sim.signingSecret,
				signatureHeader: sim.signatureHeader,
			}),
		},
	];
	let offset = 0;
	for (const side of sides) {
		const created = await n8n.deployWorkflow(side.built.workflow, {
			webhookPaths: [side.built.path],
		});
		side.receiver = {
			url: n8n.webhookUrl(side.built.path),
			headers: side.headers || {},
			workflowId: created.id,
		};
		side.runs = [];
	}
	const problems = [];
	const burst = async (side, count, what) => {
		const cpuBefore = groupCpuSeconds(n8n.pid);
		const r = await M.runDeliveryBurst({
			n8n,
			sim,
			receiver: side.receiver,
			count,
			senders: opts.senders,
			offset,
		});
		offset += count;
		await M.settle(n8n, side.receiver.workflowId);
		// n8n's whole process group from the first request until its executions stopped
		r.cpuMsPerDelivery = (1000 * (groupCpuSeconds(n8n.pid) - cpuBefore)) / count;
		log(
			`deliveries | ${side.label} | ${what}: ${R.fmt(r.answeredPerSec, 1)}/s answered, ${R.fmt(r.executedPerSec, 1)}/s executed, n8n CPU ${R.fmt(r.cpuMsPerDelivery, 1)} ms per delivery, ack p50 ${R.fmt(r.ackP50, 1)} ms p99 ${R.fmt(r.ackP99, 1)} ms, ${r.ok}/${count} 2xx, ${r.success} ok + ${r.failed} failed executions`,
		);
		if (r.ok !== count)
			problems.push(
				`${side.label}, ${what}: ${r.ok}/${count} deliveries answered 2xx (${r.errors.join(', ')})`,
			);
		if (r.success !== count || r.failed)
			problems.push(
				`${side.label}, ${what}: ${r.success} successful and ${r.failed} failed executions for ${count} deliveries`,
			);
		return r;
	};
	for (const side of sides) await burst(side, opts.warmDeliveries, 'warm-up');
	for (let rep = 1; rep <= opts.deliveryReps; rep++) {
		for (const side of R.balancedOrder(sides, rep - 1))
			side.runs.push(await burst(side, opts.deliveries, `run ${rep}`));
	}
	return { sides, problems };
}

/** n8n's lazy expression engine: an isolate only for an expression that needs one. */
const LAZY_ENV = { N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true' };

/** Whether part 2 runs once more under LAZY_ENV (not when the first n8n already had it). */
function wantsLazy(opts) {
	return opts.lazy && opts.n8nEnv.N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE === undefined;
}

/**
 * Part 2 in a second n8n started with LAZY_ENV (the first one must be stopped: one n8n at a
 * time on this machine), stopped again by pid afterwards.
 */
async function lazyReceivers({ pkg, sim, opts, webhookVersion }) {
	log(`deliveries: a second n8n with ${Object.entries(LAZY_ENV).map(([k, v]) => `${k}=${v}`).join(' ')}`);
	const n8n = await startN8n({
		major: '2',
		tgz: pkg.tgz,
		logLevel: 'warn',
		env: { NODE_FUNCTION_ALLOW_BUILTIN: 'crypto', ...opts.n8nEnv, ...LAZY_ENV },
	});
	running.n8n = n8n;
	try {
		return await compareReceivers({ n8n, sim, log: M.simLogReader(sim) }, { opts, webhookVersion });
	} finally {
		running.n8n = null;
		await n8n.stop().catch((e) => log(`stopping n8n: ${e.message}`));
	}
}

/** Stops the first n8n (by pid), keeping the simulator, before the lazy one starts. */
async function stopFirstN8n() {
	const n8n = running.n8n;
	running.n8n = null;
	if (n8n) await n8n.stop().catch((e) => log(`stopping n8n: ${e.message}`));
}

/** The trigger's median executed/s over the bare Webhook's (the issue 26 target: ≥ 0.5). */
function triggerOverBare(sides) {
	const median = (xs) => {
		const sorted = [...xs].sort((a, b) => a - b);
		return sorted.length ? sorted[Math.floor(sorted.length / 2)] : NaN;
	};
	const of = (side) => median(side.runs.map((r) => r.executedPerSec));
	const trigger = sides.find((s) => s.ours && !s.variant);
	const bare = sides.find((s) => s.label.startsWith('Webhook, respond immediately'));
	return trigger && bare ? of(trigger) / of(bare) : NaN;
}

/** The lazy run's table, with the trigger ÷ bare Webhook ratio. */
function lazyText(lazy) {
	if (!lazy) return '';
	return `
#### With \`N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true\` (a second n8n, same package and runs)

${R.webhookTable(lazy.sides)}

Trigger ÷ bare Webhook, executed/s (medians): **${R.fmt(triggerOverBare(lazy.sides), 2)}×** (issue 26 target: ≥ 0.5×).
${lazy.problems.length ? `\nProblems seen in this run:\n\n${lazy.problems.map((p) => `- ${p}`).join('\n')}\n` : ''}`;
}

// ---- report ---------------------------------------------------------------------------------------

/** Create by mapping mode against the two HTTP Request variants (node time medians), per latency. */
function mappingSummary(comparisons) {
	const lines = [];
	for (const c of comparisons.filter((x) => x.sides.some((s) => s.manualMapping))) {
		const med = (side) => M.median(side.runs.map((r) => r.nodeMs));
		const auto = c.sides.find((s) => s.isDefault);
		const manual = c.sides.find((s) => s.manualMapping);
		const one = c.sides.find((s) => s.builtIn === 'one expression');
		const fields = c.sides.find((s) => s.builtIn === 'fields one by one');
		const vs = (side) =>
			`${R.secs(med(side))} s: ${R.ratio(med(one), med(side))} the one-template HTTP Request (${R.secs(med(one))} s), ${R.ratio(med(fields), med(side))} the field-by-field one (${R.secs(med(fields))} s)`;
		lines.push(
			`- ${c.title}, ${c.latencyMs ? `+${c.latencyMs} ms` : 'loopback'}, by mapping mode (node time, median; ratio = HTTP Request's time ÷ ours) — Map Automatically ${vs(auto)}; Map Each Field Manually ${vs(manual)}.`,
		);
	}
	return lines.join('\n');
}

function concurrencySummary(comparisons) {
	const lines = [];
	for (const c of comparisons.filter((x) =>
		x.sides.some((s) => !s.builtIn && !s.isDefault && !s.manualMapping),
	)) {
		const ours = c.sides
			.filter((s) => !s.builtIn && !s.manualMapping)
			.map((s) => ({
				level: Number(/Concurrent Requests (\d+)/.exec(s.label)?.[1]),
				node: M.median(s.runs.map((r) => r.nodeMs)),
				isDefault: s.isDefault,
			}))
			.sort((a, b) => a.level - b.level);
		const builtIns = c.sides
			.filter((s) => s.builtIn)
			.map((s) => `HTTP Request, ${s.builtIn}: ${R.secs(M.median(s.runs.map((r) => r.nodeMs)))} s`);
		const one = ours.find((o) => o.level === 1);
		const parts = ours.map(
			(o) =>
				`${o.level}${o.isDefault ? ' (default)' : ''}: ${R.secs(o.node)} s${one && o.level !== 1 ? ` (×${R.fmt(one.node / o.node, 1)} vs 1)` : ''}`,
		);
		lines.push(
			`- ${c.title}, ${c.latencyMs ? `+${c.latencyMs} ms` : 'loopback'}, node time by Concurrent Requests — ${parts.join('; ')}; ${builtIns.join('; ')} (all items at once).`,
		);
	}
	return lines.join('\n');
}

function sectionText({
	opts,
	info,
	comparisons,
	receivers,
	lazy,
	problems,
	cfOption,
	reeOption,
	versions,
	runSeconds,
}) {
	const date = new Date().toISOString().slice(0, 10);
	return `${R.SECTION}

This package's nodes next to what a user wires by hand from n8n's own nodes, in one run of a real
n8n (${info.n8nVersion}, sqlite, regular mode, the packed package installed into \`.n8n/nodes\` like the
Community Nodes screen does) against the simulator (own process, loopback). Measured with
\`npm run bench:n8n\` (\`scripts/bench-n8n.js\`, built on the e2e harness in \`test/e2e/lib\`).

Machine: ${info.nproc} cores (nproc), ${R.fmt(info.ramGiB, 0)} GiB RAM, ${info.cpu}; n8n ${info.n8nVersion} on Node ${info.n8nNode}
(the script itself on Node ${process.versions.node}); package at commit ${info.commit}. Run on ${date}, ${R.fmt(runSeconds / 60, 1)} min in total; 1-minute load
average (\`uptime\`) ${R.fmt(info.loadBefore, 2)} before, ${loadRange(comparisons)} at the end of each measured execution, ${R.fmt(info.loadAfter, 2)} after
(the machine is shared: read medians, not single runs).

### ${R.fmt(opts.items)} items per execution: our node vs HTTP Request + generic OAuth2 credential

Workflow: Webhook (answers when the last node finished) → Code node making ${R.fmt(opts.items)} items → the node
under test. Ours: Consent Flow → create, Real Estate Estimate → estimate → get (credential: the
package's OAuth2 types). Every create item carries all six fields (nationalId — synthetic, month
+ 80 —, lastName, organizationId, redirectUrl, webhookUrl, externalId), and every create side takes
all six from the item: our node twice, with *Map Automatically* (the item's fields by name, no
expression) and with *Map Each Field Manually* (\`{{ $json.<field> }}\` in each of its six
parameters, 6 expressions per item). Built-in: HTTP Request ${versions.httpRequest} with Authentication *Generic Credential
Type* → *OAuth2 API* (\`oAuth2Api\`, grant type Client Credentials, the same client, token URL and
scope, client authentication in the header like ours), the same \`POST /api/flow-definitions/sbl\` with
the same JSON body per item, resp. the same \`POST …/RealEstates/{knr}/{gnr}/{bnr}/{fnr}/{snr}/EvEstimate\`
(${comparisons.every((c) => c.sameRequests) ? 'checked: in every comparison every side sent the same set of requests — method, path, JSON body' : 'the request sets differed somewhere: see Problems'}).
Each built-in job in two variants, because n8n evaluates each expression parameter separately (one
evaluation however many \`{{ }}\` it holds) and that is where most of the time goes:
*one expression* — create: Send Body → JSON → Using JSON, one templated JSON body; get: one templated
URL; *fields one by one* — create: Send Body → JSON → Using Fields Below, one body parameter per field
(each an expression reading the item, 6 per item, as our manual mapping); get: the
HTTP Request node has a single URL parameter, so mapping the identity one field per expression takes an
Edit Fields (Set 3.4, only the set fields) node before it with knr, gnr, bnr, fnr, snr as five
expressions, then the same templated URL (6 evaluations per item; ours: 5) — its node time is the sum
of both nodes' \`executionTime\`.
HTTP Request has no concurrency setting: without its Batching option it starts each item's request as
soon as the item's parameters are read, without waiting for earlier answers, and awaits them all together. *Node time* = the node's \`executionTime\` in n8n's execution data; *wall time* = the
execution's \`startedAt → stoppedAt\` (webhook, Code node and saving included). "+${opts.latency} ms" = the
simulator's latency fault on every request, token requests included. Each workflow ran once first
with a fresh credential (its token requests are the first figure in the last column; its timings are
not in the medians), then ${opts.reps} measured run${opts.reps === 1 ? '' : 's'}, interleaved (ours, built-in, the other levels, ours, built-in, …); the other
levels use the default side's credential (token already stored).
${cfOption.exists ? '' : `\nThe Consent Flow node in this build has no Concurrent Requests option (it sends one request at a time): create was measured at that default only.\n`}
${R.nodeTable(comparisons)}

${mappingSummary(comparisons)}
${concurrencySummary(comparisons)}
${
	receivers
		? ''
		: `
${nodeProblems(problems)}

This run skipped the signed deliveries (\`--no-deliveries\`): the next subsection is the previous
full run's, unchanged.
`
}${receivers ? deliveriesText({ opts, versions, receivers, problems, lazy }) : ''}`;
}

function nodeProblems(problems) {
	return problems.length
		? `Problems seen in this run:\n\n${problems.map((p) => `- ${p}`).join('\n')}\n`
		: 'Every execution succeeded with the expected item count.';
}

function loadRange(comparisons) {
	const loads = comparisons.flatMap((c) => c.sides.flatMap((s) => s.runs.map((r) => r.load)));
	return loads.length
		? `${R.fmt(Math.min(...loads), 2)}–${R.fmt(Math.max(...loads), 2)} (median ${R.fmt(M.median(loads), 2)})`
		: '—';
}

function deliveriesText({ opts, versions, receivers, problems, lazy }) {
	return `
${R.DELIVERIES}

${R.fmt(opts.deliveries)} deliveries per run (after a warm-up of ${opts.warmDeliveries}), from ${opts.senders} concurrent senders, each on a new
connection; bodies, \`${'x-acme-sbl-signature'}\` (hex HMAC-SHA256 of the exact bytes) and headers made by the
simulator's own signer (\`test/simulator/lib/webhooks.js\`), unique webhookIds, the ten events round-robin
(consent.rejected and consent.deleted in the older envelope). ${opts.deliveryReps} run${opts.deliveryReps === 1 ? '' : 's'} per receiver, interleaved, the
order balanced over the rounds (${R.orderText(receivers.sides.length, opts.deliveryReps)}). *n8n CPU* = user + system time of n8n's whole
process group (every thread; from \`/proc\`) from the first request until the run's executions stopped, per delivery. At n8n's
defaults every receiver here is CPU-bound (rate × CPU per delivery ≈ the machine's cores); on this shared virtual machine the
CPU time per delivery rises and falls with the host's load as the rates do.
*Answered* = all HTTP answers received; *executed* = until the last of the N executions stopped
(\`stoppedAt\`, executions counted through n8n's public API, status success). Webhook ${versions.webhook},
Code 2, Switch 3.2; the do-it-yourself Code node needs \`NODE_FUNCTION_ALLOW_BUILTIN=crypto\` (set
for this n8n) and holds the secret in its code; it answers 200 before verifying (a bad signature
becomes a failed execution, not a 401). The trigger answers after verifying and recording the
webhookId (duplicate check, workflow static data, which n8n saves to its database on every emitted
delivery)${opts.dedupeOff ? '; the row with Ignore Duplicate Deliveries off shows what that memory costs' : ''}.

${R.webhookTable(receivers.sides)}

${problems.length ? `Problems seen in this run:\n\n${problems.map((p) => `- ${p}`).join('\n')}\n` : 'Every execution succeeded with the expected item count; every delivery was answered 2xx and became exactly one successful execution.'}
${lazyText(lazy)}`;
}

// ---- main ------------------------------------------------------------------------------------------

// ---- under a rate limit --------------------------------------------------------------------------

const RATE_SECTION = '## Under a rate limit: adaptive concurrency vs the HTTP Request node';

/** One run of a workflow whose node may fail: counts from n8n's execution and the simulator's log. */
async function rateLimitedRun(ctx, side) {
	const { n8n, sim } = ctx;
	const before = (await n8n.executions(side.wf.id, { includeData: false })).length;
	await ctx.log.next();
	const t0 = Date.now();
	const res = await n8n.callWebhook(side.wf.path, {});
	const list = await n8n.waitForExecutions(side.wf.id, { count: before + 1, timeoutMs: 300000 });
	const exec = await n8n.execution(list[0].id, { includeData: true });
	const ms = Date.now() - t0;
	const calls = (await ctx.log.next()).filter((r) =>
		r.path.startsWith(`${sim.estimatePrefix}/RealEstates/`),
	);
	const run = exec.data?.resultData?.runData?.[side.wf.nodeName]?.[0];
	const items = run?.data?.main?.[0] || [];
	const error = exec.data?.resultData?.error?.message || run?.error?.message;
	return {
		label: side.label,
		status: exec.status,
		answer: res.status,
		ms,
		outputItems: items.length,
		failedItems: items.filter((it) => it.json && it.json.error !== undefined).length,
		answered: calls.filter((r) => r.status === 200).length,
		refused: calls.filter((r) => r.status === 429).length,
		error: error ? String(error).slice(0, 100) : undefined,
	};
}

async function underRateLimit(ctx, { opts, option, httpVersion }) {
	const { n8n, sim } = ctx;
	const sides = [
		{
			label: `Real Estate Estimate node (Concurrent Requests ${option.default}, adaptive)`,
			build: (c) => B.estimateGet({ count: opts.rateItems, cred: c }),
			credential: () => S.estimateCredential(ctx, 'bench rate ours'),
		},
		{
			label: 'HTTP Request + oAuth2Api, templated URL (defaults)',
			build: (c) => B.httpEstimateGet({ count: opts.rateItems, cred: c, sim, httpVersion }),
			credential: () =>
				genericOAuth2(ctx, 'bench rate http', {
					tokenUrl: sim.realms.estimate.tokenUrl,
					client: sim.clients.estimate,
					scope: 'estimate:read',
				}),
		},
	];
	for (const side of sides) {
		const cred = await side.credential();
		const built = side.build(cred);
		const created = await n8n.deployWorkflow(built.workflow);
		side.wf = { id: created.id, path: built.path, nodeName: built.nodeName };
		// a first run without the limit fetches the token (both sides alike)
		await rateLimitedRun(ctx, side);
	}
	await simConfig(sim, { rateLimitPerSecond: opts.rateLimit });
	const results = [];
	try {
		for (const side of sides) {
			await new Promise((r) => setTimeout(r, 1100)); // a full bucket for each side
			const r = await rateLimitedRun(ctx, side);
			log(`rate limit ${opts.rateLimit}/s | ${r.label}: ${JSON.stringify(r)}`);
			results.push(r);
		}
	} finally {
		await simConfig(sim, { rateLimitPerSecond: 0 });
	}
	return results;
}

function rateLimitText({ opts, info, results }) {
	const rows = results
		.map(
			(r) =>
				`| ${r.label} | ${r.status}${r.error ? ` (${r.error})` : ''} | ${r.outputItems} | ${r.failedItems} | ${r.answered} | ${r.refused} | ${R.fmt(r.ms / 1000, 1)} s |`,
		)
		.join('\n');
	return `${RATE_SECTION}

Measured with \`npm run bench:n8n\` (part 3; \`-- --only-rate-limit\` runs it alone) on ${new Date().toISOString().slice(0, 10)}: n8n ${info.n8nVersion}, ${info.nproc} cores, ${R.fmt(info.ramGiB, 0)} GiB, package at ${info.commit}. The
simulator's rate limiter at ${opts.rateLimit} requests/s (a token bucket of ${opts.rateLimit}, refilled at that rate; beyond it 429 with
\`Retry-After: 1\`); Webhook → Code (${opts.rateItems} items) → the node, the same \`…/EvEstimate\` requests; one run each after a
warm-up run without the limit (token cached), a full bucket at the start of each. The floor is ${R.fmt(Math.max(0, opts.rateItems - opts.rateLimit) / opts.rateLimit, 1)} s.

| Side | Execution | Output items | Failed items | Answered 200 | Answered 429 | Time |
|---|---|---:|---:|---:|---:|---:|
${rows}

What our node does (\`nodes/shared/pacer.ts\`): every HTTP attempt takes a slot; the slots start at the node's default, grow by one
per window of fast answers up to Concurrent Requests, halve once per window on 429/503, and a Retry-After pauses every lane. A
refusal of an attempt sent while others were in flight does not use up the item's retries (at most 20 such). The HTTP Request
node has no limit on requests in flight and stops the execution at the first 429 (with *Retry On Fail* n8n runs the whole node
again; with *Continue On Fail* the refused items come out as errors). \`test/e2e/rate-limit.test.js\` checks ours on n8n 2.x and
1.x (1.x drops the Retry-After of a failed request: more 429s, still no failed item).
`;
}

async function main() {
	const opts = parseArgs(process.argv.slice(2));
	const started = Date.now();
	const info = { ...R.machine() };
	info.loadBefore = info.load;
	log(
		`bench:n8n ${opts.quick ? '(quick) ' : ''}— ${opts.items} items, ${opts.deliveries2 ? opts.deliveries : 'no'} deliveries, ${opts.reps} run(s) each, +${opts.latency} ms, levels ${opts.levels.join(',')}`,
	);

	const pkg = packPackage({ build: 'if-missing' });
	const { sim } = await startSimulatorProcess({ onSpawn: (child) => (running.sim = child) });
	await simConfig(sim, { autoLifecycle: false }); // creates send no lifecycle webhooks
	const n8n = await startN8n({
		major: '2',
		tgz: pkg.tgz,
		logLevel: 'warn',
		env: { NODE_FUNCTION_ALLOW_BUILTIN: 'crypto', ...opts.n8nEnv },
	});
	running.n8n = n8n;
	info.n8nVersion = n8n.version;
	try {
		info.commit = execFileSync('git', ['describe', '--always', '--dirty'], {
			cwd: ROOT,
			encoding: 'utf8',
		}).trim();
	} catch {
		info.commit = 'unknown';
	}
	info.n8nNode = execFileSync(n8n.install.node, ['--version'], { encoding: 'utf8' })
		.trim()
		.replace(/^v/, '');

	const types = await n8n.rest('GET', '/types/nodes.json');
	const cfOption = concurrencyOption(types, `${S.PKG_NAME}.consentFlow`, 'create');
	const reeOption = concurrencyOption(types, `${S.PKG_NAME}.realEstateEstimate`, 'get');
	const versions = {
		httpRequest: latestVersion(types, 'n8n-nodes-base.httpRequest', 4.2),
		webhook: latestVersion(types, 'n8n-nodes-base.webhook', 2),
	};
	log(
		`Consent Flow Concurrent Requests: ${cfOption.exists ? `default ${cfOption.default}` : 'no such option (one at a time)'}; Real Estate Estimate: default ${reeOption.default}; HTTP Request ${versions.httpRequest}, Webhook ${versions.webhook}`,
	);

	const ctx = { n8n, sim, log: M.simLogReader(sim) };
	const comparisons = [];
	if (opts.onlyRateLimit) {
		const results = await underRateLimit(ctx, {
			opts,
			option: reeOption,
			httpVersion: versions.httpRequest,
		});
		await cleanup();
		const text = rateLimitText({ opts, info, results });
		process.stdout.write(`\n${text}\n`);
		if (opts.write) R.writeSection(BENCHMARKS, RATE_SECTION, text);
		return;
	}
	if (opts.onlyDeliveries) {
		const only = await compareReceivers(ctx, { opts, webhookVersion: versions.webhook });
		let lazy = null;
		if (wantsLazy(opts)) {
			await stopFirstN8n();
			lazy = await lazyReceivers({ pkg, sim, opts, webhookVersion: versions.webhook });
		}
		await cleanup();
		info.loadAfter = os.loadavg()[0];
		const env = Object.entries(opts.n8nEnv).map(([k, v]) => `${k}=${v}`).join(' ') || 'none';
		process.stdout.write(
			`\n### Deliveries only (n8n ${info.n8nVersion}, extra n8n environment: ${env}, package at ${info.commit}, load ${R.fmt(info.loadBefore, 2)} → ${R.fmt(info.loadAfter, 2)})\n\n${R.webhookTable(only.sides)}\n\nTrigger ÷ bare Webhook, executed/s (medians): ${R.fmt(triggerOverBare(only.sides), 2)}×\n${only.problems.length ? `\nProblems:\n${only.problems.map((p) => `- ${p}`).join('\n')}\n` : ''}${lazyText(lazy)}`,
		);
		if (only.problems.length || lazy?.problems.length) process.exitCode = 1;
		return;
	}
	for (const latencyMs of [0, opts.latency]) {
		await M.clearFaults(sim);
		if (latencyMs) await simFault(sim, { latencyMs, count: 1e9 });
		const common = { opts, latencyMs, httpVersion: versions.httpRequest };
		comparisons.push(
			await compareNodes(ctx, {
				title: 'Consent Flow create',
				latencyMs,
				opts,
				api: { prefix: '/consent/api/flow-definitions/sbl', okStatus: 201 },
				sides: consentSides(ctx, { ...common, option: cfOption }),
			}),
		);
		comparisons.push(
			await compareNodes(ctx, {
				title: 'Real Estate Estimate get',
				latencyMs,
				opts,
				api: { prefix: `${sim.estimatePrefix}/RealEstates/`, okStatus: 200 },
				sides: estimateSides(ctx, { ...common, option: reeOption }),
			}),
		);
	}
	await M.clearFaults(sim);

	const receivers = opts.deliveries2
		? await compareReceivers(ctx, { opts, webhookVersion: versions.webhook })
		: null;
	const rateResults =
		opts.rateLimit > 0
			? await underRateLimit(ctx, { opts, option: reeOption, httpVersion: versions.httpRequest })
			: null;

	let lazy = null;
	if (receivers && wantsLazy(opts)) {
		await stopFirstN8n();
		lazy = await lazyReceivers({ pkg, sim, opts, webhookVersion: versions.webhook });
	}

	await cleanup();
	info.loadAfter = os.loadavg()[0];
	const runSeconds = (Date.now() - started) / 1000;
	const problems = [
		...comparisons.flatMap((c) => c.problems),
		...(receivers?.problems || []),
		...(lazy?.problems || []),
	];
	const text = sectionText({
		opts,
		info,
		comparisons,
		receivers,
		lazy,
		problems,
		cfOption,
		reeOption,
		versions,
		runSeconds,
	});
	process.stdout.write(`\n${text}\n`);
	if (opts.write) {
		R.writeSection(BENCHMARKS, R.SECTION, text, {
			keep: receivers ? ['### Reading'] : [R.DELIVERIES, '### Reading'],
		});
		log(`wrote the section "${R.SECTION.slice(3)}" of BENCHMARKS.md`);
		if (rateResults)
			R.writeSection(BENCHMARKS, RATE_SECTION, rateLimitText({ opts, info, results: rateResults }));
	}
	log(`done in ${R.fmt(runSeconds / 60, 1)} min`);
	if (problems.length) process.exitCode = 1;
}

main().then(
	() => cleanup(),
	async (error) => {
		console.error(error && error.stack ? error.stack : error);
		await cleanup();
		process.exit(1);
	},
);
