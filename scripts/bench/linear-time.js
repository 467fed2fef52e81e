#!/usr/bin/env node
'use strict';
// Time per MB of the searches every delivery and error body goes through (built dist/, outside
// n8n), for inputs built to make a search go back over what it read: a JWT start with no end, a
// valid identity number beside a UUID or IBAN-like words again and again, mathematical digits, a
// plain body.
// Prints ms per MB at each size: flat from 1 to 16 MB means linear. `npm run bench:linear [-- --min-kb N --max-kb N]`
const path = require('node:path');
const dist = path.join(__dirname, '../../dist/nodes/shared');
const { redactPatterns } = require(path.join(dist, 'transport/redact.js'));
const { serviceText } = require(path.join(dist, 'transport/failure.js'));
const { minimiseEventItem } = require(path.join(dist, 'webhook/minimise.js'));
const { buildSyntheticNationalId } = require('../../test/support/synthetic-ids');
const { numberArg } = require('./number-arg');

const maxKb = numberArg('--max-kb', 16 * 1024);
const minKb = numberArg('--min-kb', 1024);
const MB = 1024 * 1024;
const ID = buildSyntheticNationalId({ day: 12, month: 3, year: 85, individual: 123 });
const UUID = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const fill = (unit, bytes) => unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes);
// mathematical digits (U+1D7CE…): two UTF-16 units each
const mathDigits = (bytes) => fill('\u{1D7CE}\u{1D7D9}\u{1D7E4}\u{1D7EF}\u{1D7FA}', bytes);

const cases = {
	'error body: JWT start without end (redact)': (b) =>
		serviceText({ message: fill('eyJ', b) }, redactPatterns),
	'error body: plain text (redact)': (b) => serviceText(fill('x', b), redactPatterns),
	'delivery: number beside UUID (Mask)': (b) =>
		minimiseEventItem(
			{ event: 'consent.data', payload: { note: fill(`${ID} ${UUID} `, b) } },
			'mask',
		),
	// the IBAN rule (issue 49): words that start like an IBAN, long or spaced in fours, and a number
	'delivery: number beside IBAN-like words (Mask)': (b) =>
		minimiseEventItem(
			{
				event: 'consent.data',
				payload: {
					note: fill(`${ID} NO12ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456 NO93 8601 1117 9471 2345 `, b),
				},
			},
			'mask',
		),
	'delivery: mathematical digits (Mask)': (b) =>
		minimiseEventItem({ event: 'consent.data', payload: { note: mathDigits(b) } }, 'mask'),
	'delivery: tokens and numbers in a header-like text (redact)': (b) =>
		redactPatterns(fill(`Bearer ${'a'.repeat(40)} ${ID} eyJhbGciOi.`, b)),
};

const rows = [];
for (const [name, run] of Object.entries(cases)) {
	const row = { case: name };
	run(16 * 1024); // warm
	for (let kb = minKb; kb <= maxKb; kb *= 2) {
		const start = process.hrtime.bigint();
		run(kb * 1024);
		const ms = Number(process.hrtime.bigint() - start) / 1e6;
		row[kb >= 1024 ? `${kb / 1024} MB` : `${kb} KB`] = Math.round((ms * 1024) / kb);
	}
	rows.push(row);
	console.log(JSON.stringify(row));
}
console.table(rows);
