#!/usr/bin/env node
'use strict';
// The benchmarks outside n8n, on the built package (`npm run build` first: they load dist/).
// Each prints a Markdown table (BENCHMARKS.md).
//
//   npm run bench                 signature, then download
//   npm run bench -- signature    what the trigger spends per request before it reads the event:
//                                 signatureCandidates + matchSecret over 1 KB and 1 MB bodies next
//                                 to a bare HMAC, and the duplicate key (topLevelMembers +
//                                 deliveryIdOfToken); interleaved samples, medians
//   npm run bench -- download     Real Estate Estimate document → download of 50 and 100 MB PDFs
//                                 (and five at once) into n8n-core's binary data service, in a
//                                 fresh process per row: RSS growth in filesystem mode (streamed to
//                                 disk) and in memory mode; every download checked byte for byte
//   npm run bench:linear [-- --min-kb N --max-kb N]
//                                 time per MB of the searches every delivery and error body goes
//                                 through, on inputs built to make a search read again what it
//                                 read: flat from the smallest to the largest size means linear
const crypto = require('node:crypto');
const { fork } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const DIST = path.resolve(__dirname, '../../dist/nodes');

/** A module of the build, or a hint to build first. */
function built(file) {
	const full = path.join(DIST, file);
	if (!fs.existsSync(full)) throw new Error(`${full} is missing: run \`npm run build\` first`);
	return require(full);
}

/** The number after `name` on the command line, or `dflt`. */
function numberArg(name, dflt) {
	const i = process.argv.indexOf(name);
	const n = i === -1 ? dflt : Number(process.argv[i + 1]);
	if (!(n >= 1)) throw new Error(`${name} needs a number of at least 1`);
	return n;
}

const fmt = (n, digits = 0) =>
	n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

function table(head, rows) {
	const line = (cells) => `| ${cells.join(' | ')} |`;
	return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}

// ---- signature --------------------------------------------------------------------------------

/** A JSON delivery of exactly `size` bytes (its payload padded). */
function body(size) {
	const envelope = (pad) =>
		JSON.stringify({
			webhookId: 'wh-7f3c2a90-1b7e-4c55-9d0e-5a1f8e2b6c11',
			event: 'consent.data',
			timestamp: '2026-11-22T10:00:00.000Z',
			payload: { externalId: 'loan-42', flow: 'flow-123', pad },
		});
	return Buffer.from(envelope('x'.repeat(size - envelope('').length)));
}

/** Median µs per call of each variant: warmed up, then `samples` batches, interleaved. */
function timeInterleaved(variants, { batch, samples }) {
	for (const v of variants) for (let i = 0; i < batch * 20; i++) v.run();
	const perCall = variants.map(() => []);
	for (let s = 0; s < samples; s++)
		variants.forEach((v, k) => {
			const start = process.hrtime.bigint();
			for (let i = 0; i < batch; i++) v.run();
			perCall[k].push(Number(process.hrtime.bigint() - start) / batch / 1000);
		});
	return perCall.map((values) => values.sort((a, b) => a - b)[values.length >> 1]);
}

function signature() {
	const { signatureCandidates, matchSecret } = built('shared/webhook/signature.js');
	const { topLevelMembers } = built('shared/webhook/json-scan.js');
	const { deliveryIdOfToken } = built('shared/webhook/webhook-id.js');
	const secret = 'bench-signing-key-0123456789abcdef';
	const rows = [];
	for (const [label, size, batch] of [
		['1 KB', 1024, 2000],
		['1 MB', 1024 * 1024, 1],
	]) {
		const bytes = body(size);
		const hmac = () => crypto.createHmac('sha256', secret).update(bytes).digest('hex');
		// seven headers, one of them the signature; no header configured in the credential
		const headers = { host: '127.0.0.1', 'content-type': 'application/json', 'x-request-id': '1' };
		Object.assign(headers, { 'user-agent': 'bench', accept: '*/*', 'accept-encoding': 'gzip' });
		headers['x-acme-sbl-signature'] = hmac();
		const verify = (candidates) => {
			if (matchSecret(bytes, candidates, [secret]) === null) throw new Error('did not verify');
		};
		const key = () =>
			deliveryIdOfToken(topLevelMembers(bytes, ['webhookId', 'id']).get('webhookId'));
		if (key()?.key === undefined) throw new Error('no duplicate key');
		const variants = [
			{ name: 'bare `crypto.createHmac` (hex digest)', run: hmac },
			{
				name: '`matchSecret`, 1 candidate, 1 secret',
				run: () => verify([headers['x-acme-sbl-signature']]),
			},
			{
				name: '`signatureCandidates` + `matchSecret` (the node, per request)',
				run: () => verify(signatureCandidates(headers, '')),
			},
			{ name: 'duplicate key: `topLevelMembers` + `deliveryIdOfToken`', run: key },
		];
		const medians = timeInterleaved(variants, { batch, samples: 200 });
		variants.forEach((v, k) =>
			rows.push([
				label,
				v.name,
				fmt(medians[k], 2),
				`${fmt((100 * medians[k]) / medians[0], 1)} %`,
			]),
		);
	}
	return table(['Body', 'Variant', 'Median µs per call', 'Of the bare HMAC'], rows);
}

// ---- download ---------------------------------------------------------------------------------

/** One row, in this process (forked with --expose-gc): peak memory growth while downloading. */
async function downloadChild({ credential, mode, documentIds }) {
	const { RealEstateEstimate } = built('RealEstateEstimate/RealEstateEstimate.node.js');
	const bench = require('../../test/support/n8n-context');
	const storagePath = await bench.initBinaryData(mode);
	const ctx = bench.createBenchContext({
		parameters: documentIds.map((documentId) => ({
			resource: 'document',
			operation: 'download',
			documentId,
			binaryPropertyName: 'data',
			options: { concurrency: documentIds.length },
		})),
		itemCount: documentIds.length,
		credentials: { realEstateEstimateOAuth2Api: credential },
	});
	// the token and a socket first, so that the baseline holds them
	await ctx.helpers.httpRequestWithAuthentication('realEstateEstimateOAuth2Api', {
		method: 'GET',
		url: `${credential.apiBaseUrl}/RealEstates/0301/208/12/0/0/MarketEstimate`,
		json: true,
	});
	for (let i = 0; i < 3; i++) global.gc();
	const base = process.memoryUsage().rss;
	let peak = base;
	const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
	const [output] = await new RealEstateEstimate().execute.call(ctx);
	clearInterval(timer);
	peak = Math.max(peak, process.memoryUsage().rss); // memory mode keeps the file in the item
	let same = true;
	for (const [i, documentId] of documentIds.entries()) {
		const served = await fetch(`${credential.apiBaseUrl}/EvEstimate/Documents/${documentId}`);
		const binary = output[i].binary.data;
		const stored = binary.id
			? bench.readStoredBinary(storagePath, binary)
			: Buffer.from(binary.data, 'base64');
		same &&= Buffer.from(await served.arrayBuffer()).equals(stored);
	}
	bench.removeBinaryData(storagePath);
	const megabytes = output.reduce((sum, item) => sum + item.json.fileSize, 0) / 2 ** 20;
	process.send({ megabytes, growth: (peak - base) / 2 ** 20, same });
}

async function download() {
	const { startSimulator } = require('../../test/simulator');
	const sim = await startSimulator({ port: 0 });
	const { estimateCredentialData } = require('../../test/e2e/lib/scenarios');
	const credential = { ...estimateCredentialData(sim), grantType: 'clientCredentials' };
	const rows = [];
	try {
		for (const [mode, documentIds] of [
			['filesystem', [900050]],
			['memory', [900050]],
			['filesystem', [900100]],
			['filesystem', [900020, 900021, 900022, 900023, 900024]],
		]) {
			const job = JSON.stringify({ credential, mode, documentIds });
			const child = fork(__filename, ['download-child', job], { execArgv: ['--expose-gc'] });
			const r = await new Promise((resolve, reject) => {
				child.once('message', resolve);
				child.once('exit', (code) => reject(new Error(`the download child exited ${code}`)));
			});
			const what = `${documentIds.length} × ${fmt(r.megabytes / documentIds.length)} MB`;
			rows.push([what, mode, fmt(r.growth, 1), r.same ? 'yes' : 'NO']);
		}
	} finally {
		await sim.close();
	}
	return table(['Documents', 'n8n binary data mode', 'RSS growth, MB', 'Bytes equal'], rows);
}

// ---- linear -----------------------------------------------------------------------------------

function linear() {
	const { redactPatterns } = built('shared/transport/redact.js');
	const { serviceText } = built('shared/transport/failure.js');
	const { minimiseValues } = built('shared/webhook/minimise.js');
	const { buildSyntheticNationalId } = require('../../test/support/synthetic-ids');
	const id = buildSyntheticNationalId({ day: 12, month: 3, year: 85, individual: 123 });
	const uuid = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
	const fill = (unit, bytes) => unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes);
	const mask = (note) => minimiseValues({ event: 'consent.data', payload: { note } }, 'mask');
	const cases = {
		'error body: JWT start without end (redact)': (b) =>
			serviceText({ message: fill('eyJ', b) }, redactPatterns),
		'error body: plain text (redact)': (b) => serviceText(fill('x', b), redactPatterns),
		'delivery: number beside UUID (Mask)': (b) => mask(fill(`${id} ${uuid} `, b)),
		'delivery: number beside IBAN-like words (Mask)': (b) =>
			mask(fill(`${id} NO12ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456 NO93 8601 1117 9471 2345 `, b)),
		// mathematical digits (U+1D7CE…): two UTF-16 units each
		'delivery: mathematical digits (Mask)': (b) =>
			mask(fill('\u{1D7CE}\u{1D7D9}\u{1D7E4}\u{1D7EF}\u{1D7FA}', b)),
		'tokens and numbers in a header-like text (redact)': (b) =>
			redactPatterns(fill(`Bearer ${'a'.repeat(40)} ${id} eyJhbGciOi.`, b)),
	};
	const sizes = [];
	for (let kb = numberArg('--min-kb', 1024); kb <= numberArg('--max-kb', 16 * 1024); kb *= 2)
		sizes.push(kb);
	const rows = Object.entries(cases).map(([name, run]) => {
		run(16 * 1024); // warm
		return [
			name,
			...sizes.map((kb) => {
				const start = process.hrtime.bigint();
				run(kb * 1024);
				return fmt((Number(process.hrtime.bigint() - start) / 1e6) * (1024 / kb));
			}),
		];
	});
	const head = sizes.map((kb) => `${kb >= 1024 ? `${kb / 1024} MB` : `${kb} KB`}, ms per MB`);
	return table(['Input', ...head], rows);
}

// ---- entry ------------------------------------------------------------------------------------

const BENCHES = { signature, download, linear };

async function main() {
	const which = process.argv[2];
	if (which === 'download-child')
		return await downloadChild(JSON.parse(process.argv[3])).then(() => process.exit(0));
	const names = which && !which.startsWith('--') ? [which] : ['signature', 'download'];
	const machine = `${os.cpus().length} cores, ${os.cpus()[0]?.model}, Node ${process.version}`;
	console.log(`${machine}, ${new Date().toISOString().slice(0, 10)}`);
	for (const name of names) {
		if (!BENCHES[name]) throw new Error(`no benchmark ${name}: ${Object.keys(BENCHES).join(', ')}`);
		console.log(`\n### ${name}\n\n${await BENCHES[name]()}`);
	}
}

main().catch((error) => {
	console.error(error.stack || error);
	process.exit(1);
});
