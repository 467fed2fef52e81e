#!/usr/bin/env node
'use strict';
// What Minimise Personal Data's default (Mask) changes, per kind of number (issue 49): a seeded
// corpus of business numbers, each an item `{ payload: { <key>: <value> } }` put through
// minimiseValues as the trigger does (built into dist/ by `npm run build`), and how many
// identity numbers it finds in the forms people write them. Business: % of items changed at all.
// Identity: % whose digits (but the two check digits Mask shows) are gone. Account numbers: MOD11,
// weights 5 4 3 2 7 6 5 4 3 2 (a check of 10: no number); KIDs: MOD11 the same way, or MOD10 (Luhn);
// identity numbers: a date, K1 classic, K2 (what every number issued today has). Also the UUID rule.
//   npm run bench:identity -- [--count N] [--seed N] [--markdown]
const path = require('node:path');
const dist = path.join(__dirname, '../../dist/nodes/shared');
const S = require(path.join(dist, 'identity-search.js'));
const M = require(path.join(dist, 'webhook/minimise.js'));

const arg = (name, dflt) => {
	const i = process.argv.indexOf(name);
	const n = i === -1 ? dflt : Number(process.argv[i + 1]);
	if (!Number.isInteger(n) || n < 1) throw new Error(`${name} needs a whole number of at least 1`);
	return n;
};
const count = arg('--count', 20_000);
const firstSeed = arg('--seed', 42);
let seed = firstSeed >>> 0;

// mulberry32: the same sample for the same seed
function random() {
	seed = (seed + 0x6d2b79f5) >>> 0;
	let t = seed;
	t = Math.imul(t ^ (t >>> 15), t | 1);
	t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
	return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const int = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));
const pick = (list) => list[int(0, list.length - 1)];
const digits = (n) => Array.from({ length: n }, () => int(0, 9)).join('');
const pad = (n, width) => String(n).padStart(width, '0');

const weighted = (text, weights) => weights.reduce((sum, w, i) => sum + w * Number(text[i]), 0);
const MOD11 = [5, 4, 3, 2, 7, 6, 5, 4, 3, 2];
/** The MOD11 check digit of 10 digits (accounts, 11-digit MOD11 KIDs, an identity number's K2). */
const mod11 = (first10) => (11 - (weighted(first10, MOD11) % 11)) % 11;
function withMod11(make) {
	for (;;) {
		const first10 = make();
		const check = mod11(first10);
		if (check !== 10) return first10 + check;
	}
}
const account = (register) => withMod11(() => register + digits(6));
function luhn(payload) {
	let sum = 0;
	for (let i = 0; i < payload.length; i++) {
		let d = Number(payload[payload.length - 1 - i]);
		if (i % 2 === 0) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
		sum += d;
	}
	return payload + ((10 - (sum % 10)) % 10);
}
const mod97 = (text) => [...text].reduce((rest, d) => (rest * 10 + Number(d)) % 97, 0);
function iban(bban, spaced) {
	const check = pad(98 - mod97(`${bban}232400`), 2); // N = 23, O = 24
	const compact = `NO${check}${bban}`;
	return spaced ? compact.match(/.{1,4}/g).join(' ') : compact;
}

// Identity numbers: the century table's individual ranges, K1 classic (remainder 0), K2.
const K1 = [3, 7, 6, 1, 8, 9, 4, 5, 2, 1];
function individualFor(year) {
	if (year < 1940) return int(0, 499);
	if (year < 2000) return random() < 0.9 ? int(0, 499) : int(900, 999);
	return int(500, 999);
}
function identityNumber({ day = 0, month = 0 } = {}) {
	for (;;) {
		const born = new Date(Date.UTC(1925, 0, 1) + random() * 101 * 365.25 * 864e5);
		const year = born.getUTCFullYear();
		const first9 =
			pad(born.getUTCDate() + day, 2) +
			pad(born.getUTCMonth() + 1 + month, 2) +
			pad(year % 100, 2) +
			pad(individualFor(year), 3);
		const k1 = [...Array(10).keys()].find((d) => weighted(first9 + d, K1) % 11 === 0);
		if (k1 === undefined) continue;
		const k2 = mod11(first9 + k1);
		if (k2 !== 10) return first9 + k1 + k2;
	}
}
const birth = () => identityNumber();
const groups = (id, sizes, sep) => {
	const out = [];
	let at = 0;
	for (const size of sizes) out.push(id.slice(at, (at += size)));
	return out.join(sep);
};

const ACCOUNT_KEYS = [
	'accountNumber',
	'bankAccount',
	'kontonummer',
	'payoutAccount',
	'konto',
	'account_no',
	'Kontonr',
	'bban',
];
const KID_KEYS = ['kid', 'KID', 'kidNumber', 'kid_nr', 'kidnummer'];
const ID_KEYS = ['fnr', 'fødselsnummer', 'personnummer', 'nationalId', 'ssn'];
const REGISTERS = ['1503', '1207', '4212', '6003'];
const otherRegister = () => {
	for (;;) {
		const register = pad(int(1000, 9999), 4);
		if (!REGISTERS.includes(register)) return register;
	}
};
const EPOCH_2027 = Date.UTC(2027, 0, 1) / 1000;
const EPOCH_2032 = Date.UTC(2032, 0, 1) / 1000;
const epoch = () => int(EPOCH_2027, EPOCH_2032 - 1);
const amount = () =>
	`${int(100, 999)} ${pad(int(0, 999), 3)} ${pad(int(0, 999), 3)},${pad(int(0, 99), 2)}`;

/** [group, kind, make(): [key, value]] — business kinds are counted as changed, identity ones as found. */
const BUSINESS = [
	...REGISTERS.map((r) => [`Account ${r}`, 'plain, other key', () => ['ref', account(r)]]),
	['Account, other registers', 'plain, other key', () => ['ref', account(otherRegister())]],
	[
		'Account, any register',
		'plain in text',
		() => ['note', `Til konto ${account(pad(int(1000, 9999), 4))}`],
	],
	...REGISTERS.map((r) => [
		`Account ${r}`,
		'plain, account key',
		() => [pick(ACCOUNT_KEYS), account(r)],
	]),
	...REGISTERS.map((r) => [
		`Account ${r}`,
		'grouped 1503.12.34567',
		() => ['note', `Til ${groups(account(r), [4, 2, 5], '.')}`],
	]),
	...REGISTERS.map((r) => [
		`Account ${r}`,
		'grouped 1503 12 34567',
		() => ['note', `Til ${groups(account(r), [4, 2, 5], ' ')}`],
	]),
	...REGISTERS.map((r) => [
		`Account ${r}`,
		'IBAN NOkk 1503 1234 567',
		() => ['note', `IBAN ${iban(account(r), true)}`],
	]),
	['Account 1503', 'IBAN compact', () => ['note', iban(account('1503'), false)]],
	[
		'Account, other registers',
		'grouped, IBAN',
		() => [
			'note',
			random() < 0.5
				? groups(account(otherRegister()), [4, 2, 5], '.')
				: iban(account(otherRegister()), true),
		],
	],
	['KID MOD11, 11 digits', 'other key', () => ['ref', withMod11(() => digits(10))]],
	['KID MOD11, 11 digits', 'KID key', () => [pick(KID_KEYS), withMod11(() => digits(10))]],
	['KID MOD10, 11 digits', 'other key', () => ['ref', luhn(digits(10))]],
	['KID MOD10, 11 digits', 'KID key', () => [pick(KID_KEYS), luhn(digits(10))]],
	['Order number, 11 digits', 'text', () => ['orderNumber', String(int(1, 9)) + digits(10)]],
	[
		'Order number, 11 digits',
		'JSON number',
		() => ['orderNumber', Number(String(int(1, 9)) + digits(10))],
	],
	['Epoch seconds 2027-2031', 'JSON number', () => ['createdAt', epoch()]],
	['Epoch seconds 2027-2031', 'text', () => ['createdAt', String(epoch())]],
	['int32 id', 'JSON number', () => ['id', int(0, 2 ** 31 - 1)]],
	['Amount 100 000 000,00-999 999 999,99', 'text', () => ['note', `Beløp ${amount()} kr`]],
	[
		'Cadastre',
		'gnr. 12 bnr. 345',
		() => ['note', `Gnr. ${int(1, 300)} bnr. ${int(1, 3000)}, ${pad(int(301, 5444), 4)} Oslo`],
	],
	[
		'Cadastre',
		'0301-12/345/0/0',
		() => [
			'note',
			`${pad(int(301, 5444), 4)}-${int(1, 300)}/${int(1, 3000)}/${int(0, 3)}/${int(0, 9)}`,
		],
	],
];

const six5 = (id, sep) => `${id.slice(0, 6)}${sep}${id.slice(6)}`;
const NOT_FOUND = [
	(id) => six5(id, '+'),
	(id) => six5(id, '%2D'),
	(id) => six5(id, ':'),
	(id) => six5(id, '|'),
	(id) => six5(id, ';'),
	(id) => `(${id.slice(0, 6)}) ${id.slice(6)}`,
];
const IDENTITY = [
	['Identity number', 'plain, other key', () => ['ref', birth()]],
	['Identity number', 'plain in text', () => ['note', `Skattemelding for ${birth()}, Kari`]],
	['Identity number', 'DDMMYY NNNNN', () => ['note', `fnr ${six5(birth(), ' ')}`]],
	['Identity number', 'DDMMYY-NNNNN', () => ['note', six5(birth(), '-')]],
	['Identity number', 'DDMMYY.NNNNN', () => ['note', six5(birth(), '.')]],
	[
		'Identity number',
		'DD.MM.YY NNNNN',
		() => ['note', `født ${groups(birth(), [2, 2, 2, 5], '.').replace(/\.(\d{5})$/, ' $1')}`],
	],
	['Identity number', 'under fnr, fødselsnummer, …', () => [pick(ID_KEYS), birth()]],
	['Identity number', 'JSON number, other key', () => ['ref', Number(birth())]],
	['Identity number', 'JSON number, ID key', () => [pick(ID_KEYS), Number(birth())]],
	['D-number', 'plain, other key', () => ['ref', identityNumber({ day: 40 })]],
	[
		'H-number, NAV synthetic (month + 40)',
		'plain, other key',
		() => ['ref', identityNumber({ month: 40 })],
	],
	[
		'Synthetic test number (month + 80)',
		'plain, other key',
		() => ['ref', identityNumber({ month: 80 })],
	],
	[
		'Identity number',
		'grouped 4-2-5 (DDMM.YY.NNNNN)',
		() => ['note', groups(birth(), [4, 2, 5], '.')],
	],
	[
		'Identity number',
		'with + %2D : | ; or (DDMMYY) NNNNN',
		() => ['note', pick(NOT_FOUND)(birth())],
	],
	[
		'Identity number',
		'10-digit text (leading zero lost)',
		() => ['note', birthOnDay(int(1, 9)).slice(1)],
	],
];

function birthOnDay(day) {
	for (;;) {
		const id = birth();
		if (Number(id.slice(0, 2)) === day) return id;
	}
}

const item = ([key, value]) => ({ event: 'consent.data', payload: { data: { [key]: value } } });
const masked = (value) => M.minimiseValues(item(value), 'mask');
const asciiDigits = (value) => JSON.stringify(value).replace(/\D/g, '');

/** % of items the default changes, or (identity) % whose number is gone but for its check digits. */
function measure([group, form, make], identity) {
	let hits = 0;
	for (let i = 0; i < count; i++) {
		const entry = make();
		const out = masked(entry);
		if (!identity) {
			if (JSON.stringify(out) !== JSON.stringify(item(entry))) hits++;
			continue;
		}
		const written = String(entry[1]).replace(/\D/g, '').replace(/^0+/, '');
		if (!asciiDigits(out).includes(written.slice(0, -2))) hits++;
	}
	return { group, form, identity, pct: (100 * hits) / count };
}

if (process.argv.includes('--samples'))
	for (const [group, form, make] of [...BUSINESS, ...IDENTITY])
		console.log(`${group}: ${form}: ${JSON.stringify(make())}`);
const rows = [
	...BUSINESS.map((kind) => measure(kind, false)),
	...IDENTITY.map((kind) => measure(kind, true)),
];
const shown = (pct) => `${pct.toFixed(pct > 0 && pct < 0.1 ? 3 : 1)} %`;
if (process.argv.includes('--markdown')) {
	console.log('| Kind | Written | Changed | Found |\n|---|---|---|---|');
	for (const { group, form, identity, pct } of rows)
		console.log(
			`| ${group} | ${form} | ${identity ? '' : shown(pct)} | ${identity ? shown(pct) : ''} |`,
		);
} else {
	console.log(`${count} per kind, seed ${firstSeed}, Minimise Personal Data: Mask`);
	for (const { group, form, identity, pct } of rows)
		console.log(`${identity ? 'found  ' : 'changed'} ${shown(pct).padStart(8)}  ${group}: ${form}`);
}

// Random UUIDs (v4 shape from the same generator): with the rule none is taken; the raw figure is
// what the digits alone would give (the hex letters as x: the same runs, no longer a UUID).
const hex = () => Math.floor(random() * 16).toString(16);
const uuid = () => [8, 4, 4, 4, 12].map((length) => Array.from({ length }, hex).join('')).join('-');
let uuids = 0;
let uuidDigits = 0;
for (let i = 0; i < count * 10; i++) {
	const id = uuid();
	if (S.findIdentityNumbers(id).length > 0) uuids++;
	if (S.findIdentityNumbers(id.replace(/[a-f]/g, 'x')).length > 0) uuidDigits++;
}
const pct = (n) => shown((100 * n) / (count * 10));
console.log(
	`random UUIDs taken: ${uuids} (${pct(uuids)}); without the rule: ${uuidDigits} (${pct(uuidDigits)})`,
);
