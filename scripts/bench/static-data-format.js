#!/usr/bin/env node
'use strict';
// What one delivery's remembered keys cost n8n in static data, by stored format: n8n parses the
// workflow's static data (JSON), wraps it (n8n-workflow's ObservableObject), copies it into the
// execution (deepCopy) and serialises it to save it. Version 2 stored an array of keys; version 3
// one string, a key per line (nodes/ConsentFlowTrigger/dedupe.ts). Uses the n8n-workflow this
// repository installs. BENCHMARKS.md, "Static data by stored format".
//   node scripts/bench/static-data-format.js [--runs N]
const { ObservableObject, deepCopy } = require('n8n-workflow');

const at = process.argv.indexOf('--runs');
const runs = at === -1 ? 300 : Number(process.argv[at + 1]);
if (!(runs >= 1)) throw new Error('--runs needs a number of at least 1');
const perRun = (fn) => {
	for (let i = 0; i < 20; i++) fn(); // warm-up
	const start = process.hrtime.bigint();
	for (let i = 0; i < runs; i++) fn();
	return Number(process.hrtime.bigint() - start) / 1e6 / runs;
};

console.log(`| Remembered keys | Format | Bytes saved | ms per parse + wrap + copy + serialise |`);
console.log('|---|---|---|---|');
for (const count of [1000, 10000]) {
	// webhookIds as the service sends them: UUIDs
	const keys = Array.from(
		{ length: count },
		(_, i) => `3f2b${String(i).padStart(4, '0')}-6c1e-4d8a-9b7f-${String(i).padStart(12, '0')}`,
	);
	const forms = {
		'2 (array)': { version: 2, ids: keys },
		'3 (one string)': { version: 3, keys: keys.join('\n') },
	};
	for (const [name, form] of Object.entries(forms)) {
		const text = JSON.stringify({ 'node:Consent Flow Trigger': { consentFlowDeliveries: form } });
		const ms = perRun(() => {
			const data = JSON.parse(text);
			const wrapped = ObservableObject.create(data);
			deepCopy(data);
			JSON.stringify(wrapped);
		});
		console.log(
			`| ${count.toLocaleString('en')} | ${name} | ${text.length.toLocaleString('en')} | ${ms.toFixed(3)} |`,
		);
	}
}
