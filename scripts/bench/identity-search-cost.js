#!/usr/bin/env node
'use strict';
// The value search's own CPU per delivery (built into dist/ by `npm run build`), outside n8n:
// Minimise Personal Data (Mask) over the item of a consent.data whose data is a tax and income
// payload of realistic size (a tax return's items, accounts, employers, monthly income; --kb sets
// its size), against the same walk with Keep (no search). Compare with n8n's CPU per delivery
// (profile-receiver.js, BENCHMARKS "Issue 42").
//   node scripts/bench/identity-search-cost.js [--kb N] [--deliveries N]
const path = require('node:path');
const M = require(path.join(__dirname, '../../dist/nodes/shared/webhook/minimise.js'));

const { numberArg: arg } = require('./number-arg');
const kb = arg('--kb', 30);
const deliveries = arg('--deliveries', 2000);

// invented, deterministic: numbers of every shape a tax payload has (amounts, org and account numbers, dates)
let seed = 7;
const rnd = (n) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
function taxPayload(bytes) {
	const items = [];
	while (JSON.stringify(items).length < bytes) {
		items.push({
			kode: `post${rnd(900)}`,
			beskrivelse: 'Renteinntekter av innskudd i norsk bank',
			beloep: rnd(2_000_000),
			konto: String(10_000_000_000 + rnd(2_000_000_000)),
			organisasjonsnummer: String(900_000_000 + rnd(99_999_999)),
			periode: { fra: '2025-01-01', til: '2025-12-31' },
			merknad: `Ref ${rnd(99999)}-${rnd(999)} innrapportert ${rnd(28) + 1}.${rnd(12) + 1}.2025`,
		});
	}
	return {
		skattemelding: { inntektsaar: 2025, poster: items },
		inntekt: { maaneder: 3, snitt: 54_300 },
	};
}

const data = taxPayload(kb * 1024);
const item = () => ({
	event: 'consent.data',
	webhookId: 'b1c2',
	timestamp: '2026-11-27T10:00:00Z',
	flowId: 'f-1',
	externalId: 'loan-42',
	nationalId: '01817000092',
	payload: { flow: 'f-1', nationalId: '01817000092', data },
	receivedAt: '2026-11-27T10:00:01Z',
});

function cpuMsPerDelivery(mode) {
	for (let i = 0; i < 200; i++) M.minimiseEventItem(item(), mode);
	const start = process.cpuUsage();
	for (let i = 0; i < deliveries; i++) M.minimiseEventItem(item(), mode);
	const used = process.cpuUsage(start);
	return (used.user + used.system) / 1000 / deliveries;
}

// the search (mask) against the walk of issue 31 without it: a copy of the same item by name only
const copyOnly = (() => {
	for (let i = 0; i < 200; i++) JSON.parse(JSON.stringify(item()));
	const start = process.cpuUsage();
	for (let i = 0; i < deliveries; i++) JSON.parse(JSON.stringify(item()));
	const used = process.cpuUsage(start);
	return (used.user + used.system) / 1000 / deliveries;
})();
const mask = cpuMsPerDelivery('mask');
const leaveOut = cpuMsPerDelivery('leaveOut');
console.log(
	JSON.stringify({
		payloadKB: Number((JSON.stringify(data).length / 1024).toFixed(1)),
		deliveries,
		cpuMsPerDelivery: {
			mask: Number(mask.toFixed(3)),
			leaveOut: Number(leaveOut.toFixed(3)),
			jsonCopyForScale: Number(copyOnly.toFixed(3)),
		},
	}),
);
