#!/usr/bin/env node
'use strict';
// Where one receiver's time goes in a real n8n 2.41.1: N signed deliveries (8 senders) go to ONE
// receiver (trigger | header | bare) per n8n, and for each round it prints deliveries/s, CPU ms per
// delivery of n8n's whole process group (every thread, from /proc; also by thread name) and, with
// --count, the expression isolates n8n acquired, the expressions it evaluated and the SQLite
// statements it ran per delivery (count-isolates.js preloaded). Unless --no-prof, n8n runs with
// --cpu-prof and the main thread's self time during the measured burst is summed per function and
// per package. An investigation tool (BENCHMARKS.md, "Side by side in one n8n", Reading), not a test.
//   node scripts/bench/profile-receiver.js trigger|header|bare [--deliveries N] [--rounds N]
//                                          [--count] [--no-prof] [--lazy] [--no-dedupe] [--out DIR]
//                                          [--files REGEX]
// --files: also the self time of the functions whose file matches REGEX, summed (e.g. the value
// search: 'identity-search|webhook/minimise').
// --lazy: N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true (what is left without isolates); --no-dedupe: the
// trigger with Ignore Duplicate Deliveries off (what its duplicate memory costs).
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { packPackage } = require('../../test/e2e/lib/pkg');
const { startN8n } = require('../../test/e2e/lib/n8n');
const { simConfig } = require('../../test/e2e/lib/suite');
const B = require('./n8n-workflows');
const M = require('./n8n-measure');
const {
	groupCpuByThread,
	groupCpuSeconds: groupCpu,
	pidCpuSeconds: pidCpu,
} = require('./proc-cpu');
const { startSimulatorProcess } = require('./simulator-process');

const which = process.argv[2];
const arg = (name, dflt) => {
	const i = process.argv.indexOf(name);
	return i === -1 ? dflt : process.argv[i + 1];
};
const count = Number(arg('--deliveries', 300));
const profile = !process.argv.includes('--no-prof');
const rounds = Number(arg('--rounds', 1));
const lazy = process.argv.includes('--lazy');
const dedupe = !process.argv.includes('--no-dedupe');
const countFile = process.argv.includes('--count')
	? path.join(require('node:os').tmpdir(), `sbl-isolates-${process.pid}`)
	: null;
const addCounts = (into, from = {}) => {
	for (const [k, n] of Object.entries(from)) into[k] = (into[k] || 0) + n;
};
/** n8n's counted work so far (count-isolates.js), summed over its processes and threads. */
const counted = () => {
	const sum = { isolates: 0, sql: {}, sqlParamBytes: 0, expressions: {} };
	if (!countFile) return sum;
	const dir = path.dirname(countFile);
	const prefix = `${path.basename(countFile)}.`;
	for (const f of fs
		.readdirSync(dir)
		.filter((f) => f.startsWith(prefix) && /^\d+$/.test(f.slice(prefix.length)))) {
		const c = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
		sum.isolates += c.isolates;
		sum.sqlParamBytes += c.sqlParamBytes;
		addCounts(sum.sql, c.sql);
		addCounts(sum.expressions, c.expressions);
	}
	return sum;
};
/** Per delivery between two counted() readings. */
function countedPerDelivery(before, after, count) {
	const per = (n) => Number((n / count).toFixed(3));
	// a map of counts (by SQL verb, by expression) per delivery, the ones that occurred
	const perEntry = (b, a) =>
		Object.fromEntries(
			Object.entries(a)
				.map(([k, n]) => [k, per(n - (b[k] || 0))])
				.filter(([, n]) => n > 0),
		);
	return {
		isolatesPerDelivery: per(after.isolates - before.isolates),
		sqlPerDelivery: perEntry(before.sql, after.sql),
		expressionsPerDelivery: perEntry(before.expressions, after.expressions),
		sqlParamKBPerDelivery: Number(
			((after.sqlParamBytes - before.sqlParamBytes) / count / 1024).toFixed(2),
		),
	};
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const files = arg('--files', null) === null ? null : new RegExp(arg('--files', null));
const out = path.resolve(arg('--out', path.join(require('node:os').tmpdir(), `sbl-prof-${which}`)));

/** Self time per function (top 40) and per package, from a .cpuprofile. */
function summarise(file, window) {
	const p = JSON.parse(fs.readFileSync(file, 'utf8'));
	const dt = new Map();
	// only the samples of the measured burst: its wall-clock window counted back from the profile's end
	const from = p.endTime - window.fromEndUs;
	const to = p.endTime - window.toEndUs;
	let at = p.startTime;
	for (let i = 0; i < p.samples.length; i++) {
		at += p.timeDeltas[i] || 0;
		if (at < from || at > to) continue;
		dt.set(p.samples[i], (dt.get(p.samples[i]) || 0) + (p.timeDeltas[i] || 0));
	}
	const byFn = new Map();
	const byPkg = new Map();
	let total = 0;
	let matched = 0;
	for (const n of p.nodes) {
		const t = dt.get(n.id) || 0;
		total += t;
		const cf = n.callFrame;
		if (files && files.test(cf.url)) matched += t;
		const pkg = (cf.url.match(/node_modules\/((@[^/]+\/)?[^/]+)/) || [
			,
			cf.url ? 'node-internal/other' : `(${cf.functionName || 'native'})`,
		])[1];
		const fn = `${cf.functionName || '(anon)'} ${cf.url.replace(/.*node_modules\//, '')}:${cf.lineNumber}`;
		byFn.set(fn, (byFn.get(fn) || 0) + t);
		byPkg.set(pkg, (byPkg.get(pkg) || 0) + t);
	}
	const top = (m, k) =>
		[...m]
			.sort((a, b) => b[1] - a[1])
			.slice(0, k)
			.map(
				([n, t]) =>
					`${(t / 1000).toFixed(0).padStart(7)} ms ${((100 * t) / total).toFixed(1).padStart(5)} %  ${n}`,
			);
	return {
		totalMs: total / 1000,
		matchedMs: matched / 1000,
		fns: top(byFn, 40),
		pkgs: top(byPkg, 25),
	};
}

(async () => {
	fs.rmSync(out, { recursive: true, force: true });
	fs.mkdirSync(out, { recursive: true });
	const pkg = packPackage({ build: 'if-missing' });
	const { child, sim } = await startSimulatorProcess();
	await simConfig(sim, { autoLifecycle: false });
	const n8n = await startN8n({
		major: '2',
		tgz: pkg.tgz,
		logLevel: 'warn',
		env: {
			NODE_OPTIONS: [
				profile ? `--cpu-prof --cpu-prof-dir=${out}` : '',
				countFile ? `--require ${path.join(__dirname, 'count-isolates.js')}` : '',
			]
				.join(' ')
				.trim(),
			...(countFile && { SBL_ISOLATE_COUNT: countFile }),
			...(lazy && { N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true' }),
		},
	});
	const window = {};
	try {
		let built;
		let headers = {};
		if (which === 'trigger') {
			const cred = await n8n.createCredential({
				name: 's',
				type: 'consentFlowWebhookSigningApi',
				data: { secret: sim.signingSecret, signatureHeader: '' },
			});
			built = B.triggerWorkflow({ cred, ...(!dedupe && { ignoreDuplicates: false }) });
		} else if (which === 'header') {
			const value = crypto.randomBytes(24).toString('base64url');
			const cred = await n8n.createCredential({
				name: 'h',
				type: 'httpHeaderAuth',
				data: { name: 'X-Bench-Token', value },
			});
			built = B.bareWebhookWorkflow({ webhookVersion: 2.1, headerAuthCred: cred });
			headers = { 'x-bench-token': value };
		} else built = B.bareWebhookWorkflow({ webhookVersion: 2.1 });
		const created = await n8n.deployWorkflow(built.workflow, { webhookPaths: [built.path] });
		const receiver = { url: n8n.webhookUrl(built.path), headers, workflowId: created.id };
		const warm = await M.runDeliveryBurst({ n8n, sim, receiver, count: 20, senders: 8, offset: 0 });
		await M.settle(n8n, created.id);
		let offset = 20;
		for (let round = 1; round <= rounds; round++) {
			await sleep(500);
			const counted0 = counted();
			const cpu0 = {
				n8n: groupCpu(n8n.pid),
				sim: pidCpu(child.pid),
				me: process.cpuUsage(),
				threads: groupCpuByThread(n8n.pid),
			};
			window.start = Date.now();
			const r = await M.runDeliveryBurst({ n8n, sim, receiver, count, senders: 8, offset });
			window.end = Date.now();
			offset += count;
			await M.settle(n8n, created.id);
			const me = process.cpuUsage(cpu0.me);
			await sleep(500);
			const work = countFile ? countedPerDelivery(counted0, counted(), count) : {};
			const perDelivery = (s) => Number(((1000 * s) / count).toFixed(1));
			console.log(
				JSON.stringify({
					which,
					round,
					executedPerSec: Number(r.executedPerSec.toFixed(2)),
					answeredPerSec: Number(r.answeredPerSec.toFixed(2)),
					ok: r.ok,
					success: r.success,
					...work,
					cpuMsPerDelivery: {
						n8n: perDelivery(groupCpu(n8n.pid) - cpu0.n8n),
						simulator: perDelivery(pidCpu(child.pid) - cpu0.sim),
						sender: perDelivery((me.user + me.system) / 1e6),
					},
				}),
			);
			// where n8n's CPU went, by thread name (threads that ended during the round are missing)
			const threads = [...groupCpuByThread(n8n.pid)]
				.map(([name, s]) => [name, perDelivery(s - (cpu0.threads.get(name) ?? 0))])
				.filter(([, ms]) => ms >= 0.5)
				.sort((a, b) => b[1] - a[1]);
			console.log(
				JSON.stringify({ which, round, cpuMsPerDeliveryByThread: Object.fromEntries(threads) }),
			);
		}
	} finally {
		await n8n.stop({ timeoutMs: 60000 });
		window.stopped = Date.now();
		child.kill('SIGTERM');
	}
	const span = {
		fromEndUs: (window.stopped - window.start) * 1000,
		toEndUs: (window.stopped - window.end) * 1000,
	};
	if (!profile) return;
	for (const f of fs.readdirSync(out).filter((f) => f.endsWith('.cpuprofile'))) {
		const s = summarise(path.join(out, f), span);
		if (s.totalMs < 1000) continue;
		if (files)
			console.log(
				`\n## ${f}: functions in files matching ${files}: ${s.matchedMs.toFixed(1)} ms self time of ${s.totalMs.toFixed(0)} ms sampled`,
			);
		console.log(
			`\n## ${f}: ${s.totalMs.toFixed(0)} ms sampled\n### by package\n${s.pkgs.join('\n')}\n### by function (self)\n${s.fns.join('\n')}`,
		);
	}
})().catch((e) => {
	console.error(e);
	process.exit(1);
});
