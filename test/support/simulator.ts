/**
 * The simulator (test/simulator) for the node tests: its types (the simulator's own declaration,
 * test/simulator/index.d.ts), one simulator per test file for jest, and its control API (/__sim,
 * see test/simulator/README.md) over real HTTP.
 */
import type { IDataObject } from 'n8n-workflow';
import { startSimulator } from '../simulator';
import type {
	SimulatorFault,
	SimulatorHandle,
	SimulatorOptions,
	SimulatorRequest,
} from '../simulator';
import { control } from './sim-control';

export type {
	SimulatorClient,
	SimulatorFault,
	SimulatorHandle,
	SimulatorOptions,
	SimulatorRealm,
	SimulatorRequest,
} from '../simulator';
export { call, control, controlResponse } from './sim-control';
export type { CallOptions, CallResult } from './sim-control';

/** A simulator on a free port. */
export async function startSim(options: SimulatorOptions = {}): Promise<SimulatorHandle> {
	return await startSimulator({ port: 0, ...options });
}

export interface UseSimulatorOptions extends SimulatorOptions {
	/**
	 * Before each test: 'reset' (request log, faults, flows, deliveries, stored documents and
	 * config back to the start options) or 'clearLog' (the request log only). Default: nothing.
	 */
	beforeEach?: 'reset' | 'clearLog';
}

/**
 * One simulator for the test file: started before all tests (on a free port), closed after all.
 * Returns its handle, filled in once the simulator has started: read it in hooks and tests, not
 * at the top level of the file.
 */
export function useSimulator(options: UseSimulatorOptions = {}): SimulatorHandle {
	const { beforeEach: eachTest, ...simulatorOptions } = options;
	const handle = {} as SimulatorHandle;
	let started: SimulatorHandle | undefined;
	beforeAll(async () => {
		started = await startSim(simulatorOptions);
		Object.assign(handle, started);
	});
	afterAll(async () => {
		await started?.close();
	});
	if (eachTest === 'reset') beforeEach(async () => await resetSim(handle));
	if (eachTest === 'clearLog') beforeEach(async () => await clearLog(handle));
	return handle;
}

export async function resetSim(sim: SimulatorHandle): Promise<void> {
	await control(sim, 'POST', '/reset');
}

export async function clearLog(sim: SimulatorHandle): Promise<void> {
	await control(sim, 'DELETE', '/requests');
}

export interface RequestFilter {
	method?: string;
	pathPrefix?: string;
	/** Only entries after this sequence number. */
	since?: number;
}

/** The request log (API calls and token requests), oldest first, filtered by the simulator. */
export async function simRequests(
	sim: SimulatorHandle,
	filter: RequestFilter = {},
): Promise<SimulatorRequest[]> {
	const query = new URLSearchParams();
	for (const [key, value] of Object.entries(filter)) if (value) query.set(key, String(value));
	const search = query.toString() ? `?${query.toString()}` : '';
	return (await control<{ requests: SimulatorRequest[] }>(sim, 'GET', `/requests${search}`))
		.requests;
}

export async function addFault(sim: SimulatorHandle, fault: SimulatorFault): Promise<void> {
	await control(sim, 'POST', '/faults', fault);
}

/** The consent flows with the simulator's own fields (scenario, deleted, …). */
export async function simFlows(sim: SimulatorHandle): Promise<IDataObject[]> {
	return (await control<{ flows: IDataObject[] }>(sim, 'GET', '/flows')).flows;
}
