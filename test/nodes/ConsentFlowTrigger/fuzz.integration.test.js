'use strict';
// Fuzz test of the Consent Flow Trigger over real HTTP (the n8n-like harness), with fast-check.
//
// 2,000 generated requests in `npm test` (FUZZ_RUNS=10000 for a longer search), in batches sent concurrently over keep-alive
// connections: random bytes, random and duplicated headers, signature variants (case,
// `sha256=`, wrong length, base64, another key, another body, too many candidates), random JSON
// shapes (arrays, numbers, null, deep nesting, `__proto__` / `constructor` keys) and envelopes
// of the ten events. The seed is printed; FUZZ_SEED=<seed> reproduces a run (FUZZ_PATH=<path>
// from fast-check's report replays the failing batch at once). A failing batch is reported as
// found; FUZZ_SHRINK=1 lets fast-check shrink it (slow over HTTP). FUZZ_RUNS=<n> changes the
// number of requests (default 2,000, sent in batches of 50).
//
// Invariants, checked against a model written here (not the node's code):
//   - every answer is 200 or 401 (no crash, no 5xx);
//   - 401 exactly when no candidate signature verifies (or there are more than 8), and then no
//     execution and nothing remembered;
//   - a correctly signed envelope of a known event with a new id is emitted on its own output,
//     with the exact payload and id; a correctly signed repeat of an emitted id is a duplicate;
//   - every emitted item can be serialised (n8n must be able to save it), too-deep bodies go to
//     Unrecognised; no credential header reaches an item;
//   - Object.prototype is never polluted.
// Kept in JavaScript: it prints the seed and reads the environment, which the strict lint
// forbids in TypeScript files.

const crypto = require('node:crypto');
const fc = require('fast-check');
const { Pool, request } = require('undici');

const { freshTrigger } = require('../../support/fresh-modules');
const { harnessMajor, startHarness } = require('./http-harness');
const { PUBLISHED_EVENTS, SIGNING_KEY, nestingDepth, savedKeys } = require('./helpers');

const RUNS = Number(process.env.FUZZ_RUNS || 2000);
const BATCH = 50;
const SEED =
	process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : Date.now() % 2 ** 31;
const PATH = process.env.FUZZ_PATH;
const MAX_DEPTH = 64;
const MAX_CANDIDATES = 8;
const UNRECOGNISED = PUBLISHED_EVENTS.length;

// ---- the model ------------------------------------------------------------------------------

const hmac = (body, key = SIGNING_KEY) => crypto.createHmac('sha256', key).update(body).digest();

/** Headers matching x-<anything>-sbl-signature carry candidates (no header is configured). */
const isSignatureHeader = (name) => /^x-.+-sbl-signature$/i.test(name);

/** Whether the request is correctly signed: 1 to 8 candidates, one of them the hex digest. */
function signedCorrectly(headerPairs, body) {
	const digest = hmac(body).toString('hex');
	const pieces = headerPairs
		.filter(([name]) => isSignatureHeader(name))
		.flatMap(([, value]) => value.split(','))
		.map((piece) => piece.trim())
		.filter((piece) => piece !== '');
	if (pieces.length === 0 || pieces.length > MAX_CANDIDATES) return false;
	return pieces.some((piece) => piece.replace(/^sha256=/i, '').toLowerCase() === digest);
}

// ---- JSON trees: serialised by hand, expected value built with defineProperty ----------------

const PROTO_KEYS = [
	'__proto__',
	'constructor',
	'prototype',
	'toString',
	'hasOwnProperty',
	'valueOf',
	'__defineGetter__',
];
const ENVELOPE_KEYS = ['webhookId', 'id', 'event', 'type', 'timestamp', 'payload'];

const exactNumber = fc
	.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }))
	.filter((n) => !Object.is(n, -0));

const tree = fc.letrec((tie) => ({
	value: fc.oneof(
		{ depthSize: 'small', withCrossShrink: true },
		fc.constant({ t: 'lit', v: null }),
		fc.boolean().map((v) => ({ t: 'lit', v })),
		exactNumber.map((v) => ({ t: 'lit', v })),
		fc.string({ unit: 'binary', maxLength: 12 }).map((v) => ({ t: 'lit', v })),
		fc.constantFrom(...PUBLISHED_EVENTS).map((v) => ({ t: 'lit', v })),
		tie('array'),
		tie('object'),
	),
	array: fc.array(tie('value'), { maxLength: 4 }).map((items) => ({ t: 'arr', items })),
	object: fc
		.array(
			fc.tuple(
				fc.oneof(fc.constantFrom(...PROTO_KEYS, ...ENVELOPE_KEYS), fc.string({ maxLength: 6 })),
				tie('value'),
			),
			{ maxLength: 5 },
		)
		.map((entries) => ({ t: 'obj', entries })),
}));

function serialise(node, spaced) {
	const sep = spaced ? ', ' : ',';
	const colon = spaced ? ' : ' : ':';
	if (node.t === 'lit') return JSON.stringify(node.v);
	if (node.t === 'arr') return `[${node.items.map((item) => serialise(item, spaced)).join(sep)}]`;
	return `{${node.entries.map(([k, v]) => JSON.stringify(k) + colon + serialise(v, spaced)).join(sep)}}`;
}

/** The value JSON.parse gives for the tree: own data properties, the last duplicate wins. */
function expectedValue(node) {
	if (node.t === 'lit') return node.v;
	if (node.t === 'arr') return node.items.map(expectedValue);
	const object = {};
	for (const [k, v] of node.entries) {
		Object.defineProperty(object, k, {
			value: expectedValue(v),
			enumerable: true,
			writable: true,
			configurable: true,
		});
	}
	return object;
}

// ---- requests -------------------------------------------------------------------------------

const PIECES = [
	'good',
	'GOOD',
	'mixed',
	'prefixed',
	'PREFIXED',
	'spaced',
	'wrongkey',
	'short',
	'long',
	'base64',
	'otherbody',
	'empty',
	'sha512',
	'garbage',
];
const SIGNATURE_NAMES = [
	'x-acme-sbl-signature',
	'X-ACME-SBL-Signature',
	'x-other-maker-sbl-signature',
	'x-sbl-signature',
	'x-acme-sbl-signature-v2',
	'x-signature',
];
const CREDENTIAL_NAMES = [
	'authorization',
	'cookie',
	'x-api-key',
	'x-auth-token',
	'x-n8n-api-key',
	'x-webhook-secret',
	'proxy-authorization',
];

const headerValue = fc.string({
	unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
	maxLength: 20,
});

const signatureHeader = fc.record({
	name: fc.constantFrom(...SIGNATURE_NAMES),
	// Several values: the header is sent that many times (Node joins them with ', ').
	values: fc.array(
		fc.record({
			pieces: fc.array(fc.tuple(fc.constantFrom(...PIECES), headerValue), {
				minLength: 1,
				maxLength: 3,
			}),
			joiner: fc.constantFrom(', ', ','),
		}),
		{ minLength: 1, maxLength: 2 },
	),
});

const otherHeader = fc.tuple(
	fc.oneof(
		fc.constantFrom(...CREDENTIAL_NAMES),
		fc.stringMatching(/^[a-z0-9]{1,8}$/).map((s) => `x-fz-${s}`),
	),
	headerValue,
);

const body = fc.oneof(
	{
		weight: 5,
		arbitrary: fc.record({
			kind: fc.constant('event'),
			event: fc.constantFrom(...PUBLISHED_EVENTS),
			upper: fc.boolean(),
			field: fc.constantFrom('event', 'type'),
			id: fc.oneof(
				fc.constant('fresh'),
				fc.constant('fresh-number'),
				fc.constant('escaped'),
				fc.nat().map((n) => ({ repeat: n })),
			),
			timestamp: fc.boolean(),
			payload: fc.oneof(
				{ weight: 4, arbitrary: tree.object },
				{ weight: 1, arbitrary: tree.value },
			),
			extras: fc.array(fc.tuple(fc.constantFrom(...PROTO_KEYS, 'x', 'data'), tree.value), {
				maxLength: 3,
			}),
			spaced: fc.boolean(),
		}),
	},
	{
		weight: 2,
		arbitrary: fc.record({ kind: fc.constant('json'), value: tree.value, spaced: fc.boolean() }),
	},
	{
		weight: 1,
		arbitrary: fc.record({
			kind: fc.constant('deep'),
			depth: fc.integer({ min: 1, max: 300 }),
			shape: fc.constantFrom('array', 'object', 'envelope'),
			event: fc.constantFrom(...PUBLISHED_EVENTS),
		}),
	},
	{
		weight: 1,
		arbitrary: fc.record({ kind: fc.constant('bytes'), bytes: fc.uint8Array({ maxLength: 300 }) }),
	},
);

const requestSpec = fc.record({
	body,
	// Usually one signature header of the usual kind, then any number of others.
	primary: fc.option(
		fc.record({
			name: fc.constantFrom(...SIGNATURE_NAMES.slice(0, 3)),
			values: fc
				.constantFrom('good', 'GOOD', 'mixed', 'prefixed', 'PREFIXED', 'spaced')
				.map((tag) => [{ pieces: [[tag, '']], joiner: ',' }]),
		}),
		{ freq: 4 },
	),
	signatures: fc.array(signatureHeader, { maxLength: 2 }),
	others: fc.array(otherHeader, { maxLength: 4 }),
	contentType: fc.constantFrom('application/json', 'text/plain', 'application/octet-stream'),
	// A valid signature was meant to be included (otherwise only wrong variants are sent).
	signed: fc.oneof(
		{ weight: 3, arbitrary: fc.constant(true) },
		{ weight: 1, arbitrary: fc.constant(false) },
	),
});

let counter = 0;

/** Builds the concrete request for a spec, with fresh ids from the counter. */
function build(spec, emittedIds) {
	counter += 1;
	const seq = String(counter);
	const want = { seq, kind: spec.body.kind };
	let text;
	let bytes;
	const b = spec.body;
	if (b.kind === 'event') {
		let idToken;
		let id;
		if (b.id === 'fresh-number') {
			id = `9007199254740993${seq}`;
			idToken = id;
		} else if (typeof b.id === 'object' && emittedIds.length > 0) {
			// The same token as an emitted one (a number stays a number).
			({ id, idToken } = emittedIds[b.id.repeat % emittedIds.length]);
			want.repeat = true;
		} else {
			id = `fz-${seq}`;
			idToken =
				b.id === 'escaped'
					? `"${[...id].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"`
					: JSON.stringify(id);
		}
		const name = b.upper ? b.event.toUpperCase() : b.event;
		const colon = b.spaced ? ': ' : ':';
		const members = [
			`"webhookId"${colon}${idToken}`,
			`"${b.field}"${colon}${JSON.stringify(name)}`,
		];
		if (b.timestamp) members.push(`"timestamp"${colon}"${new Date().toISOString()}"`);
		members.push(`"payload"${colon}${serialise(b.payload, b.spaced)}`);
		for (const [k, v] of b.extras)
			members.push(`${JSON.stringify(k)}${colon}${serialise(v, b.spaced)}`);
		text = `{${members.join(b.spaced ? ', ' : ',')}}`;
		const payload = expectedValue(b.payload);
		Object.assign(want, {
			id,
			idToken,
			event: b.event,
			output: PUBLISHED_EVENTS.indexOf(b.event),
			payload:
				typeof payload === 'object' && payload !== null && !Array.isArray(payload) ? payload : null,
		});
	} else if (b.kind === 'json') {
		text = serialise(b.value, b.spaced);
	} else if (b.kind === 'deep') {
		const [open, close] = b.shape === 'array' ? ['[', ']'] : ['{"a":', '}'];
		const nested = `${open.repeat(b.depth)}1${close.repeat(b.depth)}`;
		text =
			b.shape === 'envelope'
				? `{"webhookId":"fz-${seq}","event":"${b.event}","payload":${nested}}`
				: nested;
	}
	bytes = text === undefined ? Buffer.from(b.bytes) : Buffer.from(text, 'utf8');

	const digest = hmac(bytes);
	const piece = ([tag, garbage]) => {
		const hex = digest.toString('hex');
		switch (tag) {
			case 'good':
				return spec.signed ? hex : hmac(bytes, 'another-key-0123456789').toString('hex');
			case 'GOOD':
				return spec.signed ? hex.toUpperCase() : hex.slice(0, 63);
			case 'mixed':
				return spec.signed
					? [...hex].map((c, i) => (i % 2 ? c.toUpperCase() : c)).join('')
					: `${hex}00`;
			case 'prefixed':
				return spec.signed ? `sha256=${hex}` : `sha256=${hex.slice(2)}`;
			case 'PREFIXED':
				return spec.signed ? `SHA256=${hex}` : `SHA-256=${hex}`;
			case 'spaced':
				return spec.signed ? ` ${hex} ` : ` ${hex.slice(1)} `;
			case 'wrongkey':
				return hmac(bytes, 'wrong-signing-key-0123').toString('hex');
			case 'short':
				return hex.slice(0, 63);
			case 'long':
				return `${hex}a`;
			case 'base64':
				return digest.toString('base64');
			case 'otherbody':
				return hmac(Buffer.concat([bytes, Buffer.from(' ')])).toString('hex');
			case 'empty':
				return '';
			case 'sha512':
				return `sha512=${hex}`;
			default:
				return garbage;
		}
	};
	const pairs = [];
	for (const header of spec.primary === null
		? spec.signatures
		: [spec.primary, ...spec.signatures]) {
		for (const value of header.values)
			pairs.push([header.name, value.pieces.map(piece).join(value.joiner)]);
	}
	for (const [name, value] of spec.others) pairs.push([name, value]);
	pairs.push(['content-type', spec.contentType], ['x-fuzz-seq', seq]);
	// Shuffle deterministically by the sequence number: order must not matter.
	pairs.sort(
		(x, y) =>
			crypto
				.createHash('md5')
				.update(seq + x[0] + x[1])
				.digest()[0] -
			crypto
				.createHash('md5')
				.update(seq + y[0] + y[1])
				.digest()[0],
	);

	want.verified = signedCorrectly(pairs, bytes);
	want.tooDeep = nestingDepth(bytes) > MAX_DEPTH;
	want.sentCredentials = pairs
		.map(([name]) => name.toLowerCase())
		.filter((name) => CREDENTIAL_NAMES.includes(name) || name.includes('signature'));
	return { bytes, headers: pairs.flat(), want };
}

// ---- the run --------------------------------------------------------------------------------

describe('fuzz: the trigger over HTTP', () => {
	let h;
	let pool;
	const prototypeBefore = Object.getOwnPropertyNames(Object.prototype).sort();

	beforeAll(async () => {
		// jest loads the node afresh for each test file: the delivery memory starts empty
		const { ConsentFlowTrigger } = freshTrigger(harnessMajor());
		h = await startHarness({
			createNode: () => new ConsentFlowTrigger(),
			credentials: { secret: SIGNING_KEY, signatureHeader: '' },
			parameters: { options: { includeHeaders: true } },
		});
		pool = new Pool(new URL(h.url).origin, { connections: BATCH });
	});

	afterAll(async () => {
		await pool.close();
		await h.close();
	});

	it(`${RUNS} generated requests keep every invariant`, async () => {
		const started = Date.now();
		console.log(
			`fuzz: ${RUNS} requests, seed ${SEED}${PATH ? `, path ${PATH}` : ''} (reproduce: FUZZ_SEED=${SEED})`,
		);
		const emittedIds = [];
		const badIds = [];
		const seenBodies = new Set();
		const executionsBySeq = new Map();
		let indexed = 0;

		/** The invariants for one request (plain checks: jest's expect is too slow for 10,000). */
		function checkAnswer(want, answer, executions) {
			const check = (ok, what, got) => {
				if (!ok)
					throw new Error(
						`request ${want.seq} (${want.kind}): ${what}; got ${JSON.stringify(got)}; answer ${answer.status} ${answer.text.slice(0, 300)}`,
					);
			};
			if (!want.verified) {
				check(answer.status === 401, 'not correctly signed: 401', answer.status);
				check(executions.length === 0, 'not correctly signed: no execution', executions.length);
				if (want.id !== undefined && !want.repeat) badIds.push(want.id);
				return;
			}
			// The same signed bytes sent before or beside it (issue 31: deliveries without a signed id
			// are remembered by their bytes): a duplicate, or 409 while the other copy is in flight.
			if (want.copied && answer.status === 409) {
				check(executions.length === 0, 'a held copy: no execution', executions.length);
				return;
			}
			check(answer.status === 200, 'correctly signed: 200', answer.status);
			const ack = JSON.parse(answer.text);
			check(
				ack.received === true && ['emitted', 'duplicate'].includes(ack.status),
				'an emitted or duplicate acknowledgement',
				ack,
			);
			if ((want.kind !== 'event' || want.tooDeep) && ack.webhookId === null) {
				check(
					ack.status === 'emitted' || (want.copied && ack.status === 'duplicate'),
					'id-less bytes not sent before are emitted',
					[ack.status, want.copied],
				);
				if (ack.status === 'duplicate') return;
			}
			check(
				executions.length === (ack.status === 'emitted' ? 1 : 0),
				'one execution when emitted, else none',
				executions.length,
			);
			let item;
			let output;
			if (executions.length === 1) {
				const filled = executions[0].workflowData
					.map((items, index) => ({ items, index }))
					.filter(({ items }) => items.length > 0);
				check(
					filled.length === 1 && filled[0].items.length === 1,
					'one item on one output',
					filled.length,
				);
				item = filled[0].items[0].json;
				output = filled[0].index;
				let saved = true;
				try {
					JSON.stringify(item); // n8n must be able to save it
				} catch {
					saved = false;
				}
				check(saved, 'a serialisable item', item.reason);
				const kept = Object.keys(item.headers ?? {}).map((k) => k.toLowerCase());
				check(
					!want.sentCredentials.some((name) => kept.includes(name)),
					'no credential header in the item',
					kept,
				);
			}
			if (want.tooDeep) {
				check(
					ack.status === 'emitted' && output === UNRECOGNISED && item.reason === 'too-deep',
					'too-deep on Unrecognised',
					[ack.status, output, item?.reason],
				);
				check(item.rawBody.length <= 8192, 'a bounded raw body', item.rawBody.length);
			} else if (want.kind === 'event') {
				if (want.repeat) {
					check(ack.status === 'duplicate', 'a repeated id is a duplicate', ack);
				} else {
					check(
						ack.status === 'emitted' && output === want.output,
						`emitted on output ${want.output}`,
						[ack.status, output],
					);
					check(
						item.event === want.event && item.webhookId === want.id && ack.webhookId === want.id,
						'the event and id',
						[item.event, item.webhookId, ack.webhookId],
					);
					check(
						JSON.stringify(item.payload) === JSON.stringify(want.payload),
						'the exact payload',
						item.payload,
					);
					emittedIds.push({ id: want.id, idToken: want.idToken });
				}
			}
		}
		let sent = 0;

		await fc.assert(
			fc.asyncProperty(
				fc.array(requestSpec, { minLength: BATCH, maxLength: BATCH }),
				async (specs) => {
					const snapshot = emittedIds.slice(-100);
					const requests = specs.map((spec) => build(spec, snapshot));
					const digestOf = (bytes) => crypto.createHash('sha256').update(bytes).digest('hex');
					const inBatch = new Map();
					for (const { bytes, want } of requests) {
						if (want.verified)
							inBatch.set(digestOf(bytes), (inBatch.get(digestOf(bytes)) ?? 0) + 1);
					}
					for (const { bytes, want } of requests) {
						const digest = digestOf(bytes);
						want.copied = seenBodies.has(digest) || (inBatch.get(digest) ?? 0) > 1;
					}
					const answers = await Promise.all(
						requests.map(async ({ bytes, headers }) => {
							const response = await request(h.url, {
								dispatcher: pool,
								method: 'POST',
								body: bytes,
								headers,
							});
							const text = await response.body.text();
							return { status: response.statusCode, text };
						}),
					);
					sent += requests.length;
					for (; indexed < h.executions.length; indexed++) {
						const execution = h.executions[indexed];
						const seq = execution.requestHeaders['x-fuzz-seq'];
						executionsBySeq.set(seq, [...(executionsBySeq.get(seq) ?? []), execution]);
					}
					requests.forEach(({ want }, i) =>
						checkAnswer(want, answers[i], executionsBySeq.get(want.seq) ?? []),
					);
					for (const { bytes, want } of requests)
						if (want.verified) seenBodies.add(digestOf(bytes));
					expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeBefore);
				},
			),
			{
				seed: SEED,
				path: PATH,
				numRuns: Math.ceil(RUNS / BATCH),
				endOnFailure: process.env.FUZZ_SHRINK !== '1',
			},
		);

		// Nothing that was refused is remembered: not in static data, not in the process memory.
		const stored = JSON.parse(h.db.staticData ?? '{}');
		const remembered = new Set(
			savedKeys(stored['node:Consent Flow Trigger']?.consentFlowDeliveries),
		);
		for (const id of badIds) expect(remembered.has(id)).toBe(false);
		const sample = badIds.slice(0, 20);
		for (const id of sample) {
			const text = JSON.stringify({ webhookId: id, event: 'consent.data', payload: {} });
			const response = await request(h.url, {
				dispatcher: pool,
				method: 'POST',
				body: text,
				headers: {
					'content-type': 'application/json',
					'x-acme-sbl-signature': hmac(text).toString('hex'),
				},
			});
			expect(JSON.parse(await response.body.text())).toMatchObject({
				status: 'emitted',
				webhookId: id,
			});
		}

		// Nothing polluted.
		expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeBefore);
		expect({}.polluted).toBeUndefined();
		expect(h.deliveries.filter((d) => d.error)).toEqual([]);
		expect(sent).toBeGreaterThanOrEqual(RUNS);
		console.log(
			`fuzz: ${sent} requests in ${Date.now() - started} ms, ${emittedIds.length} events emitted, ${badIds.length} refused envelopes`,
		);
	}, 120000);
});
