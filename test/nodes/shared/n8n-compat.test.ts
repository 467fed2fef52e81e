/**
 * nodes/shared/n8n-compat.ts against n8n's own code where it ships in the dev dependencies
 * (n8n-workflow's resolveWebhookDescriptionField and ObservableObject, @n8n/client-oauth2's
 * error texts and a real net.Server: n8n-compat.node.test.js, in JavaScript because the package's
 * lint keeps such imports out of TypeScript). The real n8n releases are judged by the e2e suite
 * and `npm run test:compat`.
 */
import * as n8nWorkflow from 'n8n-workflow';
import { ObservableObject, resolveWebhookDescriptionField } from 'n8n-workflow';
import type {
	IDataObject,
	IExecuteData,
	IExecuteFunctions,
	IWebhookDescription,
	IWebhookFunctions,
} from 'n8n-workflow';
import {
	answerWhenStored,
	canRunWaitingNodeAgain,
	credentialsCarriedBy,
	keepAsWaitingInput,
	mentionsTokenFailure,
	oauthErrorFromText,
	requestRawBody,
	nativelyResolved,
	resumesWithAllOutputs,
	runWaitingNodeAgain,
	saveInStaticData,
	whenStored,
	withNativeResolvers,
} from '../../../nodes/shared/n8n-compat';

describe('1. native webhook-description resolvers, as n8n-workflow resolves them', () => {
	const described = withNativeResolvers({
		responseMode: {
			template: '={{ "responseNode" }}',
			resolve: (p) => (p.x === 1 ? 'lastNode' : 'onReceived'),
		},
	});
	const hook = {
		name: 'default',
		httpMethod: 'POST',
		path: 'p',
		...described,
	} as unknown as IWebhookDescription;

	test('the field reads as its template; n8n-workflow takes the resolver for static parameters only, and nativelyResolved asks it the same', () => {
		expect(described.responseMode).toBe('={{ "responseNode" }}');
		expect(
			resolveWebhookDescriptionField({ parameters: { x: 1 } } as never, hook, 'responseMode'),
		).toEqual({
			resolved: true,
			value: 'lastNode',
		});
		expect(nativelyResolved({ x: 1 }, hook, 'responseMode')).toBe('lastNode');
		expect(nativelyResolved({}, hook, 'responseMode')).toBe('onReceived');
		expect(
			resolveWebhookDescriptionField(
				{ parameters: { x: '={{ 1 }}' } } as never,
				hook,
				'responseMode',
			).resolved,
		).toBe(false);
		expect(nativelyResolved({ x: '={{ 1 }}' }, hook, 'responseMode')).toBeUndefined();
		expect(
			nativelyResolved({ l: { __rl: true, mode: 'list', value: 'a' } }, hook, 'responseMode'),
		).toBeUndefined();
	});

	test('a host without the resolvers (n8n 1.x, 2.x before 2.41) evaluates the template: nothing resolves natively', () => {
		expect(nativelyResolved({ x: 1 }, hook, 'responseMode', {})).toBeUndefined();
		expect(nativelyResolved({}, hook, 'responseMode', n8nWorkflow as never)).toBe('onReceived');
	});

	test('the resolvers are not an own string key (n8n 1.x copies descriptions as JSON)', () => {
		expect(Object.keys(described)).toEqual(['responseMode']);
		expect(JSON.parse(JSON.stringify(described))).toEqual({
			responseMode: '={{ "responseNode" }}',
		});
	});
});

describe('2. answer when stored', () => {
	test('the answer is computed when n8n reads it, once, and not before', () => {
		let calls = 0;
		const result = answerWhenStored({ workflowData: [[]] }, () => ({ n: ++calls }));
		expect(calls).toBe(0);
		expect(result.webhookResponse).toEqual({ n: 1 });
		expect(result.webhookResponse).toEqual({ n: 1 });
		expect(calls).toBe(1);
		expect(Object.keys(result)).toEqual(['workflowData', 'webhookResponse']);
	});

	test('whenStored: told once, before the answer is computed; not without an answer to wait for', () => {
		const order: string[] = [];
		const stored = answerWhenStored({ workflowData: [[]] }, () => order.push('answer'));
		const result = whenStored(stored, () => order.push('told'));
		expect(order).toEqual([]);
		expect(result.webhookResponse).toBe(2);
		expect(result.webhookResponse).toBe(2);
		expect(order).toEqual(['told', 'answer']);
		expect(Object.keys(result)).toEqual(['workflowData', 'webhookResponse']);
		const plain = { workflowData: [[]] };
		expect(whenStored(plain, () => order.push('never'))).toBe(plain);
		expect(order).toEqual(['told', 'answer']);
	});
});

describe("3. static data: n8n-workflow's ObservableObject sees the change", () => {
	test('a nested change alone is not seen; saveInStaticData is', () => {
		const root = ObservableObject.create({ node: {} } as IDataObject) as IDataObject & {
			__dataChanged?: boolean;
		};
		const node = root.node as IDataObject;
		saveInStaticData(node, 'ids', { list: [] });
		expect(root.__dataChanged).toBe(true);
		root.__dataChanged = false;
		((node.ids as IDataObject).list as string[]).push('a'); // what saveInStaticData exists to avoid
		expect(root.__dataChanged).toBe(false);
		saveInStaticData(node, 'ids', node.ids); // the same object again
		expect(root.__dataChanged).toBe(true);
	});
});

describe('4. resuming a waiting node', () => {
	const ctx = (stack: unknown) =>
		({
			runExecutionData: stack,
			getNode: () => ({ name: 'Wait' }),
		}) as unknown as IWebhookFunctions;

	test('clears the disabled mark of this node on top of the stack; anything else: cannot', () => {
		const entry = { node: { name: 'Wait', disabled: true } };
		const waiting = ctx({ executionData: { nodeExecutionStack: [entry] } });
		expect(canRunWaitingNodeAgain(waiting)).toBe(true);
		runWaitingNodeAgain(waiting);
		expect(entry.node).toEqual({ name: 'Wait' });
		const other = { node: { name: 'Other', disabled: true } };
		const elsewhere = ctx({ executionData: { nodeExecutionStack: [other] } });
		expect(canRunWaitingNodeAgain(elsewhere)).toBe(false);
		runWaitingNodeAgain(elsewhere);
		expect(other.node.disabled).toBe(true);
		expect(canRunWaitingNodeAgain(ctx({ executionData: { nodeExecutionStack: [] } }))).toBe(false);
		expect(canRunWaitingNodeAgain(ctx(undefined))).toBe(false);
	});
});

describe('4b. forwarding every output of a resumed node', () => {
	test("n8n-workflow 2.39's marker: present in the dev dependency (2.41), absent from an older shape", () => {
		expect(resumesWithAllOutputs()).toBe(true);
		expect(resumesWithAllOutputs(n8nWorkflow as unknown as Record<string, unknown>)).toBe(true);
		expect(resumesWithAllOutputs({ ...n8nWorkflow, checkNodesApiVersion: undefined })).toBe(false);
		expect(resumesWithAllOutputs({})).toBe(false);
	});

	test('keepAsWaitingInput replaces the saved input, and asks for every output only when told', () => {
		const executeData = {
			data: { main: [[{ json: { nationalId: 'x' } }]] },
		} as unknown as IExecuteData;
		const setMetadata = jest.fn();
		const ctx = { getExecuteData: () => executeData, setMetadata } as unknown as IExecuteFunctions;
		keepAsWaitingInput(ctx, [[], [{ json: { outcome: 'waitTimeExceeded' } }]], false);
		expect(executeData.data.main).toEqual([[], [{ json: { outcome: 'waitTimeExceeded' } }]]);
		expect(setMetadata).not.toHaveBeenCalled();
		keepAsWaitingInput(ctx, [[]], true);
		expect(executeData.data.main).toEqual([[]]);
		expect(setMetadata).toHaveBeenCalledWith({ forwardAllOutputs: true });
	});
});

describe('5. the request', () => {
	test('raw body: a Buffer as is, a string as UTF-8, read on demand, unreadable or absent: undefined', async () => {
		expect(await requestRawBody({ rawBody: Buffer.from('ab') })).toEqual(Buffer.from('ab'));
		expect(await requestRawBody({ rawBody: 'ø' })).toEqual(Buffer.from('ø', 'utf8'));
		const lazy: { rawBody?: Buffer; readRawBody: () => Promise<void> } = {
			readRawBody: async () => {
				lazy.rawBody = Buffer.from('later');
			},
		};
		expect(await requestRawBody(lazy)).toEqual(Buffer.from('later'));
		expect(
			await requestRawBody({ readRawBody: async () => await Promise.reject(new Error('aborted')) }),
		).toBeUndefined();
		expect(await requestRawBody({ rawBody: { not: 'bytes' } })).toBeUndefined();
		expect(await requestRawBody(undefined)).toBeUndefined();
	});
});

describe("6. n8n's OAuth2 client", () => {
	test('other texts: no code, and only token words count as a token failure', () => {
		expect(oauthErrorFromText(['Request failed with status code 500'])).toBeUndefined();
		expect(mentionsTokenFailure(['Request failed with status code 500', undefined])).toBe(false);
	});

	test('credentialsCarriedBy reads a signed request (n8n writes Authorization into the options)', () => {
		const options: { headers?: Record<string, string> } = {};
		// what @n8n/client-oauth2's token.sign() does to the object it is given
		options.headers = options.headers ?? {};
		options.headers.Authorization = 'Bearer signed-1234';
		expect(credentialsCarriedBy(options)).toEqual(['Bearer signed-1234', 'signed-1234']);
	});
});
