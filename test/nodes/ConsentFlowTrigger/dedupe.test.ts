import {
	Workflow,
	deepCopy,
	type IDataObject,
	type IExecuteFunctions,
	type INodeType,
	type IWebhookFunctions,
	type IWebhookResponseData,
} from 'n8n-workflow';

import {
	type Slot,
	DEDUPE_KEY,
	DEFAULT_REMEMBERED,
	MAX_REMEMBERED,
	clampLimit,
	readRememberedIds,
} from '../../../nodes/ConsentFlowTrigger/dedupe';
import { freshDedupe, type Dedupe } from '../../support/fresh-modules';
import { recordDelivery, recordForSave, savedKeys, storedKeys } from './helpers';
import { ConsentFlowTrigger } from '../../../nodes/ConsentFlowTrigger/ConsentFlowTrigger.node';
import { answerWhenStored } from '../../../nodes/shared/n8n-compat';
import type { ParsedDelivery as IncomingDelivery } from '../../../nodes/shared/webhook/envelope';
import { answerPlan, type Answerer } from '../../../nodes/shared/webhook/decide';

// Every test runs in a new n8n process: a fresh copy of dedupe.ts, whose memory starts empty.
let memory: Dedupe;
let claim: Dedupe['claim'];
let follow: Dedupe['follow'];
let forgetDelivery: Dedupe['forgetDelivery'];
let hold: Dedupe['hold'];
let lookUp: Dedupe['lookUp'];
let recordDeliveryShared: Dedupe['recordDeliveryShared'];
let slotOf: Dedupe['slotOf'];

/** Restarts n8n: what the process remembered is gone; what it saved (static data) stays. */
function newProcess(): void {
	memory = freshDedupe();
	({ claim, follow, forgetDelivery, hold, lookUp, recordDeliveryShared, slotOf } = memory);
}

beforeEach(newProcess);

describe('recordDelivery', () => {
	it('records a new id and reports a repeat as duplicate', () => {
		const first = recordDelivery(undefined, 'a', 10);
		expect(first).toEqual({ duplicate: false, next: storedKeys(['a']) });
		const second = recordDelivery(first.next, 'b', 10);
		expect(savedKeys(second.next)).toEqual(['a', 'b']);
		expect(recordDelivery(second.next, 'a', 10)).toEqual({ duplicate: true, next: null });
	});

	it('keeps only the most recent `limit` ids', () => {
		let state: unknown = undefined;
		for (const id of ['a', 'b', 'c', 'd']) state = recordDelivery(state, id, 3).next;
		expect(readRememberedIds(state)).toEqual(['b', 'c', 'd']);
		// 'a' was forgotten: it counts as new again; 'd' is still known.
		expect(recordDelivery(state, 'a', 3).duplicate).toBe(false);
		expect(recordDelivery(state, 'd', 3).duplicate).toBe(true);
	});

	it('shrinks an over-long stored list to a lowered limit', () => {
		const stored = storedKeys(['a', 'b', 'c', 'd', 'e']);
		expect(savedKeys(recordDelivery(stored, 'f', 2).next)).toEqual(['e', 'f']);
	});

	it('tolerates junk in static data', () => {
		expect(readRememberedIds(null)).toEqual([]);
		expect(readRememberedIds('x')).toEqual([]);
		expect(readRememberedIds({ ids: 'a,b' })).toEqual([]);
		expect(readRememberedIds({ version: 3, keys: ['a', 'b'] })).toEqual([]);
		expect(recordDelivery({ version: 3, keys: 1 }, '1', 10).duplicate).toBe(false);
		// Nothing longer than a key is a key (version 2).
		expect(readRememberedIds(storedKeys(['x'.repeat(100), 'k']))).toEqual(['k']);
	});

	it('clamps the limit', () => {
		expect(clampLimit(0)).toBe(1);
		expect(clampLimit(-5)).toBe(1);
		expect(clampLimit(2.9)).toBe(2);
		expect(clampLimit(10 ** 9)).toBe(MAX_REMEMBERED);
		expect(clampLimit('abc')).toBe(DEFAULT_REMEMBERED);
		expect(clampLimit('25')).toBe(25);
	});
});

/**
 * n8n-workflow's own ObservableObject, as n8n wraps workflow static data. These tests pin down
 * the facts the trigger relies on (see docs/architecture.md, "Duplicates: how they are made exact").
 */
describe('n8n static data change tracking (n8n-workflow 2.41)', () => {
	const trigger = new ConsentFlowTrigger();
	const nodeTypes = {
		getByName: () => trigger as INodeType,
		getByNameAndVersion: () => trigger as INodeType,
		getKnownTypes: () => ({}),
	};
	const node = {
		id: 'n1',
		name: 'Consent Flow Trigger',
		type: 'n8n-nodes-sbl.consentFlowTrigger',
		typeVersion: 1,
		position: [0, 0] as [number, number],
		parameters: {},
	};
	const workflowOver = (staticData: IDataObject | undefined) =>
		new Workflow({
			id: 'wf',
			nodes: [{ ...node }],
			connections: {},
			active: true,
			nodeTypes: nodeTypes as never,
			staticData,
		});
	const stored = () =>
		JSON.parse(
			JSON.stringify({ [`node:${node.name}`]: { [DEDUPE_KEY]: storedKeys(['a']) } }),
		) as IDataObject;

	it('assigning a fresh object to the node key sets the change flag (stored data present)', () => {
		const workflow = workflowOver(stored());
		const data = workflow.getStaticData('node', workflow.getNode(node.name)!);
		expect(workflow.staticData.__dataChanged).toBe(false);
		data[DEDUPE_KEY] = recordDelivery(data[DEDUPE_KEY], 'b', 10).next as unknown as IDataObject;
		expect(workflow.staticData.__dataChanged).toBe(true);
	});

	it('assigning sets the flag on the very first write too (no stored data)', () => {
		const workflow = workflowOver(undefined);
		const data = workflow.getStaticData('node', workflow.getNode(node.name)!);
		expect(workflow.staticData.__dataChanged).toBe(false);
		data[DEDUPE_KEY] = recordDelivery(undefined, 'a', 10).next as unknown as IDataObject;
		expect(workflow.staticData.__dataChanged).toBe(true);
	});

	it('mutating an object added during the same run is not tracked', () => {
		const workflow = workflowOver(stored());
		const data = workflow.getStaticData('node', workflow.getNode(node.name)!);
		const plain = { version: 3, ids: [] as string[] };
		data.other = plain;
		workflow.staticData.__dataChanged = false;
		plain.ids.push('x');
		expect(workflow.staticData.__dataChanged).toBe(false);
	});

	it('a second Workflow over the same stored object resets the flag (what n8n 2.41.1 does before saving)', () => {
		const raw = stored();
		const workflow = workflowOver(raw);
		const data = workflow.getStaticData('node', workflow.getNode(node.name)!);
		data[DEDUPE_KEY] = recordDelivery(data[DEDUPE_KEY], 'b', 10).next as unknown as IDataObject;
		expect(workflow.staticData.__dataChanged).toBe(true);
		// WorkflowRunner.run → establishContextForPersistence: new Workflow({ staticData }) on the
		// same raw object as the webhook's Workflow.
		workflowOver(raw);
		expect(workflow.staticData.__dataChanged).toBe(false);
		// The data itself is intact; only the flag that decides whether it is saved is gone.
		expect(JSON.parse(JSON.stringify(workflow.staticData))).toEqual({
			[`node:${node.name}`]: { [DEDUPE_KEY]: storedKeys(['a', 'b']) },
		});
	});

	it('version 3: the saved object is written with every key the process has when n8n serialises it', () => {
		const workflow = workflowOver(undefined);
		const data = workflow.getStaticData('node', workflow.getNode(node.name)!);
		data[DEDUPE_KEY] = recordForSave(memory, 'v3', undefined, 'a', 10) as IDataObject;
		// another request records its key after this assignment, before n8n saves
		recordForSave(memory, 'v3', undefined, 'b', 10);
		const expected = { [`node:${node.name}`]: { [DEDUPE_KEY]: { version: 3, keys: 'a\nb' } } };
		expect(JSON.parse(JSON.stringify(workflow.staticData))).toEqual(expected);
		expect(deepCopy(workflow.staticData)).toEqual(expected);
	});

	it('version 3: a second Workflow over the same raw object wraps the saved object without walking the keys', () => {
		const raw = stored();
		const workflow = workflowOver(raw);
		const data = workflow.getStaticData('node', workflow.getNode(node.name)!);
		const saved = recordForSave(memory, 'v3w', data[DEDUPE_KEY], 'b', 10);
		data[DEDUPE_KEY] = saved as IDataObject;
		workflowOver(raw);
		expect(Object.keys(saved)).toEqual([]);
		expect(JSON.parse(JSON.stringify(raw))).toEqual({
			[`node:${node.name}`]: { [DEDUPE_KEY]: { version: 3, keys: 'a\nb' } },
		});
	});

	it('with no stored static data (first write) the second Workflow gets its own object', () => {
		const workflow = workflowOver(undefined);
		const data = workflow.getStaticData('node', workflow.getNode(node.name)!);
		data[DEDUPE_KEY] = recordDelivery(undefined, 'a', 10).next as unknown as IDataObject;
		workflowOver(undefined);
		expect(workflow.staticData.__dataChanged).toBe(true);
	});
});

describe('recordDeliveryShared (per-process memory against stale reads)', () => {
	test('a delivery that read static data before the previous write still keeps the previous id', () => {
		// n8n reloads static data per request; request B read it before request A's write landed
		const staleRead = storedKeys(['old']);
		const a = recordDeliveryShared('wf\u0000Trigger', staleRead, 'A', 10);
		expect(a.duplicate).toBe(false);
		const b = recordDeliveryShared('wf\u0000Trigger', staleRead, 'B', 10);
		expect(b.duplicate).toBe(false);
		// B's write (the state object, serialised by n8n) carries A too
		expect(b.state.ids).toEqual(['old', 'A', 'B']);
		// and a redelivery of A with the same stale read is a duplicate
		expect(recordDeliveryShared('wf\u0000Trigger', staleRead, 'A', 10).duplicate).toBe(true);
	});

	test('triggers do not share memory, and the limit applies to the merged ids', () => {
		recordDeliveryShared('wf1\u0000T', undefined, 'x', 10);
		expect(recordDeliveryShared('wf2\u0000T', undefined, 'x', 10).duplicate).toBe(false);
		let state;
		for (const id of ['a', 'b', 'c', 'd'])
			state = recordDeliveryShared('wf3\u0000T', storedKeys(['z']), id, 3).state;
		expect(state!.ids).toEqual(['b', 'c', 'd']);
	});

	test('ids stored in the database (another process, or before a restart) count as seen', () => {
		expect(recordDeliveryShared('k', storedKeys(['from-db']), 'from-db', 10).duplicate).toBe(true);
	});
});

describe('version 3 read back (a restart, another process)', () => {
	const written = (saved: object) =>
		JSON.parse(JSON.stringify(saved)) as { version: number; keys: string };

	test('stored keys are read, and written back as version 3 that a restarted process reads', () => {
		const saved = written(recordForSave(memory, 'm', storedKeys(['x', 'y']), 'z', 10));
		expect(saved).toEqual({ version: 3, keys: 'x\ny\nz' });
		newProcess();
		for (const key of ['x', 'y', 'z'])
			expect(recordDeliveryShared('m', saved, key, 10, false).duplicate).toBe(true);
		expect(recordDeliveryShared('m', saved, 'w', 10, false).duplicate).toBe(false);
	});

	test('a key with a line break is never written: it would read back as two keys', () => {
		recordForSave(memory, 'n', undefined, 'a\nb', 10);
		const saved = written(recordForSave(memory, 'n', undefined, 'c', 10));
		expect(saved).toEqual({ version: 3, keys: 'c' });
		newProcess();
		expect(recordDeliveryShared('n', saved, 'a', 10, false).duplicate).toBe(false);
		expect(readRememberedIds({ version: 3, keys: '\n\nk\n' })).toEqual(['k']);
	});

	test("its own write read back adds nothing; another process's key counts", () => {
		recordForSave(memory, 'o', undefined, 'a', 10);
		const saved = written(recordForSave(memory, 'o', undefined, 'b', 10));
		expect(recordDeliveryShared('o', saved, 'a', 10, false).duplicate).toBe(true);
		expect(recordDeliveryShared('o', saved, 'q', 10, false).duplicate).toBe(false);
		const other = { version: 3, keys: `${saved.keys}\nq` };
		expect(recordDeliveryShared('o', other, 'q', 10, false).duplicate).toBe(true);
	});

	// Two webhook processes ran one delivery at once: here its run failed, there it succeeded.
	test('a key let go here is a duplicate once another process stored it', () => {
		const before = { version: 3, keys: 'a' };
		expect(recordDeliveryShared('f', before, 'k', 10, false).duplicate).toBe(false);
		forgetDelivery('f', 'k');
		expect(recordDeliveryShared('f', before, 'k', 10, false).duplicate).toBe(false);
		const after = { version: 3, keys: 'a\nk' };
		expect(recordDeliveryShared('f', after, 'k', 10, false).duplicate).toBe(true);
	});

	test('a key let go here after its stored copy was read is read again, not skipped as seen', () => {
		const withK = { version: 3, keys: 'a\nk' };
		recordDeliveryShared('g', { version: 3, keys: 'a' }, 'k', 10, false);
		expect(recordDeliveryShared('g', withK, 'z', 10, false).duplicate).toBe(false);
		forgetDelivery('g', 'k');
		expect(recordDeliveryShared('g', undefined, 'k', 10, false).duplicate).toBe(false);
		expect(recordDeliveryShared('g', withK, 'k', 10, false).duplicate).toBe(true);
	});
});

// The memory's surface as the trigger uses it: a slot from the node's context, look-up, hold,
// follow the run through n8n's reports, and execute()'s claim. Static data and the response are
// plain objects standing in for n8n's; the rules are docs/architecture.md's settle table.

interface FakeResponse {
	statusCode: number;
	end(): void;
	once(event: string, listener: () => void): void;
	close(): void;
}

function response(): FakeResponse {
	const closers: Array<() => void> = [];
	return {
		statusCode: 200,
		end() {},
		once: (_event, listener) => void closers.push(listener),
		close: () => closers.forEach((listener) => listener()),
	};
}

interface Trigger {
	staticData: IDataObject;
	parameters: Record<string, unknown>;
	mode: 'webhook' | 'manual' | 'trigger';
	res: FakeResponse;
}

function trigger(overrides: Partial<Trigger> = {}): Trigger {
	return { staticData: {}, parameters: {}, mode: 'webhook', res: response(), ...overrides };
}

/** What the memory reads of n8n's webhook() and execute() contexts. */
function context(t: Trigger): IWebhookFunctions & IExecuteFunctions {
	const parameter = (name: string, ...rest: unknown[]) =>
		name in t.parameters ? t.parameters[name] : rest[rest.length - 1];
	return {
		getNodeParameter: parameter,
		getMode: () => t.mode,
		getWorkflow: () => ({ id: 'wf-memory' }),
		getNode: () => ({ name: 'Trigger' }),
		getWorkflowStaticData: () => t.staticData,
		getResponseObject: () => t.res,
	} as unknown as IWebhookFunctions & IExecuteFunctions;
}

const delivery = (key: string | null, also: string[] = []): IncomingDelivery =>
	({ deliveryKey: key, otherKeys: { also, legacy: [] } }) as unknown as IncomingDelivery;

/** webhook()'s path for an admitted delivery: slot, hold, follow; returns what n8n gets. */
function admitted(t: Trigger, key: string, answeredBy: Answerer) {
	const ctx = context(t);
	const slot = slotOf(ctx, delivery(key)) as Slot;
	const held = hold(slot, answerPlan(answeredBy, true));
	const run: IWebhookResponseData =
		answeredBy === 'n8n-when-stored'
			? answerWhenStored({ workflowData: [[]] }, () => ({ status: 'emitted' }))
			: { workflowData: [[]] };
	return { slot, held, data: follow(ctx, held, run) };
}

describe('the surface the trigger uses', () => {
	describe('slotOf', () => {
		it('is null without a key or with Ignore Duplicate Deliveries off', () => {
			expect(slotOf(context(trigger()), delivery(null))).toBeNull();
			const off = trigger({ parameters: { ignoreDuplicates: false } });
			expect(slotOf(context(off), delivery('k'))).toBeNull();
		});

		it('a test URL has a memory of its own and no static data', () => {
			const test = trigger({ mode: 'manual' });
			const slot = slotOf(context(test), delivery('k')) as Slot;
			expect(slot.staticData).toBeUndefined();
			hold(slot, answerPlan('execute', true));
			expect(test.staticData[DEDUPE_KEY]).toBeUndefined();
			const production = slotOf(context(trigger()), delivery('k')) as Slot;
			expect(production.memoryKey).not.toBe(slot.memoryKey);
			expect(lookUp(production)).toMatchObject({ duplicate: false, copyInFlight: false });
		});
	});

	describe('follow: n8n answering when it stored the execution (row 12)', () => {
		it('reading the answer remembers the key in static data, then answers as planned', () => {
			const t = trigger();
			const { slot, data } = admitted(t, 'stored-1', 'n8n-when-stored');
			expect(lookUp(slot)).toMatchObject({ duplicate: false, copyInFlight: true });
			expect(data.webhookResponse).toEqual({ status: 'emitted' });
			expect(savedKeys(t.staticData[DEDUPE_KEY])).toEqual(['stored-1']);
			expect(lookUp(slot)).toMatchObject({ duplicate: true, copyInFlight: false });
		});
	});

	describe('follow: n8n answering after the run (row 14)', () => {
		it('a closed connection holds the copies; a failed run lets the key go', () => {
			const t = trigger();
			const { slot } = admitted(t, 'after-1', 'n8n-after-run');
			t.res.close();
			expect(lookUp(slot)).toMatchObject({ duplicate: false, copyInFlight: true });
			t.res.statusCode = 500;
			t.res.end();
			expect(lookUp(slot)).toMatchObject({ duplicate: false, copyInFlight: false });
		});

		it('a 2xx remembers the key, also after the sender hung up', () => {
			const t = trigger();
			const { slot } = admitted(t, 'after-2', 'n8n-after-run');
			t.res.close();
			t.res.end();
			expect(lookUp(slot).duplicate).toBe(true);
			expect(savedKeys(t.staticData[DEDUPE_KEY])).toEqual(['after-2']);
		});
	});

	describe('claim (execute(), row 13)', () => {
		const carrier = (key: string | null, nonce: string, answeredBy: Answerer = 'execute') => ({
			key,
			nonce,
			answeredBy,
		});

		it('the copy webhook() took here is mine: remembered in the execution’s static data', () => {
			const t = trigger();
			const { slot, held } = admitted(t, 'exec-1', 'execute');
			const execution = trigger();
			expect(claim(context(execution), carrier('exec-1', held.nonce))).toBe('mine');
			expect(savedKeys(execution.staticData[DEDUPE_KEY])).toEqual(['exec-1']);
			expect(lookUp(slot)).toMatchObject({ duplicate: true, copyInFlight: false });
		});

		it('another copy of a key claimed here is taken', () => {
			const { held } = admitted(trigger(), 'exec-2', 'execute');
			expect(claim(context(trigger()), carrier('exec-2', held.nonce))).toBe('mine');
			expect(claim(context(trigger()), carrier('exec-2', 'other'))).toBe('taken');
		});

		it('a copy another process took is mine and writes nothing here (a queue-mode worker)', () => {
			const worker = trigger();
			expect(claim(context(worker), carrier('exec-3', 'theirs'))).toBe('mine');
			expect(worker.staticData[DEDUPE_KEY]).toBeUndefined();
			expect(claim(context(worker), carrier('exec-3', 'another'))).toBe('taken');
		});

		it('nothing is checked after the run, on a test URL, without a key or a nonce', () => {
			expect(claim(context(trigger()), carrier('k', 'n', 'n8n-after-run'))).toBeNull();
			expect(claim(context(trigger({ mode: 'manual' })), carrier('k', 'n'))).toBeNull();
			expect(claim(context(trigger()), carrier(null, 'n'))).toBeNull();
			expect(claim(context(trigger()), carrier('k', ''))).toBeNull();
		});
	});
});
