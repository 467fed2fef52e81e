import { NodeOperationError } from 'n8n-workflow';
import { simRequests, useSimulator } from '../../support/simulator';
import {
	SIM_OPTIONS,
	apiRequests,
	createParams,
	credentialsFor,
	deleteParams,
	runNode,
} from './helpers';
import type { RunResult } from './helpers';
import type { Params } from '../../support/execute-context';

const sim = useSimulator({ ...SIM_OPTIONS, beforeEach: 'reset' });

/** Runs the node and checks the common shape of a validation failure: nothing reached the simulator. */
async function expectInvalid(
	parameters: Params | Params[],
	message: string | RegExp,
	field: string | undefined,
	itemIndex = 0,
	credentials = credentialsFor(sim),
): Promise<RunResult> {
	const result = await runNode(parameters, { credentials });
	expect(result.output).toBeUndefined();
	expect(result.error).toBeInstanceOf(NodeOperationError);
	if (typeof message === 'string') expect(result.error!.message).toBe(message);
	else expect(result.error!.message).toMatch(message);
	expect(result.error!.context.itemIndex).toBe(itemIndex);
	expect(result.error!.context.field).toBe(field);
	expect(await simRequests(sim)).toEqual([]);
	return result;
}

/** Production credentials must use https everywhere (these addresses are never called: validation fails first). */
const PRODUCTION_HTTPS = {
	apiBaseUrl: 'https://api.example.com',
	identityProviderUrl: 'https://auth.example.com',
	accessTokenUrl: 'https://auth.example.com/realms/agents-prod/protocol/openid-connect/token',
};

describe('Consent Flow: validation before any request', () => {
	test.each([
		['', 'is empty'],
		['   ', 'is empty'],
		['0181700009', 'must be exactly 11 digits (no spaces or dashes)'],
		['018170000921', 'must be exactly 11 digits (no spaces or dashes)'],
		['018170-00092', 'must be exactly 11 digits (no spaces or dashes)'],
		['0181700009X', 'must be exactly 11 digits (no spaces or dashes)'],
		['32817000092', 'has no valid day in digits 1–2 for its month (+40 for D-numbers)'],
		[
			'01137000092',
			'has no valid month in digits 3–4 (01–12, +40 for H-numbers, +80 for synthetic test numbers)',
		],
		['01817000093', 'has wrong check digits (digits 10–11 fail the mod-11 control)'],
	])('National ID %j is rejected: %s', async (nationalId, problem) => {
		await expectInvalid(
			createParams({ nationalId }),
			`Item 1: "National ID" ${problem}`,
			'nationalId',
		);
	});

	test('the description says how many characters arrived and how to switch the check off', async () => {
		const { error } = await expectInvalid(
			createParams({ nationalId: '0181 7000 09' }),
			/^Item 1: "National ID" must be exactly 11 digits/,
			'nationalId',
		);
		expect(error!.description).toBe(
			'Got 10 characters after removing spaces. If the number is right (unusual test data, another rule at the service), switch off Options → Validate National ID.',
		);
		// no personal data in the message
		expect(`${error!.message} ${error!.description}`).not.toContain('0101');
	});

	test('a national ID that arrived as a number gets a leading-zero hint', async () => {
		const { error } = await expectInvalid(
			createParams({ nationalId: 1017003689 }),
			'Item 1: "National ID" must be exactly 11 digits (no spaces or dashes)',
			'nationalId',
		);
		expect(error!.description).toContain('a leading zero may have been lost');
	});

	test('with Validate National ID off, an empty national ID is still rejected', async () => {
		await expectInvalid(
			createParams({ nationalId: '  ', options: { validateNationalId: false } }),
			'Item 1: "National ID" is empty',
			'nationalId',
		);
	});

	test.each([[''], ['   '], [null]])('Last Name %j is rejected', async (lastName) => {
		await expectInvalid(createParams({ lastName }), 'Item 1: "Last Name" is empty', 'lastName');
	});

	test.each([
		['', 'is empty'],
		['92345678', 'must be exactly 9 digits (no spaces)'],
		['923-456-783', 'must be exactly 9 digits (no spaces)'],
		['923456784', 'has a wrong check digit (the 9th digit fails the mod-11 control)'],
	])('Organization Number %j is rejected: %s', async (organizationId, problem) => {
		await expectInvalid(
			createParams({ organizationId }),
			`Item 1: "Organization Number" ${problem}`,
			'organizationId',
		);
	});

	// Issue 48: the description gives organizationId only as a string; the 9-digit mod-11 check is an
	// assumption the builder can switch off, as Validate National ID.
	test('a wrong check digit names the field and the option that switches the check off', async () => {
		const { error } = await expectInvalid(
			createParams({ organizationId: '923 456 784' }),
			'Item 1: "Organization Number" has a wrong check digit (the 9th digit fails the mod-11 control)',
			'organizationId',
		);
		expect(error!.description).toMatch(/switch off Options → Validate Organization Number\.$/);
	});

	test('with Validate Organization Number off, the number is sent as typed, spaces removed', async () => {
		const options = { validateOrganizationNumber: false };
		const { error, output } = await runNode(
			createParams({ organizationId: ' 923 456 784 ', options }),
			{ credentials: credentialsFor(sim) },
		);
		expect(error).toBeUndefined();
		expect(output).toHaveLength(1);
		const posts = await apiRequests(sim, 'POST');
		expect(posts.map((r) => (r.body as { organizationId: string }).organizationId)).toEqual([
			'923456784',
		]);
	});

	test('with Validate Organization Number off, an empty number is still rejected', async () => {
		await expectInvalid(
			createParams({ organizationId: '  ', options: { validateOrganizationNumber: false } }),
			'Item 1: "Organization Number" is empty',
			'organizationId',
		);
	});

	test.each([
		['redirectUrl', 'Redirect URL', '', 'is empty'],
		[
			'redirectUrl',
			'Redirect URL',
			'/after-consent',
			'must be an absolute URL such as https://example.com/path',
		],
		['redirectUrl', 'Redirect URL', 'ftp://bank.example.com/x', 'must use http or https, not ftp'],
		[
			'webhookUrl',
			'Webhook URL',
			'n8n.example.com/webhook/x',
			'must be an absolute URL such as https://example.com/path',
		],
		['webhookUrl', 'Webhook URL', 'mailto:ops@example.com', 'must use http or https, not mailto'],
	])('%s %j is rejected', async (field, label, value, problem) => {
		await expectInvalid(createParams({ [field]: value }), `Item 1: "${label}" ${problem}`, field);
	});

	test.each([
		['redirectUrl', 'Redirect URL'],
		['webhookUrl', 'Webhook URL'],
	])('in Production, %s must use https', async (field, label) => {
		await expectInvalid(
			createParams({ [field]: 'http://bank.example.com/x' }),
			`Item 1: "${label}" must use https when the credential environment is Production`,
			field,
			0,
			{ ...credentialsFor(sim, { environment: 'production' }), ...PRODUCTION_HTTPS },
		);
	});

	test("in Production, the trigger's Test URL is refused as Webhook URL", async () => {
		const { error } = await expectInvalid(
			createParams({ webhookUrl: 'https://n8n.example.com/webhook-test/0b7e/consent' }),
			`Item 1: "Webhook URL" is the Consent Flow Trigger's Test URL, which only listens while you test the workflow`,
			'webhookUrl',
			0,
			{ ...credentialsFor(sim, { environment: 'production' }), ...PRODUCTION_HTTPS },
		);
		expect(error!.description).toMatch(/Production URL/);
	});

	test.each([[''], ['  \t ']])('Flow ID %j is rejected', async (flowId) => {
		await expectInvalid(deleteParams(flowId), 'Item 1: "Flow ID" is empty', 'flowId');
	});

	test.each([
		[{ maxRetries: 11 }, 'Options → Max Retries', 'options.maxRetries', 'from 0 to 10, got 11'],
		[{ maxRetries: -1 }, 'Options → Max Retries', 'options.maxRetries', 'from 0 to 10, got -1'],
		[{ maxRetries: 1.5 }, 'Options → Max Retries', 'options.maxRetries', 'from 0 to 10, got 1.5'],
		[
			{ retryDelayMs: 60000 },
			'Options → Retry Wait (Ms)',
			'options.retryDelayMs',
			'from 0 to 30000, got 60000',
		],
	])('option %j is rejected', async (options, label, field, range) => {
		await expectInvalid(
			createParams({ options }),
			`Item 1: "${label}" must be a whole number ${range}`,
			field,
		);
		await expectInvalid(
			deleteParams('some-flow', { options }),
			`Item 1: "${label}" must be a whole number ${range}`,
			field,
		);
	});

	test.each([
		['', 'is empty'],
		['api.example.com', 'must be an absolute URL such as https://example.com/path'],
	])("the credential's API Base URL %j is rejected", async (apiBaseUrl, problem) => {
		const { error } = await expectInvalid(
			createParams(),
			`The credential's "API Base URL" ${problem}`,
			undefined,
			0,
			{ ...credentialsFor(sim), apiBaseUrl },
		);
		expect(error!.description).toMatch(/Consent Flow OAuth2 API credential/);
	});

	test('an unknown operation is refused', async () => {
		await expectInvalid(
			createParams({ operation: 'update' }),
			'Item 1: the operation "update" on "flow" is not supported',
			undefined,
		);
	});

	test('the item is named by its position: the third item is "Item 3" with itemIndex 2', async () => {
		await expectInvalid(
			[createParams(), createParams(), createParams({ lastName: '' })],
			'Item 3: "Last Name" is empty',
			'lastName',
			2,
		);
	});

	test('the first invalid field of an item is reported (fields are checked in form order)', async () => {
		await expectInvalid(
			createParams({ nationalId: '1', lastName: '', organizationId: '1' }),
			/^Item 1: "National ID"/,
			'nationalId',
		);
		await expectInvalid(
			createParams({ lastName: '', organizationId: '1' }),
			/^Item 1: "Last Name"/,
			'lastName',
		);
	});
});
