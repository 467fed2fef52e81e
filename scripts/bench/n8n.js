#!/usr/bin/env node
'use strict';

// `npm run bench:n8n`: this package's nodes side by side with what a user builds from n8n's own
// nodes, in one run of a real n8n 2.41.1 (the e2e harness's cached install, the packed package
// installed like the Community Nodes screen does) against the simulator.
//
//   node scripts/bench/n8n.js [--quick] [--reps N] [--items N] [--deliveries N] [--senders N]
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
const os = require('node:os');
const path = require('node:path');

const { log } = require('../../test/e2e/lib/install');
const { packPackage } = require('../../test/e2e/lib/pkg');
const { startN8n } = require('../../test/e2e/lib/n8n');
const { simConfig, simFault } = require('../../test/e2e/lib/suite');
const S = require('../../test/e2e/lib/scenarios');
const M = require('./n8n-measure');
const R = require('./n8n-report');
const { parseArgs } = require('./n8n-args');
const { running, cleanup, stopFirstN8n } = require('./n8n-processes');
const N = require('./n8n-nodes');
const { compareReceivers, wantsLazy, lazyReceivers } = require('./n8n-receivers');
const { RATE_SECTION, underRateLimit, rateLimitText } = require('./n8n-rate');
const { sectionText, triggerOverBare, lazyText } = require('./n8n-sections');
const { startSimulatorProcess } = require('./simulator-process');

const ROOT = path.resolve(__dirname, '../..');
const BENCHMARKS = path.join(ROOT, 'BENCHMARKS.md');

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
	const cfOption = N.concurrencyOption(types, `${S.PKG_NAME}.consentFlow`, 'create');
	const reeOption = N.concurrencyOption(types, `${S.PKG_NAME}.realEstateEstimate`, 'get');
	const versions = {
		httpRequest: N.latestVersion(types, 'n8n-nodes-base.httpRequest', 4.2),
		webhook: N.latestVersion(types, 'n8n-nodes-base.webhook', 2),
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
		const env =
			Object.entries(opts.n8nEnv)
				.map(([k, v]) => `${k}=${v}`)
				.join(' ') || 'none';
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
			await N.compareNodes(ctx, {
				title: 'Consent Flow create',
				latencyMs,
				opts,
				api: { prefix: '/consent/api/flow-definitions/sbl', okStatus: 201 },
				sides: N.consentSides(ctx, { ...common, option: cfOption }),
			}),
		);
		comparisons.push(
			await N.compareNodes(ctx, {
				title: 'Real Estate Estimate get',
				latencyMs,
				opts,
				api: { prefix: `${sim.estimatePrefix}/RealEstates/`, okStatus: 200 },
				sides: N.estimateSides(ctx, { ...common, option: reeOption }),
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
