/**
 * Issue 49: business numbers pass Minimise Personal Data as they were. A value under a key that
 * names an account or a KID, an account number written 4-2-5 or as an IBAN, and a JSON number that
 * is not an 11-digit identity number are left alone; identity numbers elsewhere are still found.
 * Figures per kind: `npm run bench:identity` (scripts/bench/identity-false-positives.js).
 */
import fc from 'fast-check';
import { minimiseValues } from '../../../../nodes/shared/webhook/minimise';
import {
	accountNumber,
	ibanOf,
	identityNumber,
	withControlDigits,
} from '../../../support/identity-numbers';

const MODES = ['mask', 'leaveOut'] as const;

// 15.03.70, individual 123: an identity number, and (its K2 is MOD11) a valid account in register 1503
const BOTH = withControlDigits('150370123', 0)!;
const GROUPED = `${BOTH.slice(0, 4)}.${BOTH.slice(4, 6)}.${BOTH.slice(6)}`;

/** Identity numbers that are valid account numbers too (36 % of registers like 1503). */
const accountAndIdentity = identityNumber.filter((id) => accountNumber(id.slice(0, 10)) === id);

const BUSINESS_KEYS = [
	'account',
	'accountNumber',
	'account_number',
	'AccountNo',
	'bankAccount',
	'payoutAccount',
	'accounts',
	'konto',
	'Kontonummer',
	'kontonr',
	'bankkonto',
	'iban',
	'IBAN',
	'payeeIban',
	'bban',
	'kid',
	'KID',
	'kidNumber',
	'kid_nr',
	'kidnummer',
];

describe('a value under a key that names an account or a KID', () => {
	test.each(BUSINESS_KEYS)('%s: the number passes in every form, both modes', (key) => {
		const values = [BOTH, GROUPED, `${BOTH.slice(0, 4)} ${BOTH.slice(4)}`, ibanOf(BOTH)];
		for (const mode of MODES)
			for (const value of [...values, Number(BOTH), values]) {
				const item = { payload: { data: { [key]: value } } };
				expect(minimiseValues(item, mode)).toEqual(item);
			}
	});

	it('the same number under another key is found (the rule is the key)', () => {
		expect(minimiseValues({ ref: BOTH, konto: BOTH }, 'mask')).toEqual({
			ref: `*********${BOTH.slice(9)}`,
			konto: BOTH,
		});
	});

	test.each([
		['accountHolder', BOTH],
		['accountHolderFnr', BOTH],
		['kontoEier', BOTH],
		['kids', BOTH],
		['konto', `Kari ${BOTH}`],
		['iban', `NO12 Kari ${BOTH}`],
		['iban', ibanOf(BOTH).replace(/^NO(\d\d)/, (_, check) => `NO${(Number(check) + 1) % 100}`)],
		['konto', { nummer: BOTH }],
		['konto', [BOTH, { nummer: BOTH }]],
	])('%s: %j is searched as any other value', (key, value) => {
		const text = JSON.stringify(minimiseValues({ [key]: value }, 'leaveOut'));
		expect(text).not.toContain(BOTH.slice(0, 9));
	});

	test.each(['fnr', 'nationalId', 'personnummer'])(
		'%s (an identity field) is masked as before',
		(key) => {
			expect(minimiseValues({ [key]: BOTH }, 'mask')).toEqual({
				[key]: `*********${BOTH.slice(9)}`,
			});
			expect(minimiseValues({ [key]: BOTH }, 'leaveOut')).toEqual({});
		},
	);

	it('any account number that is also an identity number passes under any such key', () => {
		fc.assert(
			fc.property(
				accountAndIdentity,
				fc.constantFrom(...BUSINESS_KEYS),
				fc.constantFrom(...MODES),
				(id, key, mode) => {
					const item = { payload: { [key]: id, note: `til ${ibanOf(id)}` } };
					expect(minimiseValues(item, mode)).toEqual(item);
				},
			),
			{ numRuns: 300 },
		);
	});
});

describe('account forms in any text', () => {
	test.each(MODES)('%s: 4-2-5 and a valid IBAN pass; 6-5 and plain are found', (mode) => {
		const six5 = `${BOTH.slice(0, 6)} ${BOTH.slice(6)}`;
		const note = `Til ${GROUPED} eller ${ibanOf(BOTH)}, ikke ${six5} eller ${BOTH}`;
		const out = minimiseValues({ note }, mode).note;
		const gone = mode === 'mask' ? `*********${BOTH.slice(9)}` : '***********';
		const six5Gone = mode === 'mask' ? gone : '****** *****';
		expect(out).toBe(`Til ${GROUPED} eller ${ibanOf(BOTH)}, ikke ${six5Gone} eller ${gone}`);
	});
});

describe('a JSON number keeps its type', () => {
	it('any integer of up to 10 digits (epoch seconds, int32 ids) stays the number it was', () => {
		fc.assert(
			fc.property(
				fc.integer({ min: -9_999_999_999, max: 9_999_999_999 }),
				fc.constantFrom(...MODES),
				(n, mode) => {
					expect(minimiseValues({ createdAt: n, list: [n] }, mode)).toEqual({
						createdAt: n,
						list: [n],
					});
				},
			),
			{ numRuns: 2000 },
		);
		// 2027-12-28 (01.83.00, synthetic) and an int32 id (01.10.00) with a zero put before them
		expect(minimiseValues({ t: 1_830_000_085, id: 1_100_000_004 }, 'mask')).toEqual({
			t: 1_830_000_085,
			id: 1_100_000_004,
		});
	});
});
