/**
 * Issue 25, error texts: no national identity number and no name the item carried appears in
 * anything the package writes about a failure, whatever the service answers (JSON fields,
 * nested arrays, HTML, plain text, headers), and no validation message prints a value that
 * looks like an identity number.
 *
 * Oracles independent of nodes/shared/personal.ts: a character-by-character scanner for digit
 * runs (below), and a tokenizer that splits texts into letter runs for the names. fast-check
 * generates the service bodies; the node runs for real with n8n's error shape (a NodeApiError
 * around an axios-like error, as test/support/execute-context.ts throws).
 */
import fc from 'fast-check';
import { NodeApiError } from 'n8n-workflow';
import type { INode, INodeExecutionData } from 'n8n-workflow';
import { ConsentFlow } from '../../../nodes/ConsentFlow/ConsentFlow.node';
import { maskIdentityNumbers, personalMasker } from '../../../nodes/shared/personal';
import { checkOrganizationNumber, show } from '../../../nodes/shared/validation';
import { createExecuteContext } from '../../support/execute-context';
import { createParams, deepText } from '../ConsentFlow/helpers';

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
const isHex = (c: string | undefined): boolean =>
	c !== undefined && '0123456789abcdefABCDEF'.includes(c);
const SPACES = ' \u00a0\u202f';

/** Whether a UUID (8-4-4-4-12 hex digits) starts at `i`. */
function uuidAt(text: string, i: number): boolean {
	const shape = 'xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx';
	for (let k = 0; k < shape.length; k++) {
		const c = text[i + k];
		if (shape[k] === '-' ? c !== '-' : !isHex(c)) return false;
	}
	return true;
}

/**
 * The length of the separator at `i` that leads to another digit, or 0: a space, dot or slash,
 * or a hyphen / en dash with at most one space either side. Longest first.
 */
function separatorAt(text: string, i: number): number {
	const candidates: number[] = [];
	const space = (k: number) => SPACES.includes(text[k] ?? 'x');
	const dash = (k: number) => text[k] === '-' || text[k] === '\u2013';
	if (space(i) && dash(i + 1)) candidates.push(space(i + 2) ? 3 : 0, 2);
	if (dash(i)) candidates.push(space(i + 1) ? 2 : 0, 1);
	if (space(i) || text[i] === '.' || text[i] === '/') candidates.push(1);
	return candidates.find((n) => n > 0 && isDigit(text[i + n])) ?? 0;
}

/** The digit groups from `i` on, joined by separators: [start, end) of each. */
function groupsFrom(text: string, i: number): Array<[number, number]> {
	const groups: Array<[number, number]> = [];
	let at = i;
	for (;;) {
		let end = at;
		while (isDigit(text[end])) end++;
		groups.push([at, end]);
		const sep = separatorAt(text, end);
		if (sep === 0) return groups;
		at = end + sep;
	}
}

/** Digit counts of the written forms of an identity number (Skatteetaten's, and as people group them). */
const FORMS = [[11], [6, 5], [3, 3, 3, 2], [2, 2, 2, 5]];

/**
 * Positions of the digits a masker must hide, scanning left to right: a UUID is skipped whole; at
 * the start of a digit group, the first groups that have the digit counts of a form (with
 * `unpadded`, also a group of 10) are an identity number.
 */
function identityDigits(text: string, unpadded = false): Set<number> {
	const hidden = new Set<number>();
	const forms = unpadded ? [...FORMS, [10]] : FORMS;
	let i = 0;
	while (i < text.length) {
		if (uuidAt(text, i)) {
			i += 36;
			continue;
		}
		if (!isDigit(text[i]) || isDigit(text[i - 1])) {
			i++;
			continue;
		}
		const groups = groupsFrom(text, i);
		const form = forms.find((counts) =>
			counts.every((n, k) => groups[k] !== undefined && groups[k][1] - groups[k][0] === n),
		);
		if (form === undefined) {
			i++;
			continue;
		}
		const end = groups[form.length - 1][1];
		for (let k = i; k < end; k++) if (isDigit(text[k])) hidden.add(k);
		i = end;
	}
	return hidden;
}

/** Whether `text` still holds an identity number in a written form (10 digits too with `unpadded`). */
const hasIdentityNumber = (text: string, unpadded = false): boolean =>
	identityDigits(text, unpadded).size > 0;

/** The letter runs of a text, lower-cased (a name part is "in" a text when one of them equals it). */
function letterRuns(text: string): Set<string> {
	return new Set((text.toLowerCase().match(/\p{L}+/gu) ?? []) as string[]);
}

const DIGITS = fc.stringMatching(/^\d{11}$/);
const SEPARATOR = fc.constantFrom('', ' ', '.', '-', '\u00a0', '/', ' - ', '\u2013', '\u202f');
/** An identity number as a service may write it back, in groups where written so. */
const GROUPINGS: Record<string, number[]> = {
	'as sent': [11],
	split: [6, 5],
	'3-3-3-2': [3, 3, 3, 2],
	'2-2-2-5': [2, 2, 2, 5],
};
const grouped = (digits: string, sizes: number[], sep: string): string =>
	sizes
		.map((size, k) => digits.slice(sizes.slice(0, k).reduce((a, b) => a + b, 0)).slice(0, size))
		.join(sep);
const ID_FORM = fc
	.tuple(
		DIGITS,
		SEPARATOR,
		fc.constantFrom('as sent', 'split', '3-3-3-2', '2-2-2-5', 'number'),
		fc.constantFrom('', 'row 3 ', '2024-05-31 '),
	)
	.map(([digits, sep, how, before]) => ({
		digits,
		form:
			before + (how === 'number' ? String(Number(digits)) : grouped(digits, GROUPINGS[how], sep)),
	}));
const NAME_PART = fc
	.tuple(fc.constantFrom(...'ABCDEFGHIJKLMNOPRSTUVWÆØÅÉ'), fc.stringMatching(/^[a-zæøåéü]{2,10}$/))
	.map(([first, rest]) => first + rest);
const NAME = fc.oneof(
	NAME_PART,
	fc.tuple(NAME_PART, NAME_PART).map(([a, b]) => `${a}-${b}`),
	fc.tuple(NAME_PART, NAME_PART).map(([a, b]) => `${a} ${b}`),
);
/** How the service writes a name back: as sent, upper case, lower case, one part only. */
const nameEcho = (name: string, how: number): string =>
	[name, name.toUpperCase(), name.toLowerCase(), name.split(/[ -]/).pop()!][how % 4];

/** A filler word that is neither a digit run nor likely a name. */
const WORD = fc.constantFrom('error', 'invalid', 'the', 'registry', 'mismatch', ':', ',', '42', '');

/** Where the service puts `id` and `name`: its body (by kind) and headers. */
function bodyArbitrary(id: string, name: string) {
	const sentence = fc
		.tuple(fc.array(WORD, { maxLength: 4 }), fc.array(WORD, { maxLength: 4 }), fc.boolean())
		.map(([a, b, swap]) => [...a, swap ? name : id, ...b, swap ? id : name].join(' '));
	const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
		value: fc.oneof(
			{ depthSize: 'small', withCrossShrink: true },
			sentence,
			fc.constant(id),
			fc.constant(name),
			fc.array(tie('value'), { maxLength: 3 }),
			fc.dictionary(
				fc.constantFrom('detail', 'message', 'title', 'error', 'x', 'nationalId', 'lastName'),
				tie('value'),
				{ maxKeys: 3 },
			),
		),
	})).value;
	return fc.oneof(
		// the service's own error shapes, with the values anywhere in them
		fc.record({ message: sentence, detail: json }, { requiredKeys: [] }),
		fc.record({
			errors: fc.dictionary(
				fc.constantFrom('nationalId', 'lastName', id, name),
				fc.array(sentence, { minLength: 1, maxLength: 2 }),
			),
		}),
		fc.record({
			fields: fc.array(
				fc.record({ field: fc.constantFrom('nationalId', id, name), message: sentence }),
				{ maxLength: 3 },
			),
		}),
		json,
		sentence.map((s) => `<html><body><h1>Error</h1><p>${s}</p></body></html>`),
		sentence,
	);
}

const node: INode = {
	id: 'n',
	name: 'Consent Flow',
	type: 't',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

function serviceFailure(status: number, data: unknown, headers: Record<string, string>): Error {
	const error = Object.assign(new Error(`Request failed with status code ${status}`), {
		isAxiosError: true,
		response: { status, headers, data: typeof data === 'string' ? data : JSON.stringify(data) },
	});
	return new NodeApiError(node, error as never);
}

const credentials = {
	consentFlowOAuth2Api: {
		realm: 'sbl',
		environment: 'test',
		apiBaseUrl: 'https://api.example.com',
		clientId: 'client',
		clientSecret: 'client-secret-value',
	},
};

describe('identity numbers and names the service quotes back never leave the node', () => {
	test('thrown error and Continue On Fail item, any body, 400/409/500', async () => {
		const scenario = fc.tuple(ID_FORM, NAME, fc.nat(3)).chain(([id, name, how]) =>
			fc.record({
				id: fc.constant(id),
				name: fc.constant(name),
				body: bodyArbitrary(id.form, nameEcho(name, how)),
				status: fc.constantFrom(400, 409, 500),
				header: fc.constantFrom('retry-after', 'x-request-id'),
				continueOnFail: fc.boolean(),
			}),
		);
		await fc.assert(
			fc.asyncProperty(scenario, async ({ id, name, body, status, header, continueOnFail }) => {
				const ctx = createExecuteContext({
					parameters: createParams({
						nationalId: id.digits,
						lastName: name,
						options: { validateNationalId: false, retryDelayMs: 0, maxRetries: 0, concurrency: 1 },
					}),
					credentials: credentials as never,
					continueOnFail,
				});
				ctx.helpers.httpRequestWithAuthentication = async () =>
					await Promise.reject(serviceFailure(status, body, { [header]: `${id.form} ${name}` }));
				let text: string;
				try {
					const [items] = (await new ConsentFlow().execute.call(ctx)) as INodeExecutionData[][];
					expect(continueOnFail).toBe(true);
					expect(items).toHaveLength(1);
					expect(items[0].pairedItem).toEqual({ item: 0 });
					text = JSON.stringify(items);
				} catch (error) {
					expect(continueOnFail).toBe(false);
					expect(error).toBeInstanceOf(NodeApiError);
					const apiError = error as NodeApiError;
					text = [
						apiError.message,
						apiError.description,
						JSON.stringify(apiError.errorResponse),
						deepText(error),
					]
						.join('\n')
						// n8n's own field: when the error was made, in ms (13 digits, not personal)
						.split(String(apiError.timestamp))
						.join('');
				}
				expect(hasIdentityNumber(text)).toBe(false);
				expect(text).not.toContain(id.form);
				const runs = letterRuns(text);
				for (const part of name.split(/[ -]/)) expect(runs.has(part.toLowerCase())).toBe(false);
			}),
			{ numRuns: 300 },
		);
	});
});

describe('maskIdentityNumbers (against the scanner)', () => {
	const UUIDS = fc.uuid({ version: 4 }).chain((uuid) =>
		// some with a last group of digits only but one: an 11-digit group inside a UUID
		fc.constantFrom(uuid, `${uuid.slice(0, 24)}a${uuid.slice(25).replace(/[a-f]/g, '7')}`),
	);
	const text = fc
		.array(
			fc.oneof(
				fc.stringMatching(/^\d{1,14}$/),
				SEPARATOR,
				fc.string({ maxLength: 6 }),
				ID_FORM.map(({ form }) => form),
				UUIDS,
			),
			{ maxLength: 12 },
		)
		.map((parts) => parts.join(''));

	test.each([false, true])(
		'unpadded %p: every number written as an identity number is masked digit by digit; every other character is kept',
		(unpadded) => {
			fc.assert(
				fc.property(text, (input) => {
					const out = maskIdentityNumbers(input, unpadded);
					const hidden = identityDigits(input, unpadded);
					const expected = input
						.split('')
						.map((c, i) => (hidden.has(i) ? '*' : c))
						.join('');
					expect(out).toBe(expected);
				}),
				{ numRuns: 2000 },
			);
		},
	);

	test('the published examples: a fødselsnummer with and without its space, a D-number, a number that fails mod 11', () => {
		expect(maskIdentityNumbers('fnr 15817012345 ok')).toBe('fnr *********** ok');
		expect(maskIdentityNumbers('018170 00092')).toBe('****** *****');
		expect(maskIdentityNumbers('D-number 41018012345.')).toBe('D-number ***********.');
		expect(maskIdentityNumbers('org 923456783, phone 22 33 44 55')).toBe(
			'org 923456783, phone 22 33 44 55',
		);
		// a flow id ending in a timestamp is not an identity number
		expect(maskIdentityNumbers('flow no-such-flow-1795595664387')).toBe(
			'flow no-such-flow-1795595664387',
		);
		// nor are a UUID's digit groups (6 + 4 + 1 digits between hyphens failed a run of npm test)
		expect(maskIdentityNumbers('flow 3c928444-6265-4a3c-8797-b4add7c4161a')).toBe(
			'flow 3c928444-6265-4a3c-8797-b4add7c4161a',
		);
	});
});

describe('personalMasker (the values one request carried)', () => {
	test('a known number without its leading zero and a name in any case, as whole words only', () => {
		const mask = personalMasker({ identityNumbers: ['01817012345'], names: ['Ødegård-Li'] });
		expect(mask('id 1817012345 for ØDEGÅRD-LI and ødegård, Ødegårdsvei kept')).toBe(
			'id ********** for *** and ***, Ødegårdsvei kept',
		);
		expect(mask('name=%20Ødegård')).toBe('name=%20***');
	});
});

describe('validation messages never print a value that looks like an identity number', () => {
	test('an identity number mapped into Organization Number: the rule and the length, digits masked', () => {
		const check = checkOrganizationNumber('01817012345') as { error?: string; hint?: string };
		expect(check.error).toBeDefined();
		expect(`${check.error} ${check.hint}`).not.toMatch(/\d{5}/);
		expect(check.hint).toContain('11 characters');
	});

	test('show() never prints an identity number (10 digits too: a number that lost its leading zero) nor a letter pair', () => {
		const noDigits = fc.string({ maxLength: 40 }).map((t) => t.replace(/\d/g, 'x'));
		const written = ID_FORM.map(({ form }) => form);
		fc.assert(
			fc.property(fc.stringMatching(/^\d{10,11}$/), noDigits, written, (digits, prefix, form) => {
				for (const value of [
					digits,
					Number(digits),
					`${prefix}${digits}`,
					form,
					{ nationalId: digits },
				]) {
					const shown = show(value);
					expect(hasIdentityNumber(shown, true)).toBe(false);
					expect(shown).not.toContain(digits);
					// a quoted text has no two letters in a row; anything else is described
					if (shown.startsWith('"')) expect(shown).not.toMatch(/\p{L}{2}/u);
				}
			}),
			{ numRuns: 500 },
		);
		expect(show('923456783')).toBe('"923456783"');
	});
});
