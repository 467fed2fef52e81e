#!/usr/bin/env node
'use strict';
// The value search's false-positive rate on Norwegian bank account numbers (built into dist/ by
// `npm run build`): valid account numbers (MOD11, weights 5 4 3 2 7 6 5 4 3 2, check 11 − sum mod 11,
// 11 → 0, 10 → no number) drawn at random, and how many the search takes for an identity number —
// those pass both identity check digits and have a birth date (D-, H-, synthetic offsets counted).
// Also the cost of the search per account number written in a text, and how many random UUIDs
// hold 11 digits that pass (the search leaves UUIDs alone; their digits alone are counted too).
//   node scripts/bench/identity-false-positives.js [--count N] [--seed N]
const path = require('node:path');
const S = require(path.join(__dirname, '../../dist/nodes/shared/identity-search.js'));

const arg = (name, dflt) => {
	const i = process.argv.indexOf(name);
	const n = i === -1 ? dflt : Number(process.argv[i + 1]);
	if (!Number.isInteger(n) || n < 1) throw new Error(`${name} needs a whole number of at least 1`);
	return n;
};
const count = arg('--count', 1_000_000);
let seed = arg('--seed', 42) >>> 0;

// mulberry32: the same sample for the same seed
function random() {
	seed = (seed + 0x6d2b79f5) >>> 0;
	let t = seed;
	t = Math.imul(t ^ (t >>> 15), t | 1);
	t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
	return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

const WEIGHTS = [5, 4, 3, 2, 7, 6, 5, 4, 3, 2];
function accountNumber() {
	for (;;) {
		const digits = Array.from({ length: 10 }, () => Math.floor(random() * 10));
		const check = (11 - (digits.reduce((sum, d, i) => sum + d * WEIGHTS[i], 0) % 11)) % 11;
		if (check !== 10) return digits.join('') + check;
	}
}

let found = 0;
let classic = 0;
const started = process.cpuUsage();
for (let i = 0; i < count; i++) {
	const account = accountNumber();
	const text = `Til konto ${account.slice(0, 4)}.${account.slice(4, 6)}.${account.slice(6)}`;
	const hits = S.findIdentityNumbers(text);
	if (hits.length === 0) continue;
	found++;
	// the classic control: K1 weights 3 7 6 1 8 9 4 5 2 1 give 0 mod 11
	const K1 = [3, 7, 6, 1, 8, 9, 4, 5, 2, 1];
	if (K1.reduce((sum, w, j) => sum + w * Number(account[j]), 0) % 11 === 0) classic++;
}
const cpu = process.cpuUsage(started);
const pct = (n) => `${((100 * n) / count).toFixed(2)} %`;
console.log(`account numbers: ${count} (seed ${arg('--seed', 42)})`);
console.log(
	`taken for identity numbers: ${found} (${pct(found)}); by the classic control alone: ${classic} (${pct(classic)})`,
);
console.log(
	`CPU per account number (generate + search): ${(((cpu.user + cpu.system) / count) * 1000).toFixed(0)} ns`,
);

// Random UUIDs (v4 shape from the same generator): with the rule none is taken; the raw figure is
// what the digits alone would give (runs of a UUID read with its letters as the only bounds).
const hex = () => Math.floor(random() * 16).toString(16);
const uuid = () => [8, 4, 4, 4, 12].map((length) => Array.from({ length }, hex).join('')).join('-');
let uuids = 0;
let uuidDigits = 0;
for (let i = 0; i < count; i++) {
	const id = uuid();
	if (S.findIdentityNumbers(id).length > 0) uuids++;
	// the hex letters as x (not hex): the same runs, no longer a UUID, as before the rule
	if (S.findIdentityNumbers(id.replace(/[a-f]/g, 'x')).length > 0) uuidDigits++;
}
console.log(
	`random UUIDs taken: ${uuids} (${pct(uuids)}); without the rule: ${uuidDigits} (${pct(uuidDigits)})`,
);
