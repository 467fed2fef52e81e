// The trigger in the n8n-like HTTP harness, for the test files of this folder: one call per
// file sets up a fresh process memory per test and closes every harness after it.
import type { IDataObject } from 'n8n-workflow';

import { ConsentFlowTrigger } from '../../../nodes/ConsentFlowTrigger/ConsentFlowTrigger.node';
import { resetCredentialCache } from '../../../nodes/shared/webhook/credential-cache';
import { resetInFlight, resetProcessMemory } from '../../../nodes/ConsentFlowTrigger/dedupe';
import { resetNativeResolution } from '../../../nodes/ConsentFlowTrigger/respond';
import { OUTPUT_NAMES } from '../../../nodes/shared/webhook/envelope';
import { startHarness, type Harness, type HarnessOptions } from './http-harness';
import { SIGNING_KEY } from './helpers';

export const CREDENTIALS = { secret: SIGNING_KEY, signatureHeader: '' };

/** Registers the per-test hooks; returns a function that starts a harness around the trigger. */
export function useTriggerHarness(): (options?: Partial<HarnessOptions>) => Promise<Harness> {
	const open: Harness[] = [];
	// The duplicate memory also lives in the process; every test starts as a fresh process.
	beforeEach(() => {
		resetProcessMemory();
		resetInFlight();
		resetCredentialCache();
		resetNativeResolution();
	});
	afterEach(async () => {
		while (open.length > 0) await open.pop()!.close();
	});
	return async (options = {}) => {
		const started = await startHarness({
			createNode: () => new ConsentFlowTrigger(),
			credentials: CREDENTIALS,
			...options,
		});
		open.push(started);
		return started;
	};
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
