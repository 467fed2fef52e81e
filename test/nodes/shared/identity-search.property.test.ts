/**
 * The value search against numbers generated from the published rules (test/support/identity-numbers.ts):
 * every valid identity number, in every written form, inside any text, is found; a bank account
 * number stays unless it passes both identity checks (the false-positive rule, docs/reference.md).
 */
import fc from 'fast-check';

import { syntheticNationalId } from '../../support/synthetic-ids';
import {
	findIdentityNumbers,
	identityNumberOfNumber,
	isIban,
	leftOutForm,
	maskedForm,
	replaceIdentityNumbers,
} from '../../../nodes/shared/identity-search';
import {
	ACCOUNT_GROUPING,
	accountNumber,
	ibanOf,
	identityNumber,
	referenceNationalId,
	validAccountNumber,
	write,
	writtenForm,
} from '../../support/identity-numbers';

/** Text that cannot join a number next to it: no digits, and it starts and ends with a letter. */
const words = fc.string({ maxLength: 30 }).map((text) => `a${text.replace(/\p{Nd}|%/gu, '')}b`);

const RUNS = { numRuns: 400 };
const SEARCH_ALL = { accountForms: 'search' } as const;

const asciiDigits = (text: string) =>
	[...text.normalize('NFKC')]
		.map((char) => {
			const code = char.codePointAt(0)!;
			for (const zero of [0x30, 0x660, 0x966, 0x1d7ce])
				if (code >= zero && code <= zero + 9) return String(code - zero);
			return '';
		})
		.join('');

describe('findIdentityNumbers', () => {
	it('finds every valid identity number in every written form inside any text', () => {
		fc.assert(
			fc.property(identityNumber, writtenForm, words, words, (id, form, before, after) => {
				const written = write(id, form);
				const text = `${before} ${written} ${after}`;
				const found = findIdentityNumbers(text);
				expect(found.map((hit) => hit.digits)).toEqual([id]);
				expect(text.slice(found[0].start, found[0].end)).toBe(written);
			}),
			RUNS,
		);
	});

	it('leaves no digit of the number once replaced, and the mask shows the check digits only', () => {
		fc.assert(
			fc.property(identityNumber, writtenForm, words, (id, form, around) => {
				const text = `${around}${write(id, form)}${around}`;
				const written = write(id, form);
				expect(replaceIdentityNumbers(text, leftOutForm)).toBe(
					`${around}${written.replace(/\p{Nd}/gu, '*')}${around}`,
				);
				expect(asciiDigits(replaceIdentityNumbers(text, leftOutForm))).toBe('');
				expect(replaceIdentityNumbers(text, maskedForm)).toBe(
					`${around}*********${id.slice(9)}${around}`,
				);
			}),
			RUNS,
		);
	});

	it('keeps a plain bank account number unless it passes both identity checks (then it is masked too)', () => {
		fc.assert(
			fc.property(validAccountNumber, words, (account, around) => {
				const isIdentity = referenceNationalId(account).valid;
				expect(findIdentityNumbers(`${around} ${account} ${around}`).length).toBe(
					isIdentity ? 1 : 0,
				);
				expect(findIdentityNumbers(account).length).toBe(isIdentity ? 1 : 0);
			}),
			{ numRuns: 2000 },
		);
	});

	// issue 49: 36 % of register 1503's account numbers pass both identity checks
	it('keeps an account number written 4-2-5 or as a valid IBAN; error texts search them', () => {
		const accountIds = identityNumber.filter((id) => accountNumber(id.slice(0, 10)) === id);
		fc.assert(
			fc.property(
				accountIds,
				fc.constantFrom('.', ' ', '\u00a0', '-'),
				words,
				(id, sep, around) => {
					const grouped = write(id, { grouping: ACCOUNT_GROUPING, separator: sep, zero: 0x30 });
					for (const form of [grouped, ibanOf(id), ibanOf(id, false), `${ibanOf(id)}.`]) {
						const text = `${around} ${form} ${around}`;
						expect(findIdentityNumbers(text)).toEqual([]);
						expect(findIdentityNumbers(text, SEARCH_ALL).length).toBe(
							form === ibanOf(id, false) ? 0 : 1,
						);
					}
					// a wrong IBAN check: searched as any other text
					const wrong = ibanOf(id).replace(
						/^NO(\d\d)/,
						(_, check) => `NO${(Number(check) + 1) % 100}`,
					);
					expect(findIdentityNumbers(wrong).length).toBe(1);
				},
			),
			{ numRuns: 500 },
		);
	});

	// found by the property above (seed -1230686195): "xb12" + "460250054af" passed as an IBAN of
	// any country 1 time in 97; only Norway's form is an account
	it('letters glued to an identity number never make it an IBAN', () => {
		// ISO 7064 mod 97-10 as the IBAN rule states it (letters A=10 … Z=35), an independent oracle
		const checks = (text: string) => {
			const moved = (text.slice(4) + text.slice(0, 4)).toUpperCase();
			const digits = moved.replace(/[A-Z]/g, (l) => String(l.charCodeAt(0) - 55));
			return [...digits].reduce((rest, d) => (rest * 10 + Number(d)) % 97, 0) === 1;
		};
		const id = syntheticNationalId(4242);
		const letters = [...'abcdefghijklmnopqrstuvwxyz'];
		const pairs = letters.flatMap((a) => letters.map((b) => a + b)).filter((p) => p !== 'no');
		let glued: string | undefined;
		for (const before of pairs) {
			glued = pairs.map((after) => `${before}${id}${after}`).find(checks);
			if (glued !== undefined) break;
		}
		const text = `af ${glued!} xb`;
		expect(findIdentityNumbers(text)).toHaveLength(1);
		expect(asciiDigits(replaceIdentityNumbers(text, leftOutForm))).toBe('');
	});

	it('isIban: a whole Norwegian IBAN, compact or 4-4-4-3, any case, with space around; nothing else', () => {
		for (const iban of [
			'NO93 8601 1117 947',
			'NO9386011117947',
			'no93 8601 1117 947',
			' \tNO93 8601 1117 947\n',
		]) {
			expect([iban, isIban(iban)]).toEqual([iban, true]);
		}
		// 100000000000083 passes the mod-97 check read as an IBAN, but has no IBAN's shape
		for (const other of [
			'NO94 8601 1117 947',
			'DE93 8601 1117 947',
			'100000000000083',
			'x NO9386011117947',
		]) {
			expect([other, isIban(other)]).toEqual([other, false]);
		}
	});

	it('does not cut a number out of a longer digit group', () => {
		fc.assert(
			fc.property(identityNumber, fc.integer({ min: 0, max: 9 }), (id, digit) => {
				expect(findIdentityNumbers(`${id}${digit}`)).toEqual([]);
				expect(findIdentityNumbers(`${digit}${id}`)).toEqual([]);
			}),
			RUNS,
		);
	});

	it('finds a number after a date and before other numbers, as a whole group', () => {
		fc.assert(
			fc.property(identityNumber, (id) => {
				expect(findIdentityNumbers(`2024-05-31 ${id}, 12`).map((hit) => hit.digits)).toEqual([id]);
			}),
			RUNS,
		);
	});

	it('finds several numbers in one text', () => {
		fc.assert(
			fc.property(
				fc.array(identityNumber, { minLength: 1, maxLength: 4 }),
				writtenForm,
				(ids, form) => {
					const text = ids.map((id) => `fnr ${write(id, form)}`).join('; ');
					expect(findIdentityNumbers(text).map((hit) => hit.digits)).toEqual(ids);
				},
			),
			RUNS,
		);
	});

	it('the edges of a run: a separator at the end, two numbers one space apart, five separators', () => {
		fc.assert(
			fc.property(identityNumber, identityNumber, (a, b) => {
				expect(findIdentityNumbers(`${a}. `).map((hit) => hit.digits)).toEqual([a]);
				expect(findIdentityNumbers(`${a} ${b}`).map((hit) => hit.digits)).toEqual([a, b]);
				expect(findIdentityNumbers(`${a.slice(0, 6)}    ${a.slice(6)}`).length).toBe(1);
				expect(findIdentityNumbers(`${a.slice(0, 6)}     ${a.slice(6)}`)).toEqual([]);
				expect(findIdentityNumbers(`${a.slice(0, 6)}%20%20%20%20${a.slice(6)}`).length).toBe(1);
			}),
			RUNS,
		);
	});

	it('a run of any length: a number after 300 one-digit groups is found where it is', () => {
		const id = syntheticNationalId(4);
		const before = '7 '.repeat(300);
		expect(findIdentityNumbers(`${before}${id}`)).toEqual([
			{ start: before.length, end: before.length + 11, digits: id },
		]);
	});

	it('a character just before a number takes its own width: U+FFFF one unit, an emoji two', () => {
		const id = syntheticNationalId(3);
		for (const before of ['\uffff', '\u{1F600}', '\u{10FFFF}', 'a\uffff'])
			expect(findIdentityNumbers(`${before}${id}`)).toEqual([
				{ start: before.length, end: before.length + 11, digits: id },
			]);
	});

	it('leaves machine identifiers alone: UUIDs and hex words of 32 or more', () => {
		// a flow id of a CI run whose digits 17-4433-9428-1 pass both checks (stop 45)
		const flow = '4f7f1c59-1a17-4433-9428-1c16d43577ea';
		expect(findIdentityNumbers('17-4433-9428-1').length).toBe(1);
		expect(findIdentityNumbers(`flow ${flow}`)).toEqual([]);
		expect(findIdentityNumbers(`"flow":"${flow}","nationalId":null`)).toEqual([]);
		fc.assert(
			fc.property(
				fc.oneof(
					fc.uuid(),
					fc.uuid().map((id) => id.toUpperCase().replace(/-/g, '')),
					fc.stringMatching(/^[0-9a-f]{32,64}$/),
				),
				identityNumber,
				(id, number) => {
					expect(findIdentityNumbers(`id ${id}, ${id}`)).toEqual([]);
					// a person's number beside it is still found
					expect(findIdentityNumbers(`${id} ${number}`).map((hit) => hit.digits)).toEqual([number]);
				},
			),
			{ numRuns: 3000 },
		);
	});

	it('finds a number written right against a machine identifier, before or after it', () => {
		// fullwidth digits are not ASCII: the identifier's bounds hold, the number is its own group
		const fullwidth = (id: string) =>
			[...id].map((d) => String.fromCodePoint(0xff10 + Number(d))).join('');
		const flow = 'ea7f1c59-1a17-4433-9428-1c16d43577ea';
		fc.assert(
			fc.property(identityNumber, (id) => {
				const digits = (text: string) => findIdentityNumbers(text).map((hit) => hit.digits);
				expect(digits(`${flow}${fullwidth(id)}`)).toEqual([id]);
				expect(digits(`${fullwidth(id)}${flow}`)).toEqual([id]);
				expect(digits(`${id} ${flow}`)).toEqual([id]);
			}),
			RUNS,
		);
	});

	it('searches what only looks like a UUID: a letter outside hex, a short hex word (not a long one)', () => {
		fc.assert(
			fc.property(identityNumber, (id) => {
				// 37 hex characters standing alone: a hash or key, not searched
				expect(findIdentityNumbers(`key deadbeef${id}cafebabe0123456789.`)).toEqual([]);
				const [day, rest] = [id.slice(0, 8), id.slice(8)];
				expect(findIdentityNumbers(`${day}-${rest}-zz`).length).toBe(1);
				expect(findIdentityNumbers(`g${id}abcdef0123456789abcdef`).length).toBe(1);
				expect(findIdentityNumbers(`deadbeef${id}`).length).toBe(1);
			}),
			RUNS,
		);
	});

	it('a text without digits has none', () => {
		expect(findIdentityNumbers('Skattemelding for Kari, ingen nummer')).toEqual([]);
		expect(replaceIdentityNumbers('ingen nummer', leftOutForm)).toBe('ingen nummer');
	});

	it('agrees with the published rule on any 11 digits', () => {
		fc.assert(
			fc.property(fc.stringMatching(/^[0-9]{11}$/), (digits) => {
				expect(findIdentityNumbers(`x${digits}x`).length).toBe(
					referenceNationalId(digits).valid ? 1 : 0,
				);
			}),
			{ numRuns: 3000 },
		);
	});
});

describe('identityNumberOfNumber', () => {
	it('reads a JSON number of 11 digits; one that lost its leading zero is no identity number', () => {
		fc.assert(
			fc.property(identityNumber, (id) => {
				expect(identityNumberOfNumber(Number(id))).toBe(id.startsWith('0') ? undefined : id);
			}),
			RUNS,
		);
		// epoch seconds of 2027-12-28, padded to 01830000085, pass as a synthetic number (month 83)
		expect(identityNumberOfNumber(1_830_000_085)).toBeUndefined();
	});

	it('finds nothing in other numbers', () => {
		expect(identityNumberOfNumber(1.5)).toBeUndefined();
		expect(identityNumberOfNumber(999_999_999)).toBeUndefined();
		expect(identityNumberOfNumber(1e11)).toBeUndefined();
		expect(identityNumberOfNumber(10_101_700_368)).toBeUndefined();
		expect(identityNumberOfNumber(1e21)).toBeUndefined();
		expect(identityNumberOfNumber(-1_017_003_689)).toBeUndefined();
	});
});
