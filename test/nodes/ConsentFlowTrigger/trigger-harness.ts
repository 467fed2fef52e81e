// The trigger in the n8n-like HTTP harness, for the test files of this folder: one call per
// file; every test runs in a new n8n process (fresh modules), and every harness is closed after it.
import type { IDataObject } from 'n8n-workflow';

import { OUTPUT_NAMES } from '../../support/outputs';
import { freshTrigger, type TriggerProcess } from '../../support/fresh-modules';
import { harnessMajor, startHarness, type Harness, type HarnessOptions } from './http-harness';
import { SIGNING_KEY } from './helpers';

export const CREDENTIALS = { secret: SIGNING_KEY, signatureHeader: '' };

/** Starts a harness around the trigger of the test's current n8n process. */
export interface TriggerHarness {
	(options?: Partial<HarnessOptions>): Promise<Harness>;
	/** Restarts n8n: harnesses started from now on run in a new process; a `db` keeps its data. */
	restart(): void;
}

/** Registers the per-test hooks; returns a function that starts a harness around the trigger. */
export function useTriggerHarness(): TriggerHarness {
	const open: Harness[] = [];
	// The delivery memory and the credential cache live in the process; loaded at the first start.
	let n8n: TriggerProcess | undefined;
	afterEach(async () => {
		n8n = undefined;
		while (open.length > 0) await open.pop()!.close();
	});
	const start = async (options: Partial<HarnessOptions> = {}) => {
		n8n ??= freshTrigger(options.n8nMajor ?? harnessMajor());
		const { ConsentFlowTrigger } = n8n;
		const started = await startHarness({
			createNode: () => new ConsentFlowTrigger(),
			credentials: CREDENTIALS,
			...options,
		});
		open.push(started);
		return started;
	};
	return Object.assign(start, {
		restart: () => {
			n8n = undefined;
		},
	});
}

/**
 * The single emitted item and its output index; fails unless exactly one item was emitted and
 * the node has `outputs` outputs (every event selected: all of them).
 */
export function emitted(
	h: Harness,
	execution = h.executions.length - 1,
	outputs = OUTPUT_NAMES.length,
) {
	const data = h.executions[execution].workflowData;
	expect(data).toHaveLength(outputs);
	const filled = data
		.map((items, index) => ({ items, index }))
		.filter(({ items }) => items.length > 0);
	expect(filled).toHaveLength(1);
	expect(filled[0].items).toHaveLength(1);
	return { index: filled[0].index, json: filled[0].items[0].json as IDataObject };
}
