/**
 * Mapping Mode of Create (issue 28): Map Automatically reads the applicant's fields from the input
 * item by name, with the same checks as the manual parameters, and reads none of those parameters
 * (so n8n evaluates no expression per field); Map Each Field Manually is the default, also for a
 * node saved before the option existed. Identity numbers here are synthetic (month + 80).
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { makeHandleToolInvocation } from 'n8n-core/dist/execution-engine/node-execution-context/utils/get-input-connection-data';
import { getSchema } from 'n8n-core/dist/execution-engine/node-execution-context/utils/create-node-as-tool';
import { ConsentFlow } from '../../../nodes/ConsentFlow/ConsentFlow.node';
import { createExecuteContext, createTokenStore } from '../../support/execute-context';
import type { Params } from '../../support/execute-context';
import { simFlows, simRequests, useSimulator } from '../../support/simulator';
import { syntheticNationalId, withWrongCheckDigit } from '../../support/synthetic-ids';
import {
	FLOW_PATH,
	ORGANIZATION_ID,
	SIM_OPTIONS,
	apiRequests,
	createParams,
	credentialsFor,
	deepText,
} from './helpers';

const sim = useSimulator({ ...SIM_OPTIONS, beforeEach: 'reset' });

const NODE = {
	id: 'n',
	name: 'Consent Flow',
	type: 'n8n-nodes-sbl.consentFlowTool',
	typeVersion: 1,
	position: [0, 0],
};
const REDIRECT = 'https://bank.example.com/loan/after-consent';
const WEBHOOK = 'https://n8n.example.com/webhook/0b7e/consent';
const APPLICANT_PARAMETERS = [
	'nationalId',
	'lastName',
	'organizationId',
	'redirectUrl',
	'webhookUrl',
	'additionalFields',
];

/** One applicant as an input item carries it in automatic mode. */
function applicant(n: number, extra: IDataObject = {}): IDataObject {
	return {
		nationalId: syntheticNationalId(n),
		lastName: `Nordmann-${n}`,
		organizationId: ORGANIZATION_ID,
		redirectUrl: REDIRECT,
		webhookUrl: WEBHOOK,
		...extra,
	};
}

/** Create in automatic mode: no applicant parameter at all, as n8n stores the node then. */
function autoParams(overrides: Params = {}): Params {
	return {
		resource: 'flow',
		operation: 'create',
		mappingMode: 'autoMapInputData',
		options: { retryDelayMs: 10, concurrency: 1 },
		...overrides,
	};
}

interface Run {
	output?: INodeExecutionData[];
	error?: Error & { description?: string; context: IDataObject };
	/** Names of the parameters the node read, per call. */
	read: string[];
}

async function run(
	parameters: Params | Params[],
	items: IDataObject[],
	{ continueOnFail = false } = {},
): Promise<Run> {
	const ctx = createExecuteContext({
		parameters,
		credentials: { consentFlowOAuth2Api: credentialsFor(sim) as never },
		items: items.map((json) => ({ json })),
		continueOnFail,
		nodeType: 'n8n-nodes-sbl.consentFlow',
		nodeName: 'Consent Flow',
		tokenStore: createTokenStore(),
	});
	const read: string[] = [];
	const getNodeParameter = ctx.getNodeParameter.bind(ctx);
	ctx.getNodeParameter = ((...args: Parameters<typeof getNodeParameter>) => {
		read.push(String(args[0]));
		return getNodeParameter(...args);
	}) as typeof ctx.getNodeParameter;
	try {
		const [output] = await new ConsentFlow().execute.call(ctx);
		return { output, read };
	} catch (error) {
		return { error: error as Run['error'], read };
	}
}

describe('Map Automatically', () => {
	test('reads the fields by name and sends exactly what Map Each Field Manually sends for the same values', async () => {
		const items = [applicant(1, { externalId: 'loan-1' }), applicant(2)];
		const auto = await run(autoParams(), items);
		expect(auto.error).toBeUndefined();
		const autoBodies = (await apiRequests(sim, 'POST')).map((r) => r.body);

		const manual = await run(
			items.map((json) =>
				createParams({
					nationalId: json.nationalId,
					lastName: json.lastName,
					organizationId: json.organizationId,
					redirectUrl: json.redirectUrl,
					webhookUrl: json.webhookUrl,
					additionalFields: json.externalId ? { externalId: json.externalId } : {},
				}),
			),
			items,
		);
		expect(manual.error).toBeUndefined();
		const allBodies = (await apiRequests(sim, 'POST')).map((r) => r.body);
		const manualBodies = allBodies.slice(autoBodies.length);

		expect(autoBodies).toEqual([
			{
				nationalId: syntheticNationalId(1),
				lastName: 'Nordmann-1',
				organizationId: ORGANIZATION_ID,
				redirectUrl: REDIRECT,
				webhookUrl: WEBHOOK,
				externalId: 'loan-1',
			},
			{
				nationalId: syntheticNationalId(2),
				lastName: 'Nordmann-2',
				organizationId: ORGANIZATION_ID,
				redirectUrl: REDIRECT,
				webhookUrl: WEBHOOK,
			},
		]);
		expect(manualBodies).toEqual(autoBodies);
		// the same JSON text too (field order), so the service cannot tell the modes apart
		expect(manualBodies.map((b) => JSON.stringify(b))).toEqual(
			autoBodies.map((b) => JSON.stringify(b)),
		);
		expect(auto.output!.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(auto.output!.map((item) => item.json.nationalId)).toEqual([
			syntheticNationalId(1),
			syntheticNationalId(2),
		]);
	});

	test('reads none of the applicant parameters, so no expression is evaluated for them', async () => {
		// parameters that would fail if read: the node must take the item's fields instead
		const { error, read } = await run(
			autoParams({
				nationalId: 'not read',
				lastName: '',
				organizationId: 'x',
				redirectUrl: 'x',
				webhookUrl: 'x',
				additionalFields: { externalId: 'from the parameter' },
			}),
			[applicant(3, { externalId: 'from the item' })],
		);
		expect(error).toBeUndefined();
		expect(read.filter((name) => APPLICANT_PARAMETERS.includes(name))).toEqual([]);
		const [post] = await apiRequests(sim, 'POST');
		expect(post.body).toMatchObject({
			nationalId: syntheticNationalId(3),
			externalId: 'from the item',
		});
	});

	test('fields the node does not know are ignored, not sent', async () => {
		const { error } = await run(autoParams(), [
			applicant(4, { email: 'kari@example.com', income: 650000, nested: { a: 1 }, id: 'row-4' }),
		]);
		expect(error).toBeUndefined();
		const [post] = await apiRequests(sim, 'POST');
		expect(Object.keys(post.body as IDataObject).sort()).toEqual(
			['lastName', 'nationalId', 'organizationId', 'redirectUrl', 'webhookUrl'].sort(),
		);
	});

	test('trims text, removes spaces from the numbers, accepts a numeric organizationId and externalId', async () => {
		const id = syntheticNationalId(5);
		const { error } = await run(autoParams(), [
			applicant(5, {
				nationalId: ` ${id.slice(0, 6)} ${id.slice(6)} `,
				lastName: '  Nordmann ',
				organizationId: Number(ORGANIZATION_ID),
				redirectUrl: ` ${REDIRECT} `,
				externalId: 4711,
			}),
		]);
		expect(error).toBeUndefined();
		const [post] = await apiRequests(sim, 'POST');
		expect(post.body).toEqual({
			nationalId: id,
			lastName: 'Nordmann',
			organizationId: ORGANIZATION_ID,
			redirectUrl: REDIRECT,
			webhookUrl: WEBHOOK,
			externalId: '4711',
		});
	});

	test('an externalId that is null, missing or blank is not sent', async () => {
		const { error } = await run(autoParams(), [
			applicant(6, { externalId: null }),
			applicant(7),
			applicant(8, { externalId: '   ' }),
		]);
		expect(error).toBeUndefined();
		const posts = await apiRequests(sim, 'POST');
		expect(posts).toHaveLength(3);
		for (const post of posts) expect(post.body).not.toHaveProperty('externalId');
	});

	describe('missing, mistyped and invalid fields: a message naming the item and the input field, before any request', () => {
		const cases: Array<[string, IDataObject, string, RegExp | string]> = [
			[
				'missing',
				{ nationalId: undefined },
				'nationalId',
				'input field "nationalId" is missing from the input item',
			],
			[
				'a number',
				{ nationalId: Number(syntheticNationalId(9)) },
				'nationalId',
				'input field "nationalId" must be text, got a number',
			],
			[
				'an object',
				{ nationalId: { value: syntheticNationalId(9) } },
				'nationalId',
				'input field "nationalId" must be text, got an object',
			],
			[
				'an array',
				{ nationalId: [syntheticNationalId(9)] },
				'nationalId',
				'input field "nationalId" must be text, got an array',
			],
			[
				'null',
				{ nationalId: null },
				'nationalId',
				'input field "nationalId" must be text, got null',
			],
			['empty', { nationalId: '  ' }, 'nationalId', 'input field "nationalId" is empty'],
			[
				'wrong check digits',
				{ nationalId: withWrongCheckDigit(syntheticNationalId(9)) },
				'nationalId',
				/^input field "nationalId" has wrong check digits/,
			],
			[
				'too short',
				{ nationalId: syntheticNationalId(9).slice(0, 10) },
				'nationalId',
				/^input field "nationalId" must be exactly 11 digits/,
			],
			[
				'lastName a number',
				{ lastName: 42 },
				'lastName',
				'input field "lastName" must be text, got a number',
			],
			[
				'lastName missing',
				{ lastName: undefined },
				'lastName',
				'input field "lastName" is missing from the input item',
			],
			[
				'organizationId a boolean',
				{ organizationId: true },
				'organizationId',
				'input field "organizationId" must be text, got a boolean',
			],
			[
				'organizationId wrong check digit',
				{ organizationId: '923456784' },
				'organizationId',
				/^input field "organizationId" has a wrong check digit/,
			],
			[
				'redirectUrl not a URL',
				{ redirectUrl: 'bank.example.com' },
				'redirectUrl',
				/^input field "redirectUrl" must be an absolute URL/,
			],
			[
				'webhookUrl missing',
				{ webhookUrl: undefined },
				'webhookUrl',
				'input field "webhookUrl" is missing from the input item',
			],
			[
				'externalId an object',
				{ externalId: { id: 1 } },
				'externalId',
				'input field "externalId" must be text or a number, got an object',
			],
		];

		test.each(cases)('%s', async (_name, change, field, expected) => {
			const item = applicant(9, change);
			for (const [key, value] of Object.entries(change)) if (value === undefined) delete item[key];
			const { error } = await run(autoParams(), [applicant(10), item]);
			expect(error).toBeDefined();
			const text = error!.message.replace(/^Item 2: /, '');
			expect(error!.message.startsWith('Item 2: ')).toBe(true);
			if (typeof expected === 'string') expect(text).toBe(expected);
			else expect(text).toMatch(expected);
			expect(error!.context.field).toBe(field);
			expect(error!.description).toMatch(/Mapping Mode is Map Automatically/);
			// all items are checked before the first request
			expect(await simRequests(sim)).toEqual([]);
			// the identity number is never echoed, not even in a wrong shape
			expect(deepText(error)).not.toContain(syntheticNationalId(9));
			expect(deepText(error)).not.toContain(syntheticNationalId(9).slice(0, 10));
		});
	});

	test('an identity number in the organizationId field is refused without being shown', async () => {
		const { error } = await run(autoParams(), [
			applicant(19, { organizationId: syntheticNationalId(19) }),
		]);
		expect(error!.message).toBe(
			'Item 1: input field "organizationId" must be exactly 9 digits (no spaces)',
		);
		expect(error!.description).toMatch(/^Got 11 characters after removing spaces\./);
		expect(deepText(error)).not.toContain(syntheticNationalId(19));
	});

	test('a number for nationalId says why: a leading zero may have been lost', async () => {
		const { error } = await run(autoParams(), [
			applicant(11, { nationalId: Number(syntheticNationalId(11)) }),
		]);
		expect(error!.description).toMatch(/leading zero may have been lost/);
	});

	test('a field named in another case or with separators is pointed out by name, never by value', async () => {
		const item = applicant(12);
		delete item.nationalId;
		item.nationalID = syntheticNationalId(12);
		item.national_id = syntheticNationalId(12);
		const { error } = await run(autoParams(), [item]);
		expect(error!.message).toBe('Item 1: input field "nationalId" is missing from the input item');
		expect(error!.description).toMatch(
			/^The item has "nationalID", "national_id": field names must match exactly, including case/,
		);
		expect(deepText(error)).not.toContain(syntheticNationalId(12));
	});

	test('Validate National ID off: only the type and emptiness are checked, as in manual mode', async () => {
		const odd = '01810000000';
		const { error } = await run(
			autoParams({ options: { retryDelayMs: 10, concurrency: 1, validateNationalId: false } }),
			[applicant(13, { nationalId: odd })],
		);
		// the simulator takes any 11 digits
		expect(error).toBeUndefined();
		const [post] = await apiRequests(sim, 'POST');
		expect((post.body as IDataObject).nationalId).toBe(odd);
	});

	test('Continue On Fail: one output per input, in order, paired, the bad items as errors and never sent', async () => {
		const missing = applicant(16);
		delete missing.lastName;
		const { output, error } = await run(
			autoParams(),
			[
				applicant(14, { externalId: 'a' }),
				applicant(15, { nationalId: Number(syntheticNationalId(15)) }),
				missing,
				applicant(17, { externalId: 'b' }),
			],
			{ continueOnFail: true },
		);
		expect(error).toBeUndefined();
		expect(output).toHaveLength(4);
		expect(output!.map((item) => item.pairedItem)).toEqual([0, 1, 2, 3].map((item) => ({ item })));
		expect(output![0].json).toMatchObject({ externalId: 'a', href: expect.any(String) });
		expect(output![1].json).toEqual({
			error: 'Item 2: input field "nationalId" must be text, got a number',
			description: expect.stringMatching(/leading zero/),
			field: 'nationalId',
		});
		expect(output![2].json).toEqual({
			error: 'Item 3: input field "lastName" is missing from the input item',
			description: expect.stringMatching(/Mapping Mode is Map Automatically/),
			field: 'lastName',
		});
		expect(output![3].json).toMatchObject({ externalId: 'b', href: expect.any(String) });
		expect((await simFlows(sim)).map((f) => f.externalId)).toEqual(['a', 'b']);
	});
});

describe("as an AI tool (n8n-core's own tool invocation and schema)", () => {
	/** A tool invocation as n8n-core runs it: one input item holding the arguments, then execute(). */
	async function invokeAsTool(parameters: Params, args: IDataObject) {
		const ctx = createExecuteContext({
			parameters,
			credentials: { consentFlowOAuth2Api: credentialsFor(sim) as never },
			items: [],
			nodeType: 'n8n-nodes-sbl.consentFlowTool',
			nodeName: 'Consent Flow',
			tokenStore: createTokenStore(),
		});
		let input: INodeExecutionData[] = [];
		const outputs: unknown[] = [];
		Object.assign(ctx, {
			getInputData: () => input,
			addInputData: (_type: string, data: INodeExecutionData[][]) => {
				input = data[0];
				return { index: 0 };
			},
			addOutputData: (_type: string, _run: number, data: unknown) => outputs.push(data),
		});
		const node = { ...ctx.getNode(), parameters: parameters as never };
		const handle = makeHandleToolInvocation(
			() => ctx as never,
			node,
			new ConsentFlow() as never,
			{ resultData: { runData: {} } } as never,
		);
		try {
			return { answer: JSON.parse(await handle(args)) as IDataObject[], outputs };
		} catch (error) {
			return { error: error as Error & { description?: string }, outputs };
		}
	}

	test('the arguments n8n hands the tool are read by name: one flow, answered to the model', async () => {
		const { answer, error } = await invokeAsTool(
			autoParams(),
			applicant(18, { externalId: 'agent-1' }),
		);
		expect(error).toBeUndefined();
		expect(answer).toEqual([
			expect.objectContaining({ nationalId: syntheticNationalId(18), externalId: 'agent-1' }),
		]);
		const log = await simRequests(sim);
		expect(log.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
			'POST /auth/realms/sbl/protocol/openid-connect/token 200',
			`POST ${FLOW_PATH} 201`,
		]);
	});

	test('n8n asks the model only for $fromAI() arguments: none in automatic mode, so the message says to map manually', async () => {
		const auto = autoParams();
		expect(Object.keys(getSchema({ ...NODE, parameters: auto } as never).shape)).toEqual([]);
		const manual = createParams({
			nationalId: "={{ $fromAI('nationalId', 'national identity number, 11 digits', 'string') }}",
			lastName: "={{ $fromAI('lastName', '', 'string') }}",
		});
		expect(Object.keys(getSchema({ ...NODE, parameters: manual } as never).shape)).toEqual([
			'nationalId',
			'lastName',
		]);

		const { error } = await invokeAsTool(auto, {});
		expect(error!.message).toMatch(
			/^Item 1: input field "nationalId" is missing from the input item/,
		);
		expect(error!.message).toMatch(/Map Each Field Manually and let the model define each field/);
		expect(await simRequests(sim)).toEqual([]);
	});
});

describe('Map Each Field Manually stays the default', () => {
	test("a node saved without Mapping Mode reads its parameters and ignores the item's fields", async () => {
		const params = createParams({ nationalId: syntheticNationalId(20), lastName: 'Param' });
		delete params.mappingMode;
		const { error, read } = await run(params, [applicant(21, { lastName: 'FromItem' })]);
		expect(error).toBeUndefined();
		expect(read).toEqual(expect.arrayContaining(['nationalId', 'lastName', 'organizationId']));
		const [post] = await apiRequests(sim, 'POST');
		expect(post.body).toMatchObject({ nationalId: syntheticNationalId(20), lastName: 'Param' });
	});

	test("the parameter's default in the node description is manual", () => {
		const property = new ConsentFlow().description.properties.find((p) => p.name === 'mappingMode');
		expect(property?.default).toBe('defineBelow');
		expect(property?.options?.map((o) => (o as { value: string }).value)).toEqual([
			'autoMapInputData',
			'defineBelow',
		]);
		expect(property?.displayOptions?.show?.operation).toEqual(['create', 'createAndWait']);
	});

	test('manual-mode messages still name the parameter, not an input field', async () => {
		const { error } = await run(createParams({ lastName: '' }), [{}]);
		expect(error!.message).toBe('Item 1: "Last Name" is empty');
	});
});
