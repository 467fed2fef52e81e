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

/**
 * The maximal runs of digits in `text` ([start, end) and digit count), a single space, nbsp,
 * narrow nbsp, dot or hyphen allowed between two digits.
 */
function digitRuns(text: string): Array<{ start: number; end: number; digits: number; gaps: number[] }> {
	const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
	const runs: Array<{ start: number; end: number; digits: number; gaps: number[] }> = [];
	let i = 0;
	while (i < text.length) {
		if (!isDigit(text[i])) {
			i++;
			continue;
		}
		const start = i;
		let digits = 0;
		let end = i;
		const gaps: number[] = []; // how many digits came before each separator
		while (i < text.length) {
			if (isDigit(text[i])) {
				digits++;
				i++;
				end = i;
			} else if (' \u00a0\u202f.-'.includes(text[i]) && isDigit(text[i + 1])) {
				gaps.push(digits);
				i++;
			} else break;
		}
		runs.push({ start, end, digits, gaps });
	}
	return runs;
}

/**
 * Whether a run is written as an identity number of `n` digits (Skatteetaten's form: eleven digits,
 * or the six-digit birth date and the five-digit personal number with one separator between).
 */
const idShaped = (run: { digits: number; gaps: number[] }, n: number): boolean =>
	run.digits === n && (run.gaps.length === 0 || (n === 11 && run.gaps.length === 1 && run.gaps[0] === 6));

/** Whether `text` holds a run written as an identity number of `n` digits. */
const hasRunOf = (text: string, n: number): boolean => digitRuns(text).some((run) => idShaped(run, n));

/** The letter runs of a text, lower-cased (a name part is "in" a text when one of them equals it). */
function letterRuns(text: string): Set<string> {
	return new Set((text.toLowerCase().match(/\p{L}+/gu) ?? []) as string[]);
}

const DIGITS = fc.stringMatching(/^\d{11}$/);
const SEPARATOR = fc.constantFrom('', ' ', '.', '-', '\u00a0');
/** An identity number as a service may write it back. */
const ID_FORM = fc
	.tuple(DIGITS, SEPARATOR, fc.constantFrom('as sent', 'split', 'number'))
	.map(([digits, sep, how]) => ({
		digits,
		form:
			how === 'as sent'
				? digits
				: how === 'split'
					? `${digits.slice(0, 6)}${sep}${digits.slice(6)}`
					: String(Number(digits)),
	}));
const NAME_PART = fc
	.tuple(
		fc.constantFrom(...'ABCDEFGHIJKLMNOPRSTUVWÆØÅÉ'),
		fc.stringMatching(/^[a-zæøåéü]{2,10}$/),
	)
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
			fc.dictionary(fc.constantFrom('detail', 'message', 'title', 'error', 'x', 'nationalId', 'lastName'), tie('value'), { maxKeys: 3 }),
		),
	})).value;
	return fc.oneof(
		// the service's own error shapes, with the values anywhere in them
		fc.record({ message: sentence, detail: json }, { requiredKeys: [] }),
		fc.record({ errors: fc.dictionary(fc.constantFrom('nationalId', 'lastName', id, name), fc.array(sentence, { minLength: 1, maxLength: 2 })) }),
		fc.record({ fields: fc.array(fc.record({ field: fc.constantFrom('nationalId', id, name), message: sentence }), { maxLength: 3 }) }),
		json,
		sentence.map((s) => `<html><body><h1>Error</h1><p>${s}</p></body></html>`),
		sentence,
	);
}

const node: INode = { id: 'n', name: 'Consent Flow', type: 't', typeVersion: 1, position: [0, 0], parameters: {} };

function serviceFailure(status: number, data: unknown, headers: Record<string, string>): Error {
	const error = Object.assign(new Error(`Request failed with status code ${status}`), {
		isAxiosError: true,
		response: { status, headers, data: typeof data === 'string' ? data : JSON.stringify(data) },
	});
	return new NodeApiError(node, error as never);
}

const credentials = {
	consentFlowOAuth2Api: {
		environment: 'test',
		apiBaseUrl: 'https://api.example.com',
		clientId: 'client',
		clientSecret: 'client-secret-value',
	},
};

describe('identity numbers and names the service quotes back never leave the node', () => {
	test('thrown error and Continue On Fail item, any body, 400/409/500', async () => {
		const scenario = fc
			.tuple(ID_FORM, NAME, fc.nat(3))
			.chain(([id, name, how]) =>
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
					text = [apiError.message, apiError.description, JSON.stringify(apiError.errorResponse), deepText(error)]
						.join('\n')
						// n8n's own field: when the error was made, in ms (13 digits, not personal)
						.split(String(apiError.timestamp))
						.join('');
				}
				expect(hasRunOf(text, 11)).toBe(false);
				expect(text).not.toContain(id.form);
				const runs = letterRuns(text);
				for (const part of name.split(/[ -]/)) expect(runs.has(part.toLowerCase())).toBe(false);
			}),
			{ numRuns: 300 },
		);
	});
});

describe('maskIdentityNumbers (against the scanner)', () => {
	test('every run written as an 11-digit identity number is masked digit by digit; every other character is kept', () => {
		const text = fc
			.array(fc.oneof(fc.stringMatching(/^\d{1,14}$/), SEPARATOR, fc.string({ maxLength: 6 })), { maxLength: 12 })
			.map((parts) => parts.join(''));
		fc.assert(
			fc.property(text, (input) => {
				const out = maskIdentityNumbers(input);
				expect(out).toHaveLength(input.length);
				const masked = new Set<number>();
				for (const run of digitRuns(input)) {
					if (!idShaped(run, 11)) continue;
					for (let i = run.start; i < run.end; i++) if (/\d/.test(input[i])) masked.add(i);
				}
				for (let i = 0; i < input.length; i++) expect(out[i]).toBe(masked.has(i) ? '*' : input[i]);
			}),
			{ numRuns: 2000 },
		);
	});

	test('the published examples: a fødselsnummer with and without its space, a D-number, a number that fails mod 11', () => {
		expect(maskIdentityNumbers('fnr 15817012345 ok')).toBe('fnr *********** ok');
		expect(maskIdentityNumbers('018170 00092')).toBe('****** *****');
		expect(maskIdentityNumbers('D-number 41018012345.')).toBe('D-number ***********.');
		expect(maskIdentityNumbers('org 923456783, phone 22 33 44 55')).toBe('org 923456783, phone 22 33 44 55');
		// a flow id ending in a timestamp is not an identity number
		expect(maskIdentityNumbers('flow no-such-flow-1795595664387')).toBe('flow no-such-flow-1795595664387');
		// nor are a UUID's digit groups (6 + 4 + 1 digits between hyphens failed a run of npm test)
		expect(maskIdentityNumbers('flow 3c928444-6265-4a3c-8797-b4add7c4161a')).toBe('flow 3c928444-6265-4a3c-8797-b4add7c4161a');
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

	test('show() masks runs of 10 or 11 digits (a number that lost its leading zero) before it shortens', () => {
		const noDigits = fc.string({ maxLength: 60 }).map((t) => t.replace(/\d/g, 'x'));
		fc.assert(
			fc.property(fc.stringMatching(/^\d{10,11}$/), noDigits, (digits, prefix) => {
				for (const value of [digits, Number(digits), `${prefix}${digits}`, { nationalId: digits }]) {
					const shown = show(value);
					expect(hasRunOf(shown, 10) || hasRunOf(shown, 11)).toBe(false);
					expect(shown).not.toContain(digits);
				}
			}),
			{ numRuns: 500 },
		);
		expect(show('923456783')).toBe('"923456783"');
	});
});
