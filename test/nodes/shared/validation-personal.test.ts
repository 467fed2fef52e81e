/**
 * Issue 31, item 8: validation messages go through the same masker as service errors. A value
 * typed or mapped into the wrong field (a name into Organization Number, an identity number
 * written in groups) is not echoed in the thrown error nor in the Continue On Fail item; the
 * request's own values (its national ID and last name, from parameters or the input item) are
 * masked wherever a message quotes them; the message still names the field and the rule.
 *
 * Oracles written here: the rule of show() (quoted only when at most 32 characters and without
 * two letters in a row), the spellings, synthetic identity numbers.
 */
import { NodeOperationError } from 'n8n-workflow';
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { ConsentFlow } from '../../../nodes/ConsentFlow/ConsentFlow.node';
import { RealEstateEstimate } from '../../../nodes/RealEstateEstimate/RealEstateEstimate.node';
import { validationRedactor } from '../../../nodes/shared/runner';
import { redactPatterns } from '../../../nodes/shared/transport/redact';
import { characters, checkOrganizationNumber, show } from '../../../nodes/shared/validation';
import { createExecuteContext } from '../../support/execute-context';
import type { Params } from '../../support/execute-context';
import { syntheticNationalId } from '../../support/synthetic-ids';
import { createParams } from '../ConsentFlow/helpers';

const ID = syntheticNationalId(3);
const SWITCH_OFF =
	'If the number is right (unusual test data, another rule at the service), switch off Options → Validate Organization Number.';
/** Both credentials, never used for a request: validation fails before any. */
const client = { clientId: 'client', clientSecret: 'client-secret-value' };
const credentials = {
	consentFlowOAuth2Api: {
		...client,
		realm: 'sbl',
		environment: 'test',
		apiBaseUrl: 'https://api.example.com',
	},
	realEstateEstimateOAuth2Api: {
		...client,
		apiBaseUrl: 'https://api.example.com/estimate/v1',
		accessTokenUrl: 'https://auth.example.com/token',
	},
};

describe('show(): what a message may quote of a rejected value', () => {
	test.each([
		['x', '"x"'],
		['301', '"301"'],
		['12.5', '"12.5"'],
		['2024-05-31T12:00:00.000+02:00', '"2024-05-31T12:00:00.000+02:00"'],
		['1'.repeat(9) + '-'.repeat(23), `"${'1'.repeat(9)}${'-'.repeat(23)}"`],
		// longer than 32 characters, or two letters in a row (a name, a word, an id): described
		['1'.repeat(9) + '-'.repeat(24), 'a text of 33 characters'],
		['Kari Nordmann', 'a text of 13 characters'],
		['Li', 'a text of 2 characters'],
		['Åse', 'a text of 3 characters'],
		['3c928444-6265-4a3c-8797-b4add7c4161a', 'a text of 36 characters'],
		// identity numbers in any written form, 10 digits too, masked
		[ID, '"***********"'],
		[ID.slice(1), '"**********"'],
		[`${ID.slice(0, 3)} ${ID.slice(3, 6)} ${ID.slice(6, 9)} ${ID.slice(9)}`, '"*** *** *** **"'],
		[`${ID.slice(0, 2)} ${ID.slice(2, 4)} ${ID.slice(4, 6)} ${ID.slice(6)}`, '"** ** ** *****"'],
		[Number(ID), '**********'],
		[82.5, '82.5'],
		[true, 'true'],
		[null, 'null'],
		[undefined, 'nothing'],
		[{ nationalId: ID }, 'an object'],
		[[ID], 'an array'],
		[BigInt(10), 'a bigint'],
	])('show(%p) = %p', (value, shown) => {
		expect(show(value)).toBe(shown);
	});

	test('characters()', () => {
		expect([characters(0), characters(1), characters(2)]).toEqual([
			'0 characters',
			'1 character',
			'2 characters',
		]);
	});

	test('Organization Number: a name typed into it is described, the rule and field length stay', () => {
		expect(checkOrganizationNumber('Kari Nordmann')).toEqual({
			error: 'must be exactly 9 digits (no spaces)',
			hint: 'Got a text of 13 characters, 12 characters after removing spaces.',
		});
	});
});

/** Runs a node on one item; the thrown error's texts, or the Continue On Fail item's. */
async function failureTexts(
	node: 'consent' | 'estimate',
	parameters: Params,
	continueOnFail: boolean,
	json: IDataObject = {},
): Promise<{ message: string; description: string; field?: unknown }> {
	const ctx = createExecuteContext({
		parameters,
		credentials: credentials as never,
		continueOnFail,
		items: [{ json }],
	});
	ctx.helpers.httpRequestWithAuthentication = async () =>
		await Promise.reject(new Error('no request may be sent'));
	const execute = node === 'consent' ? new ConsentFlow().execute : new RealEstateEstimate().execute;
	try {
		const [items] = (await execute.call(ctx)) as INodeExecutionData[][];
		expect(continueOnFail).toBe(true);
		expect(items).toHaveLength(1);
		const item = items[0].json;
		return {
			message: String(item.error),
			description: String(item.description),
			field: item.field,
		};
	} catch (error) {
		expect(continueOnFail).toBe(false);
		expect(error).toBeInstanceOf(NodeOperationError);
		const { message, description, context } = error as NodeOperationError;
		return { message, description: String(description), field: context.field };
	}
}

describe.each([false, true])('a validation failure, Continue On Fail %p', (continueOnFail) => {
	test('a name typed into Organization Number is not echoed', async () => {
		const failure = await failureTexts(
			'consent',
			createParams({ organizationId: 'Kari Nordmann' }),
			continueOnFail,
		);
		expect(failure).toEqual({
			message: 'Item 1: "Organization Number" must be exactly 9 digits (no spaces)',
			description: `Got 12 characters after removing spaces. ${SWITCH_OFF}`,
			field: 'organizationId',
		});
	});

	test.each([
		[`${ID.slice(0, 3)} ${ID.slice(3, 6)} ${ID.slice(6, 9)} ${ID.slice(9)}`, 11],
		[`${ID.slice(0, 2)} ${ID.slice(2, 4)} ${ID.slice(4, 6)} ${ID.slice(6)}`, 11],
		// issue 42: the forms the shape rule let through (a co-applicant's number, Continue On Fail)
		[`${ID.slice(0, 6)}  ${ID.slice(6)}`, 11],
		[`${ID.slice(0, 4)}\u2011${ID.slice(4, 6)}\u2011${ID.slice(6)}`, 13],
		[`${ID.slice(0, 6)}_${ID.slice(6)}`, 12],
	])(
		'an identity number %j in Organization Number is not echoed, only its length',
		async (typed, length) => {
			const failure = await failureTexts(
				'consent',
				createParams({ organizationId: typed }),
				continueOnFail,
			);
			expect(failure.description).toBe(
				`Got ${length} characters after removing spaces. ${SWITCH_OFF}`,
			);
			expect(JSON.stringify(failure).replace(/9 digits|\d+ characters|Item 1/g, '')).not.toMatch(
				/\d/,
			);
		},
	);

	test('a last name that is also a word of the field label: the label is kept', async () => {
		const failure = await failureTexts(
			'consent',
			createParams({ lastName: 'Number', organizationId: 'number' }),
			continueOnFail,
		);
		expect(failure.message).toBe(
			'Item 1: "Organization Number" must be exactly 9 digits (no spaces)',
		);
	});

	test('Map Automatically: the input item’s own values are masked too', async () => {
		const json = {
			nationalId: ID,
			lastName: 'Åse',
			organizationId: 'Åse Li',
			redirectUrl: 'https://a.example',
			webhookUrl: 'https://b.example',
		};
		const failure = await failureTexts(
			'consent',
			createParams({ mappingMode: 'autoMapInputData' }),
			continueOnFail,
			json,
		);
		expect(failure.message).toBe(
			'Item 1: input field "organizationId" must be exactly 9 digits (no spaces)',
		);
		expect(JSON.stringify(failure)).not.toMatch(/Åse|Li\b/);
	});
});

describe('masking in the runner, seen through a check that quotes its value', () => {
	test('an estimate field given a 10-digit value: masked (a number that lost its leading zero)', async () => {
		const failure = await failureTexts(
			'estimate',
			{
				resource: 'estimate',
				operation: 'getBasis',
				identifyBy: 'cadastre',
				knr: '0301',
				gnr: Number(ID),
				bnr: 12,
			},
			true,
		);
		expect(failure.message).toBe(
			'Item 1: "Farm Number (gnr.)" must be a whole number from 1 to 99999, got **********',
		);
	});
});

describe('validationRedactor: the item’s own values, from parameters and the input item', () => {
	const properties = [
		{ name: 'nationalId' },
		{ name: 'lastName' },
		{ name: 'lastName' },
		{ name: 'FirstName' },
		{ name: 'organizationId' },
	] as INodeProperties[];
	const parameters: Record<string, unknown> = {
		nationalId: ID,
		lastName: 'Nordmann',
		organizationId: 'Kari',
	};
	const ctx = {
		getNodeParameter: (name: string) => {
			if (name === 'FirstName') throw new Error('the expression failed');
			return parameters[name];
		},
		getInputData: () => [{ json: { lastName: 'Åse', pid: '1234567' } }],
	} as unknown as IExecuteFunctions;
	const redact = validationRedactor(ctx, properties, 0, redactPatterns);

	test('masks them, identity numbers with 10 digits too, and keeps the field the message names', () => {
		expect(
			redact(
				`Item 1: "Nordmann Number" got Nordmann, Åse, ${ID.slice(1)}, 1234567 and ${ID.slice(0, 6)} ${ID.slice(6)}; Kari stays`,
			),
		).toBe(
			'Item 1: "Nordmann Number" got ***, ***, **********, ******* and ****** *****; Kari stays',
		);
		expect(redact('Item 2: input field "lastName" Nordmann')).toBe(
			'Item 2: input field "lastName" ***',
		);
		// no field prefix: the whole text is masked
		expect(redact('Nordmann "x" Nordmann')).toBe('*** "x" ***');
		expect(redact('Item 1: "Nordmann"')).toBe('Item 1: "Nordmann"');
	});

	test('the credential’s redactor runs first', () => {
		const withSecret = validationRedactor(ctx, [], 0, (text) =>
			text.replace('secret-value', '***'),
		);
		expect(withSecret('Item 1: "X" secret-value Åse')).toBe('Item 1: "X" *** ***');
	});

	test('an item without input data', () => {
		const none = validationRedactor(
			{ ...ctx, getInputData: () => [] } as unknown as IExecuteFunctions,
			properties,
			3,
			redactPatterns,
		);
		expect(none('Nordmann Åse')).toBe('*** Åse');
	});
});
