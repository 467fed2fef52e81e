#!/usr/bin/env node
'use strict';

// Benchmark of the Real Estate Estimate node (run `npm run build` first; it loads dist/).
//
//   node scripts/bench/estimate.js [--items 1000] [--levels 1,2,5,10,20,50] [--runs 5]
//                                  [--latency 50] [--no-latency] [--no-memory] [--no-write]
//
// 1. Throughput: `--items` estimate → get items against the simulator (in its own process), at each
//    "Concurrent Requests" level, on loopback (best of nothing: the median of `--runs` runs) and with
//    `--latency` ms added per request by the simulator's latency fault (a WAN-like round trip).
// 2. Memory: document → download of the 50 MB PDF (id 900050) into n8n-core's real binary data
//    service in filesystem mode (n8n's default: the stream goes to disk), next to n8n's in-memory
//    mode for comparison, a 100 MB one, and five 20–24 MB downloads at concurrency 5; RSS and heap sampled every
//    5 ms in a fresh process each (--expose-gc, collected before the baseline).
// Prints a table and writes the section "Real Estate Estimate" of BENCHMARKS.md (--no-write: don't).

const { execSync, fork } = require('node:child_process');
const { startSimulatorProcess } = require('./simulator-process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '../..');
const DIST_NODE = path.join(root, 'dist/nodes/RealEstateEstimate/RealEstateEstimate.node.js');
const SECTION = '## Real Estate Estimate';

function args(argv) {
	const out = {
		items: 1000,
		levels: [1, 2, 5, 10, 20, 50],
		runs: 5,
		latency: 50,
		memory: true,
		write: true,
		withLatency: true,
	};
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i];
		if (a === '--items') out.items = Number(argv[++i]);
		else if (a === '--levels') out.levels = argv[++i].split(',').map(Number);
		else if (a === '--runs') out.runs = Number(argv[++i]);
		else if (a === '--latency') out.latency = Number(argv[++i]);
		else if (a === '--no-latency') out.withLatency = false;
		else if (a === '--no-memory') out.memory = false;
		else if (a === '--no-write') out.write = false;
		else if (a === '--memory-child') out.memoryChild = JSON.parse(argv[++i]);
		else throw new Error(`unknown argument ${a}`);
	}
	return out;
}

function loadNode() {
	if (!fs.existsSync(DIST_NODE)) {
		console.error(`${path.relative(root, DIST_NODE)} is missing: run \`npm run build\` first.`);
		process.exit(1);
	}
	return require(DIST_NODE).RealEstateEstimate;
}

function credentialsFor(sim) {
	return {
		realEstateEstimateOAuth2Api: {
			accessTokenUrl: `${sim.authUrl}/realms/estimate/protocol/openid-connect/token`,
			apiBaseUrl: sim.estimateBaseUrl,
			clientId: sim.clients.estimate.clientId,
			clientSecret: sim.clients.estimate.clientSecret,
			authentication: 'header',
			scope: 'estimate:read',
			grantType: 'clientCredentials',
		},
	};
}

async function control(sim, method, route, body) {
	const response = await fetch(`${sim.url}/__sim${route}`, {
		method,
		headers: body ? { 'content-type': 'application/json' } : {},
		body: body ? JSON.stringify(body) : undefined,
	});
	if (!response.ok) throw new Error(`control ${method} ${route}: ${response.status}`);
	return await response.json().catch(() => undefined);
}

const median = (values) => {
	const sorted = [...values].sort((a, b) => a - b);
	const mid = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

// ---- throughput ---------------------------------------------------------------------------------

function getItems(count, concurrency) {
	return Array.from({ length: count }, (_, i) => ({
		resource: 'estimate',
		operation: 'get',
		identifyBy: 'cadastre',
		knr: ['0301', '4601', '5001', '1103'][i % 4],
		gnr: 1 + (i % 400), // (gnr 404 is the simulator's unknown object)
		bnr: 1 + (i % 37),
		fnr: 0,
		snr: i % 3,
		overrides: { usableArea: 50 + (i % 70), buildYear: 1950 + (i % 70) },
		dontStoreEstimate: true, // keeps the simulator's work per request constant
		simplify: false,
		options: { concurrency },
	}));
}

async function runGets(Node, createBenchContext, sim, count, concurrency, tokenCache) {
	const ctx = createBenchContext({
		parameters: getItems(count, concurrency),
		itemCount: count,
		credentials: credentialsFor(sim),
		tokenCache,
	});
	const started = process.hrtime.bigint();
	const [output] = await new Node().execute.call(ctx);
	const seconds = Number(process.hrtime.bigint() - started) / 1e9;
	if (
		output.length !== count ||
		output.some(
			(item, i) =>
				item.pairedItem.item !== i || typeof item.json.approvedTotalMarketValue !== 'number',
		)
	) {
		throw new Error('unexpected output: order, pairing or content wrong');
	}
	return { seconds, perSecond: count / seconds };
}

async function throughput(options, Node, sim) {
	const { createBenchContext } = require('./context');
	const tokenCache = {};
	const prefix = sim.estimatePrefix;
	await runGets(Node, createBenchContext, sim, 200, 5, tokenCache); // warm-up: token, JIT, sockets
	await control(sim, 'DELETE', '/requests');

	const loopback = Object.fromEntries(options.levels.map((c) => [c, []]));
	for (let run = 0; run < options.runs; run++) {
		const order = run % 2 ? [...options.levels].reverse() : options.levels; // alternate against drift
		for (const c of order) {
			const result = await runGets(Node, createBenchContext, sim, options.items, c, tokenCache);
			loopback[c].push(result.perSecond);
			await control(sim, 'DELETE', '/requests');
			process.stdout.write(
				`  loopback  c=${String(c).padStart(2)} run ${run + 1}: ${result.perSecond.toFixed(0)} items/s\n`,
			);
		}
	}

	const latency = {};
	if (options.withLatency) {
		for (const c of options.levels) {
			await control(sim, 'POST', '/faults', {
				count: options.items,
				latencyMs: options.latency,
				match: { pathPrefix: `${prefix}/RealEstates/` },
			});
			const result = await runGets(Node, createBenchContext, sim, options.items, c, tokenCache);
			latency[c] = result.perSecond;
			await control(sim, 'DELETE', '/faults');
			await control(sim, 'DELETE', '/requests');
			process.stdout.write(
				`  +${options.latency} ms   c=${String(c).padStart(2)}: ${result.perSecond.toFixed(1)} items/s\n`,
			);
		}
	}
	return {
		loopback: Object.fromEntries(
			Object.entries(loopback).map(([c, values]) => [c, { median: median(values), runs: values }]),
		),
		latency,
	};
}

// ---- memory (child process) ---------------------------------------------------------------------

async function memoryChild({ sim, mode, documentIds, concurrency }) {
	const Node = loadNode();
	const { createBenchContext, initBinaryData } = require('./context');
	const storagePath = await initBinaryData(mode);
	const ctx = createBenchContext({
		parameters: documentIds.map((documentId) => ({
			resource: 'document',
			operation: 'download',
			documentId,
			binaryPropertyName: 'data',
			options: { concurrency },
		})),
		itemCount: documentIds.length,
		credentials: credentialsFor(sim),
	});
	// token and sockets first, so the baseline includes them
	await ctx.helpers.httpRequestWithAuthentication('realEstateEstimateOAuth2Api', {
		method: 'GET',
		url: `${sim.estimateBaseUrl}/RealEstates/0301/208/12/0/0/MarketEstimate`,
		json: true,
	});
	for (let i = 0; i < 3; i++) global.gc();
	const base = process.memoryUsage();
	const peak = {
		rss: base.rss,
		heapUsed: base.heapUsed,
		external: base.external,
		arrayBuffers: base.arrayBuffers,
	};
	let samples = 0;
	const sample = () => {
		const m = process.memoryUsage();
		samples++;
		for (const key of Object.keys(peak)) peak[key] = Math.max(peak[key], m[key]);
	};
	const timer = setInterval(sample, 5);
	const started = process.hrtime.bigint();
	const [output] = await new Node().execute.call(ctx);
	const seconds = Number(process.hrtime.bigint() - started) / 1e9;
	sample();
	clearInterval(timer);

	// check: the bytes stored are the bytes served (hash both as streams, nothing buffered whole)
	const checks = [];
	for (const [index, documentId] of documentIds.entries()) {
		const binary = output[index].binary.data;
		const served = crypto.createHash('sha256');
		const response = await fetch(`${sim.estimateBaseUrl}/EvEstimate/Documents/${documentId}`);
		for await (const chunk of response.body) served.update(chunk);
		const stored = crypto.createHash('sha256');
		if (binary.id) {
			const file = path.join(storagePath, binary.id.split(':')[1]);
			for await (const chunk of fs.createReadStream(file)) stored.update(chunk);
		} else {
			stored.update(Buffer.from(binary.data, 'base64'));
		}
		checks.push({
			documentId,
			bytes: output[index].json.fileSize,
			sameBytes: served.digest('hex') === stored.digest('hex'),
			onDisk: Boolean(binary.id),
		});
	}
	fs.rmSync(storagePath, { recursive: true, force: true });
	const mb = (n) => n / 1024 / 1024;
	process.send({
		mode,
		documentIds,
		concurrency,
		seconds,
		samples,
		totalMB: mb(checks.reduce((sum, c) => sum + c.bytes, 0)),
		growthMB: {
			rss: mb(peak.rss - base.rss),
			heapUsed: mb(peak.heapUsed - base.heapUsed),
			external: mb(peak.external - base.external),
			arrayBuffers: mb(peak.arrayBuffers - base.arrayBuffers),
		},
		baseMB: { rss: mb(base.rss), heapUsed: mb(base.heapUsed) },
		checks,
	});
}

function runMemoryChild(payload) {
	return new Promise((resolve, reject) => {
		const child = fork(__filename, ['--memory-child', JSON.stringify(payload)], {
			execArgv: ['--expose-gc'],
			stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
		});
		let result;
		child.on('message', (message) => (result = message));
		child.on('exit', (code) =>
			code === 0 && result ? resolve(result) : reject(new Error(`memory child exited ${code}`)),
		);
	});
}

// ---- report -------------------------------------------------------------------------------------

function machine() {
	let nproc = String(os.cpus().length);
	try {
		nproc = execSync('nproc', { encoding: 'utf8' }).trim();
	} catch {
		// keep os.cpus()
	}
	return {
		nproc,
		cpu: os.cpus()[0]?.model?.trim() ?? 'unknown',
		node: process.version,
		platform: `${process.platform} ${process.arch}`,
		date: new Date().toISOString().slice(0, 10),
	};
}

const fmt = (n, digits = 0) =>
	n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

function render(options, env, tp, memory, load) {
	const lines = [];
	lines.push(SECTION, '');
	lines.push(
		'What the Real Estate Estimate node achieves per "Concurrent Requests" setting, and what a PDF download',
		'costs in memory. Measured with `node scripts/bench/estimate.js` (after `npm run build`; it loads',
		'`dist/nodes/RealEstateEstimate/RealEstateEstimate.node.js`). The node runs in a small execute context',
		"(`scripts/bench/context.js`) whose HTTP is n8n's own `OutboundHttp` (@n8n/backend-network, axios) with a",
		"cached client-credentials token, and whose `prepareBinaryData` is n8n-core's real one over its",
		'`BinaryDataService`. The simulator runs in its own process on loopback.',
		'',
		`Machine: ${env.nproc} cores (nproc), ${env.cpu}, Node ${env.node}, ${env.platform}. Run on ${env.date}; 1-minute load`,
		`average ${load.before.toFixed(2)} before and ${load.after.toFixed(2)} after the run (the machine is shared: figures are indications).`,
		'',
	);
	lines.push(
		`### Throughput: ${fmt(options.items)} × estimate → get (POST …/EvEstimate, overrides in the body)`,
		'',
		`| Concurrent Requests | loopback, items/s (median of ${options.runs}) | loopback runs | ${options.withLatency ? `+${options.latency} ms per request, items/s` : ''} |`,
		'|---:|---:|---|---:|',
	);
	const c1 = tp.loopback[options.levels[0]].median;
	const l1 = tp.latency[options.levels[0]];
	for (const c of options.levels) {
		const lb = tp.loopback[c];
		const lat = tp.latency[c];
		lines.push(
			`| ${c}${c === 5 ? ' (default)' : ''} | ${fmt(lb.median)} (×${(lb.median / c1).toFixed(1)}) | ${lb.runs.map((v) => fmt(v)).join(', ')} | ${lat === undefined ? '' : `${fmt(lat, 1)} (×${(lat / l1).toFixed(1)})`} |`,
		);
	}
	lines.push('');
	if (memory.length) {
		lines.push(
			'### Memory: downloading PDFs into n8n binary data',
			'',
			'Peak growth over the baseline (after GC, token fetched), sampled every 5 ms in a fresh process per row.',
			'',
			'| Scenario | n8n binary mode | Data | Time, s | RSS growth, MB | heapUsed growth, MB | arrayBuffers growth, MB | Bytes equal (sha256) |',
			'|---|---|---:|---:|---:|---:|---:|---|',
		);
		for (const m of memory) {
			const scenario =
				m.documentIds.length === 1
					? `1 × document ${m.documentIds[0]}`
					: `${m.documentIds.length} × ${fmt(m.totalMB / m.documentIds.length)} MB, concurrency ${m.concurrency}`;
			lines.push(
				`| ${scenario} | ${m.mode === 'filesystem' ? 'filesystem (stream to disk)' : 'memory (buffered, base64)'} | ${fmt(m.totalMB, 1)} MB | ${fmt(m.seconds, 2)} | ${fmt(m.growthMB.rss, 1)} | ${fmt(m.growthMB.heapUsed, 1)} | ${fmt(m.growthMB.arrayBuffers, 1)} | ${m.checks.every((c) => c.sameBytes) ? 'yes' : 'NO'} |`,
			);
		}
		lines.push('');
	}
	return lines.join('\n');
}

function writeSection(text) {
	const file = path.join(root, 'BENCHMARKS.md');
	let content = fs.existsSync(file)
		? fs.readFileSync(file, 'utf8')
		: '# Benchmarks\n\nEach section is written by the part of the package it measures.\n';
	const start = content.indexOf(`\n${SECTION}\n`);
	if (start >= 0) {
		const next = content.indexOf('\n## ', start + SECTION.length + 1);
		const reading = content
			.slice(start + 1, next < 0 ? undefined : next)
			.match(/\n(Reading:[\s\S]*?)\n*$/);
		const keep = reading ? `\n${reading[1].trim()}\n` : '';
		content = `${content.slice(0, start + 1)}${text}${keep}${next < 0 ? '' : `\n${content.slice(next + 1)}`}`;
	} else {
		content = `${content.replace(/\n*$/, '\n\n')}${text}`;
	}
	fs.writeFileSync(file, content.replace(/\n*$/, '\n'));
}

async function main() {
	const options = args(process.argv.slice(2));
	if (options.memoryChild) return await memoryChild(options.memoryChild);
	const Node = loadNode();
	const env = machine();
	const load = { before: os.loadavg()[0] };
	const { child, sim } = await startSimulatorProcess();
	try {
		console.log(
			`Real Estate Estimate benchmark — ${env.nproc} cores, ${env.cpu}, Node ${env.node}`,
		);
		console.log('Throughput:');
		const tp = await throughput(options, Node, sim);
		const memory = [];
		if (options.memory) {
			console.log('Memory:');
			for (const payload of [
				{ sim, mode: 'filesystem', documentIds: [900050], concurrency: 1 },
				{ sim, mode: 'memory', documentIds: [900050], concurrency: 1 },
				{ sim, mode: 'filesystem', documentIds: [900100], concurrency: 1 },
				{
					sim,
					mode: 'filesystem',
					documentIds: [900020, 900021, 900022, 900023, 900024],
					concurrency: 5,
				},
			]) {
				const result = await runMemoryChild(payload);
				memory.push(result);
				console.log(
					`  ${payload.mode} ${payload.documentIds.length}×: RSS +${result.growthMB.rss.toFixed(1)} MB, heap +${result.growthMB.heapUsed.toFixed(1)} MB`,
				);
			}
		}
		load.after = os.loadavg()[0];
		const text = render(options, env, tp, memory, load);
		console.log(`\n${text}`);
		if (options.write) {
			writeSection(text);
			console.log('BENCHMARKS.md: section "Real Estate Estimate" written.');
		}
	} finally {
		child.send('close');
	}
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
