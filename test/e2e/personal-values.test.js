'use strict';
// Issue 42, in a real n8n: a Consent Flow Trigger added with its defaults (Minimise at Mask) and one
// set to Leave Out receive a consent.data whose invented tax payload holds nine valid identity
// numbers under keys and in written forms no field-name rule knows, and Include Headers with a
// proxy's identity token. The stored executions (n8n's public API, includeData=true) hold none of
// the numbers in any form, nor the token; a bank account number that is no identity number stays.
// Issue 49: business numbers pass as sent — an account number of register 1503 that is also a valid
// identity number under accountNumber, bankAccount, kontonummer, payoutAccount and kid, written
// 1503.xx.xxxxx, as an IBAN, and epoch seconds as a JSON number (the defaults changed 5 of 6).
const crypto = require('node:crypto');
const { firstVersion, useN8n } = require('./lib/suite');
const W = require('./lib/workflows');
const L = require('./lib/loop');
const { SIGNING } = require('./lib/wait');

// Valid numbers (check digits by the published rule): birth numbers, a D-number (day + 40),
// an H-number (month + 40), a synthetic test number (month + 80), and one by the 2032 control rule.
// Only the first nine digits are written here (test/nodes/shared/synthetic-ids.test.js): the check
// digits are added when the test runs.
const FIRST_NINE = [
	'010170036',
	'150765005',
	'280299001',
	'410170123',
	'014170123',
	'018170000',
	'311299567',
	'020202123',
	'050588123',
];
const ACCOUNT = '86011117947'; // a valid account number that fails the identity checks

/** Valid identity numbers per the published rule (K1 remainder 0-3, K2 classic, a date). */
function isIdentityNumber(v) {
	const d = [...v].map(Number);
	const k1 = [3, 7, 6, 1, 8, 9, 4, 5, 2, 1].reduce((s, w, i) => s + w * d[i], 0) % 11;
	const k2 = [5, 4, 3, 2, 7, 6, 5, 4, 3, 2, 1].reduce((s, w, i) => s + w * d[i], 0) % 11;
	let day = d[0] * 10 + d[1];
	let month = d[2] * 10 + d[3];
	if (day > 40) day -= 40;
	if (month > 80) month -= 80;
	else if (month > 40) month -= 40;
	return k1 <= 3 && k2 === 0 && month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

/** The last digits fixed so each number passes (K1 remainder 0, K2 classic), keeping the first nine. */
function valid(first9) {
	for (let k1 = 0; k1 <= 9; k1++)
		for (let k2 = 0; k2 <= 9; k2++)
			if (isIdentityNumber(`${first9}${k1}${k2}`)) return `${first9}${k1}${k2}`;
	throw new Error(`no check digits for ${first9}`);
}
const NUMBERS = FIRST_NINE.map(valid);

// 15.03.70: a valid identity number, and (its K2 is MOD11) a valid account number of register 1503
const ACCOUNT_1503 = valid('150370123');
function iban(bban) {
	const rest = [...`${bban}232400`].reduce((r, d) => (r * 10 + Number(d)) % 97, 0);
	return `NO${String(98 - rest).padStart(2, '0')}${bban}`.match(/.{1,4}/g).join(' ');
}
const A = ACCOUNT_1503;
const BUSINESS = {
	accountNumber: A,
	bankAccount: A,
	kontonummer: A,
	payoutAccount: A,
	kid: A,
	iban: iban(A),
	melding: `Til ${A.slice(0, 4)}.${A.slice(4, 6)}.${A.slice(6)} eller ${iban(A)}`,
	createdAt: 1830000085,
};

const fullwidth = (s) => [...s].map((c) => String.fromCharCode(0xff10 + Number(c))).join('');
const at = (s, ...cuts) => {
	const parts = [];
	let from = 0;
	for (const cut of cuts) {
		parts.push(s.slice(from, cut));
		from = cut;
	}
	return [...parts, s.slice(from)];
};

function taxPayload(n) {
	return {
		skattemelding: {
			personidentifikator: n[0],
			inntektsaar: 2025,
			partsnummer: at(n[1], 6).join('  '),
			formue: [
				{ eier: { foedselsnummer: at(n[2], 6, 9).join('-') } },
				{ konto: ACCOUNT, beloep: 120000 },
			],
			merknad: `Skattemelding for ${n[3]}`,
			barn: [
				{ fnr: at(n[4], 4, 6).join('\u2011') },
				{ national_id: at(n[5], 3, 6).join('\u200b') },
			],
			ektefelle: { norskIdentifikator: fullwidth(n[6]) },
		},
		inntekt: { [n[7]]: { arbeidsgiver: '923456783' }, lonn: `${at(n[8], 6).join('%20')}` },
		forretning: BUSINESS,
	};
}

/** Every string and key of the stored data, its digits in ASCII with nothing between them. */
function digitStrings(value, out = []) {
	const digits = (text) =>
		[...text.normalize('NFKC')]
			.map((c) => (/\p{Nd}/u.test(c) ? c : ''))
			.join('')
			.replace(/%20/g, '');
	if (typeof value === 'string') out.push(digits(value.replace(/%20/g, ' ')));
	else if (value && typeof value === 'object')
		for (const [key, child] of Object.entries(value)) {
			out.push(digits(key));
			digitStrings(child, out);
		}
	return out;
}

// What the trigger stores is its own output, the same on every major (the answer path is
// covered on each by trigger-loop, hang-up and burst): run on the first major of the run only.
describe.each(firstVersion())(
	'n8n %s.x: identity numbers found by value in stored executions (issue 42)',
	(major) => {
		const ctx = useN8n(major, { simulator: true });
		let signing;

		beforeAll(async () => {
			signing = await ctx.n8n.createCredential({
				name: 'SBL signing (issue 42)',
				type: SIGNING,
				data: { secret: ctx.sim.signingSecret, signatureHeader: '' },
			});
		}, 120000);

		test.each([
			['defaults (Mask)', {}],
			['Leave Out', { minimisePersonalData: 'leaveOut' }],
		])(
			'%s: no identity number in any form, no proxy token; the account and business numbers stay',
			async (_name, parameters) => {
				const { n8n } = ctx;
				const trig = W.packageTriggerNode({
					credentials: { [SIGNING]: signing },
					parameters: {
						minimisePersonalData: undefined,
						...parameters,
						options: { includeHeaders: true },
					},
				});
				const wf = await n8n.deployWorkflow(
					W.workflow(`issue 42 ${crypto.randomBytes(3).toString('hex')}`, [trig], {}),
					{
						webhookPaths: [{ path: L.triggerPath(trig), method: 'POST' }],
					},
				);
				try {
					const flowId = crypto.randomUUID();
					const body = JSON.stringify({
						webhookId: crypto.randomUUID(),
						event: 'consent.data',
						flowId,
						externalId: NUMBERS[0],
						timestamp: new Date().toISOString(),
						payload: { flow: flowId, data: taxPayload(NUMBERS) },
					});
					const jwt =
						'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJrYXJpQGJhbmsuZXhhbXBsZSJ9.c2lnbmF0dXJlLXByb3h5';
					const r = await L.signedPost(n8n.webhookUrl(L.triggerPath(trig)), body, {
						secret: ctx.sim.signingSecret,
						header: 'x-acme-sbl-signature',
						headers: { 'cf-access-jwt-assertion': jwt, 'x-amzn-oidc-data': jwt },
					});
					expect(r.status).toBe(200);
					const [execution] = await L.waitForTriggerExecutions(
						n8n,
						wf.id,
						(list) => list.length >= 1,
						{ what: 'the trigger execution' },
					);
					const stored = (await n8n.execution(execution.id, { includeData: true })).data;
					const strings = digitStrings(stored);
					const left = NUMBERS.filter((id) => strings.some((text) => text.includes(id)));
					expect({ left }).toEqual({ left: [] });
					const text = JSON.stringify(stored);
					expect(text).not.toContain('eyJhbGciOiJSUzI1NiJ9');
					expect(text).toContain(ACCOUNT);
					const item = L.triggerRun(execution, 'Consent Flow Trigger').items[0].json;
					expect(item.headers['content-type']).toBe('application/json');
					expect(item.payload.data.forretning).toEqual(BUSINESS);
				} finally {
					await n8n.deactivateWorkflow(wf.id).catch(() => {});
				}
			},
			120000,
		);
	},
);
